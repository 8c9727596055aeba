"""The host-partitioned frontier: what to fetch next, and when.

All per-host queue state (queue, in-flight count and limit) lives in one
:class:`HostPartition`. The :class:`Frontier` only routes URLs to partitions and picks
among ready ones, so a distributed mode can shard partitions by host across workers
without splitting any host's state.

When a host may start its next request is not kept here: the fetch layer's
``pressmark.fetch.Pacer`` owns that clock (delay, ``Crawl-delay``, ``Retry-After``; every request
and redirect hop goes through it), and the frontier asks it through the :class:`Pacing`
seam, so a host that must wait is not picked and the dispatcher sleeps until it may start.

Priority inside a host, and across hosts: lower depth first, then higher
``should_follow`` score, then discovery order (FIFO). Dedupe keys are 64-bit
BLAKE2b digests of the canonical URL, kept only for URLs admitted to the
frontier; admission is capped, so memory is bounded by the page budget.
"""

from __future__ import annotations

import heapq
import itertools
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from hashlib import blake2b
from typing import Literal, Protocol

from pressmark.crawl._canonical import hostname_of

Via = Literal["seed", "link", "sitemap"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FrontierItem:
    url: str
    host: str
    depth: int
    score: float = 0.0
    parent_url: str | None = None
    via: Via = "link"
    seed_index: int | None = None
    path: tuple[int, ...] = ()
    """Discovery path (see :mod:`pressmark.crawl._levels`): the order within a depth."""


def url_key(url: str) -> int:
    """The 64-bit dedupe key of a canonical URL."""
    return int.from_bytes(blake2b(url.encode("utf-8", "surrogatepass"), digest_size=8).digest())


class KeySet:
    """A set of 64-bit keys (:func:`url_key`) at 12 to 24 bytes a key.

    WHY: a crawl knows every URL it has seen until it ends (three or more a fetched page
    on a site that links to what its robots.txt disallows); a Python ``set`` of ints
    costs ~80 bytes a key. This is an open-addressing table in an ``array`` (linear
    probing, at most two thirds full, a key's low bits pick its slot: they are a
    digest's): two probes a hit, at most five on average a miss. Two thirds, not a half:
    the 200,000-page bench's 676,000 URLs then fit 2**20 slots (8 MiB; the crawl keeps
    two such sets, and a half-full table doubled both near its memory peak). 0 marks an
    empty slot, so key 0 is stored as 1 (one more collision in 2**64).
    """

    __slots__ = ("_count", "_mask", "_slots")

    def __init__(self) -> None:
        self._slots = array("Q", bytes(8 * 1024))
        self._mask = 1023
        self._count = 0

    def __contains__(self, key: int) -> bool:
        key = key or 1
        slots, mask = self._slots, self._mask
        at = key & mask
        while True:
            found = slots[at]
            if found == key:
                return True
            if not found:
                return False
            at = (at + 1) & mask

    def add(self, key: int) -> bool:
        """Add ``key``; ``False`` if it was there already."""
        key = key or 1
        slots, mask = self._slots, self._mask
        at = key & mask
        while True:
            found = slots[at]
            if found == key:
                return False
            if not found:
                break
            at = (at + 1) & mask
        slots[at] = key
        self._count += 1
        if 3 * self._count > 2 * mask:
            self._grow()
        return True

    def _grow(self) -> None:
        old = self._slots
        mask = 2 * self._mask + 1
        slots = array("Q", (0,)) * (mask + 1)  # no zeroed bytes copied in: half the peak
        for key in old:
            if key:
                at = key & mask
                while slots[at]:
                    at = (at + 1) & mask
                slots[at] = key
        self._slots, self._mask = slots, mask

    def __len__(self) -> int:
        return self._count


class Pacing(Protocol):
    """When a host may be contacted again (``pressmark.fetch.Pacer`` is one)."""

    def next_start_in(self, host: str) -> float:
        """Seconds until ``host`` (the host egress dials, no port) may start a request."""
        ...


class HostPartition:
    """One host's queue and its in-flight count and limit."""

    __slots__ = ("host", "in_flight", "max_in_flight", "pace_key", "queue")

    def __init__(self, host: str, *, max_in_flight: int) -> None:
        self.host = host
        self.queue: list[tuple[int, float, int, FrontierItem]] = []
        self.in_flight = 0
        self.max_in_flight = max_in_flight
        self.pace_key: str | None = None
        """The fetch layer's pacing key (the host without the port), from the first URL."""

    def push(self, item: FrontierItem, seq: int) -> None:
        heapq.heappush(self.queue, (item.depth, -item.score, seq, item))

    def head_priority(self) -> tuple[int, float, int]:
        depth, neg_score, seq, _ = self.queue[0]
        return depth, neg_score, seq

    def has_room(self) -> bool:
        """Something is queued and the host is below its in-flight limit."""
        return bool(self.queue) and self.in_flight < self.max_in_flight

    def take(self) -> FrontierItem:
        item = heapq.heappop(self.queue)[3]
        self.in_flight += 1
        return item

    def release(self) -> None:
        self.in_flight -= 1

    def one_at_a_time(self) -> None:
        """The host has a ``Crawl-delay``: one request in flight, each waiting its turn."""
        self.max_in_flight = 1


class Frontier:
    """Dedupe, admission cap and ready-partition selection."""

    def __init__(
        self, *, per_host_concurrency: int, max_admitted: int, pacing: Pacing | None = None,
    ) -> None:
        self._partitions: dict[str, HostPartition] = {}
        self._seen = KeySet()
        self._seq = itertools.count()
        self._per_host = per_host_concurrency
        self._pacing = pacing
        self.max_admitted = max_admitted
        self.admitted = 0
        self.dropped_full = 0
        self.queued = 0

    def seen(self, url: str) -> bool:
        return url_key(url) in self._seen

    def mark_seen(self, url: str) -> bool:
        """Record ``url`` as known without queueing it; False if it already was."""
        key = url_key(url)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def add(self, item: FrontierItem) -> bool:
        """Queue ``item`` unless it was seen or the admission cap is reached."""
        key = url_key(item.url)
        if key in self._seen:
            return False
        if self.admitted >= self.max_admitted:
            self.dropped_full += 1
            return False
        self._seen.add(key)
        self.admitted += 1
        self._push(item)
        return True

    def requeue(self, item: FrontierItem) -> None:
        """Put back an item that was taken but not started (resume, shutdown)."""
        self._push(item)

    def _push(self, item: FrontierItem) -> None:
        part = self.partition(item.host)
        if part.pace_key is None:
            part.pace_key = hostname_of(item.url)
        part.push(item, next(self._seq))
        self.queued += 1

    def partition(self, host: str) -> HostPartition:
        part = self._partitions.get(host)
        if part is None:
            part = HostPartition(host, max_in_flight=self._per_host)
            self._partitions[host] = part
        return part

    def partitions(self) -> Iterator[HostPartition]:
        return iter(self._partitions.values())

    def pop_ready(self, now: float) -> tuple[FrontierItem | None, float | None]:
        """The best ready item, or ``(None, wake_at)`` with the earliest time one may be ready
        (``None`` when nothing is queued or every queued host is at its concurrency limit).
        ``now`` is ``time.monotonic()``, the pacing's clock."""
        best: HostPartition | None = None
        best_prio: tuple[int, float, int] | None = None
        wake: float | None = None
        pacing = self._pacing
        for part in self._partitions.values():
            if not part.has_room():
                continue
            if pacing is not None:
                wait = pacing.next_start_in(part.pace_key or part.host)
                if wait > 0:
                    at = now + wait
                    wake = at if wake is None or at < wake else wake
                    continue
            prio = part.head_priority()
            if best_prio is None or prio < best_prio:
                best, best_prio = part, prio
        if best is None:
            return None, wake
        self.queued -= 1
        return best.take(), None

    def release(self, host: str) -> None:
        self._partitions[host].release()

    def pending(self) -> list[FrontierItem]:
        """Every queued item (for persisting state), in no particular order."""
        return [entry[3] for part in self._partitions.values() for entry in part.queue]
