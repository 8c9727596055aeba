"""Renderer-wide configuration: the page state every render starts from, and the pool.

These are plain data (no Playwright import) so the CLI and the crawl layer can
build them without the ``render`` extra installed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

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


PAGES_PER_CORE = 4
"""Open pages per CPU core. A page spends most of a render waiting (for the network, for
the page's own timers, for the stability window): on the render bench (2 cores, a JS
shell takes ~1 s to pass readiness and ~0.25 s of CPU) four per core keep both cores
busy, where three left the crawl bound by the window."""

PAGE_MEMORY_MB = 120
"""What one open page costs the machine, to size the pages from memory (a renderer
process for a typical article page, with headroom)."""

MAX_AUTO_PAGES = 16


def machine_render_slots(cpus: int | None = None, available_mb: float | None = None) -> int:
    """Pages to render at once on this machine: ``PAGES_PER_CORE`` per core, no more than
    a quarter of the available memory holds, between 2 and ``MAX_AUTO_PAGES``."""
    cpus = cpus if cpus is not None else (os.cpu_count() or 1)
    available_mb = available_mb if available_mb is not None else _available_mb()
    by_cpu = cpus * PAGES_PER_CORE
    by_memory = int(available_mb / 4 / PAGE_MEMORY_MB) if available_mb > 0 else by_cpu
    return max(2, min(by_cpu, by_memory, MAX_AUTO_PAGES))


def machine_memory_budget_mb(slots: int, available_mb: float | None = None) -> int:
    """The browser's PSS above which new pages wait: twice what ``slots`` pages should
    need, and never more than half the memory available when the pool starts."""
    available_mb = available_mb if available_mb is not None else _available_mb()
    wanted = 2 * PAGE_MEMORY_MB * slots + 300  # the browser, GPU and network processes
    return int(min(wanted, available_mb / 2)) if available_mb > 0 else wanted


def _available_mb() -> float:
    """MemAvailable from /proc/meminfo (Linux), else 0 (unknown)."""
    try:
        with Path("/proc/meminfo").open(encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class PoolLimits:
    """One browser, up to ``max_tabs`` tabs at a time, replaced after ``recycle_after`` pages.

    ``js_heap_mb`` caps each renderer's V8 heap, so a page that allocates without end
    crashes its own renderer instead of the machine. ``close_timeout_s`` is how long a
    page may take to close before its browser is considered hung and killed. A
    context that rendered cleanly is reset and reused for up to ``reuse_pages``
    renders (1 turns reuse off). While the browser's summed PSS is above
    ``memory_budget_mb`` (``None``: no budget), new pages wait for running ones.
    :meth:`for_machine` sizes ``max_tabs`` and the budget from CPUs and memory.
    (``max_tabs``, not ``max_pages``: that is a crawl's page budget, ``CrawlPolicy.max_pages``.)
    """

    max_tabs: int = 4
    recycle_after: int = 500
    js_heap_mb: int = 512
    close_timeout_s: float = 5.0
    launch_timeout_s: float = 30.0
    reuse_pages: int = 50
    memory_budget_mb: int | None = None

    def __post_init__(self) -> None:
        if (self.max_tabs < 1 or self.recycle_after < 1 or self.js_heap_mb < 16
                or self.reuse_pages < 1
                or (self.memory_budget_mb is not None and self.memory_budget_mb < 64)):
            raise RenderError(
                "PoolLimits needs max_tabs >= 1, recycle_after >= 1, js_heap_mb >= 16,"
                " reuse_pages >= 1 and memory_budget_mb >= 64 (or None)",
                code="invalid-config",
            )

    @classmethod
    def for_machine(cls, max_tabs: int | None = None, **others: Any) -> PoolLimits:
        """Limits sized for this machine (see :func:`machine_render_slots`); an explicit
        ``max_tabs`` wins, and the memory budget follows the page count."""
        available = _available_mb()
        pages = max_tabs if max_tabs is not None else machine_render_slots(
            available_mb=available)
        others.setdefault("memory_budget_mb", machine_memory_budget_mb(pages, available))
        return cls(max_tabs=pages, **others)
