"""Pages/s of the sharded crawl on Ray for 1, 2 and 4 shards against a multi-host site.

The demo site is served on several loopback addresses (127.0.0.2, 127.0.0.3, ...) by
one separate process, so the servers do not share the crawl's cores' Python. Ray runs
locally, loopback only. Each shard count crawls the whole site into a fresh directory
(snapshots in the shared filesystem store, Markdown and evidence on by default); a
warm-up crawl first fills the servers' page caches. Prints one line per shard count and
the per-shard figures used in docs/scaling.md.

    .venv/bin/python bench/scale_ray.py [--hosts 6] [--pages 60] [--shards 1,2,4]
        [--no-markdown] [--delay-ms 0] [--ray-cpus 2] [--rounds 1]

``pages/s`` is recorded pages (robots-denied URLs included: they are recorded, never
requested) over wall time, which includes starting the shard actors (a Python process
each); ``fetched/s`` is fetched pages over the span of their fetch timestamps, the
steady-state rate without start-up and shutdown.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

SERVE = """
import asyncio, sys
from pressmark.demo import DemoServer, DemoSite

async def main(hosts, pages):
    async with contextlib.AsyncExitStack() as stack:
        for host in hosts:
            server = await stack.enter_async_context(DemoServer(DemoSite(seed=7, pages=pages),
                                                                host=host))
            print(server.url, flush=True)
        print("ready", flush=True)
        await asyncio.Event().wait()

import contextlib
asyncio.run(main(sys.argv[1].split(","), int(sys.argv[2])))
"""


@contextlib.contextmanager
def demo_hosts(hosts: int, pages: int) -> Iterator[list[str]]:
    addresses = ",".join(f"127.0.0.{i}" for i in range(2, 2 + hosts))
    proc = subprocess.Popen([sys.executable, "-c", SERVE, addresses, str(pages)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        urls = []
        for line in proc.stdout:
            if line.strip() == "ready":
                break
            urls.append(line.strip())
        if len(urls) != hosts:
            raise RuntimeError("demo servers did not start")
        yield urls
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def one_run(urls: list[str], shards: int, out: Path, *, markdown: bool,
                  delay_ms: int) -> tuple[int, float, float]:
    from pressmark.crawl import CrawlPolicy, Politeness
    from pressmark.crawl.ray import RayEngine
    from pressmark.egress import EgressPolicy

    policy = CrawlPolicy(
        render="never",
        egress=EgressPolicy(test_only_allowed_loopback_origins=tuple(urls)), workers=0,
        markdown=markdown, politeness=Politeness(delay_ms=delay_ms, per_host_concurrency=4,
                                                 concurrency=16))
    engine = RayEngine(shards=shards, shard_cpus=0.01)
    t0 = time.perf_counter()
    manifest = await engine.run(urls, policy, out_dir=out)
    wall = time.perf_counter() - t0
    stamps = sorted(datetime.fromisoformat(p.fetched_at.replace("Z", "+00:00")).timestamp()
                    for p in manifest.pages if p.fetched_at)
    steady = len(stamps) / max(stamps[-1] - stamps[0], 1e-3) if len(stamps) > 1 else 0.0
    return manifest.summary["pages"], wall, steady


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hosts", type=int, default=6)
    parser.add_argument("--pages", type=int, default=60, help="generated pages per host")
    parser.add_argument("--shards", default="1,2,4")
    parser.add_argument("--no-markdown", action="store_true")
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--ray-cpus", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray

    from pressmark.crawl.ray._engine import local_ray_init

    counts = [int(n) for n in args.shards.split(",")]
    with demo_hosts(args.hosts, args.pages) as urls, \
            tempfile.TemporaryDirectory(prefix="pressmark-scale-") as tmp:
        local_ray_init(num_cpus=args.ray_cpus)
        try:
            asyncio.run(one_run(urls, max(counts), Path(tmp) / "warm",
                                markdown=not args.no_markdown, delay_ms=args.delay_ms))
            print(f"{args.hosts} hosts x {args.pages} generated pages, markdown "
                  f"{'off' if args.no_markdown else 'on'}, delay {args.delay_ms} ms, "
                  f"{os.cpu_count()} cores")
            print(f"load average before: {os.getloadavg()[0]:.1f}")
            print(f"{'shards':>6} {'pages':>6} {'wall s':>7} {'pages/s':>8} {'per shard':>9} "
                  f"{'fetched/s':>9} {'per shard':>9}")
            runs = 0
            for _ in range(args.rounds):
                for shards in counts:
                    runs += 1
                    pages, wall, steady = asyncio.run(one_run(
                        urls, shards, Path(tmp) / f"s{runs}", markdown=not args.no_markdown,
                        delay_ms=args.delay_ms))
                    rate = pages / wall
                    print(f"{shards:>6} {pages:>6} {wall:>7.2f} {rate:>8.1f} "
                          f"{rate / shards:>9.1f} {steady:>9.1f} {steady / shards:>9.1f}")
            print(f"load average after: {os.getloadavg()[0]:.1f}")
        finally:
            ray.shutdown()


if __name__ == "__main__":
    main()
