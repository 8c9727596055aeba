"""Render throughput: ``pressmark crawl --render always`` versus a bare Playwright loop.

The site is N JavaScript shells served as static files by nginx (Debian's
``nginx-light``; ``--server python`` serves the same files from a threaded
``http.server`` instead). Each shell holds an empty ``<div id=root>``; after a
deterministic 50-400 ms it fetches ``/api/<i>.json`` and builds an ``<article>``
(about 2 KB of text with the page's marker word), plus what real pages carry: an
image, a web font, an analytics script that sends a beacon, and a prefetch hint.
The shells are listed in ``/sitemap.xml`` (named by ``/robots.txt``); ``/`` links
to nothing. Each shell also records, in its own MutationObserver, the page-clock
time of the last change inside ``<article>`` as ``<html data-last-mutation>``, so
readiness promptness is measured by the page, not by the renderer under test.

Contenders (same Chromium binary, rounds rotate the order so load from other
processes hits all alike):

- ``bare K``: the obvious script. One browser and context, K long-lived pages;
  each loops ``goto(url, wait_until="commit")``, ``wait_for_function`` until
  ``article`` holds > 500 characters, ``page.content()``. Images, fonts and media
  are blocked by a ``page.route`` handler. No proxy, no stability window.
- ``crawl``: ``pressmark crawl ORIGIN/ --discovery sitemap --render always
  --concurrency 4 --per-host-concurrency 4 --delay-ms 0 --no-markdown
  --include /stories/`` with the render defaults (readiness contract intact: main
  content then a 500 ms stability window). Its time is the manifest's
  ``duration_s`` (the engine run, including Chromium's launch and sitemap
  discovery); the bare loop's time also includes its browser launch.
- ``renderer`` (``--renderer``): ``PlaywrightRenderer`` called directly with the
  defaults, to report readiness promptness per page.

Every contender must return all N shells with their marker text (checked in the
HTML each returned; for the crawl, in the snapshots of its store). Peak memory is
the summed PSS of this process and all its descendants (Playwright's driver, every
Chromium process, the crawl subprocess), sampled every 200 ms; nginx is not
counted. CPU seconds are split into Chromium, Python (the crawl process, or this
process for the in-process contenders) and the server.

    python bench/render_throughput.py [--pages 200] [--rounds 3] [--ks 4,8]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MIN_CHARS = 500
MARKER = "pmark{:04d}"

# -- the site --------------------------------------------------------------------------

SHELL_JS = r"""
(function () {
  var D = document, html = D.documentElement;
  var seen = new MutationObserver(function () {
    html.setAttribute('data-last-mutation', performance.now().toFixed(1));
  });
  function build(data) {
    var art = D.createElement('article'), x;
    D.getElementById('root').appendChild(art);
    seen.observe(art, {subtree: true, childList: true, characterData: true});
    x = D.createElement('h1'); x.textContent = data.title; art.appendChild(x);
    data.paragraphs.forEach(function (p, i) {
      // The article arrives in two steps, as hydration often does.
      setTimeout(function () {
        x = D.createElement('p'); x.textContent = p; art.appendChild(x);
      }, i < 3 ? 0 : 30);
    });
  }
  window.__boot = function (api, delay) {
    setTimeout(function () {
      fetch(api).then(function (r) { return r.json(); }).then(build);
    }, delay);
  };
})();
"""

ANALYTICS_JS = r"""
(function () {
  var body = JSON.stringify({page: location.pathname, t: Date.now()});
  if (navigator.sendBeacon) navigator.sendBeacon('/collect', body);
  var img = new Image(); img.src = '/pixel.gif?p=' + encodeURIComponent(location.pathname);
})();
"""

WORDS = [
    "harbour", "tide", "ledger", "lantern", "quay", "ferry", "cargo", "rope", "anchor",
    "gull", "mist", "pier", "chart", "beacon", "keel", "hull", "mast", "sail", "dock",
    "crane", "net", "salt", "storm", "wave", "current", "reef",
]  # fmt: skip


def _paragraphs(i: int) -> list[str]:
    out = []
    for p in range(8):
        words = [WORDS[(i * 7 + p * 3 + w * 5) % len(WORDS)] for w in range(40)]
        if p == 0:
            words[5] = MARKER.format(i)
        out.append(" ".join(words).capitalize() + ".")
    return out


def build_site(root: Path, n: int) -> list[str]:
    """Write the static site; return the shells' paths."""
    (root / "stories").mkdir(parents=True)
    (root / "api").mkdir()
    (root / "js").mkdir()
    (root / "img").mkdir()
    (root / "js" / "shell.js").write_text(SHELL_JS)
    (root / "js" / "analytics.js").write_text(ANALYTICS_JS)
    (root / "img" / "hero.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(4000))
    (root / "pixel.gif").write_bytes(b"GIF89a" + bytes(40))
    (root / "font.woff2").write_bytes(b"wOF2" + bytes(20000))
    (root / "collect").write_text("")
    paths = []
    for i in range(n):
        path = f"/stories/s{i:04d}.html"
        paths.append(path)
        delay = 50 + (i * 37) % 351
        (root / "api" / f"{i:04d}.json").write_text(
            json.dumps({"title": f"Story {i}", "paragraphs": _paragraphs(i)})
        )
        (root / path.lstrip("/")).write_text(
            "<!doctype html><html lang=en><head><meta charset=utf-8>"
            f"<title>Story {i}</title>"
            "<style>@font-face{font-family:F;src:url(/font.woff2)}body{font-family:F}</style>"
            f'<link rel="prefetch" href="/api/{(i + 1) % n:04d}.json">'
            '<script src="/js/shell.js"></script>'
            '<script async src="/js/analytics.js"></script></head><body>'
            "<header><nav><a href=/>Home</a></nav></header>"
            '<img src="/img/hero.png" alt="">'
            '<div id="root"></div>'
            f'<script>window.__boot("/api/{i:04d}.json", {delay});</script>'
            "<footer>The bench gazette</footer></body></html>"
        )
    (root / "index.html").write_text("<!doctype html><title>bench</title><p>index</p>")
    return paths


def write_sitemap(root: Path, origin: str, paths: list[str]) -> None:
    locs = "".join(f"<url><loc>{origin}{p}</loc></url>" for p in paths)
    (root / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>'
    )
    (root / "robots.txt").write_text(f"User-agent: *\nAllow: /\nSitemap: {origin}/sitemap.xml\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve(root: Path, kind: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    if kind == "nginx":
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        conf = root.parent / "nginx.conf"
        conf.write_text(
            "daemon off; worker_processes 1; error_log stderr error;"
            f" pid {root.parent}/nginx.pid; user root;\n"
            "events { worker_connections 1024; }\n"
            "http { access_log off; sendfile on; keepalive_requests 100000;"
            " types { text/html html; application/javascript js; application/json json;"
            " image/png png; image/gif gif; font/woff2 woff2; application/xml xml;"
            " text/plain txt; }\n"
            f" server {{ listen 127.0.0.1:{port}; root {root}; index index.html;"
            " location = /collect { return 204; } } }\n"
        )
        cmd = [nginx, "-c", str(conf), "-p", str(root.parent)]
    else:
        cmd = [sys.executable, "-m", "http.server", str(port), "-b", "127.0.0.1", "-d", str(root)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            break
        time.sleep(0.05)
    else:
        proc.kill()
        raise RuntimeError(f"{kind} did not start: {proc.stderr.read() if proc.stderr else ''}")
    try:
        yield origin, proc
    finally:
        proc.terminate()
        proc.wait(10)


# -- measuring ---------------------------------------------------------------------------


@dataclass
class Sampler:
    """Peak summed PSS and CPU seconds by kind over this process's descendants."""

    exclude: set[int]
    peak_mb: float = 0.0
    peak_by_kind: dict[str, float] = field(default_factory=dict)  # PSS MB at the peak
    cpu: dict[int, tuple[str, float]] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    @staticmethod
    def _kind(proc: Any) -> str:
        try:
            name = proc.name()
        except Exception:
            return "other"
        if "chrom" in name or "headless" in name:
            # Chromium's process types: the browser (no --type), renderers, the
            # zygotes, the GPU and utility (network, storage) processes.
            try:
                kind = next((a[7:] for a in proc.cmdline() if a.startswith("--type=")), "browser")
            except Exception:
                kind = "browser"
            return f"chromium.{kind}"
        if name.startswith("python") or name == "pressmark":
            return "python"
        if name == "node":
            return "driver"
        return "other"

    def _sample(self) -> None:
        import psutil

        me = psutil.Process(os.getpid())
        total = 0
        by_kind: dict[str, float] = {}
        for proc in [me, *me.children(recursive=True)]:
            if proc.pid in self.exclude:
                continue
            try:
                pss = proc.memory_full_info().pss
                times = proc.cpu_times()
                kind = self.cpu[proc.pid][0] if proc.pid in self.cpu else self._kind(proc)
                self.cpu[proc.pid] = (kind, times.user + times.system)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            total += pss
            by_kind[kind] = by_kind.get(kind, 0.0) + pss / 2**20
        if total / 2**20 > self.peak_mb:
            self.peak_mb = total / 2**20
            self.peak_by_kind = {k: round(v) for k, v in sorted(by_kind.items())}

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            self._sample()

    def __enter__(self) -> Sampler:
        self._sample()
        self._base = {pid: v for pid, (_, v) in self.cpu.items()}
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._sample()

    def cpu_by_kind(self) -> dict[str, float]:
        """CPU seconds by kind; ``chromium`` sums every Chromium process type."""
        out: dict[str, float] = {}
        for pid, (kind, value) in self.cpu.items():
            used = value - self._base.get(pid, 0.0)
            out[kind] = out.get(kind, 0.0) + used
            if kind.startswith("chromium."):
                out["chromium"] = out.get("chromium", 0.0) + used
        return {k: round(v, 1) for k, v in sorted(out.items())}

    def processes_by_kind(self) -> dict[str, int]:
        """How many processes of each kind were seen (a renderer that lived less than
        one sampling period may be missed)."""
        out: dict[str, int] = {}
        for pid, (kind, _) in self.cpu.items():
            if pid not in self._base:
                out[kind] = out.get(kind, 0) + 1
        return dict(sorted(out.items()))


def machine_busy() -> tuple[float, float]:
    with open("/proc/stat") as handle:
        parts = [float(x) for x in handle.readline().split()[1:]]
    idle = parts[3] + parts[4]
    return sum(parts), idle


@dataclass
class Run:
    seconds: float
    pages: int  # shells returned with their marker text
    extra: dict[str, Any] = field(default_factory=dict)


def has_marker(html: str, index: int) -> bool:
    return MARKER.format(index) in html


def index_of(url: str) -> int:
    return int(url.rsplit("/s", 1)[1].split(".", maxsplit=1)[0])


# -- contenders --------------------------------------------------------------------------

BLOCKED = {"image", "font", "media"}


async def bare_loop(urls: list[str], k: int, executable: str) -> Run:
    from playwright.async_api import Route, async_playwright

    async def block(route: Route) -> None:
        if route.request.resource_type in BLOCKED:
            await route.abort()
        else:
            await route.continue_()

    started = time.monotonic()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        context = await browser.new_context()
        queue = list(reversed(urls))
        ok = 0

        async def worker() -> None:
            nonlocal ok
            page = await context.new_page()
            await page.route("**/*", block)
            while queue:
                url = queue.pop()
                await page.goto(url, wait_until="commit")
                await page.wait_for_function(
                    "(n) => { const a = document.querySelector('article');"
                    " return !!a && a.innerText.length > n; }",
                    arg=MIN_CHARS,
                )
                html = await page.content()  # (not inside ``ok += ...``: that loses updates)
                ok += has_marker(html, index_of(url))
            await page.close()

        await asyncio.gather(*(worker() for _ in range(k)))
        elapsed = time.monotonic() - started
        await browser.close()
    return Run(elapsed, ok)


async def renderer_loop(urls: list[str], executable: str, origin: str) -> Run:
    from pressmark.egress import EgressPolicy
    from pressmark.render import PlaywrightRenderer, RenderOptions

    policy = EgressPolicy().allow_loopback(origin)
    started = time.monotonic()
    async with PlaywrightRenderer(policy=policy, executable=executable) as renderer:
        results = await asyncio.gather(*(renderer.render(u, RenderOptions()) for u in urls))
        elapsed = time.monotonic() - started
        slots = getattr(renderer.pool, "slots", None)
    ok, late, readiness = 0, [], []
    window = RenderOptions().readiness.stability_window_ms
    for url, result in zip(urls, results, strict=True):
        ok += has_marker(result.html, index_of(url)) and bool(result.readiness.passed)
        report = result.readiness
        readiness.append(report.elapsed_ms)
        confirmed = report.stable_at_ms
        marker = 'data-last-mutation="'
        at = result.html.find(marker)
        if confirmed is not None and at >= 0:
            last = float(result.html[at + len(marker) :].split('"', 1)[0])
            late.append((confirmed - (last + window), confirmed, last))
    extra: dict[str, Any] = {"slots": slots, "readiness_ms_median": statistics.median(readiness)}
    if late:
        extra["promptness"] = {
            "window_ms": window,
            "median_confirmed_ms": round(statistics.median(c for _, c, _ in late), 1),
            "median_last_mutation_ms": round(statistics.median(m for _, _, m in late), 1),
            "median_difference_ms": round(statistics.median(d for d, _, _ in late), 1),
            "max_difference_ms": round(max(d for d, _, _ in late), 1),
            "min_difference_ms": round(min(d for d, _, _ in late), 1),
        }
    return Run(elapsed, ok, extra)


def pressmark_cli() -> list[str]:
    script = Path(sys.executable).with_name("pressmark")
    return [str(script)] if script.exists() else [sys.executable, "-m", "pressmark"]


async def crawl_loop(origin: str, executable: str, extra_args: list[str]) -> Run:
    from pressmark.store import open_store

    with tempfile.TemporaryDirectory(prefix="pressmark-render-bench-") as tmp:
        out = Path(tmp) / "out"
        cmd = [
            *pressmark_cli(), "crawl", origin + "/",
            "--discovery", "sitemap", "--render", "always",
            "--concurrency", "4", "--per-host-concurrency", "4", "--delay-ms", "0",
            "--include", "/stories/", "--no-markdown",
            "--allow-loopback", origin, "--out", str(out), "-q", *extra_args,
        ]  # fmt: skip
        env = {**os.environ, "PRESSMARK_CHROMIUM": executable}
        started = time.monotonic()
        proc = await asyncio.create_subprocess_exec(
            *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
        )
        stdout, stderr = await proc.communicate()
        wall = time.monotonic() - started
        if proc.returncode != 0:
            raise RuntimeError(f"crawl exited {proc.returncode}:\n{stdout!r}\n{stderr!r}")
        manifest = json.loads((out / "manifest.json").read_text())
        rows = [json.loads(x) for x in (out / "pages.jsonl").read_text().splitlines() if x]
        store = open_store(out / "store")
        ok, ready, warned = 0, [], 0
        for row in rows:
            if "/stories/" not in row["url"] or not row.get("rendered"):
                continue
            snap = store.latest(row["source_id"])
            ok += snap is not None and has_marker(snap.bytes.decode(), index_of(row["url"]))
            if row.get("readiness_ms") is not None:
                ready.append(row["readiness_ms"])
            warned += any("readiness" in w for w in row.get("warnings") or ())
    return Run(
        float(manifest["summary"]["duration_s"]),
        ok,
        {
            "wall_s": round(wall, 2),
            "rows": len(rows),
            "readiness_warnings": warned,
            "readiness_ms_median": statistics.median(ready) if ready else None,
        },
    )


# -- driver ------------------------------------------------------------------------------


async def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ks", default="4,8", help="bare-loop page counts; first is the anchor")
    parser.add_argument("--server", choices=["nginx", "python"], default="nginx")
    parser.add_argument("--renderer", action="store_true", help="also run PlaywrightRenderer")
    parser.add_argument("--crawl-arg", action="append", default=[], help="extra crawl flag")
    parser.add_argument("--crawl-slots", default="",
                        help="also run the crawl with these --render-concurrency values")
    args = parser.parse_args()

    from pressmark.render import find_chromium

    executable = find_chromium()
    ks = [int(x) for x in args.ks.split(",")]
    slots = [int(x) for x in args.crawl_slots.split(",") if x]
    modes = [f"bare{k}" for k in ks] + ["crawl"] + [f"crawl@{n}" for n in slots]
    modes += ["renderer"] if args.renderer else []
    results: dict[str, list[Run]] = {m: [] for m in modes}
    peaks: dict[str, list[float]] = {m: [] for m in modes}
    cpus: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
    with tempfile.TemporaryDirectory(prefix="pressmark-render-site-") as tmp:
        root = Path(tmp) / "site"
        paths = build_site(root, args.pages)
        os.chmod(tmp, 0o755)
        with serve(root, args.server) as (origin, server):
            write_sitemap(root, origin, paths)
            urls = [origin + p for p in paths]
            for round_no in range(args.rounds):
                order = modes[round_no % len(modes) :] + modes[: round_no % len(modes)]
                if round_no % 2:
                    order.reverse()
                for mode in order:
                    total0, idle0 = machine_busy()
                    with Sampler(exclude={server.pid}) as sampler:
                        if mode.startswith("bare"):
                            run = await bare_loop(urls, int(mode[4:]), executable)
                        elif mode == "renderer":
                            run = await renderer_loop(urls, executable, origin)
                        else:
                            extra = list(args.crawl_arg)
                            if "@" in mode:
                                extra += ["--render-concurrency", mode.split("@")[1]]
                            run = await crawl_loop(origin, executable, extra)
                    total1, idle1 = machine_busy()
                    busy = 1 - (idle1 - idle0) / max(1.0, total1 - total0)
                    results[mode].append(run)
                    peaks[mode].append(sampler.peak_mb)
                    cpus[mode].append(sampler.cpu_by_kind())
                    print(
                        f"round {round_no + 1} {mode:8s} {run.pages}/{len(urls)} in"
                        f" {run.seconds:6.2f} s = {run.pages / run.seconds:5.2f} pages/s,"
                        f" peak PSS {sampler.peak_mb:6.0f} MB {sampler.peak_by_kind},"
                        f" cpu s {sampler.cpu_by_kind()},"
                        f" machine busy {busy:.0%}, processes {sampler.processes_by_kind()}"
                        f" {run.extra}",
                        flush=True,
                    )
    rate = {m: statistics.median(r.pages / r.seconds for r in runs) for m, runs in results.items()}
    pss = {m: statistics.median(v) for m, v in peaks.items()}
    anchor = f"bare{ks[0]}"
    summary: dict[str, Any] = {
        "pages": args.pages,
        "rounds": args.rounds,
        "server": args.server,
        "chromium": executable,
        "pages_per_s": {m: round(v, 2) for m, v in rate.items()},
        "ratio_to_anchor": {m: round(v / rate[anchor], 3) for m, v in rate.items()},
        "peak_pss_mb": {m: round(v) for m, v in pss.items()},
        "pss_ratio_to_anchor": {m: round(v / pss[anchor], 3) for m, v in pss.items()},
        "all_marked": {m: all(r.pages == len(paths) for r in runs) for m, runs in results.items()},
        "cpu_s_median": {
            m: {k: round(statistics.median(c.get(k, 0.0) for c in v), 1) for k in v[0]}
            for m, v in cpus.items()
        },
    }
    for mode in ("crawl", "renderer"):
        if mode in results:
            summary[f"{mode}_last"] = results[mode][-1].extra
    print(json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    asyncio.run(main())
