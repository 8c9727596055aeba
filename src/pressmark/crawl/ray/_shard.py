"""One shard of a distributed crawl: the in-process engine over one host partition.

:class:`ShardEngine` runs the crawler's :class:`~pressmark.crawl.executor.Engine` loop
as it is, with its seams filled in for a shard: it owns only some hosts (URLs on other
hosts are handed to their owner after the cheap depth and scope checks; the owner runs
every other admission rule), and what it may release comes from the driver: the
:class:`~pressmark.crawl.executor.Limits` the driver computes over the whole crawl (its
ledger is built from every shard's journal and ``pages.jsonl``), so a sharded crawl
fetches exactly the page set of the in-process one, and with no barrier between depths
either. The crawl is over when the driver says so. :class:`ShardRuntime` builds a shard
from the crawl directory (restoring whatever an earlier incarnation recorded) and is what
a Ray actor wraps. No Ray import here: the same code runs under
:class:`~pressmark.crawl.ray.LocalEngine`.

Every request to a host is paced by the shard that owns it: a sitemap document on a
host another shard owns is fetched by that shard (:meth:`ShardEngine.fetch_document`),
and a redirect hop to another host waits, before it is sent, for a start time that the
hop host's owner reserves in its fetch-layer ``Pacer`` (the engine's ``pace``, the
same one the in-process crawl uses for its own hops). The reservation holds no slot
while the hop runs (so pages redirecting to each other's hosts cannot deadlock): hops are
spaced from every other request's start, but not counted in the owner's per-host
concurrency. Each shard runs
with its share of the crawl-wide ``politeness.concurrency``
(:func:`~pressmark.crawl.ray._sharding.concurrency_share`).

Order of durable writes per page (so a SIGKILL anywhere loses nothing, and the driver,
reading ``pages.jsonl`` before the journals, never sees a page finished without the
links it found): the URL goes to ``started.log``; after the fetch, links owned here are
journaled and links owned elsewhere are acknowledged by their owner (which journals them
first); only then is the page appended to ``pages.jsonl``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pressmark.crawl import CrawlPolicy, PageRecord, Seed
from pressmark.crawl.executor import (
    Engine,
    FrontierItem,
    Limits,
    LiveFetcher,
    NullProgress,
    PageFailure,
    PageFetcher,
    ReplayFetcher,
    ResumeJournal,
    StoreWriter,
    Via,
    canonical_parts,
    crawl_stores,
    hostname_of,
    make_pool,
    own_store,
    worker_store_spec,
)
from pressmark.crawl.ray._files import (
    SharedOutputDir,
    StartedLog,
    read_records,
    shard_dir,
)
from pressmark.crawl.ray._sharding import (
    DocumentResult,
    RemoteDocumentError,
    RoutedLink,
    ShardStatus,
    concurrency_share,
    shard_of,
)

if TYPE_CHECKING:
    from pressmark.egress import Resolver
    from pressmark.render import Renderer
    from pressmark.store import SnapshotStore

MAX_ATTEMPTS = 2
"""A page started this many times without a record (its shard died each time) is recorded
as ``worker-lost`` instead of being tried again: in-flight pages are retried once."""


class Cluster(Protocol):
    """What a shard needs from the rest of the crawl (a Ray or an in-process transport)."""

    async def route(self, shard: int, links: list[RoutedLink]) -> None: ...

    async def fetch_document(self, shard: int, url: str) -> DocumentResult: ...

    async def pace(self, shard: int, url: str) -> None: ...


class DriverLimits:
    """What the driver last allowed this shard to release, and whether the crawl is over."""

    def __init__(self) -> None:
        self.limits = Limits()
        self.version = 0
        self.over = False
        self.changed = asyncio.Event()

    def update(self, version: int, limits: Limits, *, over: bool) -> None:
        if version > self.version:
            self.version, self.limits = version, limits
        self.over = self.over or over
        self.changed.set()


class ShardEngine(Engine):
    """The crawl :class:`~pressmark.crawl.executor.Engine` over the hosts one shard owns:
    links to other hosts go to their owner, sitemap documents and redirect hops on other
    hosts are fetched or paced by their owner, and what is released, and when the crawl
    is over, the driver says (:class:`DriverLimits`)."""

    def __init__(self, *, index: int, shards: int, cluster: Cluster, started: StartedLog,
                 **engine_options: Any) -> None:
        super().__init__(**engine_options)
        self.index = index
        self.shards = shards
        self.cluster = cluster
        self.started = started
        self.driver = DriverLimits()
        self._unapplied = False
        """Limits or links arrived that the dispatcher has not released from yet."""
        self._outbox: dict[int, list[RoutedLink]] = {}
        self._sends: set[asyncio.Future[None]] = set()
        """Batches of foreign links on their way to their owners, not acknowledged yet."""

    def owns(self, host: str) -> bool:
        return shard_of(host, self.shards) == self.index

    # -- what the driver allows --------------------------------------------------------------

    def current_limits(self, *, urgent: bool) -> Limits:
        self._unapplied = False  # the caller releases what they allow, now
        return self.driver.limits

    def limits_retry_at(self) -> float | None:
        return None  # the driver's limits arrive by themselves

    def allow(self, version: int, limits: Limits, *, over: bool) -> None:
        self.driver.update(version, limits, over=over)
        self._unapplied = True
        self._signal()

    async def crawl_over(self) -> bool:
        """Idle here: over when the driver says so; until then, wait for new limits."""
        if self.driver.over:
            return True
        self.driver.changed.clear()
        stopped = asyncio.ensure_future(self.stop.wait())
        changed = asyncio.ensure_future(self.driver.changed.wait())
        woken = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait((stopped, changed, woken), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in (stopped, changed, woken):
                waiter.cancel()
        return self.driver.over

    # -- requests to hosts another shard owns ------------------------------------------------

    async def fetch_document(self, url: str) -> bytes:
        """A sitemap document: fetched here if this shard owns its host, else by the owner
        (through the owner's fetcher, so the owner's per-host politeness paces it)."""
        host = hostname_of(url)
        owner = shard_of(host, self.shards) if host else self.index
        if owner == self.index:
            return await self.fetcher.fetch_document(url)
        result = await self.cluster.fetch_document(owner, url)
        if result.data is None:
            raise RemoteDocumentError(result.reason, result.message)
        return result.data

    async def serve_document(self, url: str) -> DocumentResult:
        """Fetch a sitemap document on an owned host for another shard."""
        try:
            data = await self.fetcher.fetch_document(url)
        except Exception as exc:  # reported by the asking shard, as its own fetch would be
            reason = str(getattr(exc, "code", None) or type(exc).__name__)
            return DocumentResult(data=None, reason=reason, message=str(exc))
        return DocumentResult(data=data)

    async def before_hop(self, url: str) -> None:
        """A redirect hop of one of this shard's requests is about to go to ``url``: wait
        for a start time from the shard that owns its host (this one, or a peer)."""
        host = hostname_of(url)
        if not host:
            return
        owner = shard_of(host, self.shards)
        if owner == self.index:
            await self.pace(url)
        else:
            await self.cluster.pace(owner, url)

    # -- admission and routing ---------------------------------------------------------------

    def admit(self, url: str, host: str, depth: int, parent: str | None, via: Via, *,
              seed_index: int | None = None, path: tuple[int, ...] = ()) -> bool:
        owner = shard_of(host, self.shards)
        if owner == self.index:
            return super().admit(url, host, depth, parent, via, seed_index=seed_index,
                                 path=path)
        if via != "seed":
            if self.policy.max_depth is not None and depth > self.policy.max_depth:
                return False
            if not self.scope.allows(url, host):
                return False
        self._outbox.setdefault(owner, []).append(RoutedLink(
            url=url, host=host, depth=depth, parent_url=parent, via=via, seed_index=seed_index,
            path=path))
        return True

    async def flush_outbox(self) -> None:
        """Hand every pending foreign link to its owner and wait for the acknowledgements:
        of the batch taken here, and of every batch already on its way, since one of those
        may carry the caller's links. (A page's links wait in the outbox while the page
        awaits its store put; another page's flush can take them then. Returning before
        that batch was acknowledged let the page's record reach ``pages.jsonl`` before its
        links reached their owner's journal: the driver saw the page finished with fewer
        children than it has, and under ``max_pages`` released pages ranked after the
        missing ones.)"""
        if self._outbox:
            box, self._outbox = self._outbox, {}
            batch = asyncio.ensure_future(self._send(box))
            self._sends.add(batch)
            batch.add_done_callback(self._sent)
        pending = set(self._sends)
        if pending:
            await asyncio.wait(pending)  # not gather: a cancelled page cancels no one's batch
            for sent in pending:
                sent.result()  # a batch that failed fails every page it may carry

    async def _send(self, box: dict[int, list[RoutedLink]]) -> None:
        await asyncio.gather(*(self.cluster.route(k, v) for k, v in sorted(box.items())))

    def _sent(self, send: asyncio.Future[None]) -> None:
        self._sends.discard(send)
        if not send.cancelled():
            send.exception()  # retrieved: the pages that waited on it report it

    def accept(self, links: Sequence[RoutedLink]) -> None:
        """Links another shard found; journaled before the sender's call returns."""
        for link in links:
            via: Via = "seed" if link.via == "seed" else "sitemap" if link.via == "sitemap" \
                else "link"
            Engine.admit(self, link.url, link.host, link.depth, link.parent_url, via,
                         seed_index=link.seed_index, path=tuple(link.path))
        if self.journal is not None:
            self.journal.flush()
        self._unapplied = True
        self._signal()

    # -- per page ----------------------------------------------------------------------------

    async def _fetch_and_process(self, item: FrontierItem) -> PageRecord:
        self.started.record(item.url)
        record = await super()._fetch_and_process(item)
        await self.flush_outbox()
        if self.journal is not None:  # pages.jsonl is appended at once: links go first
            self.journal.flush()
        return record

    def status(self, *, restarts: int = 0, finished: bool = False) -> ShardStatus:
        sitemap_busy = self._sitemap_task is not None and not self._sitemap_task.done()
        return ShardStatus(
            index=self.index, finished=finished, quiet=self.quiet() and not self._unapplied,
            reading=sitemap_busy,
            limits_version=self.driver.version,
            activity=self.activity, queued=self.frontier.queued, in_flight=self.in_flight,
            done=self.summary.pages, rendered=self.summary.rendered,
            failed=self.summary.failed, restarts=restarts, waits=self.progress_waits())


@dataclass(frozen=True, slots=True, kw_only=True)
class ShardConfig:
    """Everything a shard is built from; picklable (it is an actor's constructor argument,
    re-used as is when Ray restarts the actor)."""

    index: int
    shards: int
    seeds: tuple[tuple[Seed, str, str], ...]
    policy: CrawlPolicy
    out_root: str
    store_root: str | None = None
    resolver: Resolver | None = None


class ShardRuntime:
    """A shard's life: build from the crawl directory, run, report, finish."""

    def __init__(self, config: ShardConfig, cluster: Cluster, *,
                 renderer_factory: Callable[[], Renderer | None] | None = None,
                 fetcher: PageFetcher | None = None, restarts: int = 0) -> None:
        self.config = config
        self.cluster = cluster
        self.renderer_factory = renderer_factory
        self.restarts = restarts
        self.engine: ShardEngine | None = None
        self._fetcher = fetcher
        self._own_fetcher = fetcher is None
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._out: SharedOutputDir | None = None
        self._journal: ResumeJournal | None = None
        self._started: StartedLog | None = None
        self._closed = False
        self._writer: StoreWriter | None = None
        self._target: SnapshotStore | None = None

    async def ensure_started(self) -> ShardEngine:
        async with self._lock:
            if self.engine is None:
                self.engine = await self._build()
                self._task = asyncio.create_task(self.engine.run())
            return self.engine

    async def _build(self) -> ShardEngine:
        cfg = self.config
        pol = cfg.policy.politeness
        # politeness.concurrency is crawl-wide: each shard gets its share of it.
        policy = replace(cfg.policy, politeness=replace(
            pol, concurrency=concurrency_share(pol.concurrency, cfg.shards, cfg.index)))
        out = SharedOutputDir(Path(cfg.out_root))
        state = shard_dir(out.state_dir, cfg.index)
        state.mkdir(parents=True, exist_ok=True)
        journal = ResumeJournal(state)
        items = journal.load()
        started = StartedLog(state / "started.log")
        attempts = started.counts()
        done = [r for r in read_records(out.pages_path) if self._owns_url(r.url)]
        done_urls = {r.url for r in done}
        out.open_pages()
        journal.open()
        started.open()
        self._out, self._journal, self._started = out, journal, started
        lost: list[PageRecord] = []
        for item in items:
            if item.url not in done_urls and attempts.get(item.url, 0) >= MAX_ATTEMPTS:
                done_urls.add(item.url)
                record = PageRecord(
                    url=item.url, final_url=None, depth=item.depth, status=None, outcome="error",
                    error=PageFailure(kind="worker-lost", message=(
                        f"the shard fetching this page died {MAX_ATTEMPTS} times")))
                out.append_page(record)
                lost.append(record)
        stop = asyncio.Event()
        # A recrawl's earlier records of this shard's hosts: each page's ``change``
        # (the driver counts them, and the earlier pages no shard reached).
        previous = [r for r in out.read_previous() if self._owns_url(r.url)] \
            if policy.mode == "live" else []
        fetcher, target = await self._fetcher_for(policy, out, recrawl=bool(previous))
        self._writer = StoreWriter(target) if target is not None else None
        self._target = target
        pool = make_pool(policy) if policy.workers else None
        engine = ShardEngine(
            index=cfg.index, shards=cfg.shards, cluster=self.cluster, started=started,
            policy=policy, seeds=list(cfg.seeds), fetcher=fetcher, out=out, journal=journal,
            progress=NullProgress(), pool=pool, stop=stop, writer=self._writer,
            store_spec=worker_store_spec(target), previous=previous,
        )
        engine.restore(items, done + lost)
        return engine

    def _owns_url(self, url: str) -> bool:
        parts = canonical_parts(url)
        return parts is not None and shard_of(parts.host, self.config.shards) == self.config.index

    async def _fetcher_for(self, policy: CrawlPolicy, out: SharedOutputDir, *, recrawl: bool,
                           ) -> tuple[PageFetcher, SnapshotStore | None]:
        """The fetcher and the store snapshots are put into, wired as ``crawl()`` does.

        A recrawl (or a crawl into a store the caller named) sends the validators of each
        URL's latest capture, read from the whole store: the driver merged every shard's
        index into it when the earlier crawl ended, whichever shard fetched the page then."""
        if self._fetcher is not None:
            return self._fetcher, None
        if self.config.store_root is not None:
            from pressmark.store import open_store  # noqa: PLC0415  # loaded on first use

            given = open_store(self.config.store_root, durability=policy.store_durability)
            policy = replace(policy, store=given)
        if policy.mode == "replay":
            source, target = crawl_stores(policy, out, shard=self.config.index)
            self._fetcher = ReplayFetcher(source, robots=policy.robots,
                                          user_agent=policy.user_agent)
            return self._fetcher, target
        target, _ = crawl_stores(policy, out, shard=self.config.index)
        renderer: Renderer | None = None
        wants_browser = policy.render != "never" or any(s.render for s, _, _ in self.config.seeds)
        if wants_browser:
            renderer = self.renderer_factory() if self.renderer_factory is not None else None
            from pressmark.render import LazyRenderer  # noqa: PLC0415  # no browser import

            renderer = renderer or LazyRenderer(policy.egress, self.config.resolver)
        validators = policy.store if policy.store is not None else \
            own_store(policy, out) if recrawl else None
        live = LiveFetcher(policy, resolver=self.config.resolver, renderer=renderer,
                           validators=validators)
        self._fetcher = await live.__aenter__()
        return self._fetcher, target

    async def status(self) -> ShardStatus:
        engine = await self.ensure_started()
        if self._task is not None and self._task.done() and not self._task.cancelled():
            exc = self._task.exception()
            if exc is not None:
                raise exc
        return engine.status(restarts=self.restarts,
                             finished=self._task is not None and self._task.done())

    async def allow(self, version: int, limits: Limits, over: bool) -> None:
        """The driver's limits (and, at the end, that the crawl is over)."""
        engine = await self.ensure_started()
        engine.allow(version, limits, over=over)

    async def accept(self, links: list[RoutedLink]) -> None:
        engine = await self.ensure_started()
        engine.accept(links)

    async def serve_document(self, url: str) -> DocumentResult:
        engine = await self.ensure_started()
        return await engine.serve_document(url)

    async def pace(self, url: str) -> None:
        engine = await self.ensure_started()
        await engine.pace(url)

    def stop(self) -> None:
        if self.engine is not None:
            self.engine.stop.set()

    async def finish(self) -> dict[str, Any]:
        """Wait for the loop to end (the last level is done, or the driver asked to stop)
        and close."""
        engine = await self.ensure_started()
        try:
            if self._task is not None:
                await self._task
            fetcher, target = self._fetcher, self._target
            if target is not None and isinstance(fetcher, LiveFetcher | ReplayFetcher):
                # the robots.txt files this shard judged by, for replay (as a local crawl)
                await asyncio.to_thread(fetcher.store_robots, target)
        finally:
            await self.aclose()
        return {"index": self.config.index, "stop_reason": engine.stop_reason,
                "sitemap": engine.sitemap.to_dict(), "restarts": self.restarts}

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        engine = self.engine
        try:
            if engine is not None and engine.pool is not None:
                engine.pool.shutdown(wait=True, cancel_futures=True)
            if self._own_fetcher and self._fetcher is not None:
                await self._fetcher.aclose()
        finally:
            for closable in (self._journal, self._out, self._started, self._writer):
                if closable is not None:
                    closable.close()
            checkpoint = getattr(self._target, "checkpoint", None)
            if checkpoint is not None:  # the driver reads this shard's index next
                checkpoint()
