"""The workbench's text search on a 20,000-page crawl: indexing time and search latency.

Writes a synthetic crawl directory (``pages.jsonl`` plus one Markdown file per page,
``pressmark.web._sample.write_markdown_crawl``: the shape a real crawl has, at a size a
real crawl here would take hours to reach), starts the workbench app on it, waits for
the background FTS5 index, then searches for sentences taken from random pages' Markdown:

* ``search``: ``PageIndex.search`` alone (the SQL the overview runs: count, sort, page
  of rows, snippets), wall time and the CPU time of the thread that runs it (SQLite runs
  in the caller's thread): on a machine whose cores are shared, the CPU time says what
  the query costs when the wall time says mostly how long it waited for a core;
* ``overview``: the whole ``GET /?q=...`` through Starlette's test client (rendering
  included);
* the peer: what a reviewer does without the search, ``grep -rlF SENTENCE markdown/``
  (a fresh process per search, file cache warm).

Every search must find its page. Medians and p95 in milliseconds.

    python bench/workbench_search.py [--pages 20000] [--searches 200]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from starlette.testclient import TestClient

from pressmark.web import create_app
from pressmark.web._data import PageQuery
from pressmark.web._sample import write_markdown_crawl


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"median {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20_000)
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--grep-searches", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pressmark-search-bench-") as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        sentences = write_markdown_crawl(root, args.pages, seed=11)
        size = sum(p.stat().st_size for p in (root / "markdown").iterdir())
        print(f"wrote {args.pages} pages, {size / 1e6:.1f} MB of Markdown in "
              f"{time.perf_counter() - started:.1f} s")
        app = create_app(root, allowed_hosts=["127.0.0.1"])
        search = app.state.search
        with TestClient(app, base_url="http://127.0.0.1") as client:
            started = time.perf_counter()
            client.get("/")
            if not search.wait(600):
                print("the index did not finish in 10 minutes", file=sys.stderr)
                return 1
            print(f"indexed {search.indexed} pages in {time.perf_counter() - started:.1f} s "
                  "(in the background; the overview answers meanwhile)")
            rng = random.Random(5)
            picks = [rng.randrange(args.pages) for _ in range(args.searches)]
            index = app.state.search._crawl.index  # the bench looks inside
            direct, whole, cpu = [], [], []
            for n in picks:
                query = PageQuery(q=sentences[n])
                c0, t0 = time.thread_time(), time.perf_counter()
                listing = index.search(query)
                direct.append(time.perf_counter() - t0)
                cpu.append(time.thread_time() - c0)
                if [r.row for r in listing.rows] != [n + 1]:
                    print(f"search for page {n + 1} found {[r.row for r in listing.rows]}",
                          file=sys.stderr)
                    return 1
                t0 = time.perf_counter()
                response = client.get("/", params={"q": sentences[n]})
                whole.append(time.perf_counter() - t0)
                if f'<tr data-row="{n + 1}">' not in response.text:
                    print(f"overview search for page {n + 1} failed", file=sys.stderr)
                    return 1
        grep = shutil.which("grep")
        peer: list[float] = []
        if grep is not None:
            for n in picks[: args.grep_searches]:
                t0 = time.perf_counter()
                done = subprocess.run([grep, "-rlF", sentences[n], str(root / "markdown")],
                                      capture_output=True, text=True, check=False)
                peer.append(time.perf_counter() - t0)
                if f"{n + 1:06d}.md" not in done.stdout:
                    print(f"grep did not find page {n + 1}", file=sys.stderr)
                    return 1
    print(f"search (PageIndex.search, {len(direct)} sentences): {_ms(direct)}; "
          f"CPU {_ms(cpu)}")
    print(f"overview (GET /?q=, rendered): {_ms(whole)}")
    if peer:
        print(f"peer grep -rlF ({len(peer)} sentences): {_ms(peer)}; ratio of medians "
              f"{statistics.median(peer) / statistics.median(whole):.0f}x the overview")
    return 0


if __name__ == "__main__":
    sys.exit(main())
