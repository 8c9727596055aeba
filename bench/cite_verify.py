"""verify_quote on dev-set pages: 1,000 quotes taken from the Markdown (all must be exact),
1,000 with one word changed (none may be exact or normalised), and the time of each
answer (median), the snapshots in a filesystem store on local disk, a fresh Verifier per
answer (the page resolved, hashed and converted every time).

Two more forms of the same quotes show the normalised path: each quote respaced (spaces
doubled, blank lines dropped, its markup kept: the words inside the markup are checked
too) must be found, and none of them with the word changed; and each quote's reading
text (markup taken out, as an agent copies it from a rendered page) is counted found.

    .venv/bin/python bench/cite_verify.py [--quotes 1000]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pressmark.cite import Verifier, verify_quote
from pressmark.cite._views import reading_view
from pressmark.store import FilesystemSnapshotStore
from pressmark.testing import make_snapshot

SETS = ("extraction-dev", "extraction-dev-readability")


def shared() -> Path:
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "bench" / "extraction-dev").is_dir():
            return parent / "shared" / "bench"
    sys.exit("the shared dev sets were not found beside the checkout")


def respaced(quote: str) -> str:
    """The quote with its spacing changed and its markup kept: spaces doubled, blank lines
    dropped (each line still starts as it did, so its block markup still reads as such)."""
    return re.sub(r"\n\s*\n", "\n", quote.replace(" ", "  "))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quotes", type=int, default=1000)
    args = parser.parse_args()
    rng = random.Random(38)
    with tempfile.TemporaryDirectory() as tmp:
        store = FilesystemSnapshotStore(Path(tmp) / "store")
        refs = []
        for name in SETS:
            for page in sorted((shared() / name).glob("*.html")):
                snap = make_snapshot(f"{name}:{page.stem}"[:200], f"https://dev.test/{page.stem}",
                                     page.read_bytes())
                refs.append(store.put(snap).source_ref)
        pages = {ref: Verifier(store).page(ref).markdown for ref in refs}
        usable = [r for r, md in pages.items() if len(re.findall(r"\S+", md)) >= 30]
        exact = changed_found = respaced_found = respaced_changed = reading_found = 0
        times: list[float] = []
        cpu: list[float] = []

        def check(ref: str, quote: str, timed: bool = False) -> str:
            t0, c0 = time.perf_counter(), time.process_time()
            verdict = verify_quote(ref, quote, store).verdict
            if timed:
                times.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            return verdict

        for _ in range(args.quotes):
            ref = rng.choice(usable)
            words = list(re.finditer(r"\S+", pages[ref]))
            a = rng.randrange(len(words) - 25)
            b = a + rng.randrange(6, 24)
            quote = pages[ref][words[a].start():words[b].end()]
            exact += check(ref, quote, timed=True) == "exact"
            k = rng.randrange(a + 1, b)
            edited = (pages[ref][words[a].start():words[k].start()] + "zygomorphic"
                      + pages[ref][words[k].end():words[b].end()])
            changed_found += check(ref, edited, timed=True) != "not-found"
            respaced_found += check(ref, respaced(quote)) != "not-found"
            respaced_changed += check(ref, respaced(edited)) != "not-found"
            reading = " ".join(reading_view(quote).text.split())
            reading_found += bool(reading) and check(ref, reading) != "not-found"
    n = args.quotes
    print(f"pages {len(usable)} (of {len(refs)}), quotes {n} + {n} with one word changed")
    print(f"exact: {exact}/{n} ({exact / n:.1%}); one word changed, exact or normalised: "
          f"{changed_found}/{n} ({changed_found / n:.1%})")
    print(f"respaced (markup kept): found {respaced_found}/{n}; with the word changed, found "
          f"{respaced_changed}/{n} ({respaced_changed / n:.1%})")
    print(f"reading text (markup out): found {reading_found}/{n} ({reading_found / n:.1%})")
    print(f"time per answer: median {statistics.median(times) * 1000:.1f} ms, "
          f"p90 {statistics.quantiles(times, n=10)[-1] * 1000:.1f} ms (wall); CPU median "
          f"{statistics.median(cpu) * 1000:.1f} ms, p90 "
          f"{statistics.quantiles(cpu, n=10)[-1] * 1000:.1f} ms (on a shared machine the wall "
          "time measures the neighbours too); load average "
          + " ".join(f"{x:.1f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
