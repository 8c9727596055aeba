"""Pure pieces of the distributed crawl: who owns a host, the global page budget, and
when a cluster of shards has nothing left to do. No Ray here, so all of it is unit-tested
in-process.

Ownership rule (documented, stable across runs and machines): the shard of a URL is
``int(sha256(registrable_host).hexdigest(), 16) % shards``, where the registrable host is
the host without its port, lower-cased; for an IP literal it is the address itself, for a
name it is its registrable domain from the Public Suffix List, the same function the
``same-site`` scope uses (:func:`pressmark.crawl._site.registrable_domain`), so a site never
spans two shards and every host has exactly one owner.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from pressmark.crawl._site import registrable_domain, split_host_key


def strip_port(host: str) -> str:
    """``"a.test:8080"`` -> ``"a.test"``; ``"[::1]:80"`` -> ``"::1"``."""
    return split_host_key(host)[0]


def registrable_host(host: str) -> str:
    """The sharding key of a frontier host key (which may carry a port)."""
    return registrable_domain(strip_port(host))


def shard_of(host: str, shards: int) -> int:
    """The index of the shard that owns ``host`` among ``shards``."""
    if shards <= 1:
        return 0
    digest = hashlib.sha256(registrable_host(host).encode("utf-8", "surrogatepass")).hexdigest()
    return int(digest, 16) % shards


def concurrency_share(concurrency: int, shards: int, index: int) -> int:
    """Shard ``index``'s part of the crawl-wide ``politeness.concurrency``: the total is
    split as evenly as possible (the first ``concurrency % shards`` shards get one more),
    so the shares add up to exactly ``concurrency``; a shard never gets less than 1 (so with
    fewer slots than shards the total is ``shards``)."""
    base, extra = divmod(concurrency, shards)
    return max(1, base + (1 if index < extra else 0))


@dataclass(frozen=True, slots=True, kw_only=True)
class DocumentResult:
    """A sitemap document fetched by the shard that owns its host, for the shard that
    asked: the bytes, or why there are none (``reason`` is the fetch layer's code)."""

    data: bytes | None
    reason: str = ""
    message: str = ""


class RemoteDocumentError(Exception):
    """The owning shard could not fetch a sitemap document; ``code`` is its reason."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True, kw_only=True)
class RoutedLink:
    """A URL found by one shard and owned by another (admitted there, with its own checks)."""

    url: str
    host: str
    depth: int
    parent_url: str | None
    via: str
    seed_index: int | None = None


UNREGISTERED = -1
"""What the budget answers a shard it does not know (the budget actor was restarted)."""


class PageBudget:
    """The global ``max_pages``, held exactly: slots are granted to shards, returned when a
    granted page was never requested (robots) or a shard ends with slots left, and reset
    from the persisted record when a shard restarts (its lost grants come back).

    Every grant carries the shard's epoch; a call from an earlier incarnation of a
    restarted shard is refused, so a dead process cannot hold or return slots. When the
    budget itself was restarted it knows no shard: calls answer :data:`UNREGISTERED` and
    each shard registers again with what it holds (pages on record, in flight, and slots).
    """

    def __init__(self, max_pages: int, shards: int) -> None:
        self.max_pages = max_pages
        self.granted = [0] * shards
        self.epochs = [0] * shards

    @property
    def used(self) -> int:
        return sum(self.granted)

    @property
    def remaining(self) -> int:
        return max(0, self.max_pages - self.used)

    def reset(self, shard: int, charged: int) -> int:
        """A (re)started shard reports how many charged pages it has on record; returns its
        new epoch."""
        self.epochs[shard] += 1
        self.granted[shard] = charged
        return self.epochs[shard]

    def acquire(self, shard: int, epoch: int, want: int) -> int:
        if self.epochs[shard] == 0:
            return UNREGISTERED
        if epoch != self.epochs[shard] or want <= 0:
            return 0
        n = min(want, self.remaining)
        self.granted[shard] += n
        return n

    def refund(self, shard: int, epoch: int, n: int) -> int:
        if self.epochs[shard] == 0:
            return UNREGISTERED
        if epoch == self.epochs[shard] and n > 0:
            self.granted[shard] = max(0, self.granted[shard] - n)
        return 0


@dataclass(frozen=True, slots=True, kw_only=True)
class ShardStatus:
    """What the driver polls. ``activity`` grows with everything a shard does (pages
    started and finished, links received), so two equal polls prove it stayed idle."""

    index: int
    idle: bool
    activity: int
    queued: int
    in_flight: int
    done: int
    rendered: int
    failed: int
    restarts: int = 0


class Quiescence:
    """Termination detection by double polling: the crawl is over when two consecutive
    rounds find every shard idle with unchanged activity counters.

    An idle shard only becomes busy again when another shard hands it a link, and a
    shard is not idle while a hand-over is unacknowledged; so if no counter moved between
    two all-idle rounds, no hand-over happened in between and none can happen later.
    """

    def __init__(self) -> None:
        self._last: tuple[int, ...] | None = None

    def observe(self, statuses: list[ShardStatus], *, work_possible: bool) -> bool:
        """``work_possible``: something is queued and the budget still has room (a shard
        that found the budget empty counts as idle, but a refund may wake it)."""
        if work_possible or not all(s.idle for s in statuses):
            self._last = None
            return False
        snapshot = tuple(s.activity for s in statuses)
        done = snapshot == self._last
        self._last = snapshot
        return done
