"""Rendering JavaScript pages in a real browser (extra ``pressmark[render]``).

Importing this package does not import Playwright; the renderer class is loaded
on first attribute access and fails with an install hint when Playwright is
missing.
"""

from pressmark.render._protocol import (
    ReadinessReport,
    ReadinessSpec,
    Renderer,
    RenderOptions,
    RenderResult,
)

__all__ = ["ReadinessReport", "ReadinessSpec", "RenderOptions", "RenderResult", "Renderer"]
