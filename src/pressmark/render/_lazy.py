"""A renderer that launches Chromium on the first page that needs it.

WHY: with ``render="on-shell"`` most pages never escalate, so a crawl, a
``pressmark fetch`` or an MCP session that only meets static pages should never
pay for a browser. Every caller that renders on demand uses this one class. A
launch that fails is remembered and raised from every later ``render`` (the
fetch layer keeps the plain snapshot and says why), instead of retrying the
launch on each page. Importing this module does not import Playwright.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from pressmark.render._options import PoolLimits, machine_render_slots

if TYPE_CHECKING:
    from pressmark.egress import EgressPolicy, Resolver
    from pressmark.render._playwright import PlaywrightRenderer
    from pressmark.render._protocol import RenderOptions, RenderResult


class LazyRenderer:
    """A :class:`~pressmark.render.Renderer` around a ``PlaywrightRenderer`` started on
    first use; ``slots`` (pages rendered at once) is known before the browser starts,
    so a crawl can size its pages in flight."""

    def __init__(self, policy: EgressPolicy | None, resolver: Resolver | None = None, *,
                 max_tabs: int | None = None) -> None:
        self._policy = policy
        self._resolver = resolver
        self.slots: int = max_tabs or machine_render_slots()
        self._inner: PlaywrightRenderer | None = None
        self._failed: BaseException | None = None
        self._lock = asyncio.Lock()

    async def start(self) -> PlaywrightRenderer:
        async with self._lock:
            if self._failed is not None:
                raise self._failed
            if self._inner is None:
                from pressmark.render import PlaywrightRenderer  # noqa: PLC0415  # heavy, lazy

                try:
                    inner = PlaywrightRenderer(self._policy, self._resolver,
                                               limits=PoolLimits.for_machine(self.slots))
                    await inner.start()
                except Exception as exc:
                    self._failed = exc
                    raise
                self._inner = inner
            return self._inner

    async def render(self, url: str, options: RenderOptions) -> RenderResult:
        inner = await self.start()
        return await inner.render(url, options)

    async def aclose(self) -> None:
        inner, self._inner = self._inner, None
        if inner is not None:
            with contextlib.suppress(Exception):
                await inner.close()
