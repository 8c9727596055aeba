"""The driver side of a sharded crawl: prepare the directory, start the shards, poll them,
keep the crawl's :class:`~pressmark.crawl.executor.Ledger` (built from the directory:
``pages.jsonl`` and every shard's journal, read in that order, so a page is never seen
finished without the links it found), send every shard the limits it computes (what is
certain, with no barrier between depths), end the crawl when every shard is quiet and
nothing more is certain, merge the manifest.

The coordination is transport-agnostic (:class:`ShardHandle`): :class:`LocalEngine` runs
the shards as tasks in this process (tests, and a debugging aid), ``RayEngine`` as Ray
actors. Both produce the in-process crawler's output directory and manifest.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from pressmark.crawl import CrawlError, CrawlManifest, CrawlPolicy, PageRecord
from pressmark.crawl.executor import (
    KEPT_PAGES,
    TICK_S,
    AgentViewReport,
    Changes,
    CrawlSummary,
    Ledger,
    Limits,
    NullProgress,
    OutputDir,
    PageFile,
    Progress,
    ResumeJournal,
    SeedLike,
    normalise_seeds,
    own_store,
)
from pressmark.crawl.ray._files import JournalTail, is_charged, partition_state, shard_dir
from pressmark.crawl.ray._shard import ShardConfig, ShardRuntime
from pressmark.crawl.ray._sharding import DocumentResult, RoutedLink, ShardStatus

if TYPE_CHECKING:
    from pressmark.crawl.executor import PageFetcher
    from pressmark.egress import Resolver


class ShardHandle(Protocol):
    async def status(self) -> ShardStatus: ...

    async def allow(self, version: int, limits: Limits, over: bool) -> None: ...

    async def finish(self) -> dict[str, Any]: ...

    async def stop(self) -> None: ...


class ShardLost(CrawlError):
    """A shard died more often than it may be restarted; the crawl stops (resumable)."""

    code = "shard-lost"


def _utc_now() -> str:
    from pressmark.snapshot._time import utc_now_iso  # noqa: PLC0415  # loaded on first use

    return utc_now_iso()


class _PagesTail:
    """Reads ``pages.jsonl`` as shards append to it: complete lines only, from an offset."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def read(self) -> list[PageRecord]:
        if not self.path.exists():
            return []
        with self.path.open("rb") as fh:
            fh.seek(self.offset)
            data = fh.read()
        end = data.rfind(b"\n") + 1
        self.offset += end
        return [PageRecord.from_dict(json.loads(line)) for line in data[:end].splitlines()
                if line.strip()]


class _FrontierView:
    def __init__(self) -> None:
        self.queued = 0


class ClusterView:
    """What progress displays read (the engine's shape, summed over shards)."""

    def __init__(self, max_pages: int) -> None:
        self.max_pages = max_pages
        self.summary = CrawlSummary()
        self.frontier = _FrontierView()
        self.in_flight = 0
        self.shards: list[ShardStatus] = []

    def update(self, statuses: list[ShardStatus]) -> None:
        self.shards = statuses
        self.frontier.queued = sum(s.queued for s in statuses)
        self.in_flight = sum(s.in_flight for s in statuses)

    def progress_waits(self) -> tuple[tuple[str, float, bool], ...]:
        """The pages every shard waits on, longest first (see ``Engine.progress_waits``)."""
        waits = [w for s in self.shards for w in s.waits]
        return tuple(sorted(waits, key=lambda w: (-w[1], w[0])))


@dataclass(frozen=True, slots=True, kw_only=True)
class Prepared:
    out: OutputDir
    temporary: tempfile.TemporaryDirectory[str] | None
    seeds: tuple[Any, ...]
    policy: CrawlPolicy
    shipped_policy: CrawlPolicy
    store_root: str | None
    started_at: str
    prior_s: float


def prepare(seeds: SeedLike | Sequence[SeedLike], policy: CrawlPolicy | None, *,
            out_dir: str | Path | None, resume: bool, shards: int) -> Prepared:
    """Validate, lay out the crawl directory and re-partition resume state for ``shards``."""
    policy = policy or CrawlPolicy()
    policy.validate()
    if shards < 1:
        raise CrawlError("shards must be >= 1")
    seed_list = normalise_seeds(seeds, policy)
    if resume and out_dir is None:
        raise CrawlError("resume needs the output directory of the interrupted crawl")
    store_root: str | None = None
    if policy.store is not None:
        root = getattr(policy.store, "root", None)
        if root is None:
            raise CrawlError("a sharded crawl needs a SegmentStore or FilesystemSnapshotStore on"
                             " a shared path (policy.store), or none (the output directory's)")
        store_root = str(root)
    if policy.mode == "replay" and store_root is None and out_dir is None:
        raise CrawlError("replay needs a store (policy.store) or an output directory with one")
    temporary = None
    if out_dir is None:
        temporary = tempfile.TemporaryDirectory(prefix="pressmark-crawl-")
        out_dir = temporary.name
    out = OutputDir(Path(out_dir))
    out.prepare(resume=resume, output=policy.output)
    own_store(policy, out)  # created once here, in its format, before any shard opens it
    identity = {"seeds": [url for _, url, _ in seed_list], "policy": policy.describe()}
    ResumeJournal(out.state_dir).check_or_write_identity(identity, resume=resume)
    started_at, prior_s = _utc_now(), 0.0
    if resume:
        out.read_pages()  # cuts a torn last line before any shard appends after it
        if out.manifest_path.exists():
            try:
                data = json.loads(out.manifest_path.read_text(encoding="utf-8"))
                started_at, prior_s = str(data["started_at"]), float(data["summary"]["duration_s"])
            except (ValueError, KeyError, TypeError):
                pass
    partition_state(out.state_dir, shards)
    return Prepared(out=out, temporary=temporary, seeds=tuple(seed_list), policy=policy,
                    shipped_policy=replace(policy, store=None), store_root=store_root,
                    started_at=started_at, prior_s=prior_s)


class _Tally:
    """The driver's ledger, fed from the crawl directory: ``pages.jsonl`` first, then the
    shards' journals (a page's links are journaled before its record is written)."""

    def __init__(self, prep: Prepared, shards: int) -> None:
        policy = prep.policy
        self.ledger = Ledger(max_pages=policy.effective_max_pages(),
                             scored=policy.should_follow is not None)
        self.pages = _PagesTail(prep.out.pages_path)
        self.journals = [JournalTail(shard_dir(prep.out.state_dir, k)) for k in range(shards)]

    def read(self) -> list[PageRecord]:
        """New records (and the offers that came before them), applied to the ledger."""
        records = self.pages.read()
        for journal in self.journals:
            for item in journal.read():
                self.ledger.offer(item)
        for record in records:
            if not self.ledger.known(record.url):  # not journaled: a lost page's line
                self.ledger.restore((), [(record.url, record.depth, is_charged(record))])
            else:
                self.ledger.finish(record.url, charged=is_charged(record))
        return records


class _Records:
    """The crawl's records as the manifest hands them back: the first :data:`KEPT_PAGES`
    in memory; past them (a crawl into a directory the caller keeps) none, and the
    manifest's ``pages`` is the directory's ``pages.jsonl`` read when asked, as an
    in-process crawl's (a record is a kilobyte; the driver must not grow with the crawl)."""

    def __init__(self, prep: Prepared) -> None:
        self.path = None if prep.temporary is not None else prep.out.pages_path
        self.kept: list[PageRecord] = []
        self.spilled = False

    def append(self, record: PageRecord) -> None:
        if self.spilled:
            return
        self.kept.append(record)
        if self.path is not None and len(self.kept) > KEPT_PAGES:
            self.kept, self.spilled = [], True

    def pages(self) -> Sequence[PageRecord]:
        """What ``CrawlManifest.pages`` holds (the file as it is now, every shard done)."""
        if self.spilled and self.path is not None:
            return PageFile(self.path)
        return tuple(self.kept)


async def coordinate(
    prep: Prepared, handles: Sequence[ShardHandle], *,
    progress: Progress, stop: asyncio.Event, poll_s: float = 0.05,
) -> CrawlManifest:
    """Poll the shards, send them what is certain, until the crawl is over (or stopped);
    merge the manifest."""
    policy = prep.policy
    view = ClusterView(policy.effective_max_pages())
    tally = _Tally(prep, len(handles))
    pages = _Records(prep)
    for record in tally.read():  # an earlier run's pages (resume)
        view.summary.add(record)
        pages.append(record)
    progress.start(cast(Any, view))
    deadline = (time.monotonic() + policy.time_budget_s
                if policy.time_budget_s is not None else None)
    t0 = time.monotonic()
    stop_reason: str | None = None
    interrupted = False
    failure: str | None = None
    results: list[dict[str, Any]] = []
    version, sent = 0, Limits()
    over = False
    ticked = time.monotonic()
    try:
        while True:
            statuses = list(await asyncio.gather(*(h.status() for h in handles)))
            view.update(statuses)
            fresh = tally.read()  # after the statuses: all they say is on disk
            for record in fresh:
                view.summary.add(record)
                pages.append(record)
                progress.page(record, cast(Any, view))
            if time.monotonic() - ticked >= TICK_S and hasattr(progress, "tick"):
                ticked = time.monotonic()
                progress.tick(cast(Any, view))
            if stop.is_set():
                stop_reason = "interrupted"
                break
            if deadline is not None and time.monotonic() >= deadline:
                stop_reason = "time-budget"
                break
            if all(s.finished for s in statuses):
                break
            tally.ledger.discovering(0 if any(s.reading for s in statuses) else None)
            current = [s for s in statuses if not s.finished]
            quiet = all(s.quiet and s.limits_version == version for s in current)
            limits = tally.ledger.limits(urgent=quiet)
            if limits != sent:
                version, sent = version + 1, limits
            elif quiet and not fresh and not over:
                over = True  # every shard idle with these limits, and they release nothing
                if tally.ledger.waiting:
                    stop_reason = "max-pages"
            behind = [h for h, s in zip(handles, statuses, strict=True)
                      if not s.finished and (s.limits_version != version or over)]
            if behind:
                await asyncio.gather(*(h.allow(version, sent, over) for h in behind))
                if not over:
                    continue
            await asyncio.sleep(poll_s)
        if stop_reason in ("interrupted", "time-budget"):
            await asyncio.gather(*(h.stop() for h in handles))
        results = list(await asyncio.gather(*(h.finish() for h in handles)))
    except BaseException as exc:  # Ctrl-C, cancellation, or a shard lost for good
        interrupted = True
        failure = None if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt) \
            else "failed"
        await asyncio.gather(*(h.stop() for h in handles), return_exceptions=True)
        raise
    finally:
        for record in tally.read():
            view.summary.add(record)
            pages.append(record)
        if interrupted:
            stop_reason = failure or "interrupted"
        duration = prep.prior_s + (time.monotonic() - t0)
        # The shards marked each record's change; the counts and the earlier pages no
        # shard requested are the whole crawl's, so they are taken here.
        changes = Changes(prep.out.read_previous() if policy.mode == "live" else ())
        records = pages.pages()
        if changes.active:  # a recrawl (a first crawl's records have no change to count)
            changes.seen(records)
        # Each shard requested its hosts' agent views (llms.txt once per origin: an origin
        # has one owner); the counts are the whole crawl's.
        views = AgentViewReport() if policy.agent_views else None
        if views is not None:
            for record in records:
                if record.agent_views:
                    views.add(record.agent_views)
        manifest = CrawlManifest(
            started_at=prep.started_at, finished_at=_utc_now(),
            seeds=tuple(url for _, url, _ in prep.seeds), policy=policy.describe(),
            summary=view.summary.to_dict(duration), sitemap=_merge_sitemaps(results),
            complete=not interrupted and stop_reason not in ("interrupted", "time-budget"),
            pages=records, stop_reason=stop_reason, changes=changes.report(),
            agent_views=None if views is None else views.report(),
        )
        merge_shard_stores(prep, len(handles))
        prep.out.write_manifest(manifest.to_dict())
        progress.finish(manifest)
    return manifest


def merge_shard_stores(prep: Prepared, shards: int) -> None:
    """Fold each shard's own segment store into the store it belongs to (idempotent: a
    resumed or interrupted crawl merges what was committed, again harmlessly)."""
    from pressmark.store import SegmentStore, store_format  # noqa: PLC0415  # on first use

    roots = {prep.out.store_dir.resolve()}
    if prep.store_root is not None:
        roots.add(Path(prep.store_root).resolve())
    for root in sorted(roots):
        if store_format(root) != "segments":
            continue
        with SegmentStore(root, create=False) as store:
            for index in range(shards):
                store.merge_shard(index)


def _merge_sitemaps(results: list[dict[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {"documents_read": 0, "urls_discovered": 0,
                              "extension_locs_ignored": 0, "errors": []}
    for result in sorted(results, key=lambda r: int(r.get("index", 0))):
        report = result.get("sitemap") or {}
        merged["documents_read"] += int(report.get("documents_read", 0))
        merged["urls_discovered"] += int(report.get("urls_discovered", 0))
        merged["extension_locs_ignored"] += int(report.get("extension_locs_ignored", 0))
        merged["errors"].extend(report.get("errors", []))
    return merged


# -- in-process transport ------------------------------------------------------------------


class _LocalCluster:
    def __init__(self) -> None:
        self.runtimes: list[ShardRuntime] = []
        self.routed = 0
        self.documents = 0
        self.paced = 0

    async def route(self, shard: int, links: list[RoutedLink]) -> None:
        self.routed += len(links)
        await self.runtimes[shard].accept(links)

    async def fetch_document(self, shard: int, url: str) -> DocumentResult:
        self.documents += 1
        return await self.runtimes[shard].serve_document(url)

    async def pace(self, shard: int, url: str) -> None:
        self.paced += 1
        await self.runtimes[shard].pace(url)


class _LocalHandle:
    def __init__(self, runtime: ShardRuntime) -> None:
        self.runtime = runtime

    async def status(self) -> ShardStatus:
        return await self.runtime.status()

    async def allow(self, version: int, limits: Limits, over: bool) -> None:
        await self.runtime.allow(version, limits, over)

    async def finish(self) -> dict[str, Any]:
        return await self.runtime.finish()

    async def stop(self) -> None:
        self.runtime.stop()


@dataclass(frozen=True, slots=True, kw_only=True)
class LocalEngine:
    """The sharded crawl with every shard in this process: same routing, levels, files
    and termination as on Ray, without Ray. ``fetchers`` (one per shard) replaces the
    acquisition seam in tests."""

    shards: int = 2
    poll_s: float = 0.02

    async def run(
        self, seeds: SeedLike | Sequence[SeedLike], policy: CrawlPolicy | None = None, *,
        out_dir: str | Path | None = None, resume: bool = False,
        resolver: Resolver | None = None, progress: Progress | None = None,
        stop: asyncio.Event | None = None, fetchers: Sequence[PageFetcher] | None = None,
    ) -> CrawlManifest:
        prep = prepare(seeds, policy, out_dir=out_dir, resume=resume, shards=self.shards)
        cluster = _LocalCluster()
        for index in range(self.shards):
            config = ShardConfig(index=index, shards=self.shards, seeds=prep.seeds,
                                 policy=prep.shipped_policy, out_root=str(prep.out.root),
                                 store_root=prep.store_root, resolver=resolver)
            cluster.runtimes.append(ShardRuntime(
                config, cluster, fetcher=None if fetchers is None else fetchers[index]))
        handles = [_LocalHandle(r) for r in cluster.runtimes]
        try:
            return await coordinate(prep, handles,
                                    progress=progress or NullProgress(),
                                    stop=stop or asyncio.Event(), poll_s=self.poll_s)
        finally:
            for runtime in cluster.runtimes:
                await runtime.aclose()
            if prep.temporary is not None:
                prep.temporary.cleanup()
