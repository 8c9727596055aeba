"""bench/store_bench.py runs end to end (tiny sizes; the real figures come from `make bench`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest


def test_store_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(__file__).parents[2] / "bench" / "store_bench.py"
    spec = importlib.util.spec_from_file_location("store_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--puts", "5", "--history", "30", "--samples", "20"])
    out = capsys.readouterr().out
    assert "put new-source fsync" in out
    assert "latest(): 10 records" in out


def test_importing_the_store_does_not_load_warcio() -> None:
    import subprocess
    import sys

    code = ("import sys, pressmark.store, pressmark.snapshot;"
            "print('warcio' in {m.split('.')[0] for m in sys.modules})")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
