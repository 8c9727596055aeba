"""The ledger's per-URL state (:mod:`pressmark.crawl._levels` keeps the rules).

WHY a module of its own: these are the objects a crawl holds one of for every URL it has
not finished (500,000 at once on the 200,000-page bench: their bytes are the crawl's
memory), so their layout is kept apart from the arithmetic of what is certain.
"""

from __future__ import annotations

import bisect
from typing import cast

from pressmark.crawl._frontier import FrontierItem, Via

Key = tuple[float | str, ...]
"""``(-score, *discovery path, url)``: smaller is earlier. One flat tuple (a crawl holds a key
for every URL it has not finished: a nested path tuple would be one more object each). The
URL last (a path is one URL's, so it never decides the order) makes the key its candidate's
heap entry too: no ``(key, url)`` pair a candidate (~64 bytes of 500,000 at once). A charged
page's key, kept while its depth counts, drops the URL: ``(-score, *discovery path)``."""

CANDIDATE, RELEASED = 0, 1


class SortedKeys:
    """A set of keys (each key is one page's) kept sorted lazily: new keys are merged and
    removed ones dropped when the order is asked for."""

    __slots__ = ("_fresh", "_gone", "_sorted")

    def __init__(self) -> None:
        self._sorted: list[Key] = []
        self._fresh: list[Key] = []
        self._gone: set[Key] = set()

    def add(self, key: Key) -> None:
        if key in self._gone:
            self._gone.discard(key)
        self._fresh.append(key)

    def discard(self, key: Key) -> None:
        self._gone.add(key)
        if len(self._gone) > 1024 and 8 * len(self._gone) > len(self._sorted) + len(self._fresh):
            # An eighth of the keys gone: compact (amortised linear). A depth's screen drops
            # most of its 500,000 keys in one go: a set of half of them would be ~16 MB.
            self.ordered()

    def ordered(self) -> list[Key]:
        if self._fresh or self._gone:
            merged = self._sorted + self._fresh
            merged.sort()  # two sorted runs: Timsort merges them in linear time
            if self._gone:
                merged = [k for k in merged if k not in self._gone]
            self._sorted, self._fresh, self._gone = merged, [], set()
        return self._sorted

    def count_below(self, key: Key) -> int:
        return bisect.bisect_left(self.ordered(), key)


class Depth:
    __slots__ = ("charged", "heap", "known", "stale", "unfinished", "unfinished_keys")

    def __init__(self) -> None:
        self.charged = 0
        """Finished and charged to the budget."""
        self.unfinished = 0
        """Candidates and released pages not finished yet."""
        self.heap: list[Key] = []
        """Candidates not released, by key (entries may be stale; a key ends with its URL)."""
        self.stale = 0
        """Entries of ``heap`` no longer candidates there (finished or moved): past half of
        it, the heap is rebuilt without them (a screen finishes 340,000 candidates of a
        depth at once: their keys and URLs are freed as it goes, not when the depth
        settles)."""
        self.known = SortedKeys()
        """Keys of every page that counts here: unfinished, or finished and charged."""
        self.unfinished_keys = SortedKeys()


class Source:
    """What the candidates one page offered share (its links: depth, host, parent, how
    found), held once for all of them; and, with ``released``, the mark of a released
    page of a depth (one per depth: a released page needs its place, not its origin)."""

    __slots__ = ("depth", "host", "parent", "released", "seed", "via")

    def __init__(self, depth: int, host: str, parent: str | None, via: Via,
                 seed: int | None, *, released: bool = False) -> None:
        self.depth = depth
        self.host = host
        self.parent = parent
        self.via = via
        self.seed = seed
        self.released = released


class Entry:
    """A URL not finished yet: its place (the key) and what its :class:`FrontierItem` is
    built from again when it is released (the source, shared with the other links of the
    page that offered it). Two references, 48 bytes: a crawl may hold 500,000 candidates
    at once. The score is the key's first part, the path its middle, the URL its end."""

    __slots__ = ("key", "src")

    def __init__(self, key: Key, src: Source) -> None:
        self.key = key
        self.src = src

    @property
    def depth(self) -> int:
        return self.src.depth

    @property
    def state(self) -> int:
        return RELEASED if self.src.released else CANDIDATE

    def item(self, url: str) -> FrontierItem:
        negated = cast("float", self.key[0])
        src = self.src
        return FrontierItem(url=url, host=src.host, depth=src.depth,
                            score=-negated if negated else 0.0, parent_url=src.parent,
                            via=src.via, seed_index=src.seed,
                            path=cast("tuple[int, ...]", self.key[1:-1]))
