"""Render throughput: PlaywrightRenderer and ``pressmark crawl`` versus a bare Playwright loop.

All three render the demo site's shell pages with the same Chromium binary, the same
number of concurrent pages K and the same readiness condition (the main element
holds >= 200 characters, then its text is unchanged for 500 ms, polled every 100 ms);
all open a fresh context per page. The bare loop has no proxy, no init script, no
resource blocking and no deadline bookkeeping: it is the floor our render path is
measured against. The third contender is the CLI, in a subprocess:

    pressmark crawl ORIGIN/ --discovery sitemap --render always --concurrency K
        --per-host-concurrency K --include /stories/ --no-markdown
        --allow-loopback ORIGIN --out TMP -q

(the shells are exactly the /stories/ pages, all in the sitemap; the seed ``/`` is
rendered too, so it renders the shells plus the home page). Its pages/s is the
number of rendered pages in pages.jsonl over the manifest's ``duration_s``: the
engine's run, from the seed's admission to the last page, which includes sitemap
discovery and the lazy Chromium launch (the other two start their clock after the
launch) but not interpreter start-up, imports or writing the manifest. The rate
over the whole process's wall time is printed next to it.

Rounds rotate the order (bare, renderer, crawl; crawl, renderer, bare; ...) so load
from other processes hits all alike. Peak memory is the summed PSS of this process
and all its descendants (Playwright's driver, every Chromium process, and the crawl
subprocess with its own Chromium), sampled every 200 ms; the demo server runs in its
own process and is not counted.

    python bench/render_throughput.py [--k 4] [--rounds 2] [--pages 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MIN_CHARS = 200
WINDOW_MS = 500
POLL_MS = 100

MAIN_JS = """(min) => {
  for (const sel of ['main', 'article', '[role=main]']) {
    const el = document.querySelector(sel);
    if (el) return (el.innerText || '').replace(/\\s+/g, ' ').trim().length >= min;
  }
  return false;
}"""
TEXT_JS = """() => {
  for (const sel of ['main', 'article', '[role=main]']) {
    const el = document.querySelector(sel);
    if (el) return (el.innerText || '').replace(/\\s+/g, ' ').trim();
  }
  return document.body ? document.body.innerText : '';
}"""


@dataclass
class MemorySampler:
    exclude: set[int]
    peak_mb: float = 0.0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def _sample(self) -> float:
        import psutil

        me = psutil.Process(os.getpid())
        total = 0
        for proc in [me, *me.children(recursive=True)]:
            if proc.pid in self.exclude:
                continue
            try:
                total += proc.memory_full_info().pss
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        return total / 2**20

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            self.peak_mb = max(self.peak_mb, self._sample())

    def __enter__(self) -> MemorySampler:
        self.peak_mb = self._sample()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


def start_demo(pages: int) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "pressmark.demo", "serve", "--port", "0", "--pages", str(pages)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if "http://" in line:
            url = line[line.index("http://") :].split()[0].rstrip("/")
            return proc, url
    proc.kill()
    raise RuntimeError("the demo server did not start")


async def bare_loop(urls: list[str], k: int, executable: str) -> tuple[float, int]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=executable,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        queue: asyncio.Queue[str] = asyncio.Queue()
        for url in urls:
            queue.put_nowait(url)
        done = 0

        async def worker() -> None:
            nonlocal done
            while not queue.empty():
                url = queue.get_nowait()
                context = await browser.new_context()
                page = await context.new_page()
                await page.goto(url, wait_until="commit")
                await page.wait_for_function(MAIN_JS, arg=MIN_CHARS, polling=POLL_MS)
                last, since = None, time.monotonic()
                while True:
                    text = await page.evaluate(TEXT_JS)
                    now = time.monotonic()
                    if text != last:
                        last, since = text, now
                    elif (now - since) * 1000 >= WINDOW_MS:
                        break
                    await asyncio.sleep(POLL_MS / 1000)
                html = await page.content()
                assert len(html) > MIN_CHARS
                await context.close()
                done += 1

        started = time.monotonic()
        await asyncio.gather(*(worker() for _ in range(k)))
        elapsed = time.monotonic() - started
        await browser.close()
    return elapsed, done


async def renderer_loop(
    urls: list[str], k: int, executable: str, origin: str
) -> tuple[float, int, int]:
    from pressmark.egress import EgressPolicy
    from pressmark.render import PlaywrightRenderer, PoolLimits, ReadinessSpec, RenderOptions

    options = RenderOptions(
        readiness=ReadinessSpec(
            min_main_text_chars=MIN_CHARS, stability_window_ms=WINDOW_MS, poll_interval_ms=POLL_MS
        )
    )
    policy = EgressPolicy().allow_loopback(origin)
    async with PlaywrightRenderer(
        policy=policy, executable=executable, limits=PoolLimits(max_pages=k)
    ) as renderer:
        started = time.monotonic()
        results = await asyncio.gather(*(renderer.render(url, options) for url in urls))
        elapsed = time.monotonic() - started
    passed = sum(1 for r in results if r.readiness is not None and r.readiness.passed)
    return elapsed, len(results), passed


@dataclass(frozen=True)
class CrawlRun:
    duration_s: float  # the manifest's duration_s: the engine's run
    wall_s: float  # the whole subprocess, start to exit
    rendered: int  # rows of pages.jsonl with rendered = true
    shells: int  # of which /stories/ pages
    passed: int  # rendered pages with no readiness warning
    rows: int


def pressmark_cli() -> list[str]:
    """The installed ``pressmark`` script next to this interpreter, else ``-m pressmark``."""
    script = Path(sys.executable).with_name("pressmark")
    return [str(script)] if script.exists() else [sys.executable, "-m", "pressmark"]


async def crawl_loop(k: int, origin: str, executable: str) -> CrawlRun:
    with tempfile.TemporaryDirectory(prefix="pressmark-render-bench-") as tmp:
        out = Path(tmp) / "out"
        cmd = [
            *pressmark_cli(), "crawl", origin + "/",
            "--discovery", "sitemap", "--render", "always",
            "--concurrency", str(k), "--per-host-concurrency", str(k),
            "--include", "/stories/", "--no-markdown",
            "--allow-loopback", origin, "--out", str(out), "-q",
        ]  # fmt: skip
        env = {**os.environ, "PRESSMARK_CHROMIUM": executable}  # the same Chromium
        started = time.monotonic()
        proc = await asyncio.create_subprocess_exec(
            *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
        )
        stdout, stderr = await proc.communicate()
        wall = time.monotonic() - started
        if proc.returncode != 0:
            raise RuntimeError(
                f"pressmark crawl exited {proc.returncode}:\n{stdout.decode()}\n{stderr.decode()}"
            )
        manifest = json.loads((out / "manifest.json").read_text())
        rows = [
            json.loads(line)
            for line in (out / "pages.jsonl").read_text().splitlines()
            if line.strip()
        ]
    rendered = [row for row in rows if row.get("rendered")]
    return CrawlRun(
        duration_s=float(manifest["summary"]["duration_s"]),
        wall_s=wall,
        rendered=len(rendered),
        shells=sum(1 for row in rendered if "/stories/" in row["url"]),
        passed=sum(
            1 for row in rendered if not any("readiness" in w for w in row.get("warnings") or ())
        ),
        rows=len(rows),
    )


async def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--pages", type=int, default=200, help="generated pages of the demo site")
    args = parser.parse_args()

    from pressmark.demo import DemoSite
    from pressmark.render import find_chromium

    executable = find_chromium()
    shells = [p.path for p in DemoSite(seed=7, pages=args.pages).pages if p.is_shell]
    proc, origin = start_demo(args.pages)
    urls = [origin + path for path in shells]
    modes = ["bare", "renderer", "crawl"]
    totals: dict[str, list[float]] = {mode: [0.0, 0.0, 0.0] for mode in modes}
    crawl_wall = 0.0
    try:
        for round_no in range(args.rounds):
            for mode in modes if round_no % 2 == 0 else modes[::-1]:
                extra = ""
                with MemorySampler(exclude={proc.pid}) as memory:
                    if mode == "bare":
                        elapsed, done = await bare_loop(urls, args.k, executable)
                        passed = done
                    elif mode == "renderer":
                        elapsed, done, passed = await renderer_loop(
                            urls, args.k, executable, origin
                        )
                    else:
                        run = await crawl_loop(args.k, origin, executable)
                        elapsed, done, passed = run.duration_s, run.rendered, run.passed
                        crawl_wall += run.wall_s
                        extra = (
                            f" ({run.shells} shells + {run.rendered - run.shells} other of"
                            f" {run.rows} rows; process wall {run.wall_s:6.2f} s ="
                            f" {done / run.wall_s:5.2f} pages/s)"
                        )
                totals[mode][0] += elapsed
                totals[mode][1] += done
                totals[mode][2] = max(totals[mode][2], memory.peak_mb)
                print(
                    f"round {round_no + 1} {mode:8s} {done} pages in {elapsed:6.2f} s ="
                    f" {done / elapsed:5.2f} pages/s, readiness passed {passed}/{done},"
                    f" peak PSS {memory.peak_mb:7.0f} MB{extra}",
                    flush=True,
                )
    finally:
        proc.terminate()
        proc.wait(10)
    rate = {mode: t[1] / t[0] for mode, t in totals.items()}
    summary = {
        "k": args.k,
        "shell_pages": len(urls),
        "rounds": args.rounds,
        "chromium": executable,
        "bare_pages_per_s": round(rate["bare"], 3),
        "renderer_pages_per_s": round(rate["renderer"], 3),
        "ratio": round(rate["renderer"] / rate["bare"], 3),
        "crawl_pages_per_s": round(rate["crawl"], 3),
        "crawl_ratio": round(rate["crawl"] / rate["bare"], 3),
        "crawl_pages_per_s_process_wall": round(totals["crawl"][1] / crawl_wall, 3),
        "crawl_ratio_process_wall": round(totals["crawl"][1] / crawl_wall / rate["bare"], 3),
        "bare_peak_pss_mb": round(totals["bare"][2]),
        "renderer_peak_pss_mb": round(totals["renderer"][2]),
        "crawl_peak_pss_mb": round(totals["crawl"][2]),
    }
    print(json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    asyncio.run(main())
