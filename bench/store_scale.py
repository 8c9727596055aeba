"""A crawl at scale into the segment store: bytes and inodes against a gzip WARC, speed, memory.

Serves ``--pages`` generated demo pages with nginx on loopback, as several hosts of at
most 10,000 pages each (``DemoSite`` seeds 7, 8, ...; one port per host), crawls them with
``pressmark crawl`` (every host a seed, robots obeyed, no delay, no browser) and reports:

* wall time, pages/s and the peak RSS of the crawl's process tree (sampled every 50 ms);
* the store: bytes on disk (allocated blocks) and apparent, inodes; the whole output
  directory's inodes (``--output bundles`` is the layout the inode target is about);
* the same snapshots written as one gzip WARC by the generic exporter (warcio, the
  format ``pressmark store export-warc`` writes for a filesystem store) and the segment
  store's own export (a copy of its records);
* ``get`` and ``latest`` median and 99th percentile over 2,000 random sources, from a
  fresh process's view (a new store instance);
* with ``--files-store``, the same crawl into ``--store-format files`` for comparison.

The CPU seconds of the crawl's process tree are reported beside the wall time: on a
shared machine the wall time says as much about the neighbours as about the crawl.
A mirrored site can be kept and reused (``--site DIR``: host ``k`` is ``DIR/site<k>``,
mirrored once; the 20,000-page site is the first two hosts of the 200,000-page one).

    python bench/store_scale.py --pages 20000 [--markdown] [--output files|bundles]
    python bench/store_scale.py --pages 200000 --site /var/tmp/pm-site [--mirror-only]

Targets (issue #36): store bytes <= 1.1x the gzip WARC; store inodes <= 20 + pages/1,000;
output inodes <= 100 per 1,000 pages with bundles; at 200,000 pages, throughput within
15 % of the 20,000-page crawl's, peak RSS under 300 MB, get/latest median under 1 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from crawl_vs_scrapy import free_port, measure  # the shared harness

PER_HOST = 10_000
NGINX_CONF = """
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    default_type text/html;
    keepalive_requests 1000000;
    sendfile on;
{servers}
}}
"""
SERVER = """    server {{
        listen 127.0.0.1:{port};
        root {root};
        location / {{ try_files $uri $uri/index.html =404; }}
    }}"""


def mirror_site(root: Path, seed: int, pages: int, origin: str) -> int:
    """Write every allowed HTML page of ``DemoSite(seed, pages)`` (and robots.txt).

    A page the site answers 200 is rendered in process for ``origin`` (a tenth of the cost
    of asking the demo server for it); anything else (a redirect, which urllib follows)
    goes through the server and is written as a client sees it, robots.txt without its
    sitemap lines (the crawl is about pages, not about a sitemap's 200,000 entries).
    """
    from pressmark.demo import DemoSite, run_demo_server_in_thread
    from pressmark.demo._http import Request, Response

    site = DemoSite(seed=seed, pages=pages)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    written = 0
    with run_demo_server_in_thread(site) as server:
        def get(path: str) -> bytes:
            answer = site.respond(Request(method="GET", target=path, version="HTTP/1.1",
                                          headers=(), origin=origin))
            if isinstance(answer, Response) and answer.status == 200:
                return answer.body
            with opener.open(server.url + path, timeout=30) as resp:
                return bytes(resp.read()).replace(server.url.encode(), origin.encode())

        robots = get("/robots.txt").decode()
        robots = "\n".join(x for x in robots.splitlines() if not x.startswith("Sitemap:"))
        (root / "robots.txt").write_text(robots + "\n")
        for page in site.pages:
            if "?" in page.path or page.disallowed:
                continue
            target = root / page.path.lstrip("/")
            if page.path.endswith("/"):
                target = target / "index.html"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(get(page.path))
            written += 1
    return written


def site_host(base: Path, k: int, pages: int) -> tuple[Path, int]:
    """Host ``k`` (``DemoSite`` seed 7 + k, ``pages`` pages) under ``base``, mirrored once.

    Its origin (a port picked when it was mirrored) is written into the pages, so a kept
    host is served on the same port again (``port``); ``done`` says the mirror finished.
    """
    root = base / f"site{k}"
    done = root / "done"
    if done.exists():
        recorded, count = done.read_text().split()
        if int(recorded) == pages:
            return root, int(count)
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    port = free_port()
    (root / "port").write_text(str(port))
    count = mirror_site(root, 7 + k, pages, f"http://127.0.0.1:{port}")
    done.write_text(f"{pages} {count}")
    return root, count


def start_nginx(sites: list[tuple[Path, int]], prefix: Path) -> subprocess.Popen[bytes]:
    import socket

    for _, port in sites:  # a kept host's port must still be ours to take
        with socket.socket() as probe:  # (as nginx binds: TIME_WAIT sockets do not count)
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError as exc:
                raise RuntimeError(f"port {port} of a kept site is taken: mirror again") from exc
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    servers = "\n".join(SERVER.format(port=port, root=root) for root, port in sites)
    conf = prefix / "nginx.conf"
    conf.write_text(NGINX_CONF.format(prefix=prefix, servers=servers))
    proc = subprocess.Popen([nginx, "-p", str(prefix), "-c", str(conf), "-g", "daemon off;"])
    for _, port in sites:
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.05)
        else:
            proc.kill()
            raise RuntimeError("nginx did not start")
    return proc


def disk_usage(root: Path) -> tuple[int, int, int]:
    """(bytes on disk, apparent bytes, inodes) of everything under ``root``."""
    blocks = apparent = inodes = 0
    for path in [root, *root.rglob("*")]:
        info = path.lstat()
        blocks += info.st_blocks * 512
        apparent += info.st_size
        inodes += 1
    return blocks, apparent, inodes


class _Plain:
    """A store seen only through the SnapshotStore protocol (so export_warc takes the
    generic, warcio-written path: the WARC a filesystem store exports)."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def lookups(root: Path, samples: int) -> dict[str, float]:
    """Median and p99 milliseconds of get and latest in a fresh store instance."""
    from pressmark.store import open_store

    store = open_store(root)
    sources = store.sources()
    random.Random(1).shuffle(sources)
    picked = sources[:samples]
    refs = [store.list(sid)[0] for sid in picked[: samples // 4]]  # warm nothing else
    store = open_store(root)
    times: dict[str, list[float]] = {"latest": [], "get": []}
    for sid in picked:
        t0 = time.perf_counter()
        store.latest(sid)
        times["latest"].append(time.perf_counter() - t0)
    for ref in refs * 4:
        t0 = time.perf_counter()
        store.get(ref.source_id, ref.snapshot_sha256)
        times["get"].append(time.perf_counter() - t0)
    out: dict[str, float] = {}
    for name, values in times.items():
        values.sort()
        out[f"{name}_median_ms"] = statistics.median(values) * 1000
        out[f"{name}_p99_ms"] = values[int(len(values) * 0.99) - 1] * 1000
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=20_000)
    parser.add_argument("--markdown", action="store_true", help="convert pages too")
    parser.add_argument("--output", choices=["files", "bundles"], default="bundles")
    parser.add_argument("--files-store", action="store_true",
                        help="also crawl into --store-format files")
    parser.add_argument("--work", type=Path, default=None,
                        help="where the site and outputs go (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the site and outputs")
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--site", type=Path, default=None,
                        help="keep the mirrored hosts here and reuse them (site<k>/)")
    parser.add_argument("--mirror-only", action="store_true", help="mirror, then stop")
    parser.add_argument("--no-export", action="store_true",
                        help="skip the WARC exports (the size comparison; slow at 200,000)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="pm-scale-", dir=args.work))
    work.chmod(0o755)  # nginx workers run as nobody and must read the site
    hosts = -(-args.pages // PER_HOST)
    sites: list[tuple[Path, int]] = []
    py = sys.executable
    pm = str(Path(py).with_name("pressmark"))
    report: dict[str, Any] = {"pages_asked": args.pages, "hosts": hosts}
    nginx = None
    try:
        started = time.monotonic()
        served = 0
        for k in range(hosts):
            per = min(PER_HOST, args.pages - k * PER_HOST)
            if args.site is not None:
                args.site.mkdir(parents=True, exist_ok=True)
                args.site.chmod(0o755)
            root, count = site_host(args.site or work, k, per)
            served += count
            sites.append((root, int((root / "port").read_text())))
        report["served_pages"] = served
        print(f"{served} pages mirrored on {hosts} host(s) in "
              f"{time.monotonic() - started:.0f} s", flush=True)
        if args.mirror_only:
            return 0
        prefix = work / "nginx"
        prefix.mkdir()
        nginx = start_nginx(sites, prefix)
        origins = [f"http://127.0.0.1:{port}" for _, port in sites]
        common = [*(o + "/" for o in origins), "--concurrency", "16",
                  "--per-host-concurrency", "16", "--delay-ms", "0", "--render", "never",
                  "--quiet", "--max-pages", str(args.pages), "--output", args.output,
                  *(x for o in origins for x in ("--allow-loopback", o))]
        if not args.markdown:
            common.append("--no-markdown")
        runs = [("segments", [])]
        if args.files_store:
            runs.append(("files", ["--store-format", "files"]))
        for label, extra in runs:
            out = work / f"out-{label}"
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall, rss, _ = measure([pm, "crawl", *common, "--out", str(out), *extra])
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            manifest = json.loads((out / "manifest.json").read_text())
            fetched = sum(manifest["summary"]["by_outcome"].get(k, 0)
                          for k in ("ok", "not-modified"))
            store_disk, store_apparent, store_inodes = disk_usage(out / "store")
            out_disk, _, out_inodes = disk_usage(out)
            row = {"wall_s": round(wall, 1), "pages_recorded": manifest["summary"]["pages"],
                   "pages_fetched": fetched, "pages_per_s": round(fetched / wall, 1),
                   "cpu_s": round(cpu, 1),
                   "cpu_ms_per_page": round(cpu * 1000 / max(1, fetched), 3),
                   "pages_per_cpu_s": round(fetched / max(cpu, 1e-9), 1),
                   "load_1min_after": round(os.getloadavg()[0], 1),
                   "peak_rss_mib": round(rss, 1), "store_bytes_on_disk": store_disk,
                   "store_bytes_apparent": store_apparent, "store_inodes": store_inodes,
                   "output_bytes_on_disk": out_disk, "output_inodes": out_inodes}
            report[label] = row
            print(label, json.dumps(row), flush=True)
        seg = work / "out-segments" / "store"
        from pressmark.store import export_warc, open_store

        store = open_store(seg)
        exports = () if args.no_export else (("warc_generic", _Plain(store)),
                                              ("warc_copy", store))
        for name, target in exports:
            path = work / f"{name}.warc.gz"
            t0 = time.perf_counter()
            count = export_warc(target, path)  # type: ignore[arg-type]
            report[name] = {"snapshots": count, "bytes": path.stat().st_size,
                            "seconds": round(time.perf_counter() - t0, 1)}
            print(name, json.dumps(report[name]), flush=True)
            path.unlink()
        report["lookups"] = lookups(seg, args.samples)
        pages = report["segments"]["pages_fetched"]
        report["ratios"] = {
            "store_disk_over_warc": None if args.no_export else round(
                report["segments"]["store_bytes_on_disk"] / report["warc_generic"]["bytes"], 3),
            "store_inodes": report["segments"]["store_inodes"],
            "store_inodes_target": 20 + pages // 1000,
            "output_inodes_per_1000_pages": round(
                report["segments"]["output_inodes"] * 1000 / max(1, pages), 1),
        }
        print(json.dumps(report, indent=2))
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(10)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
