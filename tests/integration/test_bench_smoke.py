"""The benchmarks keep working: each runs once at a tiny size (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.parametrize("args", [
    ["egress_overhead.py", "--requests", "64", "--rounds", "1", "--concurrency", "8"],
    ["ssrf_vs_advocate.py"],
    ["fetch_throughput.py", "--pages", "20", "--rounds", "1", "--repeat", "1"],
    ["shell_classifier.py", "--pages", "40", "--show", "0"],
    ["store_crash.py", "--seconds", "3", "--writers", "2", "--min-acked", "1"],
], ids=lambda args: args[0])
def test_bench_runs(args: list[str]) -> None:
    done = subprocess.run([sys.executable, str(BENCH / args[0]), *args[1:]],
                          capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
