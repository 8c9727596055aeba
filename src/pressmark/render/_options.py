"""Renderer-wide configuration: the page state every render starts from, and the pool.

These are plain data (no Playwright import) so the CLI and the crawl layer can
build them without the ``render`` extra installed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from pressmark.render._errors import RenderError

DEFAULT_USER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/130.0.0.0 Safari/537.36 pressmark"
)

BlockableResource = Literal["image", "media", "font"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsentPolicy:
    """Make consent identical on every run: preset cookies, and dialogs removed before capture.

    ``cookies`` maps a host name (exact, lower case) to the cookies set for it before
    the page loads. ``remove_selectors`` are CSS selectors whose elements are removed
    from the DOM right before it is serialised.
    """

    cookies: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    remove_selectors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class PageState:
    """Everything about the browser that could make two renders of one page differ."""

    viewport_width: int = 1280
    viewport_height: int = 800
    device_scale_factor: float = 1.0
    locale: str = "en-US"
    timezone: str = "UTC"
    color_scheme: Literal["light", "dark", "no-preference"] = "light"
    reduced_motion: bool = True
    user_agent: str = DEFAULT_USER_AGENT
    block: frozenset[BlockableResource] = frozenset({"image", "media", "font"})
    consent: ConsentPolicy = field(default_factory=ConsentPolicy)


@dataclass(frozen=True, slots=True, kw_only=True)
class PoolLimits:
    """One browser, up to ``max_pages`` pages at a time, replaced after ``recycle_after`` pages.

    ``js_heap_mb`` caps each renderer's V8 heap, so a page that allocates without end
    crashes its own renderer instead of the machine. ``close_timeout_s`` is how long a
    page may take to close before its browser is considered hung and killed.
    """

    max_pages: int = 4
    recycle_after: int = 500
    js_heap_mb: int = 512
    close_timeout_s: float = 5.0
    launch_timeout_s: float = 30.0

    def __post_init__(self) -> None:
        if self.max_pages < 1 or self.recycle_after < 1 or self.js_heap_mb < 16:
            raise RenderError(
                "PoolLimits needs max_pages >= 1, recycle_after >= 1, js_heap_mb >= 16",
                code="invalid-config",
            )
