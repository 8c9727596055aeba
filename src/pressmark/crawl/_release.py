"""From certain to queued: the step between the :class:`~pressmark.crawl._levels.Ledger`
and the frontier.

Given the :class:`~pressmark.crawl._levels.Limits` of the moment (the engine's own, or a
distributed crawl's driver's), :class:`Release` takes every candidate they allow out of
the ledger and queues it, or records it as a robots.txt denial (never requested, never
charged), or parks it until its origin's robots.txt is loaded. It also screens each depth
once it is open, as a level used to be screened: robots.txt loaded for the origins of all
its candidates, denials recorded. Robots.txt is loaded in the background, so a page whose
origin is new holds back nothing but the pages of that origin.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from pressmark.crawl._levels import Ledger, Limits

if TYPE_CHECKING:
    from pressmark.crawl._frontier import Frontier, FrontierItem


def origin_of(url: str) -> str:
    scheme, _, authority = url.split("/", 3)[:3]
    return f"{scheme}//{authority}"


class Release:
    """Moves what the limits allow from the ledger to the frontier (module docstring).

    ``allows(url)``: the cached robots.txt verdict (``None`` when not loaded; the whole
    callable ``None`` when the fetcher judges robots.txt only when fetching);
    ``load_robots(origin)`` loads it; ``denied(url, depth)`` records a denial;
    ``wake()`` tells the dispatcher something changed."""

    def __init__(self, *, ledger: Ledger, frontier: Frontier,
                 allows: Callable[[str], bool | None] | None,
                 load_robots: Callable[[str], Awaitable[object]],
                 denied: Callable[[str, int], None], wake: Callable[[], None]) -> None:
        self.ledger = ledger
        self.frontier = frontier
        self._allows = allows
        self._load_robots = load_robots
        self._denied = denied
        self._wake = wake
        self.screened = 0
        """Depths below this one have been screened."""
        self._parked: dict[str, list[FrontierItem]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def busy(self) -> bool:
        """A screen or a robots.txt load is running, or pages wait for one."""
        return bool(self._parked) or any(not task.done() for task in self._tasks)

    def advance(self, limits: Limits) -> int:
        """Screen newly open depths (in the background) and release what ``limits`` allow;
        returns how many pages were queued."""
        if self.screened < limits.open_through and not any(
                t.get_name() == "screen" and not t.done() for t in self._tasks):
            self._spawn(self._screen(self.screened, limits.open_through), "screen")
        queued = 0
        for item in self.ledger.take(limits):
            queued += self._release(item)
        return queued

    def _release(self, item: FrontierItem, *, loaded: bool = False) -> int:
        """Queue, deny or park one released page. ``loaded``: its origin's robots.txt was
        just asked for; if there is still no verdict, the fetch will judge it."""
        verdict = True if item.via == "seed" or self._allows is None else self._allows(item.url)
        if verdict is None and loaded:
            verdict = True
        if verdict is None:
            origin = origin_of(item.url)
            parked = self._parked.setdefault(origin, [])
            parked.append(item)
            if len(parked) == 1:
                self._spawn(self._unpark(origin), "robots")
            return 0
        if verdict is False:
            self._denied(item.url, item.depth)
            return 0
        if not self.frontier.add(item):
            # Seen (a restored page) or over the admission cap: it will not be fetched.
            self.ledger.finish(item.url, charged=False)
            return 0
        return 1

    async def _unpark(self, origin: str) -> None:
        try:
            await self._load_robots(origin)
        finally:
            for item in self._parked.pop(origin, []):
                self._release(item, loaded=True)
            self._wake()

    async def _screen(self, first: int, end: int) -> None:
        """Screen depths ``first`` to ``end - 1`` (each holds its final candidates)."""
        try:
            for depth in range(first, end):
                allows = self._allows
                urls = [] if allows is None else self.ledger.candidate_urls(depth, seeds=False)
                if allows is not None and urls:
                    origins: dict[str, str] = {}
                    for url in urls:
                        origins.setdefault(origin_of(url), url)
                    unknown = sorted(o for o, url in origins.items() if allows(url) is None)
                    await asyncio.gather(*(self._load_robots(o) for o in unknown))
                    urls.reverse()
                    while urls:  # popped: each URL is freed once its denial is recorded
                        url = urls.pop()
                        if not self.ledger.started(url) and allows(url) is False:
                            self._denied(url, depth)
                del urls
                self.screened = depth + 1
        finally:
            self._wake()

    def _spawn(self, work: Awaitable[None], name: str) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
