"""Rendering JavaScript pages in a real browser (extra ``pressmark[render]``).

Importing this package does not import Playwright; the renderer class is loaded
on first attribute access and fails with an install hint when Playwright is
missing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pressmark.render._chromium import find_chromium
from pressmark.render._errors import RenderError
from pressmark.render._lazy import LazyRenderer
from pressmark.render._options import PoolLimits
from pressmark.render._protocol import (
    ReadinessReport,
    ReadinessSpec,
    Renderer,
    RenderOptions,
    RenderResult,
)

if TYPE_CHECKING:
    from pressmark.render._playwright import PlaywrightRenderer

__all__ = [
    "LazyRenderer",
    "PlaywrightRenderer",
    "PoolLimits",
    "ReadinessReport",
    "ReadinessSpec",
    "RenderError",
    "RenderOptions",
    "RenderResult",
    "Renderer",
    "find_chromium",
]


def __getattr__(name: str) -> Any:
    if name == "PlaywrightRenderer":
        try:
            module = importlib.import_module("pressmark.render._playwright")
        except ImportError as exc:
            if exc.name is None or not exc.name.startswith("playwright"):
                raise
            raise RenderError(
                "rendering needs Playwright: pip install 'pressmark[render]'"
                " (pressmark uses the system's Chromium and never downloads one)",
                code="playwright-missing",
            ) from exc
        return module.PlaywrightRenderer
    raise AttributeError(f"module 'pressmark.render' has no attribute {name!r}")
