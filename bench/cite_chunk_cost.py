"""What ``pressmark md --batch --chunks`` adds to ``md --batch``: CPU per page on the dev
sets, with and without chunks, run after run in turn (``--jobs 1``; CPU is
``RUSAGE_CHILDREN``: on a shared machine wall time mostly measures the neighbours).

Chunking is asked for with ``--chunks`` (``--max-chars 2000``, the default, and 800): the
block map is worked out (it is lazy, see ``pressmark.markdown._blockmap``), the page cut
and each chunk written as a JSON line. Without the flag nothing of ``pressmark.cite`` is
imported (``tests/unit/test_imports.py``). The ratio reported is the median, over the
paired runs, of chunked / plain CPU.

    .venv/bin/python bench/cite_chunk_cost.py [--repeat 5]
    .venv/bin/python bench/cite_chunk_cost.py --callgrind [--sets extraction-dev]

``--callgrind`` counts instructions instead (valgrind's callgrind, one run each: plain,
``--chunks``, and both over an empty directory for the start-up, the chunker's import
included). WHY: on a shared machine CPU time varies by more than what is measured, and
an instruction count does not. It reports the batch's ratio and the per-page one (the
start-ups taken out of both sides). Instructions are not time: SHA-256 is counted
without the CPU's SHA extensions, which the real run uses, so chunking's share is a
little overstated.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SETS = ("extraction-dev", "extraction-dev-readability", "extraction-dev-cleaneval")


def shared() -> Path:
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "bench" / "extraction-dev").is_dir():
            return parent / "shared" / "bench"
    sys.exit("the shared dev sets were not found beside the checkout")


def copy_pages(name: str, into: Path) -> int:
    """The set's pages as ``*.html`` in ``into`` (CleanEval's are gzipped)."""
    into.mkdir(parents=True)
    source = shared() / name
    count = 0
    for page in sorted(source.glob("*.html")):
        shutil.copyfile(page, into / page.name)
        count += 1
    for page in sorted((source / "html").glob("*.html.gz")):
        (into / page.name.removesuffix(".gz")).write_bytes(gzip.decompress(page.read_bytes()))
        count += 1
    return count


def cpu_of(argv: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def instructions_of(argv: list[str], env: dict[str, str], tmp: str) -> int:
    """Instructions the command runs (callgrind's total), its children left out."""
    done = subprocess.run(["valgrind", "--tool=callgrind",
                           f"--callgrind-out-file={os.path.join(tmp, 'callgrind.out')}",
                           *argv], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        sys.exit("callgrind reported no count: " + done.stderr[-500:])
    return int(found.group(1))


def by_callgrind(exe: str, name: str, pages_dir: Path, pages: int, *, env: dict[str, str],
                 tmp: str) -> None:
    empty = Path(tmp) / "empty"
    empty.mkdir(exist_ok=True)
    count: dict[tuple[str, bool], int] = {}
    for directory, label in ((pages_dir, "pages"), (empty, "start-up")):
        for chunks in (False, True):
            out = os.path.join(tmp, "out-callgrind")
            shutil.rmtree(out, ignore_errors=True)
            count[label, chunks] = instructions_of(
                [exe, "md", "--batch", str(directory), out, "--jobs", "1",
                 *(["--chunks"] if chunks else [])], env, tmp)
    plain, chunked = count["pages", False], count["pages", True]
    start, start_chunked = count["start-up", False], count["start-up", True]
    per_page = (chunked - start_chunked) / (plain - start) - 1
    print(f"{name} ({pages} pages), instructions: plain {plain / 1e6:,.1f} M, --chunks "
          f"{chunked / 1e6:,.1f} M ({100 * (chunked / plain - 1):+.1f} %); start-up "
          f"{start / 1e6:,.1f} M / {start_chunked / 1e6:,.1f} M; per page "
          f"{(plain - start) / pages / 1e6:.2f} M / "
          f"{(chunked - start_chunked) / pages / 1e6:.2f} M ({100 * per_page:+.1f} %)",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    parser.add_argument("--callgrind", action="store_true",
                        help="count instructions with valgrind's callgrind instead of CPU time")
    args = parser.parse_args()
    exe = str(Path(sys.executable).with_name("pressmark"))
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPYCACHEPREFIX": os.path.join(tmp, "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for name in args.sets:
            pages_dir = Path(tmp) / name
            pages = copy_pages(name, pages_dir)
            if args.callgrind:
                for flags in ([], ["--chunks"]):  # fills the bytecode cache
                    cpu_of([exe, "md", "--batch", str(pages_dir), os.path.join(tmp, "warm"),
                            "--jobs", "1", *flags], env)
                by_callgrind(exe, name, pages_dir, pages, env=env, tmp=tmp)
                continue
            runs = {"plain": [], "chunks 2000": [], "chunks 800": []}
            extra = {"plain": [], "chunks 2000": ["--chunks"],
                     "chunks 800": ["--chunks", "--max-chars", "800"]}
            for label in runs:  # untimed: fills the bytecode cache
                cpu_of([exe, "md", "--batch", str(pages_dir), os.path.join(tmp, "warm"),
                        "--jobs", "1", *extra[label]], env)
            for _ in range(args.repeat):
                for label, flags in extra.items():
                    out = os.path.join(tmp, "out-" + label.replace(" ", "-"))
                    shutil.rmtree(out, ignore_errors=True)
                    runs[label].append(cpu_of([exe, "md", "--batch", str(pages_dir), out,
                                               "--jobs", "1", *flags], env))
            plain = runs["plain"]
            line = [f"{name} ({pages} pages): plain {1000 * statistics.median(plain) / pages:.2f}"
                    " ms/page"]
            for label in ("chunks 2000", "chunks 800"):
                ratios = [c / p for c, p in zip(runs[label], plain, strict=True)]
                line.append(f"{label} {1000 * statistics.median(runs[label]) / pages:.2f} "
                            f"ms/page (x{statistics.median(ratios):.3f}, runs "
                            + " ".join(f"{r:.3f}" for r in ratios) + ")")
            print("; ".join(line), flush=True)


if __name__ == "__main__":
    main()
