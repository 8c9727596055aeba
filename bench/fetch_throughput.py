"""Throughput of fetch_source (robots on, store on) against a bare aiohttp loop.

Both fetch the same N demo-site pages over loopback at the same concurrency; the
demo server runs in its own process so it does not share our event loop.
Prints pages/s for each and the ratio (the target is >= 0.7).

    .venv/bin/python bench/fetch_throughput.py [--pages 300] [--concurrency 16]
        [--store memory|fs] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence


@contextlib.contextmanager
def demo_process(pages: int) -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "pressmark.demo", "serve", "--pages", str(pages)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = line.strip().rsplit(" ", 1)[-1].rstrip("/")
        if not url.startswith("http://"):
            raise RuntimeError(f"demo server did not start: {line!r}")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def pool(urls: Sequence[str], concurrency: int,
               one: Callable[[str], Awaitable[bool]]) -> tuple[float, int]:
    queue = iter(urls)
    ok = 0

    async def worker() -> None:
        nonlocal ok
        for url in queue:
            if await one(url):
                ok += 1

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started, ok


async def bare_aiohttp(urls: Sequence[str], concurrency: int) -> tuple[float, int]:
    import aiohttp

    connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(url: str) -> bool:
            async with session.get(url) as response:
                await response.read()
                return response.status == 200

        return await pool(urls, concurrency, one)


async def with_fetch_source(urls: Sequence[str], concurrency: int, origin: str,
                            store_kind: str) -> tuple[float, int]:
    from pressmark.egress import EgressPolicy, GuardedClient
    from pressmark.fetch import FetchOptions, Politeness, RobotsCache, SourceConfig, fetch_source
    from pressmark.store import FilesystemSnapshotStore, MemorySnapshotStore, SnapshotStore

    policy = EgressPolicy(test_only_allowed_loopback_origins=(origin,))
    with tempfile.TemporaryDirectory() as tmp:
        store: SnapshotStore = (FilesystemSnapshotStore(tmp) if store_kind == "fs"
                                else MemorySnapshotStore())
        async with GuardedClient(policy, max_connections=concurrency,
                                 max_connections_per_host=concurrency) as client:
            options = FetchOptions(egress=policy, client=client, store=store,
                                   robots=RobotsCache(client),
                                   politeness=Politeness(max_concurrency=concurrency,
                                                         max_per_host=concurrency))

            async def one(url: str) -> bool:
                result = await fetch_source(SourceConfig(url=url), options)
                return result.ok

            return await pool(urls, concurrency, one)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--store", choices=("memory", "fs"), default="memory")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from pressmark.demo import DemoSite

    site = DemoSite(seed=7, pages=args.pages)
    paths = [p.path for p in site.pages if not p.disallowed and p.kind not in ("live", "cache")]
    rounds: list[tuple[float, float]] = []
    with demo_process(args.pages) as origin:
        urls = [origin + path for path in paths]
        asyncio.run(bare_aiohttp(urls[:50], args.concurrency))  # warm the server up
        for _ in range(args.rounds):  # interleaved, so load changes hit both sides alike
            bare_s, bare_ok = asyncio.run(bare_aiohttp(urls, args.concurrency))
            ours_s, ours_ok = asyncio.run(with_fetch_source(urls, args.concurrency, origin,
                                                            args.store))
            if bare_ok != len(urls) or ours_ok != len(urls):
                print(f"warning: ok pages bare={bare_ok} fetch_source={ours_ok} of {len(urls)}")
            rounds.append((len(urls) / bare_s, len(urls) / ours_s))
    bare_rate = statistics.median(r[0] for r in rounds)
    ours_rate = statistics.median(r[1] for r in rounds)
    print(f"pages: {len(urls)}  concurrency: {args.concurrency}  store: {args.store}  "
          f"rounds: {args.rounds} (median)")
    print(f"bare aiohttp loop:  {bare_rate:8.1f} pages/s")
    print(f"fetch_source:       {ours_rate:8.1f} pages/s")
    print(f"ratio:              {ours_rate / bare_rate:8.2f}  (target >= 0.7)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
