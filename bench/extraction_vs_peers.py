"""Main-content extraction: pressmark vs trafilatura vs readability-lxml, one run.

Scores every extractor on both shared dev corpora (``extraction-dev``, news and
blogs with human ground truth; ``extraction-dev-readability``, Mozilla
Readability's test pages) with the shared scorer
(``../shared/bench/extraction_eval.py``: 4-token shingles, per-page P/R, F1 of
the means; Markdown stripped to text) and times the extraction calls in this
process, interleaved page by page, so the ratio compares like with like.
pressmark is also timed end to end through ``pressmark md --batch`` (process
start-up included), the way the scorer's ``--cmd`` mode runs it. Times are CPU
seconds (``process_time``, and ``RUSAGE_CHILDREN`` for the CLI): on a shared
machine wall time mostly measures the neighbours.

    python bench/extraction_vs_peers.py [--data DIR ...] [--no-cli] [--repeat N]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
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


def _time_cli(paths: dict[str, Path], jobs: str, repeat: int) -> tuple[float, float]:
    """``pressmark md --batch`` over a copy of the corpus: (wall, CPU) ms per page, best run.

    CPU is ``RUSAGE_CHILDREN``: the command and every worker it forked. Bytecode is
    cached in a temporary directory and one untimed run fills it, as an installed wheel
    ships compiled; with ``PYTHONDONTWRITEBYTECODE`` set on an editable install every run
    would otherwise recompile pressmark's modules, which trafilatura (installed, and timed
    in-process) never pays.
    """
    tmp = Path(tempfile.mkdtemp(prefix="pressmark-bench-"))
    try:
        src = tmp / "in"
        src.mkdir()
        for key, path in paths.items():
            shutil.copyfile(path, src / f"{key}.html")
        exe = Path(sys.executable).with_name("pressmark")
        cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "pressmark"]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        subprocess.run([*cmd, "md", "--batch", str(src), str(tmp / "warm"), "--jobs", jobs],
                       check=True, env=env)
        best_wall = best_cpu = float("inf")
        for run in range(repeat):
            out = tmp / f"out{run}"
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run([*cmd, "md", "--batch", str(src), str(out), "--jobs", jobs],
                           check=True, env=env)
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
        pages = max(1, len(paths))
        return 1000 * best_wall / pages, 1000 * best_cpu / pages
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run_split(ev: ModuleType, data: Path, args: argparse.Namespace) -> None:
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
        # paired: the default (auto: a worker per core once there are enough pages) and
        # one process, which is the CPU floor
        for jobs in ("auto", "1"):
            wall, cpu = _time_cli(paths, jobs, args.repeat)
            print(f"pressmark md --batch --jobs {jobs:<4} (process start-up included): "
                  f"{cpu:5.2f} ms/page CPU ({traf / cpu:.1f}x trafilatura), "
                  f"{wall:5.2f} ms/page wall ({traf / wall:.1f}x)")


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
        _run_split(ev, data, args)


if __name__ == "__main__":
    main()
