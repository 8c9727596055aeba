"""A crawl that never waits on one page: the straggler site against itself without them.

Issue #35's acceptance: a site of about 500 pages (:class:`pressmark.testing.StragglerSite`:
``/`` -> 24 hubs -> 480 leaves, each answer after ``--latency`` seconds, served on loopback
by a threaded server) with two more pages at depth 1: ``/never``, a shell whose render never
becomes ready (it runs to the render deadline, the fetch timeout: 30 s by default), and
``/slow``, which answers after 20 s. Each round crawls, as separate ``pressmark crawl
--render on-shell`` processes, the site with the stragglers and the site without them (the
same pages otherwise), in alternating order so the machine's load hits both alike. The
wall time with them must stay within 1.3x the wall time without them: the stragglers run
beside the rest of the crawl instead of holding back depth 2 (with a level barrier the
crawl waited for them: about the render deadline more, 30 s on top).

    python bench/crawl_stragglers.py [--rounds 3] [--latency 0.3] [--slow 20]

Prints per run the wall time, pages, renders and the straggler pages' records; then the
medians and the ratio, with the machine's load average before and after.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pressmark.testing import StragglerSite

TARGET = 1.3


def crawl_once(pm: str, origin: str, out: Path) -> dict[str, object]:
    started = time.perf_counter()
    done = subprocess.run(
        [pm, "crawl", origin + "/", "--out", str(out), "--render", "on-shell",
         "--allow-loopback", origin, "--quiet"],
        capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"crawl failed ({done.returncode}): {done.stderr[-2000:]}")
    manifest = json.loads((out / "manifest.json").read_text())
    pages = [json.loads(line) for line in (out / "pages.jsonl").read_text().splitlines()]
    stragglers = {p["url"].removeprefix(origin): (p["outcome"], p["rendered"],
                                                  p.get("readiness_ms"))
                  for p in pages if p["url"].endswith(("/never", "/slow"))}
    return {"wall": wall, "pages": len(pages), "rendered": manifest["summary"]["rendered"],
            "stragglers": stragglers}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.3,
                        help="seconds every page takes to answer")
    parser.add_argument("--slow", type=float, default=20.0, help="seconds /slow takes")
    args = parser.parse_args()
    pm = str(Path(sys.executable).with_name("pressmark"))
    load_before = os.getloadavg()
    walls: dict[str, list[float]] = {"with": [], "without": []}
    with_site = StragglerSite(stragglers=True, latency_s=args.latency, slow_s=args.slow)
    without_site = StragglerSite(stragglers=False, latency_s=args.latency)
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory() as work:
        stack.enter_context(with_site.serve())
        stack.enter_context(without_site.serve())
        for r in range(args.rounds):
            order = ("with", "without") if r % 2 == 0 else ("without", "with")
            for name in order:
                site = with_site if name == "with" else without_site
                run = crawl_once(pm, site.origin, Path(work) / f"{name}-{r}")
                assert isinstance(run["wall"], float)
                walls[name].append(run["wall"])
                print(f"round {r} {name:>7} stragglers: {run['wall']:6.1f} s, "
                      f"{run['pages']} pages, {run['rendered']} rendered "
                      f"{run['stragglers'] or ''}", flush=True)
    load_after = os.getloadavg()
    with_s, without_s = statistics.median(walls["with"]), statistics.median(walls["without"])
    ratio = with_s / without_s
    print(f"median wall: with stragglers {with_s:.1f} s, without {without_s:.1f} s: "
          f"ratio {ratio:.2f} (target <= {TARGET}); per round: "
          + ", ".join(f"{a / b:.2f}" for a, b in zip(walls['with'], walls['without'],
                                                      strict=True)))
    print(f"load average (1, 5, 15 min): before {load_before[0]:.1f} {load_before[1]:.1f} "
          f"{load_before[2]:.1f}, after {load_after[0]:.1f} {load_after[1]:.1f} "
          f"{load_after[2]:.1f} on {os.cpu_count()} cores")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
