"""The renderer seam: what the fetch layer asks of a browser, and what it gets back.

These are plain data types with no browser import, so ``pressmark.fetch`` can
depend on them (and tests can implement a fake renderer) without Playwright.
The Playwright implementation lives in :mod:`pressmark.render._playwright`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadinessSpec:
    """Which readiness patterns to apply, in order (see the seed article, sections 5-7)."""

    main_selectors: tuple[str, ...] = ("main", "article", "[role=main]")
    min_main_text_chars: int = 200
    required_heading: str | None = None
    network_idle_ms: int | None = None
    stability_window_ms: int = 500
    poll_interval_ms: int = 100
    scroll: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadinessReport:
    """What the readiness engine observed; travels into the evidence packet."""

    passed: bool
    reason: str
    elapsed_ms: float
    samples: int = 0
    scrolls: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class RenderOptions:
    """Per-call knobs. ``timeout_ms`` is a hard limit the renderer enforces itself."""

    timeout_ms: int = 15_000
    user_agent: str | None = None
    readiness: ReadinessSpec = field(default_factory=ReadinessSpec)
    max_html_bytes: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RenderResult:
    """The DOM as serialised after readiness, plus what happened on the way."""

    html: str
    final_url: str | None
    status: int | None
    warnings: tuple[str, ...] = ()
    readiness: ReadinessReport | None = None
    timings: Mapping[str, float] = field(default_factory=dict)


@runtime_checkable
class Renderer(Protocol):
    """Anything that can turn a URL into rendered HTML."""

    async def render(self, url: str, options: RenderOptions) -> RenderResult: ...
