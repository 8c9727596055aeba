"""Pure pieces of the distributed crawl: who owns a host, how the crawl-wide concurrency
is split, and what shards send each other. No Ray here, so all of it is unit-tested
in-process. (The global ``max_pages`` is kept by the driver's
:class:`~pressmark.crawl.executor.Ledger`, built over every shard's journal and records.)

Ownership rule (documented, stable across runs and machines): the shard of a URL is
``int(sha256(registrable_host).hexdigest(), 16) % shards``, where the registrable host is
the host without its port, lower-cased; for an IP literal it is the address itself, for a
name it is its registrable domain from the Public Suffix List, the same function the
``same-site`` scope uses (:func:`pressmark.crawl.executor.registrable_domain`), so a site never
spans two shards and every host has exactly one owner.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from pressmark.crawl.executor import registrable_domain, split_host_key


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
    path: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ShardStatus:
    """What the driver polls. ``quiet``: nothing in flight or queued, nothing the shard's
    last limits (``limits_version``) allow left to release, no robots.txt load pending;
    ``reading``: its sitemaps are being read; ``finished``: its loop has ended; ``waits``:
    the pages it is waiting on, for the progress line."""

    index: int
    finished: bool
    quiet: bool
    reading: bool
    limits_version: int
    activity: int
    queued: int
    in_flight: int
    done: int
    rendered: int
    failed: int
    restarts: int = 0
    waits: tuple[tuple[str, float, bool], ...] = ()
