"""Locate the shared benchmark corpus and its scorer (``../shared/bench`` beside the repo)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[3]


def bench_dir() -> Path | None:
    for candidate in (REPO.parent / "shared" / "bench", Path("/work/shared/bench")):
        if (candidate / "extraction-dev" / "ground-truth.json").is_file() and (
            candidate / "extraction_eval.py"
        ).is_file():
            return candidate
    return None


def load_eval(bench: Path) -> ModuleType:
    name = "pressmark_extraction_eval"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, bench / "extraction_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
