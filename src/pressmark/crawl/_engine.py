"""The crawl loop: one dispatcher, bounded concurrent page tasks, one parser pool.

The crawl order and the ``max_pages`` budget are those of :mod:`pressmark.crawl._levels`
(breadth-first, then discovery order), with no barrier between depths: every URL offered
goes into the :class:`~pressmark.crawl._levels.Ledger`, and a page is queued as soon as
it is certain (its place final, inside the budget), through
:class:`~pressmark.crawl._release.Release`; a slow page holds back only the pages it could
still displace. The limits come from the engine's own ledger, or, for a shard of a
distributed crawl (which runs this same engine), from the driver's
(:meth:`Engine.current_limits`). The dispatcher pops ready items from the
host-partitioned frontier while fewer than ``politeness.concurrency`` pages are in
flight; each page task fetches (through the fetch seam), hands the page to its
:class:`~pressmark.crawl._pagework.PageWorker` (links memo, inline, or a parser process),
offers the links it found, and records the page (:mod:`pressmark.crawl._records`).
Recording order per page is: frontier journal, then ``pages.jsonl`` (see
:mod:`pressmark.crawl._resume`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import functools
import itertools
import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pressmark.crawl._agentviews import AgentViewReport, page_views
from pressmark.crawl._canonical import canonical_or_refusal
from pressmark.crawl._changes import Changes
from pressmark.crawl._fetcher import PageFetcher
from pressmark.crawl._frontier import Frontier, FrontierItem, Via
from pressmark.crawl._levels import MAX_LINKS_PER_PAGE, Ledger, Limits
from pressmark.crawl._manifest import CrawlSummary, PageFailure, PageRecord
from pressmark.crawl._output import OutputDir, disk_full
from pressmark.crawl._pagework import PageWorker
from pressmark.crawl._policy import CrawlPolicy, FollowCandidate, Scope, Seed
from pressmark.crawl._process import PageWork, StoreSpec
from pressmark.crawl._progress import TICK_S
from pressmark.crawl._records import (
    finished_record,
    store_failed,
    timed_out_record,
    unfetched_record,
)
from pressmark.crawl._release import Release, origin_of
from pressmark.crawl._resume import ResumeJournal
from pressmark.crawl._sitemaps import SitemapReport, discover_sitemap_urls
from pressmark.crawl._workers import (
    PageTimeout,
    ParseWorkers,
    WorkerDied,
    parse_sitemap_off_loop,
)
from pressmark.crawl._writer import StoreWriter

if TYPE_CHECKING:
    from pressmark.crawl._fetcher import Fetched
    from pressmark.crawl._linkmemo import LinkMemo
    from pressmark.crawl._progress import Progress
    from pressmark.store import SnapshotRef, SnapshotStore


STORE_BACKLOG = 4
"""Pages waiting only for their snapshot put, per unit of ``concurrency``."""

STOP_GRACE_S = {"interrupted": 2.0, "time-budget": 0.1, "disk-full": 0.1, "output-error": 0.1}
"""How long in-flight pages may still finish once the crawl stops."""

OUTPUT_STOPS = frozenset({"disk-full", "output-error"})
"""Stop reasons of a crawl that could not write its output (a full disk, an I/O error)."""

FLUSH_EVERY_PAGES = 64
FLUSH_EVERY_S = 0.25
"""Page records reach the kernel in batches this big or this old (see _output)."""


class _NoRoom(Exception):
    """The page's snapshot or files could not be written for want of room: it is not
    finished, so it gets no record (a resumed crawl fetches it again)."""


_origin = origin_of


class Engine:
    def __init__(
        self, *, policy: CrawlPolicy, seeds: list[tuple[Seed, str, str]], fetcher: PageFetcher,
        out: OutputDir | None, journal: ResumeJournal | None, progress: Progress,
        pool: ParseWorkers | None, stop: asyncio.Event, writer: StoreWriter | None = None,
        store_spec: StoreSpec | None = None, mirror_store: SnapshotStore | None = None,
        previous: Sequence[PageRecord] = (),
        started: float | None = None,
        render_slots: int = 0, links: LinkMemo | None = None,
    ) -> None:
        # ``render_slots`` more pages may be in flight (in all and per host) than the
        # request limits allow: a rendering page holds a request slot (in the fetch
        # layer's politeness) only while its document is requested, then it waits.
        self.policy = policy
        self.seeds = seeds
        self.fetcher = fetcher
        self.out = out
        self.journal = journal
        self.progress = progress
        self.pool = pool
        self.stop = stop
        if writer is None and mirror_store is not None:  # older spelling of ``writer``
            writer = StoreWriter(mirror_store)
            self._own_writer = True
        else:
            self._own_writer = False
        self.writer = writer
        self.links = links
        """Links found in earlier snapshots (a 304's page is not parsed again for them)."""
        self.work = PageWorker(policy=policy, out=out, pool=pool, store_spec=store_spec,
                               links=links, previous=previous,
                               seeds={url: seed for seed, url, _ in seeds})
        pol = policy.politeness
        self.max_pages = policy.effective_max_pages()
        self.render_slots = max(0, render_slots)
        # With a delay, one request at a time per host; when each may start is the fetch
        # layer's pacing (the crawl's one per-host clock), which the frontier consults.
        self.frontier = Frontier(
            per_host_concurrency=(
                1 if pol.delay_ms > 0 else pol.per_host_concurrency + self.render_slots),
            max_admitted=max(self.max_pages * 4, self.max_pages + 10_000),
            pacing=getattr(fetcher, "pacing", None),
        )
        self.ledger = Ledger(max_pages=self.max_pages, scored=policy.should_follow is not None,
                             cap=self.frontier.max_admitted)
        self.release = Release(ledger=self.ledger, frontier=self.frontier,
                               allows=getattr(fetcher, "robots_allows", None),
                               load_robots=self.fetcher.crawl_delay,
                               denied=self._record_robots_denied, wake=self._signal)
        self.cut_off = 0
        """Candidates the ``max_pages`` budget left unfetched (known when the crawl ends)."""
        self.activity = 0
        """Grows with every page started or finished and every link offered."""
        self.scope = Scope(policy, [host for _, _, host in seeds])
        self.summary = CrawlSummary()
        self.sitemap = SitemapReport()
        self.pages: list[PageRecord] = []
        """Finished pages; with an output directory only the first :data:`KEPT_PAGES`
        (``spilled`` then: its ``pages.jsonl`` holds them, and a crawl's memory must not
        grow a kilobyte a page)."""
        self.spilled = False
        self.changes = Changes(previous)
        self.agent_views = AgentViewReport() if policy.agent_views else None
        """A crawl with ``agent_views``: its views counted (``crawl._agentviews``)."""
        """A recrawl's pages against the earlier crawl's (``crawl._changes``)."""
        self.dispatched = 0
        self.in_flight = 0
        self.storing = 0
        """Pages (counted in ``in_flight`` too) whose request is done and that only wait for
        their snapshot put; the dispatcher does not count them against ``concurrency``."""
        self.stop_reason: str | None = None
        self.output_error: str | None = None
        """Why the crawl's output could not be written (it stopped then), or ``None``."""
        # Optional on custom fetchers: without it, robots is only checked when fetching.
        self._robots_allows = getattr(fetcher, "robots_allows", None)
        pace_hops_with = getattr(fetcher, "pace_hops_with", None)
        if pace_hops_with is not None:
            pace_hops_with(self.before_hop)
        self._flushed_at = time.monotonic()
        self._wake = asyncio.Event()
        self._delay_known: set[str] = set()
        self._running: dict[str, float] = {}
        """Pages in flight: when each started (monotonic)."""
        self._sitemap_task: asyncio.Task[None] | None = None
        self._seed_by_url = {url: seed for seed, url, _ in seeds}
        # ``started``: when the caller began (monotonic), so set-up counts against the budget.
        self._deadline = ((started if started is not None else time.monotonic())
                          + policy.time_budget_s if policy.time_budget_s is not None else None)

    # -- admission -------------------------------------------------------------------------

    def owns(self, host: str) -> bool:
        """Whether this engine crawls ``host`` (a shard owns only some hosts)."""
        return True

    def admit(self, url: str, host: str, depth: int, parent: str | None, via: Via, *,
              seed_index: int | None = None, path: tuple[int, ...] = ()) -> bool:
        """Offer a URL to the level at ``depth`` (kept with its smallest discovery path)."""
        if via != "seed":
            if self.policy.max_depth is not None and depth > self.policy.max_depth:
                return False
            if not self.scope.allows(url, host):
                return False
        hook = self.policy.should_follow
        # Without a hook the key is known now: the common case, a link already offered from
        # an earlier page, ends here. With one, only a smaller depth (or a start) decides.
        if self.ledger.earlier(url, depth, (-0.0, *path, url) if hook is None else (-math.inf,)):
            return False
        score = 0.0
        if hook is not None and via != "seed":
            verdict = hook(FollowCandidate(url=url, depth=depth, parent_url=parent, via=via))
            if verdict is False:
                return False
            score = 0.0 if verdict is True else float(verdict)
        item = FrontierItem(url=url, host=host, depth=depth, score=score, parent_url=parent,
                            via=via, seed_index=seed_index, path=path)
        self.activity += 1
        if not self.ledger.offer(item):
            return False
        if self.journal is not None:
            self.journal.record(item)
        return True

    def _maybe_flush(self, *, force: bool = False) -> None:
        """Journal first, then page records: every recorded page's links are journaled."""
        now = time.monotonic()
        if self.out is None or not (force or self.out.buffered >= FLUSH_EVERY_PAGES
                                    or now - self._flushed_at >= FLUSH_EVERY_S):
            return
        self._flushed_at = now
        try:
            if self.journal is not None:
                self.journal.flush()
            self.out.flush_pages()  # whole or not at all: unwritten lines stay queued
            if self.links is not None:
                self.links.flush()
        except OSError as exc:
            self._output_failed(exc)

    def _flush_journal(self) -> None:
        try:
            if self.journal is not None:
                self.journal.flush()
        except OSError as exc:
            self._output_failed(exc)

    def _output_failed(self, exc: BaseException) -> None:
        """The crawl cannot write its output: it stops (see :meth:`_settle_output`)."""
        if self.output_error is None:
            self.output_error = f"{type(exc).__name__}: {exc}"
            self.stop_reason = "disk-full" if disk_full(exc) else "output-error"
        self.stop.set()
        self._wake.set()

    def _settle_output(self) -> None:
        """After a write failure, write what is still queued in the space the reserve gave
        back, or drop it: the summary then counts exactly the pages ``pages.jsonl`` holds."""
        if self.out is None or self.output_error is None:
            return
        if self.writer is not None:
            self.writer.close()  # no put may take the reserve's space from the last lines
        self.out.release_reserve()
        try:
            if self.journal is not None:
                self.journal.flush()
            self.out.flush_pages()
        except OSError:
            if self.journal is not None:
                self.journal.drop()
            dropped = {id(record) for record in self.out.drop_pages()}
            self.pages = [page for page in self.pages if id(page) not in dropped]
            summary = CrawlSummary()  # what pages.jsonl says, now that it is final
            summary.urls_refused = self.summary.urls_refused
            written = [PageRecord.from_dict(line) for line in self.out.iter_page_dicts()]
            for page in written:
                summary.add(page)
            self.changes.recount(written)
            self.summary = summary
        if self.links is not None:
            # Derived data: a missing line only means a page is parsed again.
            with contextlib.suppress(OSError):
                self.links.flush()

    def _record_robots_denied(self, url: str, depth: int) -> None:
        """A URL robots.txt (already cached) disallows: recorded at once, never requested."""
        if not self.frontier.mark_seen(url):
            return
        self.activity += 1
        record = PageRecord(url=url, final_url=None, depth=depth, status=None, outcome="error",
                            error=PageFailure(kind="robots-denied",
                                            message="robots.txt disallows this URL"))
        if self.out is not None:
            self.out.append_page(record)
            # A depth's screen records its denials in one go (the bench site: 480,000 at
            # the end of a 200,000-page crawl): they reach the file in batches as pages
            # do, not all queued at once (a record and its line are a kilobyte).
            self._maybe_flush()
        self._keep(record)
        self.summary.add(record)
        self._note_done(record)

    def _keep(self, record: PageRecord) -> None:
        if self.spilled:
            return
        self.pages.append(record)
        if self.out is not None and len(self.pages) > KEPT_PAGES:
            self.pages, self.spilled = [], True  # pages.jsonl has them (CrawlManifest.pages)

    def restore(self, items: list[FrontierItem], done: list[PageRecord]) -> None:
        """Rebuild an interrupted crawl: done pages stay done, every journaled URL is offered
        again (so what is certain comes out as it did)."""
        self.changes.seen(done)
        for page in done:
            self.summary.add(page)
            self._keep(page)
            if self.frontier.mark_seen(page.url):
                self.frontier.admitted += 1
        self.ledger.restore(items, [(p.url, p.depth, _charged(p)) for p in done])
        self.dispatched = sum(_charged(p) for p in done)

    def _note_done(self, page: PageRecord) -> None:
        if self.ledger.known(page.url):
            self.ledger.finish(page.url, charged=_charged(page))

    # -- the loop --------------------------------------------------------------------------

    async def run(self) -> None:
        for index, (_seed, url, host) in enumerate(self.seeds):
            if self.owns(host):
                self.admit(url, host, 0, None, "seed", seed_index=index, path=(index,))
        if self.policy.discovery in ("sitemap", "both"):
            # Before anything is released: depth 1 is not complete while sitemaps are read.
            self.ledger.discovering(len(self.seeds))
            self._sitemap_task = asyncio.create_task(self._discover_sitemaps())
        self._flush_journal()
        tasks: set[asyncio.Task[None]] = set()
        ticker = asyncio.create_task(self._tick_progress())
        try:
            if await self._drain(tasks) and self.ledger.waiting:
                self.cut_off = self.ledger.waiting
                self.stop_reason = self.stop_reason or "max-pages"
        finally:
            ticker.cancel()
            await asyncio.gather(ticker, return_exceptions=True)
            await self.release.aclose()
            if tasks:
                if self.stop_reason in STOP_GRACE_S:
                    # In-flight pages get a short grace; then they are cancelled (their
                    # workers killed), so the budget and a signal hold whatever pages hold.
                    await asyncio.wait(tasks, timeout=STOP_GRACE_S[self.stop_reason])
                    for task in tasks:
                        task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            if self._sitemap_task is not None and not self._sitemap_task.done():
                self._sitemap_task.cancel()
                await asyncio.gather(self._sitemap_task, return_exceptions=True)
            self._maybe_flush(force=True)
            self._settle_output()
            if self._own_writer and self.writer is not None:
                self.writer.close()

    async def _tick_progress(self) -> None:
        """The progress display's clock: it reports while nothing finishes, too (a display
        written before ``tick`` existed simply has none)."""
        tick = getattr(self.progress, "tick", None)
        while tick is not None:
            await asyncio.sleep(TICK_S)
            tick(self)

    def _halted(self) -> bool:
        if self.stop.is_set():
            self.stop_reason = self.stop_reason or "interrupted"
            return True
        if self._deadline is not None and time.monotonic() >= self._deadline:
            self.stop_reason = "time-budget"
            return True
        return False

    def current_limits(self, *, urgent: bool) -> Limits:
        """What may be released now (a shard gets it from its driver)."""
        return self.ledger.limits(urgent=urgent)

    def limits_retry_at(self) -> float | None:
        """When :meth:`current_limits` may release more by itself (a postponed exact
        computation), if ever."""
        return self.ledger.retry_at()

    def progress_waits(self, *, limit: int = 3) -> tuple[tuple[str, float, bool], ...]:
        """What the crawl waits on when nothing else is left to start: ``(url, seconds so
        far, rendering)`` of the pages in flight for a second or more, longest first; empty
        while the frontier still has pages to start (then nothing is being waited on)."""
        if self.frontier.queued or not self._running:
            return ()
        now = time.monotonic()
        rendering = getattr(self.fetcher, "rendering", None)
        busy = rendering() if callable(rendering) else frozenset()
        ordered = sorted(self._running.items(), key=lambda kv: (kv[1], kv[0]))
        return tuple((url, round(now - at, 1), url in busy) for url, at in ordered
                     if now - at >= TICK_S)[:limit]

    def quiet(self) -> bool:
        """Nothing in flight here, nothing queued or about to be: only the ledger could
        still release something."""
        sitemap_busy = self._sitemap_task is not None and not self._sitemap_task.done()
        return (self.in_flight == 0 and self.frontier.queued == 0 and not sitemap_busy
                and not self.release.busy)

    async def crawl_over(self) -> bool:
        """Called when :meth:`quiet` and nothing was released: is the crawl over? (Here,
        yes: what is left is outside the budget. A shard asks its driver.)"""
        return True

    async def _drain(self, tasks: set[asyncio.Task[None]]) -> bool:
        """Run the crawl to its end; ``False`` if it was stopped meanwhile."""
        concurrency = self.policy.politeness.concurrency
        pages_at_once = concurrency + self.render_slots
        while not self._halted():
            wake_at: float | None = None
            fetching = self.in_flight - self.storing
            want_more = fetching < pages_at_once and self.storing < concurrency * STORE_BACKLOG
            consult = want_more and self.frontier.queued < pages_at_once
            if consult:
                self.release.advance(self.current_limits(urgent=False))
            if want_more:
                item, wake_at = self.frontier.pop_ready(time.monotonic())
                if item is not None:
                    self.dispatched += 1
                    self.in_flight += 1
                    self.activity += 1
                    task = asyncio.create_task(self._page(item))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                    continue
            if self.quiet():
                if self.release.advance(self.current_limits(urgent=True)):
                    continue
                if not self.release.busy:  # else its screen or robots.txt load wakes us
                    if await self.crawl_over():
                        return True
                    continue
            self._wake.clear()
            timeout = None if wake_at is None else max(0.0, wake_at - time.monotonic())
            # A postponed computation of the limits matters only while more pages are
            # wanted (otherwise the next page to finish wakes the loop, and waiting for
            # the retry would spin).
            retry = self.limits_retry_at() if consult else None
            if retry is not None:
                left = max(0.0, retry - time.monotonic())
                timeout = left if timeout is None else min(timeout, left)
            if self._deadline is not None:
                left = max(0.0, self._deadline - time.monotonic())
                timeout = left if timeout is None else min(timeout, left)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)
        return False

    def _signal(self) -> None:
        self._wake.set()

    async def fetch_document(self, url: str) -> bytes:
        """A sitemap document (a shard asks the shard that owns its host)."""
        return await self.fetcher.fetch_document(url)

    async def before_hop(self, url: str) -> None:
        """A redirect hop to another host is paced like any request to that host (a shard
        asks the hop host's owner)."""
        await self.pace(url)

    async def pace(self, url: str) -> None:
        """Wait for a start on ``url``'s host in the fetch layer's pacing (no less than its
        delay or Crawl-delay apart from the other requests to it)."""
        pace = getattr(self.fetcher, "pace", None)
        if pace is not None:  # none: replay, or a fetcher without pacing
            await pace(url)

    async def flush_outbox(self) -> None:
        """Hand links found here to the engines that own them (none: this one owns all)."""

    async def _discover_sitemaps(self) -> None:
        """Sitemap URLs are depth-1 candidates, after every seed link: seed origin ``o``'s
        ``j``-th URL has the path ``(len(seeds) + o, j)``."""
        origins: dict[str, str] = {}
        for _seed, url, host in self.seeds:
            origins.setdefault(_origin(url), host)
        try:
            pool = self.pool
            parse = None if pool is None else functools.partial(parse_sitemap_off_loop, pool)
            for index, (origin, host) in enumerate(origins.items()):
                if not self.owns(host):
                    continue
                roots = await self.fetcher.sitemap_roots(origin)
                counter = itertools.count()
                base = len(self.seeds) + index

                self.ledger.discovering(base)

                def on_url(raw: str, base: int = base, counter: itertools.count[int] = counter,
                           ) -> None:
                    parts = canonical_or_refusal(
                        raw, strip_tracking=self.policy.strip_tracking_params)
                    if isinstance(parts, str):
                        self.summary.refuse(((parts, 1),))
                    else:
                        self.admit(parts.url, parts.host, 1, None, "sitemap",
                                   path=(base, next(counter)))

                await discover_sitemap_urls(roots, self.fetch_document, self.policy.sitemaps,
                                            self.sitemap, on_url, parse=parse)
            await self.flush_outbox()
        finally:
            self.ledger.discovering(None)
            self._flush_journal()
            self._wake.set()

    async def _page(self, item: FrontierItem) -> None:
        self._running[item.url] = time.monotonic()
        try:
            await self._run_page(item)
        finally:
            self._running.pop(item.url, None)

    async def _run_page(self, item: FrontierItem) -> None:
        try:
            try:
                record = await self._fetch_and_process(item)
            except Exception as exc:
                if isinstance(exc, _NoRoom) or not disk_full(exc):
                    raise
                self._output_failed(exc)
                raise _NoRoom from exc
        except (asyncio.CancelledError, _NoRoom) as exc:
            self.frontier.release(item.host)
            self.in_flight -= 1
            self._wake.set()
            if isinstance(exc, _NoRoom):
                return  # unfinished, unrecorded
            raise
        except Exception as exc:  # a bug on one page must not end the crawl
            record = PageRecord(url=item.url, final_url=None, depth=item.depth, status=None,
                                outcome="error",
                                error=PageFailure(kind="crawl-error",
                                                message=f"{type(exc).__name__}: {exc}"))
        record = self.changes.mark(record)
        if self.out is not None:
            self.out.append_page(record)
            self._maybe_flush()
        else:
            self._flush_journal()
        self._keep(record)
        self.summary.add(record)
        self._note_done(record)
        if not _charged(record):
            self.dispatched -= 1  # never requested: recorded, but not charged to max_pages
        self.frontier.release(item.host)
        self.in_flight -= 1
        self.activity += 1
        self.progress.page(record, self)
        await self._learn_delay(item.host, item.url)
        self._wake.set()

    async def _learn_delay(self, host: str, url: str) -> None:
        if host in self._delay_known:
            return
        self._delay_known.add(host)
        delay = await self.fetcher.crawl_delay(_origin(url))
        if delay:  # the fetch layer spaces the requests; one at a time here
            self.frontier.partition(host).one_at_a_time()

    async def _fetch_and_process(self, item: FrontierItem) -> PageRecord:
        seed = self._seed_by_url.get(item.url) if item.via == "seed" else None
        fetched = await self.fetcher.fetch_page(item, seed)
        snap = fetched.snapshot
        if snap is None:
            return unfetched_record(item, fetched)
        source_ref = fetched.source_ref
        # A 304's snapshot is the stored one: nothing to put.
        storing = self.writer is not None and not fetched.not_modified
        put_in_worker = storing and self.work.store_spec is not None
        put: asyncio.Future[SnapshotRef] | None = None
        if storing and not put_in_worker:
            assert self.writer is not None
            # The put runs on a writer thread while the page is parsed and converted.
            put = asyncio.ensure_future(self.writer.put(snap))
        # The request is done: while the page is parsed and stored it holds no request
        # slot (nor its host's), so a slow page never starves the others of fetching.
        self.storing += 1
        self.frontier.release(item.host)
        self._wake.set()
        try:
            kept = self.work.kept(item, fetched)
            try:
                work = await self.work.run(item, fetched, put_in_worker, kept)
                if work is not None and work.disk_full is not None:
                    self._output_failed(OSError(errno.ENOSPC, work.disk_full))
                    raise _NoRoom
                if work is not None:
                    self._admit_links(item, work)
            except (PageTimeout, WorkerDied) as exc:
                if put is not None:
                    put.cancel()
                return timed_out_record(item, fetched, exc)
            except BaseException:
                if put is not None:
                    put.cancel()  # the writer thread finishes the put; nobody waits for it
                raise
            if put is not None:
                try:
                    source_ref = (await put).source_ref
                except Exception as exc:  # a store failure is this page's error, not the crawl's
                    if disk_full(exc):
                        self._output_failed(exc)
                        raise _NoRoom from exc
                    return store_failed(item, fetched, f"{type(exc).__name__}: {exc}")
            views = await self._agent_views(item, seed, fetched, source_ref)
        finally:
            self.storing -= 1
            self.frontier.partition(item.host).in_flight += 1  # released again in _page
            self._wake.set()
        record = finished_record(item, fetched, work, source_ref, kept)
        if views is not None:
            self.agent_views.add(views)  # type: ignore[union-attr]  # set with views
            record = dataclasses.replace(record, agent_views=views)
        return record

    async def _agent_views(self, item: FrontierItem, seed: Seed | None, fetched: Fetched,
                           source_ref: str | None) -> tuple[dict[str, Any], ...] | None:
        """The page's agent views when the crawl asks for them (``crawl._agentviews``)."""
        snap = fetched.snapshot
        if self.agent_views is None or snap is None or fetched.error is not None \
                or not hasattr(self.fetcher, "agent_views"):
            return None
        return await page_views(self.fetcher, item, seed, snap,  # type: ignore[arg-type]
                                source_ref, writer=self.writer, pool=self.pool)

    def _admit_links(self, item: FrontierItem, work: PageWork) -> None:
        links = work.links
        if len(links) > MAX_LINKS_PER_PAGE:  # the bound the ledger counts on
            self.summary.refuse((("too-many-links", len(links) - MAX_LINKS_PER_PAGE),))
            links = links[:MAX_LINKS_PER_PAGE]
        for index, (url, host) in enumerate(links):
            self.admit(url, host, item.depth + 1, item.url, "link", path=(*item.path, index))
        self.summary.refuse(work.refused)


KEPT_PAGES = 10_000
"""Records a crawl into a directory keeps in memory at most (11 MB); past them its
``CrawlManifest.pages`` reads its ``pages.jsonl``."""


def _charged(record: PageRecord) -> bool:
    """Whether a record used a page of the budget (robots.txt denials were never requested)."""
    return record.error is None or record.error.kind != "robots-denied"
