"""The crawl order, and where executors meet: breadth-first levels with a deterministic cut.

A crawl fetches level by level: every page at depth ``d`` is finished (and every link
it found is admitted) before any page at depth ``d + 1`` starts. Within a level the
order is the discovery order: an item's :func:`order_key` is its ``should_follow``
score (higher first), then its discovery path, the link positions that lead to it from
its seed (``(seed,)``, ``(seed, i)``, ``(seed, i, j)``...; a URL found on several
pages keeps the smallest path). Sitemap URLs come after every link at depth 1.

``max_pages`` is applied per level: when a level holds more candidates than the budget
has left, exactly the first ``remaining`` by :func:`order_key` are fetched and the crawl
ends after that level (``max-pages``). So a page set depends only on the site and the
policy, never on timing, concurrency, or how many executors share the crawl.

:class:`Gate` is the seam between a level and the next: the in-process engine cuts on
its own (:class:`LocalGate`); a shard of a distributed crawl waits until every shard has
finished the level, and the cut is taken over all shards' candidates at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pressmark.crawl._frontier import FrontierItem

Key = tuple[float, tuple[int, ...]]
"""``(-score, discovery path)``: smaller is earlier."""


def order_key(item: FrontierItem) -> Key:
    return (-item.score, item.path)


@dataclass(frozen=True, slots=True, kw_only=True)
class Cut:
    """The decision for one level: ``total`` candidates across the crawl; ``last`` is the
    largest key fetched, or ``None`` when every candidate is."""

    total: int
    last: Key | None = None


def cut_keys(keys: Iterable[Key], remaining: int) -> Cut:
    """Fetch the first ``remaining`` keys (all of them if there are not more)."""
    ordered = sorted(keys)
    if len(ordered) <= remaining:
        return Cut(total=len(ordered))
    if remaining <= 0:
        return Cut(total=len(ordered), last=(float("-inf"), ()))
    return Cut(total=len(ordered), last=ordered[remaining - 1])


Screen = Callable[[], Awaitable[tuple[list[Key], int]]]
"""Settles a level's candidates (robots.txt denials recorded): ``(keys, charged)``, with
``charged`` the pages already charged to ``max_pages`` at lower depths."""


class Gate(Protocol):
    async def cut(self, depth: int, screen: Screen) -> Cut: ...


class LocalGate:
    """One engine crawls alone: the cut is taken over its own candidates."""

    def __init__(self, max_pages: int) -> None:
        self.max_pages = max_pages

    async def cut(self, depth: int, screen: Screen) -> Cut:
        keys, charged = await screen()
        return cut_keys(keys, self.max_pages - charged)


class Candidates:
    """URLs offered to levels not opened yet, each with its smallest key (bounded)."""

    def __init__(self, *, cap: int) -> None:
        self._by_depth: dict[int, dict[str, FrontierItem]] = {}
        self.cap = cap
        self.size = 0
        self.dropped_full = 0

    def offer(self, item: FrontierItem) -> bool:
        """Keep ``item`` unless its URL is already offered at that depth with a key as
        small (or the cap is reached); ``True`` if it was kept."""
        bucket = self._by_depth.setdefault(item.depth, {})
        old = bucket.get(item.url)
        if old is not None and order_key(old) <= order_key(item):
            return False
        if old is None:
            if self.size >= self.cap:
                self.dropped_full += 1
                return False
            self.size += 1
        bucket[item.url] = item
        return True

    def has_earlier(self, depth: int, url: str, path: tuple[int, ...]) -> bool:
        """Whether ``url`` is offered at ``depth`` already, unscored, by a path as small."""
        old = self._by_depth.get(depth, {}).get(url)
        return old is not None and not old.score and old.path <= path

    def peek(self, depth: int) -> list[FrontierItem]:
        return sorted(self._by_depth.get(depth, {}).values(), key=order_key)

    def take(self, depth: int) -> list[FrontierItem]:
        items = self.peek(depth)
        self.size -= len(items)
        self._by_depth.pop(depth, None)
        return items

    def discard(self, item: FrontierItem) -> None:
        bucket = self._by_depth.get(item.depth, {})
        if bucket.pop(item.url, None) is not None:
            self.size -= 1
