"""Timing half of ``extraction_vs_peers.py``: CPU per page, in process and as commands.

Kept apart from the quality report so that ``--quality-only`` runs never import it. Times
are CPU seconds (``process_time``, and ``RUSAGE_CHILDREN`` for the CLI): on a shared machine
wall time mostly measures the neighbours.
"""

from __future__ import annotations

import gzip
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


def time_interleaved(fns: list[Callable[[str], str]], htmls: dict[str, str], repeat: int,
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
                outputs[i][key] = _extract(fn, html)
                spent[i] += time.process_time() - started
        best = [min(b, s) for b, s in zip(best, spent, strict=True)]
    pages = max(1, len(htmls))
    return outputs, [1000 * b / pages for b in best]


def _extract(fn: Callable[[str], str], html: str) -> str:
    """``fn(html)``; a page an extractor raises on counts as empty output, as the shared
    scorer counts it (readability-lxml refuses a few CleanEval pages: control characters)."""
    try:
        return fn(html) or ""
    except Exception:  # a peer's failure on one page, not the bench's
        return ""


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
            # the pages as served: a split stored gzipped (``html/<id>.html.gz``, CleanEval's
            # layout) is written out decompressed, as the shared harness's --cmd mode does
            if path.suffix == ".gz":
                (self.src / f"{key}.html").write_bytes(gzip.decompress(path.read_bytes()))
            else:
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
    try:
        extract(html)
    except Exception:  # a page the peer refuses counts as empty output, as the scorer counts it
        pass
    spent += time.process_time() - started
print(1000 * spent / max(1, len(pages)))
"""


def _cpu_ms_per_page(fn: Callable[[str], str], htmls: dict[str, str]) -> float:
    started = time.process_time()
    for html in htmls.values():
        _extract(fn, html)
    return 1000 * (time.process_time() - started) / max(1, len(htmls))


def time_cli_paired(paths: dict[str, Path], htmls: dict[str, str], peer: Callable[[str], str],
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
