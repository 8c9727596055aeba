"""The crawl order and the page budget, without a barrier between depths.

**Order.** Pages are ranked by depth (breadth-first), then within a depth by
:func:`order_key`: the ``should_follow`` score (higher first), then the discovery path,
the link positions that lead to the page from its seed (``(seed,)``, ``(seed, i)``,
``(seed, i, j)``...; a URL found on several pages keeps the smallest depth and path).
Sitemap URLs are depth 1, after every link at depth 1. A page offers at most
:data:`MAX_LINKS_PER_PAGE` links (the first ones in document order).

**Budget.** With ``max_pages``, the pages fetched are exactly the first ``max_pages`` in
that order (robots.txt denials are recorded and not charged), whatever the timing, the
concurrency, the number of executors or a ``--resume`` in between: the page set depends
only on the site and the policy.

**No barrier.** A page starts as soon as it is *certain*: its depth and discovery path are
final and it certainly falls inside the budget. Its depth is final once no page two
depths up is unfinished (only those could still link to it from closer to the seed);
nothing then waits for the pages of the depth just above it except through the budget:
a page of depth ``d`` with key ``p`` counts every page of smaller depth (unfinished ones
as charged), every page of its own depth with a smaller key, and, for each unfinished
page of depth ``d - 1`` whose own key is smaller than ``p``'s parent's (it could still
offer links ranked before ``p``), :data:`MAX_LINKS_PER_PAGE`. When that sum is below
``max_pages`` the page is certain. So a slow page only holds back the pages it could
displace: the pages ranked after it, and only while the budget could end among them;
under a budget that cannot be reached (the default on all but huge sites) nothing waits.
A page that is certainly outside the budget is never fetched; the crawl ends when
nothing is unfinished but such pages (``max-pages``).

**Levels, still.** A depth is *open* when every candidate of the depths above it is
settled (none unfinished): its candidates are then screened once, as a level was (robots.txt
loaded for their origins, denials recorded), so a crawl records the same denials it
did with barriers; a certain page is screened on its own when it is released earlier.

:class:`Ledger` is the pure bookkeeping (no I/O): the in-process engine feeds it as pages
are offered and finish; a distributed crawl's driver builds one from the crawl directory
(every shard's journal and ``pages.jsonl``) and sends each shard the :class:`Limits` it
computes. ``docs/scaling.md`` states the rule for users.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, cast

from pressmark.crawl._frontier import FrontierItem, KeySet, url_key
from pressmark.crawl._ledger_state import (
    CANDIDATE,
    Depth,
    Entry,
    Key,
    SortedKeys,
    Source,
)

MAX_LINKS_PER_PAGE: Final = 10_000
"""Links one page may offer (the first in document order; the rest are counted as refused,
``too-many-links``). The bound is what lets a page ranked after an unfinished one be
certain before it finishes (Heritrix keeps 6,000 outlinks a page)."""

LATE: Final = math.inf
"""The first part of the key of a finished page whose discovery path was not journaled
(after every other page; the second part tells such pages apart)."""

SLOW_PATH_MIN_S = 0.05
"""At least this long between two exact computations of a binding budget (each sorts the
keys of a depth) unless the crawl has nothing else to do."""



_UNSCORED: Final = -0.0
"""The first part of every unscored page's key: one float object for all of them (a crawl
holds a key for each URL it has not finished, 500,000 at once on the 200,000-page bench)."""


def order_key(item: FrontierItem) -> Key:
    return (-item.score if item.score else _UNSCORED, *item.path, item.url)


def _parent_key(key: Key) -> Key:
    """The unscored key of the page that offered a page of key ``key`` (a candidate's, or a
    charged page's without its URL), without the parent's URL (so it sorts before the
    parent's own key whether that one still ends with its URL or not)."""
    return (_UNSCORED, *key[1:-2 if isinstance(key[-1], str) else -1])


@dataclass(frozen=True, slots=True)
class Limits:
    """How far each depth may be released: ``keys[d]`` is the largest key of depth ``d``
    certainly inside the budget (``None``: every page of that depth); a depth not listed
    waits. Depths below ``open_through`` are settled (their candidates may be screened)."""

    keys: Mapping[int, Key | None] = field(default_factory=dict)
    open_through: int = 0

    def allows(self, depth: int, key: Key) -> bool:
        if depth not in self.keys:
            return False
        limit = self.keys[depth]
        return limit is None or key <= limit


class Ledger:
    """Every URL offered to the crawl with its state, and what is certain (module docstring).

    ``scored``: a ``should_follow`` hook ranks links (then any unfinished page of the
    depth above could offer links ranked first). ``cap``: candidates kept at most."""

    def __init__(self, *, max_pages: int, scored: bool = False, cap: int = 1 << 62,
                 links_per_page: int = MAX_LINKS_PER_PAGE) -> None:
        self.max_pages = max_pages
        self.scored = scored
        self.cap = cap
        self.links_per_page = links_per_page
        self.dropped_full = 0
        self._entries: dict[str, Entry] = {}
        """The URLs not finished yet (candidates and released pages)."""
        self._last_source: Source | None = None
        """The source of the last offer (a page's links are offered one after another)."""
        self._released_marks: dict[int, Source] = {}
        self._done = KeySet()
        """The finished URLs, by their 64-bit key (``_frontier.url_key``): a finished page
        needs no more than "known, and done" (its key stays in its depth's ``known`` until
        the depth is settled). 8 bytes of digest instead of the URL, its entry and its key:
        most of a crawl's URLs are finished ones (see ``known``)."""
        self._late = 0
        """Finished pages given a :data:`LATE` key so far (each gets the next number)."""
        self._depths: dict[int, Depth] = {}
        self._candidates = 0
        self.sitemap: int | None = None
        """While sitemaps are read: the first path index their URLs may still take."""
        self._limits = Limits()
        self._low = 0
        """Depths below this one are done for good; ``_frozen`` pages were charged there."""
        self._frozen = 0
        self._computed_at = -math.inf
        self._spent_s = 0.0
        self.changes = 0
        """Grows with every change that could extend the limits."""
        self._seen_changes = -1

    # -- bookkeeping -------------------------------------------------------------------------

    def _depth(self, depth: int) -> Depth:
        level = self._depths.get(depth)
        if level is None:
            level = self._depths[depth] = Depth()
        return level

    def known(self, url: str) -> bool:
        """Whether ``url`` was offered (finished or not).

        A finished URL is known by its 64-bit BLAKE2b key alone, as the frontier's dedupe
        set knows every URL: two URLs of one crawl sharing a key (about one chance in
        30 million at a million URLs) would make the second one look finished. The key
        depends on the URL's bytes only, so such a crawl would still be the same on every
        run (and process, and ``PYTHONHASHSEED``)."""
        return url in self._entries or url_key(url) in self._done

    def _source(self, item: FrontierItem) -> Source:
        last = self._last_source
        if last is not None and last.depth == item.depth and last.host == item.host \
                and last.parent == item.parent_url and last.via == item.via \
                and last.seed == item.seed_index:
            return last
        last = self._last_source = Source(item.depth, item.host, item.parent_url, item.via,
                                           item.seed_index)
        return last

    def _released_mark(self, depth: int) -> Source:
        mark = self._released_marks.get(depth)
        if mark is None:
            mark = self._released_marks[depth] = Source(depth, "", None, "link", None,
                                                         released=True)
        return mark

    def started(self, url: str) -> bool:
        entry = self._entries.get(url)
        if entry is None:
            return url_key(url) in self._done
        return entry.src.released

    def earlier(self, url: str, depth: int, key: Key) -> bool:
        """Whether ``url`` is known at a depth and key no later than ``(depth, key)``, or is
        released already (its place is final): an offer there changes nothing."""
        entry = self._entries.get(url)
        if entry is None:
            return url_key(url) in self._done
        src = entry.src
        return src.released or (src.depth, entry.key) <= (depth, key)

    def offer(self, item: FrontierItem) -> bool:
        """Keep ``item`` unless its URL is known as early or is released already (or the cap
        is reached); ``True`` if it was kept (a new URL, or an earlier place for one)."""
        key = order_key(item)
        old = self._entries.get(item.url)
        if old is not None:
            src = old.src
            if src.released or (src.depth, old.key) <= (item.depth, key):
                return False
            self._forget(old)
        elif len(self._done) and url_key(item.url) in self._done:
            return False
        elif self._candidates >= self.cap:
            self.dropped_full += 1
            return False
        entry = Entry(key, self._source(item))
        if item.depth < self._low:  # not expected (settled depths get no offers): be exact
            self._low, self._frozen = 0, 0
        self._entries[item.url] = entry
        level = self._depth(item.depth)
        level.unfinished += 1
        level.known.add(key)
        level.unfinished_keys.add(key)
        heapq.heappush(level.heap, key)
        self._candidates += 1
        self.changes += 1
        return True

    def _forget(self, entry: Entry) -> None:
        """An unreleased candidate that moves to an earlier place (its heap entry is stale)."""
        level = self._depths[entry.depth]
        level.unfinished -= 1
        level.known.discard(entry.key)
        level.unfinished_keys.discard(entry.key)
        self._candidates -= 1
        self._went_stale(level, entry.depth)

    def finish(self, url: str, *, charged: bool) -> None:
        """A released (or, for a denial, unreleased) page is done. Only its key stays, in
        its depth's ``known`` while it counts there, and its URL's digest."""
        entry = self._entries.pop(url, None)
        if entry is None:
            if url_key(url) in self._done:
                return
            raise KeyError(url)
        level = self._depths[entry.depth]
        if entry.state == CANDIDATE:
            self._candidates -= 1
            self._went_stale(level, entry.depth)
        self._done.add(url_key(url))
        level.unfinished -= 1
        level.unfinished_keys.discard(entry.key)
        level.known.discard(entry.key)
        if charged:
            level.charged += 1
            # Its key stays without the URL (the URL decides no order: paths are unique),
            # so the 200,000 pages a crawl charged do not keep their URLs alive.
            level.known.add(entry.key[:-1])
        self.changes += 1

    def _current(self, key: Key, depth: int) -> bool:
        """Whether a heap entry is still the key of a candidate of ``depth``."""
        entry = self._entries.get(cast("str", key[-1]))
        return entry is not None and entry.state == CANDIDATE and entry.key is key \
            and entry.depth == depth

    def _went_stale(self, level: Depth, depth: int) -> None:
        """One more stale heap entry at ``depth``; rebuild the heap once half are (linear,
        amortised over the entries that went stale)."""
        level.stale += 1
        if level.stale > 1024 and 2 * level.stale > len(level.heap):
            level.heap = [key for key in level.heap if self._current(key, depth)]
            heapq.heapify(level.heap)
            level.stale = 0

    def restore(self, items: Iterable[FrontierItem],
                done: Iterable[tuple[str, int, bool]]) -> None:
        """An interrupted crawl: every journaled offer again, then ``(url, depth, charged)``
        of each recorded page (it keeps the key it was journaled with at that depth)."""
        finished = {url: (depth, charged) for url, depth, charged in done}
        for item in items:
            record = finished.get(item.url)
            if record is None or record[0] == item.depth:
                self.offer(item)
        for url, (depth, charged) in finished.items():
            entry = self._entries.get(url)
            if entry is None and url_key(url) in self._done:
                continue  # finished already
            if entry is None or entry.depth != depth:
                if entry is not None:
                    self._forget(entry)
                index, self._late = self._late, self._late + 1
                late: Key = (LATE, index, url)
                entry = Entry(late, self._source(FrontierItem(url=url, host="", depth=depth)))
                self._entries[url] = entry
                level = self._depth(depth)
                level.unfinished += 1
                level.known.add(late)
                level.unfinished_keys.add(late)
                self._candidates += 1
            self.finish(url, charged=charged)

    def discovering(self, first_index: int | None) -> None:
        """Sitemaps are read (their next URLs take path index ``first_index`` and later),
        or, with ``None``, done."""
        if first_index != self.sitemap:
            self.sitemap = first_index
            self.changes += 1

    # -- what is certain ---------------------------------------------------------------------

    def _settle(self) -> None:
        """Move past the depths that are done for good (nothing unfinished there or above,
        so nothing can be offered there any more): every later computation starts below
        them, so a chain of a thousand depths costs no more per page than three."""
        while self._low in self._depths:
            level = self._depths[self._low]
            if level.unfinished or (self._low >= 1 and self.sitemap is not None):
                break
            # Nothing unfinished here: the heap holds only stale entries; the charged
            # pages' keys stay (an offer here, not expected, recounts from them).
            level.heap, level.stale = [], 0
            level.unfinished_keys = SortedKeys()
            self._frozen += level.charged
            self._low += 1

    def _unfinished_through(self) -> list[int]:
        """``totals[d - low]``: unfinished pages from the first unsettled depth ``low`` down
        to depth ``d`` (one pass)."""
        totals: list[int] = []
        running = 0
        for depth in range(self._low, max(self._depths, default=-1) + 1):
            level = self._depths.get(depth)
            running += 0 if level is None else level.unfinished
            totals.append(running)
        return totals

    def depth_final(self, depth: int, totals: list[int] | None = None) -> bool:
        """No page could still be offered at a smaller depth than ``depth``."""
        if depth >= 2 and self.sitemap is not None:
            return False
        self._settle()
        totals = self._unfinished_through() if totals is None else totals
        above = depth - 2 - self._low
        return above < 0 or totals[min(above, len(totals) - 1)] == 0

    def open_through(self, totals: list[int] | None = None) -> int:
        """Depths below this one are settled: a depth's candidates are all known once no
        page of the depths above it is unfinished (sitemaps read, for depth 1 and on)."""
        self._settle()
        totals = self._unfinished_through() if totals is None else totals
        depth = self._low
        while depth - self._low < len(totals) and (depth == 0 or (
                self.sitemap is None and (depth - 1 < self._low
                                          or totals[depth - 1 - self._low] == 0))):
            depth += 1
        return depth

    def retry_at(self) -> float | None:
        """When a postponed exact computation may run (monotonic seconds), if one is due."""
        if self.changes == self._seen_changes:
            return None
        return self._computed_at + max(SLOW_PATH_MIN_S, 10 * self._spent_s)

    def limits(self, *, urgent: bool = False) -> Limits:
        """The current :class:`Limits`. An exact computation for a binding budget runs at
        most every :data:`SLOW_PATH_MIN_S` (or ten times its own cost) unless ``urgent``
        (the crawl has nothing else to do); in between the last limits stand (they are
        never wrong, only short)."""
        if self.changes == self._seen_changes:
            return self._limits
        now = time.monotonic()
        if not urgent and now - self._computed_at < max(SLOW_PATH_MIN_S, 10 * self._spent_s):
            fast = self._compute(exact=False)
            if fast is not None:
                self._limits, self._seen_changes = fast, self.changes
            return self._limits
        self._limits = self._compute(exact=True) or self._limits
        self._seen_changes = self.changes
        self._spent_s = time.monotonic() - now
        self._computed_at = now
        return self._limits

    def _compute(self, *, exact: bool) -> Limits | None:
        """The limits; ``None`` when a depth needs the exact computation and ``exact`` is
        off."""
        keys: dict[int, Key | None] = {}
        self._settle()
        before = self._frozen  # pages of smaller depths, unfinished ones counted as charged
        totals = self._unfinished_through()
        for depth in range(self._low, max(self._depths, default=-1) + 1):
            level = self._depths.get(depth)
            if level is None:
                continue
            if not self.depth_final(depth, totals):
                break
            room = self.max_pages - before
            if room <= 0:
                break
            parents = self._depths.get(depth - 1)
            waiting = 0 if parents is None else parents.unfinished
            reading = depth == 1 and self.sitemap is not None
            here = level.charged + level.unfinished
            if not reading and here + self.links_per_page * waiting < room:
                keys[depth] = None
            elif not exact:
                return None
            else:
                limit = self._exact_limit(level, parents, room, reading)
                if limit is not None:
                    keys[depth] = limit
            before += level.charged + level.unfinished
        return Limits(keys=keys, open_through=self.open_through(totals))

    def _exact_limit(self, level: Depth, parents: Depth | None, room: int,
                     reading: bool) -> Key | None:
        """The largest known key of a depth whose rank plus what unfinished parents ranked
        before it could still offer stays within ``room``, or ``None``."""
        if reading and self.scored:
            return None  # sitemap URLs could be ranked anywhere
        ordered = level.known.ordered()
        if not ordered:
            return None
        per_parent = self.links_per_page
        waiting = 0 if parents is None else parents.unfinished

        def fits(index: int) -> bool:
            if parents is None or waiting == 0:
                future = 0
            elif self.scored:
                future = waiting
            else:
                future = parents.unfinished_keys.count_below(_parent_key(ordered[index]))
            return index + per_parent * future < room

        lo, hi = 0, len(ordered)  # fits() holds below lo's answer, fails from hi on
        while lo < hi:
            mid = (lo + hi) // 2
            if fits(mid):
                lo = mid + 1
            else:
                hi = mid
        return ordered[lo - 1] if lo > 0 else None

    def take(self, limits: Limits) -> list[FrontierItem]:
        """Release every candidate within ``limits`` (in order, depth by depth)."""
        out: list[FrontierItem] = []
        for depth, limit in sorted(limits.keys.items()):
            level = self._depths.get(depth)
            if level is None:
                continue
            heap = level.heap
            while heap:
                key = heap[0]
                url = cast("str", key[-1])
                entry = self._entries.get(url)
                if entry is None or entry.state != CANDIDATE or entry.key != key \
                        or entry.depth != depth:
                    heapq.heappop(heap)  # stale: moved, released or finished
                    continue
                if limit is not None and key > limit:
                    break
                heapq.heappop(heap)
                out.append(entry.item(url))
                entry.src = self._released_mark(depth)
                self._candidates -= 1
        return out

    def candidates(self, depth: int) -> list[FrontierItem]:
        """The unreleased candidates of ``depth``, in order."""
        return [self._entries[url].item(url) for url in self.candidate_urls(depth)]

    def candidate_urls(self, depth: int, *, seeds: bool = True) -> list[str]:
        """The URLs of the unreleased candidates of ``depth``, in order (for screening);
        ``seeds=False`` leaves the seeds out. URLs, not items: the final depth of the
        200,000-page bench holds 340,000 candidates, and a :class:`FrontierItem` and its
        path each (~170 bytes) were a quarter of the crawl's peak memory."""
        level = self._depths.get(depth)
        if level is None:
            return []
        urls: list[str] = []
        # The heap's entries are the candidates' keys: sorting them sorts the candidates
        # (keys are unique) without a new object per candidate.
        for key in sorted(level.heap):
            url = cast("str", key[-1])
            entry = self._entries.get(url)
            if entry is not None and entry.state == CANDIDATE and entry.key == key \
                    and entry.depth == depth and (seeds or entry.src.via != "seed"):
                urls.append(url)
        return urls

    @property
    def waiting(self) -> int:
        """Candidates never released: once the crawl is idle, the ones the budget left out."""
        return self._candidates

    def unfinished(self) -> int:
        return sum(level.unfinished for level in self._depths.values())
