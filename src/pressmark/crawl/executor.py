"""What another executor of the crawl engine builds on (``pressmark.crawl.ray`` does).

A distributed crawl runs the in-process :class:`Engine` as it is, with its seams filled
in differently (which hosts it owns, how a level opens, where links and hop pacing go);
it must not copy the run loop, nor reach into this package's ``_`` modules. This module
is that surface, and the only one: everything here is used by ``pressmark.crawl.ray``.
It is package-internal API (for executors shipped with pressmark and ones written
against the same version), not the crawl's public API (``pressmark.crawl``): names here
may change with the engine.

* The engine and its seams: :class:`Engine` (subclass it: ``owns``, ``admit``,
  ``before_hop``, ``fetch_document``, ``flush_outbox``, ``_fetch_and_process``, and
  ``current_limits``, ``limits_retry_at``, ``crawl_over`` for where the limits come from),
  :func:`make_pool`; the order and the budget: :class:`Ledger`, :class:`Limits`,
  :data:`Key` (see :mod:`pressmark.crawl._levels`).
* Acquisition: :class:`LiveFetcher`, :class:`ReplayFetcher`, :func:`crawl_stores`,
  :func:`own_store`,
  :func:`worker_store_spec`, :class:`StoreWriter`.
* The URL model: :func:`canonical_parts` (crawl key, scope), :func:`hostname_of` (the
  fetch layer's pacing key), :func:`registrable_domain` and :func:`split_host_key` (what a
  shard is chosen by), :data:`Via`.
* The crawl directory: :class:`OutputDir`, :class:`ResumeJournal`, :func:`item_line`,
  :func:`dumps_line`, :func:`write_atomic`.
* Seeds: :data:`SeedLike`, :func:`normalise_seeds`.
* Progress: :data:`TICK_S`, how often a crawl ticks its progress display; the
  :class:`Progress` protocol and :class:`NullProgress`.
* Records: :class:`CrawlSummary`, :class:`PageFailure`, :class:`FrontierItem`,
  :class:`PageFile` and :data:`KEPT_PAGES` (past that many records a crawl into a
  directory hands back its ``pages.jsonl`` instead of keeping them), and the
  :class:`PageFetcher` protocol a shard fetches through (the crawl's public API,
  ``pressmark.crawl``, keeps only what a caller of a crawl uses).
"""

from pressmark.crawl._agentviews import AgentViewReport
from pressmark.crawl._canonical import canonical_parts, hostname_of
from pressmark.crawl._changes import Changes
from pressmark.crawl._crawl import (
    SeedLike,
    crawl_stores,
    normalise_seeds,
    own_store,
    worker_store_spec,
)
from pressmark.crawl._engine import KEPT_PAGES, Engine
from pressmark.crawl._fetcher import LiveFetcher, PageFetcher, ReplayFetcher
from pressmark.crawl._frontier import FrontierItem, Via
from pressmark.crawl._ledger_state import Key
from pressmark.crawl._levels import Ledger, Limits
from pressmark.crawl._manifest import CrawlSummary, PageFailure
from pressmark.crawl._output import OutputDir, PageFile, dumps_line, write_atomic
from pressmark.crawl._pagework import make_pool
from pressmark.crawl._progress import TICK_S, NullProgress, Progress
from pressmark.crawl._resume import ResumeJournal, item_line
from pressmark.crawl._site import registrable_domain, split_host_key
from pressmark.crawl._writer import StoreWriter

__all__ = [
    "KEPT_PAGES",
    "TICK_S",
    "AgentViewReport",
    "Changes",
    "CrawlSummary",
    "Engine",
    "FrontierItem",
    "Key",
    "Ledger",
    "Limits",
    "LiveFetcher",
    "NullProgress",
    "OutputDir",
    "PageFailure",
    "PageFetcher",
    "PageFile",
    "Progress",
    "ReplayFetcher",
    "ResumeJournal",
    "SeedLike",
    "StoreWriter",
    "Via",
    "canonical_parts",
    "crawl_stores",
    "dumps_line",
    "hostname_of",
    "item_line",
    "make_pool",
    "normalise_seeds",
    "own_store",
    "registrable_domain",
    "split_host_key",
    "worker_store_spec",
    "write_atomic",
]
