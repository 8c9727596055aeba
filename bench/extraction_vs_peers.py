"""Main-content extraction: pressmark vs trafilatura vs readability-lxml, one run.

Scores every extractor on both shared dev corpora (``extraction-dev``, news and
blogs with human ground truth; ``extraction-dev-readability``, Mozilla
Readability's test pages) with the shared scorer
(``../shared/bench/extraction_eval.py``: 4-token shingles, per-page P/R, F1 of
the means; Markdown stripped to text) and times the extraction calls in this
process, interleaved page by page, so the ratio compares like with like.
pressmark is also timed end to end through ``pressmark md --batch`` (process
start-up included), the way the scorer's ``--cmd`` mode runs it, each run paired
with two trafilatura passes over the same pages just before it (a first pass in a fresh
process, as the scorer's ``--extractor`` mode runs it, and another in this process,
whose earlier passes warmed it); and like for like, with
trafilatura run as a command too (the scorer's ``--as-cmd``: its start-up and imports
counted as pressmark's are). Times are CPU seconds
(``process_time``, and ``RUSAGE_CHILDREN`` for the CLI): on a shared machine wall
time mostly measures the neighbours.

    python bench/extraction_vs_peers.py [--data DIR ...] [--no-cli] [--repeat N]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def _bench_dir() -> Path:
    for candidate in (REPO.parent / "shared" / "bench", Path("/work/shared/bench")):
        if (candidate / "extraction_eval.py").is_file():
            return candidate
    sys.exit("benchmark corpus not found: expected ../shared/bench beside the checkout")


def _load_eval(bench: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("extraction_eval", bench / "extraction_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["extraction_eval"] = module
    spec.loader.exec_module(module)
    return module


def _pressmark() -> Callable[[str], str]:
    from pressmark.markdown import to_markdown

    return lambda html: to_markdown(html).markdown


def _time_interleaved(fns: list[Callable[[str], str]], htmls: dict[str, str], repeat: int,
                      ) -> tuple[list[dict[str, str]], list[float]]:
    """Every extractor on a page before the next page, so load spikes hit all alike.

    Returns each extractor's outputs and its CPU ms per page (best pass).
    """
    outputs: list[dict[str, str]] = [{} for _ in fns]
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        spent = [0.0] * len(fns)
        for key, html in htmls.items():
            for i, fn in enumerate(fns):
                started = time.process_time()
                outputs[i][key] = fn(html) or ""
                spent[i] += time.process_time() - started
        best = [min(b, s) for b, s in zip(best, spent, strict=True)]
    pages = max(1, len(htmls))
    return outputs, [1000 * b / pages for b in best]


class _Cli:
    """``pressmark md --batch`` over a copy of the corpus, timed run by run.

    CPU is ``RUSAGE_CHILDREN``: the command and every worker it forked. Bytecode is
    cached in a temporary directory and one untimed run fills it, as an installed wheel
    ships compiled; with ``PYTHONDONTWRITEBYTECODE`` set on an editable install every run
    would otherwise recompile pressmark's modules, which trafilatura (installed, and timed
    in-process) never pays.
    """

    def __init__(self, paths: dict[str, Path]) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="pressmark-bench-"))
        self.src = self.tmp / "in"
        self.src.mkdir()
        for key, path in paths.items():
            shutil.copyfile(path, self.src / f"{key}.html")
        self.pages = max(1, len(paths))
        exe = Path(sys.executable).with_name("pressmark")
        self.cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "pressmark"]
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env["PYTHONPYCACHEPREFIX"] = str(self.tmp / "pycache")
        self.runs = 0
        self.run("1")  # fills the bytecode cache

    def run(self, jobs: str) -> tuple[float, float]:
        """One run: (wall, CPU) ms per page, process start-up included."""
        self.runs += 1
        out = self.tmp / f"out{self.runs}"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([*self.cmd, "md", "--batch", str(self.src), str(out), "--jobs", jobs],
                       check=True, env=self.env, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return 1000 * wall / self.pages, 1000 * cpu / self.pages

    def run_peer_command(self, bench: Path, name: str) -> float:
        """The shared harness acting as a command for a peer (``--as-cmd NAME``) over the
        same folder: CPU ms per page, its interpreter start-up and imports included, the
        like-for-like of :meth:`run`."""
        self.runs += 1
        out = self.tmp / f"out{self.runs}"
        out.mkdir()
        env = dict(self.env, INPUT_DIR=str(self.src), OUTPUT_DIR=str(out))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, str(bench / "extraction_eval.py"), "--as-cmd", name],
                       check=True, env=env, stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return 1000 * cpu / self.pages

    def peer_first_pass(self, bench: Path, name: str) -> float:
        """A peer's first pass over the same pages in a fresh process, as the shared
        harness's in-process mode times it (``--extractor NAME``: the extractor built
        first, untimed; then each page once): CPU ms per page. A pass over pages the
        process has already seen is faster (trafilatura's memos and lazy set-up: about a
        seventh on extraction-dev), and each ``md --batch`` run sees its pages once; both
        ratios are reported."""
        out = subprocess.run(
            [sys.executable, "-c", _FIRST_PASS, str(bench / "extraction_eval.py"), name,
             str(self.src)],
            check=True, env=self.env, capture_output=True, text=True)
        return float(out.stdout.split()[-1])

    def close(self) -> None:
        """The runs' outputs go only now: on ext4 a file deleted minutes ago makes every
        new file's inode slower to allocate (``recently_deleted``, kernel time that
        ``RUSAGE_CHILDREN`` counts), so outputs deleted between runs made each later run
        pay for the ones before it (up to a third of a dev-set run's CPU)."""
        shutil.rmtree(self.tmp, ignore_errors=True)


_FIRST_PASS = """
import importlib.util, pathlib, sys, time
spec = importlib.util.spec_from_file_location("extraction_eval", sys.argv[1])
ev = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ev)
extract = ev.EXTRACTORS[sys.argv[2]][0]()
pages = [p.read_bytes() for p in sorted(pathlib.Path(sys.argv[3]).glob("*.html"))]
spent = 0.0
for page in pages:
    html = page.decode("utf-8", errors="replace")
    started = time.process_time()
    extract(html)
    spent += time.process_time() - started
print(1000 * spent / max(1, len(pages)))
"""


def _cpu_ms_per_page(fn: Callable[[str], str], htmls: dict[str, str]) -> float:
    started = time.process_time()
    for html in htmls.values():
        fn(html)
    return 1000 * (time.process_time() - started) / max(1, len(htmls))


def _time_cli_paired(paths: dict[str, Path], htmls: dict[str, str], peer: Callable[[str], str],
                     repeat: int, bench: Path) -> dict[str, tuple[float, float, float, float]]:
    """Each ``md --batch`` run right after passes of the peer over the same pages.

    On a shared machine the load changes from minute to minute; a ratio of two figures
    taken apart compares the load, not the code. So every CLI run gets its own peer
    passes, and the ratios reported are the medians of the paired ratios. Returns, per
    ``--jobs`` value: (median CLI CPU ms/page, median wall ms/page, median ratio to the
    peer's warm pass in this process, median ratio to its first pass in a fresh
    process). Under ``"peer-cmd"``: trafilatura run as a command by the shared harness
    (start-up included on both sides), paired with a ``--jobs 1`` run: (its CPU ms/page,
    0, ratio, 0).
    """
    cli = _Cli(paths)
    try:
        samples: dict[str, list[tuple[float, float, float, float]]] = {
            "auto": [], "1": [], "peer-cmd": []}
        for _ in range(repeat):
            for jobs, runs in samples.items():
                if jobs == "peer-cmd":
                    peer_cmd_ms = cli.run_peer_command(bench, "trafilatura")
                    _, cpu = cli.run("1")
                    runs.append((peer_cmd_ms, 0.0, peer_cmd_ms / cpu, 0.0))
                    continue
                warm_ms = _cpu_ms_per_page(peer, htmls)
                first_ms = cli.peer_first_pass(bench, "trafilatura")
                wall, cpu = cli.run(jobs)
                runs.append((cpu, wall, warm_ms / cpu, first_ms / cpu))
        return {jobs: (statistics.median(r[0] for r in runs),
                       statistics.median(r[1] for r in runs),
                       statistics.median(r[2] for r in runs),
                       statistics.median(r[3] for r in runs)) for jobs, runs in samples.items()}
    finally:
        cli.close()


def _run_split(ev: ModuleType, data: Path, bench: Path, args: argparse.Namespace) -> None:
    truth, paths = ev.load_split(data)
    htmls = {k: ev.read_html_bytes(p).decode("utf-8", errors="replace") for k, p in paths.items()}
    print(f"\n== {data.name} ({len(htmls)} pages, sha256 {ev.corpus_digest(truth, paths)[:16]})")
    names = ["pressmark", "trafilatura", "readability-lxml"]
    fns = [_pressmark(), ev.EXTRACTORS["trafilatura"][0](), ev.EXTRACTORS["readability"][0]()]
    outputs, times = _time_interleaved(fns, htmls, args.repeat)
    rows = []
    for name, out, ms in zip(names, outputs, times, strict=True):
        preds = {k: ev.markdown_to_text(v) if name == "pressmark" else v for k, v in out.items()}
        counts, _, _ = ev.score(truth, preds)
        m = ev.aggregate(counts)
        rows.append((name, m["f1"], m["precision"], m["recall"], ms))
    base = rows[0][4]
    print(f"{'extractor':<18} {'F1':>6} {'P':>6} {'R':>6} {'ms/page':>8} {'x slower':>9}"
          "   (ms/page: CPU time of the extraction calls)")
    for name, f1, p, r, ms in rows:
        print(f"{name:<18} {f1:6.3f} {p:6.3f} {r:6.3f} {ms:8.2f} {ms / base:9.1f}")
    traf = rows[1][4]
    print(f"speed: pressmark is {traf / base:.1f}x faster than trafilatura (CPU time per page)")
    if not args.no_cli:
        # paired with trafilatura run by run (see _time_cli_paired); two settings: the
        # default (auto: a worker per core once there are enough pages) and one process,
        # which is the CPU floor
        paired = _time_cli_paired(paths, htmls, fns[1], args.repeat, bench)
        peer_cmd_ms, _, peer_cmd_ratio, _ = paired.pop("peer-cmd")
        for jobs, (cpu, wall, warm, first) in paired.items():
            print(f"pressmark md --batch --jobs {jobs:<4} (process start-up included): "
                  f"{cpu:5.2f} ms/page CPU, {wall:5.2f} ms/page wall; trafilatura in the "
                  f"same minute: {first:.1f}x the CLI's CPU on a first pass in a fresh "
                  f"process (as the shared harness runs it), {warm:.1f}x on another pass in "
                  f"this one (median of {args.repeat})")
        print(f"like for like, both as commands (start-up included on both sides): "
              f"trafilatura {peer_cmd_ms:5.2f} ms/page CPU, {peer_cmd_ratio:.1f}x pressmark "
              f"md --batch --jobs 1 run just after it (median of {args.repeat})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, action="append", default=None,
                        help="split dir, repeatable (default: both dev sets)")
    parser.add_argument("--repeat", type=int, default=1, help="timing passes (best is kept)")
    parser.add_argument("--no-cli", action="store_true", help="skip the end-to-end CLI timing")
    args = parser.parse_args()
    bench = _bench_dir()
    ev = _load_eval(bench)
    splits = args.data or [bench / "extraction-dev", bench / "extraction-dev-readability"]
    for data in splits:
        _run_split(ev, data, bench, args)


if __name__ == "__main__":
    main()
