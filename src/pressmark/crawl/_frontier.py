"""The host-partitioned frontier: what to fetch next, and when.

All per-host state (queue, in-flight count, next allowed start time, crawl
delay) lives in one :class:`HostPartition`. The :class:`Frontier` only routes
URLs to partitions and picks among ready ones, so a distributed mode can shard
partitions by host across workers without splitting any host's state.

Priority inside a host, and across hosts: lower depth first, then higher
``should_follow`` score, then discovery order (FIFO). Dedupe keys are 64-bit
BLAKE2b digests of the canonical URL, kept only for URLs admitted to the
frontier; admission is capped, so memory is bounded by the page budget.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass
from hashlib import blake2b
from typing import Literal

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


class HostPartition:
    """One host's queue and politeness slot. Times are ``time.monotonic()`` seconds."""

    __slots__ = ("delay_s", "host", "in_flight", "max_in_flight", "next_start", "queue")

    def __init__(self, host: str, *, max_in_flight: int, delay_s: float) -> None:
        self.host = host
        self.queue: list[tuple[int, float, int, FrontierItem]] = []
        self.in_flight = 0
        self.max_in_flight = max_in_flight
        self.delay_s = delay_s
        self.next_start = 0.0

    def push(self, item: FrontierItem, seq: int) -> None:
        heapq.heappush(self.queue, (item.depth, -item.score, seq, item))

    def head_priority(self) -> tuple[int, float, int]:
        depth, neg_score, seq, _ = self.queue[0]
        return depth, neg_score, seq

    def ready_at(self) -> float | None:
        """When this partition can start its next request, or ``None`` if it cannot now."""
        if not self.queue or self.in_flight >= self.max_in_flight:
            return None
        return self.next_start

    def take(self, now: float) -> FrontierItem:
        item = heapq.heappop(self.queue)[3]
        self.in_flight += 1
        # With a delay, requests to one host start at least delay_s apart.
        self.next_start = now + self.delay_s
        return item

    def release(self, now: float | None = None) -> None:
        self.in_flight -= 1
        if self.delay_s > 0:
            # Spacing counts from the end of the previous request too, so the server sees
            # at least delay_s between requests even when a response was slow.
            at = time.monotonic() if now is None else now
            self.next_start = max(self.next_start, at + self.delay_s)

    def set_delay(self, delay_s: float) -> None:
        self.delay_s = max(self.delay_s, delay_s)
        if self.delay_s > 0:
            self.max_in_flight = 1


class Frontier:
    """Dedupe, admission cap and ready-partition selection."""

    def __init__(
        self, *, per_host_concurrency: int, delay_s: float, max_admitted: int
    ) -> None:
        self._partitions: dict[str, HostPartition] = {}
        self._seen: set[int] = set()
        self._seq = itertools.count()
        self._per_host = per_host_concurrency if delay_s <= 0 else 1
        self._delay_s = delay_s
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
        self.partition(item.host).push(item, next(self._seq))
        self.queued += 1
        return True

    def requeue(self, item: FrontierItem) -> None:
        """Put back an item that was taken but not started (resume, shutdown)."""
        self.partition(item.host).push(item, next(self._seq))
        self.queued += 1

    def partition(self, host: str) -> HostPartition:
        part = self._partitions.get(host)
        if part is None:
            part = HostPartition(host, max_in_flight=self._per_host, delay_s=self._delay_s)
            self._partitions[host] = part
        return part

    def partitions(self) -> Iterator[HostPartition]:
        return iter(self._partitions.values())

    def pop_ready(self, now: float) -> tuple[FrontierItem | None, float | None]:
        """The best ready item, or ``(None, wake_at)`` with the earliest time one may be ready
        (``None`` when nothing is queued or every queued host is at its concurrency limit)."""
        best: HostPartition | None = None
        best_prio: tuple[int, float, int] | None = None
        wake: float | None = None
        for part in self._partitions.values():
            at = part.ready_at()
            if at is None:
                continue
            if at > now:
                wake = at if wake is None or at < wake else wake
                continue
            prio = part.head_priority()
            if best_prio is None or prio < best_prio:
                best, best_prio = part, prio
        if best is None:
            return None, wake
        self.queued -= 1
        return best.take(now), None

    def release(self, host: str, now: float | None = None) -> None:
        self._partitions[host].release(now)

    def pending(self) -> list[FrontierItem]:
        """Every queued item (for persisting state), in no particular order."""
        return [entry[3] for part in self._partitions.values() for entry in part.queue]
