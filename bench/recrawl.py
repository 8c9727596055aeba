"""A recrawl of an unchanged site against the first crawl, on loopback nginx.

The demo site (``DemoSite(pages=N)``, about 2,000 HTML pages by default) is mirrored
and served by nginx on 127.0.0.1, as in ``crawl_vs_scrapy.py`` (nginx sends ``ETag`` and
``Last-Modified``). Each round runs, as separate processes: a first ``pressmark crawl``
into a new directory, a recrawl into the same directory (conditional requests, 304s keep
the stored snapshots and Markdown), and a recrawl with ``--no-revalidate`` (every page in
full) into a copy of the first crawl's directory. Markdown is on, as a user would run it.

    python bench/recrawl.py [--pages 1965] [--rounds 3] [--render never|on-shell]

Target: recrawl >= 3x faster than the first crawl, every page ``not-modified``. With
``--render on-shell`` (the demo's shells, about a fifth of its pages, and the JSON they
fetch are mirrored too, so they render in Chromium): the recrawl renders nothing (a render
keeps its plain attempt's validators, and a 304 keeps the render), every page
``not-modified``, in at most 15 % of the first crawl's wall time (issue #35).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from crawl_vs_scrapy import free_port, measure, mirror_site, start_nginx  # sibling


def outcomes(out: Path) -> dict[str, int]:
    summary = json.loads((out / "manifest.json").read_text())["summary"]
    return {**summary["by_outcome"], "rendered": summary.get("rendered", 0)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1965, help="generated demo pages")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--render", choices=["never", "on-shell"], default="never")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="pm-recrawl-"))
    work.chmod(0o755)  # nginx workers run as nobody and must read the site
    root, prefix = work / "site", work / "nginx"
    root.mkdir()
    prefix.mkdir()
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    n = mirror_site(root, args.pages, origin, api=args.render == "on-shell")
    nginx = start_nginx(root, prefix, port)
    pm = str(Path(sys.executable).with_name("pressmark"))
    common = [pm, "crawl", origin + "/", "--allow-loopback", origin, "--concurrency", "16",
              "--per-host-concurrency", "16", "--render", args.render, "--quiet"]
    walls: dict[str, list[float]] = {}
    try:
        print(f"site: {n} HTML pages mirrored, nginx at {origin}")
        for r in range(args.rounds):
            out, full = work / f"out-{r}", work / f"full-{r}"
            first, _, _ = measure([*common, "--out", str(out)])
            first_outcomes = outcomes(out)
            shutil.copytree(out, full, symlinks=True)
            again, _, _ = measure([*common, "--out", str(out)])
            again_outcomes = outcomes(out)
            forced, _, _ = measure([*common, "--out", str(full), "--no-revalidate"])
            for label, wall in (("first crawl", first), ("recrawl", again),
                                ("recrawl --no-revalidate", forced)):
                walls.setdefault(label, []).append(wall)
            print(f"round {r + 1}: first {first:6.2f} s {first_outcomes}  recrawl {again:6.2f} s "
                  f"{again_outcomes}  --no-revalidate {forced:6.2f} s  "
                  f"speedup {first / again:5.2f}x", flush=True)
            shutil.rmtree(out, ignore_errors=True)
            shutil.rmtree(full, ignore_errors=True)
    finally:
        nginx.terminate()
        nginx.wait(10)
        shutil.rmtree(work, ignore_errors=True)

    median = {k: statistics.median(v) for k, v in walls.items()}
    print("\nmedian wall time:")
    for k, v in median.items():
        print(f"  {k:26s} {v:7.2f} s")
    print(f"recrawl speedup vs first crawl: {median['first crawl'] / median['recrawl']:.2f}x "
          f"(target >= 3x); vs --no-revalidate: "
          f"{median['recrawl --no-revalidate'] / median['recrawl']:.2f}x; recrawl wall "
          f"{100 * median['recrawl'] / median['first crawl']:.1f} % of the first crawl's"
          + (" (target <= 15 % with --render on-shell)" if args.render == "on-shell" else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
