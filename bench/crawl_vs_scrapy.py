"""pressmark crawl vs Scrapy on the same static site served by nginx, on loopback.

The demo site (``DemoSite(pages=N)``, about 2,000 HTML pages by default) is
mirrored to a directory and served by nginx on 127.0.0.1. Each round runs, as
separate processes and in this order: Scrapy, Scrapy + trafilatura Markdown,
``pressmark crawl --no-markdown`` and ``pressmark crawl`` (Markdown on). All
obey robots.txt, use 16 concurrent requests (16 per host), no delay, and write
every body to disk (Scrapy: one file per page; pressmark: its snapshot store).
Wall time covers the whole process (start-up included); peak RSS is the
largest sum over the process tree, sampled every 20 ms; CPU seconds are the
process tree's user + system time (every child reaped, as getrusage counts it),
which a loaded machine inflates far less than wall time (under load a
one-process crawler gets a smaller share of the cores than a crawl with a parser
pool, so the pages/s ratio then flatters the pool; CPU per page does not). Pages are responses
received (404s included, robots.txt excluded) for both.

    python bench/crawl_vs_scrapy.py [--pages 1965] [--rounds 1]

Targets: pressmark --no-markdown >= 2x Scrapy pages/s with peak RSS <= Scrapy's;
pressmark with Markdown >= 2.5x Scrapy + trafilatura.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

SPIDER = r'''
import hashlib, json, sys
from pathlib import Path
import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.http import TextResponse

start, out, markdown = sys.argv[1], Path(sys.argv[2]), sys.argv[3] == "md"
if markdown:
    import trafilatura

class Bench(scrapy.Spider):
    name = "bench"
    allowed_domains = ["127.0.0.1"]

    async def start(self):
        yield scrapy.Request(start)

    def parse(self, response):
        name = hashlib.sha1(response.url.encode()).hexdigest()
        (out / (name + ".html")).write_bytes(response.body)
        if not isinstance(response, TextResponse):
            return
        if markdown:
            md = trafilatura.extract(response.text, output_format="markdown", url=response.url)
            (out / (name + ".md")).write_text(md or "", encoding="utf-8")
        for href in response.css("a::attr(href)").getall():
            try:
                yield response.follow(href, callback=self.parse)
            except ValueError:  # mailto:, javascript: ...
                continue

process = CrawlerProcess(settings={
    "ROBOTSTXT_OBEY": True, "CONCURRENT_REQUESTS": 16, "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
    "DOWNLOAD_DELAY": 0, "LOG_LEVEL": "ERROR", "TELNETCONSOLE_ENABLED": False,
    "AUTOTHROTTLE_ENABLED": False,
})
crawler = process.create_crawler(Bench)
process.crawl(crawler)
process.start()
stats = crawler.stats.get_stats()
print(json.dumps({"pages": stats.get("response_received_count", 0) - 1}))
'''

NGINX_CONF = """
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    default_type text/html;
    keepalive_requests 100000;
    sendfile on;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        location / {{ try_files $uri $uri/index.html =404; }}
    }}
}}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def mirror_site(root: Path, pages: int, origin: str, *, api: bool = False) -> int:
    """Write every allowed HTML page of the demo site (and robots.txt) under ``root``; with
    ``api``, also the JSON each shell fetches (``/api/pages/<id>.json``), so shells render."""
    from pressmark.demo import DemoSite, run_demo_server_in_thread

    site = DemoSite(seed=7, pages=pages)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    written = 0
    with run_demo_server_in_thread(site) as server:
        def get(path: str) -> bytes:
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
            if api and page.is_shell and page.page_id is not None:
                data = root / "api" / "pages" / f"{page.page_id:04d}.json"
                data.parent.mkdir(parents=True, exist_ok=True)
                data.write_bytes(get(f"/api/pages/{page.page_id:04d}.json"))
    return written


def start_nginx(root: Path, prefix: Path, port: int) -> subprocess.Popen[bytes]:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        subprocess.run(["apt-get", "install", "-y", "nginx-light"], check=True)
    conf = prefix / "nginx.conf"
    conf.write_text(NGINX_CONF.format(prefix=prefix, port=port, root=root))
    proc = subprocess.Popen([nginx, "-p", str(prefix), "-c", str(conf), "-g", "daemon off;"])
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("nginx did not start")


def children_cpu_s() -> float:
    """User + system seconds of every child process reaped so far (and of theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(cmd: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak tree RSS in MiB, stdout) of one process run."""
    wall, rss, out, _ = measure_cpu(cmd)
    return wall, rss, out


def measure_cpu(cmd: list[str]) -> tuple[float, float, str, float]:
    """:func:`measure`, and the CPU seconds of the process tree."""
    import psutil

    cpu_before = children_cpu_s()

    # Files, not pipes: a chatty child must never block on a full pipe while we poll.
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out_f, stderr=err_f)
        ps = psutil.Process(proc.pid)
        peak = 0
        while proc.poll() is None:
            try:
                tree = [ps, *ps.children(recursive=True)]
                peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
            except psutil.Error:
                pass
            time.sleep(0.02)
        wall = time.perf_counter() - start
        out_f.seek(0)
        err_f.seek(0)
        out, err = out_f.read(), err_f.read()
    if proc.returncode not in (0,):
        raise RuntimeError(f"{cmd[:3]} failed ({proc.returncode}): {err.decode()[-2000:]}")
    return wall, peak / 2**20, out.decode(), children_cpu_s() - cpu_before


def pressmark_pages(out: Path) -> int:
    count = 0
    with (out / "pages.jsonl").open() as fh:
        for line in fh:
            if json.loads(line)["status"] is not None:
                count += 1
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1965, help="generated demo pages")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--only", choices=["scrapy", "pressmark"], default=None)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="pm-bench-"))
    work.chmod(0o755)  # nginx workers run as nobody and must read the site
    root, prefix = work / "site", work / "nginx"
    root.mkdir()
    prefix.mkdir()
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    n = mirror_site(root, args.pages, origin)
    spider = work / "spider.py"
    spider.write_text(SPIDER)
    nginx = start_nginx(root, prefix, port)
    py = sys.executable
    pm = str(Path(sys.executable).with_name("pressmark"))
    # Scrapy renders nothing, so neither does pressmark here (the mirrored demo site
    # keeps its JavaScript shells; render throughput is bench/render_throughput.py's job).
    common = [origin + "/", "--allow-loopback", origin, "--concurrency", "16",
              "--per-host-concurrency", "16", "--delay-ms", "0", "--render", "never", "--quiet"]
    runs: dict[str, list[tuple[float, float, int, float]]] = {}
    try:
        print(f"site: {n} HTML pages mirrored, nginx at {origin}")
        for r in range(args.rounds):
            plan: list[tuple[str, list[str], Path]] = []
            if args.only != "pressmark":
                for label, mode in (("scrapy", "raw"), ("scrapy+trafilatura", "md")):
                    out = work / f"{label}-{r}"
                    out.mkdir()
                    plan.append((label, [py, str(spider), origin + "/", str(out), mode], out))
            if args.only != "scrapy":
                for label, extra in (("pressmark --no-markdown", ["--no-markdown"]),
                                     ("pressmark (markdown)", [])):
                    out = work / f"pm-{len(extra)}-{r}"
                    plan.append((label, [pm, "crawl", *common, "--out", str(out), *extra], out))
            for label, cmd, out in plan:
                try:
                    wall, rss, stdout, cpu = measure_cpu(cmd)
                except RuntimeError:
                    if (out / "manifest.json").exists():
                        print((out / "manifest.json").read_text()[:3000])
                    if (out / "pages.jsonl").exists():
                        print((out / "pages.jsonl").read_text()[:1500])
                    raise
                if label.startswith("scrapy"):
                    pages = int(json.loads(stdout.strip().splitlines()[-1])["pages"])
                else:
                    pages = pressmark_pages(out)
                runs.setdefault(label, []).append((wall, rss, pages, cpu))
                print(f"round {r + 1} {label:26s} {pages:5d} pages {wall:7.2f} s "
                      f"{pages / wall:7.1f} pages/s  peak RSS {rss:6.1f} MiB  "
                      f"{1000 * cpu / pages:5.2f} ms CPU/page", flush=True)
                shutil.rmtree(out, ignore_errors=True)
    finally:
        nginx.terminate()
        nginx.wait(10)
        shutil.rmtree(work, ignore_errors=True)

    rate = {k: statistics.median(p / w for w, _, p, _ in v) for k, v in runs.items()}
    rss = {k: max(x for _, x, _, _ in v) for k, v in runs.items()}
    cpu_ms = {k: statistics.median(1000 * c / p for _, _, p, c in v) for k, v in runs.items()}
    print("\nmedian pages/s, max peak RSS, median CPU ms/page:")
    for k in runs:
        print(f"  {k:26s} {rate[k]:7.1f} pages/s  {rss[k]:6.1f} MiB  {cpu_ms[k]:5.2f} ms CPU/page")
    for ours, peer, target in (("pressmark --no-markdown", "scrapy", 2.0),
                               ("pressmark (markdown)", "scrapy+trafilatura", 2.5)):
        if ours in rate and peer in rate:
            print(f"ratio {ours} / {peer}: {rate[ours] / rate[peer]:.2f}x pages/s "
                  f"(target >= {target}x; per round "
                  + ", ".join(f"{(p / w) / (q / x):.2f}" for (w, _, p, _), (x, _, q, _)
                              in zip(runs[ours], runs[peer], strict=True))
                  + f"), {cpu_ms[peer] / cpu_ms[ours]:.2f}x less CPU per page, RSS "
                  f"{rss[ours]:.0f} vs {rss[peer]:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
