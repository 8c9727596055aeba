"""A browser started on the first page that needs one, and shared by every later call.

A server that only ever fetches static pages never starts Chromium; one that
renders keeps one pooled browser for its whole life instead of one per call. A
browser that cannot start fails that render (the fetch keeps the plain snapshot
and says why) and every later one, without retrying the launch on each call.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pressmark.egress import EgressPolicy, Resolver
    from pressmark.render import RenderOptions, RenderResult


class SharedRenderer:
    """A :class:`pressmark.render.Renderer` that launches ``PlaywrightRenderer`` lazily."""

    def __init__(self, policy: EgressPolicy, resolver: Resolver | None = None) -> None:
        self._policy = policy
        self._resolver = resolver
        self._inner: Any = None
        self._failed: BaseException | None = None
        self._lock = asyncio.Lock()

    async def _started(self) -> Any:
        async with self._lock:
            if self._failed is not None:
                raise self._failed
            if self._inner is None:
                from pressmark.render import PlaywrightRenderer  # noqa: PLC0415  # heavy, lazy

                inner = PlaywrightRenderer(policy=self._policy, resolver=self._resolver)
                try:
                    await inner.start()
                except Exception as exc:
                    self._failed = exc
                    raise
                self._inner = inner
            return self._inner

    async def render(self, url: str, options: RenderOptions) -> RenderResult:
        inner = await self._started()
        result: RenderResult = await inner.render(url, options)
        return result

    async def aclose(self) -> None:
        inner, self._inner = self._inner, None
        if inner is not None:
            with contextlib.suppress(Exception):
                await inner.close()
