"""Throughput of fetch_source (robots on, store on) against a bare aiohttp loop.

Both fetch the same N demo-site pages over loopback at the same concurrency; the
demo server runs in its own process so it does not share our event loop. Rounds
are interleaved with alternating order; pages/s are medians over rounds and the
ratio is the median of the per-round (paired) ratios, so noise on a shared
machine moves both sides together. Client CPU time per page is reported too: on a
loaded machine it is the steadier measure (the server is another process). A bare
GuardedClient loop shows what the egress transport costs apart from fetch_source.
The target is >= 0.7.

    .venv/bin/python bench/fetch_throughput.py [--pages 300] [--concurrency 16]
        [--store memory|fs] [--rounds 5] [--repeat 3]
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
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from typing import Any


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


async def bare_guarded(urls: Sequence[str], concurrency: int, origin: str,
                       ) -> tuple[float, int]:
    """The egress client alone: what fetch_source costs on top of its transport."""
    from pressmark.egress import EgressPolicy, GuardedClient

    policy = EgressPolicy(test_only_allowed_loopback_origins=(origin,))
    async with GuardedClient(policy, max_connections=concurrency,
                             max_connections_per_host=concurrency) as client:

        async def one(url: str) -> bool:
            response = await client.get(url)
            return response.status == 200

        return await pool(urls, concurrency, one)


async def with_fetch_source(urls: Sequence[str], concurrency: int, origin: str,
                            store_kind: str) -> tuple[float, int]:
    from pressmark.egress import EgressPolicy, GuardedClient
    from pressmark.fetch import FetchOptions, Pacer, RobotsCache, SourceConfig, fetch_source
    from pressmark.store import FilesystemSnapshotStore, MemorySnapshotStore, SnapshotStore

    policy = EgressPolicy(test_only_allowed_loopback_origins=(origin,))
    with tempfile.TemporaryDirectory() as tmp:
        store: SnapshotStore = (FilesystemSnapshotStore(tmp) if store_kind == "fs"
                                else MemorySnapshotStore())
        async with GuardedClient(policy, max_connections=concurrency,
                                 max_connections_per_host=concurrency) as client:
            options = FetchOptions(egress=policy, client=client, store=store,
                                   robots=RobotsCache(client),
                                   politeness=Pacer(max_concurrency=concurrency,
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
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3,
                        help="fetch every page this many times per round (longer rounds)")
    args = parser.parse_args()

    from pressmark.demo import DemoSite

    site = DemoSite(seed=7, pages=args.pages)
    paths = [p.path for p in site.pages if not p.disallowed and p.kind not in ("live", "cache")]
    with demo_process(args.pages) as origin:
        urls = [origin + path for path in paths] * args.repeat

        def measure(name: str,
                    run: Callable[[], Coroutine[Any, Any, tuple[float, int]]],
                    ) -> tuple[float, float]:
            """(pages/s by the wall clock, client CPU ms per page)."""
            cpu = time.process_time()
            seconds, ok = asyncio.run(run())
            cpu_ms = (time.process_time() - cpu) * 1000.0 / len(urls)
            if ok != len(urls):
                print(f"warning: {name} got {ok} of {len(urls)} pages")
            return len(urls) / seconds, cpu_ms

        sides: dict[str, Callable[[], tuple[float, float]]] = {
            "bare": lambda: measure("bare aiohttp",
                                    lambda: bare_aiohttp(urls, args.concurrency)),
            "guarded": lambda: measure("bare GuardedClient",
                                       lambda: bare_guarded(urls, args.concurrency, origin)),
            "ours": lambda: measure("fetch_source", lambda: with_fetch_source(
                urls, args.concurrency, origin, args.store)),
        }
        for run in sides.values():  # warm-up (server cache, imports); not counted
            run()
        rounds: list[dict[str, tuple[float, float]]] = []
        order = list(sides)
        for i in range(args.rounds):
            # Interleaved, rotating which side goes first, so a change of load on a
            # shared machine hits every side alike and order bias cancels out.
            turn = order[i % len(order):] + order[:i % len(order)]
            got = {name: sides[name]() for name in turn}
            rounds.append(got)
            print(f"round {i + 1}: " + "  ".join(
                f"{name} {got[name][0]:7.1f}/s {got[name][1]:.3f} ms" for name in order)
                + f"  ratio {got['ours'][0] / got['bare'][0]:.2f}")

    def med(name: str, index: int) -> float:
        return statistics.median(r[name][index] for r in rounds)

    def paired(a: str, b: str, index: int) -> list[float]:
        return sorted(r[a][index] / r[b][index] for r in rounds)

    wall = paired("ours", "bare", 0)
    cpu = paired("bare", "ours", 1)   # CPU per page: less is faster, so bare / ours
    print(f"pages: {len(urls)} per round  concurrency: {args.concurrency}  store: "
          f"{args.store}  rounds: {args.rounds} (medians; client CPU excludes the server)")
    for label, name in (("bare aiohttp loop", "bare"), ("bare GuardedClient", "guarded"),
                        ("fetch_source", "ours")):
        print(f"{label + ':':20s} {med(name, 0):8.1f} pages/s  {med(name, 1):6.3f} CPU ms/page")
    print(f"ratio (wall):        {statistics.median(wall):8.2f}  (fetch_source / aiohttp pages/s,"
          f" median of paired rounds; range {wall[0]:.2f}-{wall[-1]:.2f}; target >= 0.7)")
    print(f"ratio (CPU):         {statistics.median(cpu):8.2f}  (aiohttp / fetch_source CPU per "
          f"page; range {cpu[0]:.2f}-{cpu[-1]:.2f}; steady under load from other processes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
