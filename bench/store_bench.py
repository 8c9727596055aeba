"""FilesystemSnapshotStore throughput, and latest() cost versus history length.

Measures, in a temporary directory on the same disk as the system temp dir:

* put() throughput for crawl-shaped writes (every page a new source, ~24 KB of
  HTML each) with the default ``durability="fsync"`` and with ``"flush"``, from
  one thread and from 16 threads (as the crawler does), and for repeated
  snapshots of one source;
* get() throughput by ``snapshot_sha256`` (full read and verification);
* latest() median time for a source with 10 records versus one with 10,000
  records (target: ratio <= 1.5, because latest() reads HEAD and one record and
  never lists history).

    python bench/store_bench.py [--puts 300] [--history 10000] [--samples 300]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pressmark.snapshot import Snapshot
from pressmark.store import FilesystemSnapshotStore
from pressmark.testing import make_snapshot

PAGE = b"<html><body>" + b"<p>Some paragraph of a crawled page.</p>" * 600 + b"</body></html>"


def _stamp(n: int) -> str:
    seconds, ms = divmod(n, 1000)
    minutes, seconds = divmod(seconds, 60)
    return f"2026-11-30T{10 + minutes // 60:02d}:{minutes % 60:02d}:{seconds:02d}.{ms:03d}Z"


def _page(source: str, n: int) -> Snapshot:
    return make_snapshot(source, f"https://bench.test/{source}", PAGE + str(n).encode(),
                         fetched_at=_stamp(n))


def _rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def _put_rate(store: FilesystemSnapshotStore, shots: list[Snapshot]) -> float:
    started = time.perf_counter()
    for shot in shots:
        store.put(shot)
    return _rate(len(shots), time.perf_counter() - started)


def _put_rate_threads(store: FilesystemSnapshotStore, shots: list[Snapshot], threads: int) -> float:
    # The crawler calls put() through asyncio.to_thread for many pages at once; fsyncs
    # of different sources then share journal commits.
    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(store.put, shots))
    return _rate(len(shots), time.perf_counter() - started)


def _latest_median(store: FilesystemSnapshotStore, source: str, samples: int) -> float:
    times = []
    for _ in range(samples):
        started = time.perf_counter()
        store.latest(source)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--puts", type=int, default=300)
    parser.add_argument("--history", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=300)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pressmark-store-bench-") as tmp:
        root = Path(tmp)
        results: dict[str, float] = {}
        for durability in ("fsync", "flush"):
            store = FilesystemSnapshotStore(root / durability, durability=durability)
            new_sources = [_page(f"page-{i}", i) for i in range(args.puts)]
            results[f"put new-source {durability}"] = _put_rate(store, new_sources)
            parallel = [_page(f"par-{i}", i) for i in range(args.puts)]
            results[f"put new-source {durability} x16"] = _put_rate_threads(store, parallel, 16)
            one_source = [_page("one", i) for i in range(args.puts)]
            results[f"put same-source {durability}"] = _put_rate(store, one_source)

        store = FilesystemSnapshotStore(root / "flush")
        digests = [_page("one", i).snapshot_sha256 for i in range(args.puts)]
        started = time.perf_counter()
        for digest in digests:
            store.get("one", digest)
        results["get by snapshot_sha256"] = _rate(len(digests), time.perf_counter() - started)

        history = FilesystemSnapshotStore(root / "history", durability="flush")
        for i in range(10):
            history.put(_page("short", i))
        filled = time.perf_counter()
        for i in range(args.history):
            history.put(_page("long", i))
        fill_rate = _rate(args.history, time.perf_counter() - filled)
        _latest_median(history, "short", 20)  # warm both paths
        _latest_median(history, "long", 20)
        short = _latest_median(history, "short", args.samples)
        long = _latest_median(history, "long", args.samples)

    print(f"page size {len(PAGE)} bytes, {args.puts} puts per case")
    for name, value in results.items():
        print(f"  {name:<32} {value:10.1f} /s")
    print(f"  (filling {args.history} records: {fill_rate:.1f} puts/s)")
    ratio = long / short
    print(f"latest(): 10 records {short * 1e6:.1f} us, {args.history} records "
          f"{long * 1e6:.1f} us, ratio {ratio:.2f} (target <= 1.5)")
    return 0 if ratio <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
