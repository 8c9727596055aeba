"""The renderer seam: what the fetch layer asks of a browser, and what it gets back.

These are plain data types with no browser import, so ``pressmark.fetch`` can
depend on them (and tests can implement a fake renderer) without Playwright.
The Playwright implementation lives in :mod:`pressmark.render._playwright`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadinessSpec:
    """Which readiness patterns to apply, in this order.

    (A) the first of ``main_selectors`` that matches holds at least
    ``min_main_text_chars`` of visible text; (B) a heading matches ``required_heading``
    (a JavaScript regular expression; a leading ``(?i)`` makes it case-insensitive);
    (C) no request in flight for ``network_idle_ms``, given up (with a warning) after
    ``network_idle_cap_ms``; (E) when ``scroll``, scroll a viewport at a time until
    the main text stops growing; (D) the main text unchanged for ``stability_window_ms``
    (0 skips it), counted from its last change as the page's MutationObserver saw it.
    (A) is checked again whenever the DOM changes, at most once per ``poll_interval_ms``
    (a burst of changes costs one check, not one per change). Text inside
    ``ignore_selectors`` (a live counter, a clock) is left out of (A), (D) and (E).

    A page with none of ``main_selectors`` (many real pages) falls back to ``body`` as
    its content root, with the text inside ``boilerplate_selectors`` (navigation,
    header, footer, asides, dialogs) left out, under the same rules; it is tried once
    ``fallback_after_ms`` have passed since navigation and the document has loaded (or
    at the last sample), so a shell that builds its ``<main>`` late still gets it.
    ``None`` turns the fallback off. The report then says ``fallback-body+...``.
    A page that fails (A) but has *settled* is done as it is, short by nature (a search
    page, a one-line notice): loaded; no request in flight; no frame, socket or worker;
    no timer, animation frame or idle callback due within ``settle_horizon_ms`` (a timer
    set for later, or a slow interval between two ticks, does not hold it back); no DOM
    change for ``settled_after_ms`` (by default the stability window). It ends then,
    ready, with the outcome ``ready:settled-short`` and the conditions that held in its
    reason, not at the deadline: a short static page costs half a second, not the whole
    timeout. A required heading still has to be there, and a content root (a main element,
    or the body fallback). ``None`` waits for the deadline.
    """

    main_selectors: tuple[str, ...] = ("main", "article", "[role=main]")
    min_main_text_chars: int = 200
    required_heading: str | None = None
    network_idle_ms: int | None = None
    stability_window_ms: int = 500
    poll_interval_ms: int = 20
    scroll: bool = False
    network_idle_cap_ms: int = 3_000
    max_scrolls: int = 40
    ignore_selectors: tuple[str, ...] = ()
    fallback_after_ms: int | None = 1_000
    settled_after_ms: int | None = 500
    settle_horizon_ms: int = 2_000
    boilerplate_selectors: tuple[str, ...] = (
        "nav", "header", "footer", "aside", "[role=navigation]", "[role=banner]",
        "[role=contentinfo]", "[role=complementary]", "[role=dialog]", "[role=alertdialog]",
        "[aria-modal=true]",
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadinessReport:
    """What the readiness engine observed; travels into the evidence packet.

    ``reason`` names the patterns that passed, joined by ``+`` (``"main-selector+stable"``),
    or the first that failed and why (``"stable-failed: main text changed 3 times ..."``).
    ``elapsed_ms`` counts from the start of navigation; ``samples`` is how many times
    the page was probed, ``scrolls`` how many scroll steps were taken. When (D) ran,
    ``last_change_ms`` is when the main content last changed and ``stable_at_ms`` when
    its stability was confirmed, both on the page's own clock (milliseconds since its
    document's navigation started), so ``stable_at_ms - last_change_ms`` is the window
    as the page lived it.
    """

    passed: bool
    reason: str
    elapsed_ms: float
    samples: int = 0
    scrolls: int = 0
    last_change_ms: float | None = None
    stable_at_ms: float | None = None


@runtime_checkable
class NavigationGuard(Protocol):
    """Decides, before the browser sends it, whether a top-level navigation may happen.

    The fetch layer's implementation asks robots.txt (``pressmark.fetch`` passes one when
    the source respects robots). It is asked for every request that loads the page's
    top-level document: the first one, each server redirect hop, and client-side
    redirects (``location``, meta refresh). Subresources and frames are not asked, as
    browsers do not apply robots.txt to them. An exception counts as a refusal.
    """

    async def allows(self, url: str) -> bool: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class RenderOptions:
    """Per-call knobs. ``timeout_ms`` is a hard limit the renderer enforces itself.

    ``navigation_guard``: when set, a refused top-level navigation is never requested and
    the render ends with ``RenderError(code="robots-denied")``.

    ``navigation_slot``, when given, is entered around the request for the page's own
    document (until its response commits) once the page has a browser tab: how a
    crawl's politeness counts a render as one request to the host, not as the whole
    wait for readiness, which sends nothing.
    """

    timeout_ms: int = 15_000
    user_agent: str | None = None
    readiness: ReadinessSpec = field(default_factory=ReadinessSpec)
    max_html_bytes: int | None = None
    navigation_guard: NavigationGuard | None = None
    navigation_slot: Callable[[], AbstractAsyncContextManager[Any]] | None = None


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
