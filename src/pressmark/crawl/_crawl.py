"""``crawl()``: wire policy, output directory, resume state, fetcher and engine together.

Only invalid configuration raises (:class:`CrawlError`); every page failure is
a record in the manifest. ``manifest.json`` is written at the end, also when
the crawl is interrupted (Ctrl-C, cancellation, time budget) or stops because its
output cannot be written (``stop_reason`` ``disk-full`` or ``output-error``: the
manifest then describes exactly the pages ``pages.jsonl`` holds). Only a manifest
that cannot be written either raises (:class:`CrawlError`, code ``output-error``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pressmark.crawl._canonical import canonical_parts
from pressmark.crawl._engine import OUTPUT_STOPS, Engine
from pressmark.crawl._fetcher import LiveFetcher, PageFetcher, ReplayFetcher
from pressmark.crawl._linkmemo import LinkMemo
from pressmark.crawl._manifest import CrawlManifest, PageRecord
from pressmark.crawl._output import OutputDir, PageFile
from pressmark.crawl._pagework import make_pool
from pressmark.crawl._policy import CrawlError, CrawlPolicy, Seed
from pressmark.crawl._process import StoreSpec
from pressmark.crawl._progress import NullProgress, Progress
from pressmark.crawl._resume import ResumeJournal
from pressmark.crawl._workers import OffLoopShellCheck, ParseWorkers
from pressmark.crawl._writer import StoreWriter

if TYPE_CHECKING:
    from rich.table import Table

    from pressmark.egress import Resolver
    from pressmark.render import Renderer
    from pressmark.store import SnapshotStore

SeedLike = Seed | str


class CrawlEngine(Protocol):
    """Runs a whole crawl somewhere else (e.g. ``pressmark.crawl.ray.RayEngine``).

    The in-process engine is the default; another engine gets the same seeds, policy
    and output directory and must produce the same manifest format.
    """

    async def run(self, seeds: SeedLike | Sequence[SeedLike], policy: CrawlPolicy | None = None,
                  *, out_dir: str | Path | None = None, resume: bool = False,
                  resolver: Resolver | None = None, progress: Progress | None = None,
                  stop: asyncio.Event | None = None) -> CrawlManifest: ...


def _utc_now() -> str:
    from pressmark.snapshot._time import utc_now_iso  # noqa: PLC0415  # loaded on first use

    return utc_now_iso()


def _render_slots(policy: CrawlPolicy, renderer: Renderer | None) -> int:
    """Pages the browser renders at once, which the engine lets be in flight on top of
    its request concurrency (0 when nothing is rendered)."""
    if renderer is None or policy.mode == "replay":
        return 0
    slots = getattr(renderer, "slots", None)
    if isinstance(slots, int):
        return slots
    from pressmark.render._options import machine_render_slots  # noqa: PLC0415  # no browser import

    return policy.render_concurrency or machine_render_slots()


def normalise_seeds(seeds: SeedLike | Sequence[SeedLike], policy: CrawlPolicy,
                    ) -> list[tuple[Seed, str, str]]:
    items = [seeds] if isinstance(seeds, str | Seed) else list(seeds)
    if not items:
        raise CrawlError("a crawl needs at least one seed URL")
    out: list[tuple[Seed, str, str]] = []
    for raw in items:
        seed = Seed(raw) if isinstance(raw, str) else raw
        parts = canonical_parts(seed.url, strip_tracking=policy.strip_tracking_params)
        if parts is None:
            raise CrawlError(f"seed is not an http(s) URL: {seed.url!r}")
        if seed.expected_heading is not None:
            try:
                re.compile(seed.expected_heading)
            except re.error as exc:
                raise CrawlError(f"seed expected_heading is not a valid regex: {exc}") from exc
        out.append((seed, parts.url, parts.host))
    return out


async def crawl(
    seeds: SeedLike | Sequence[SeedLike],
    policy: CrawlPolicy | None = None,
    *,
    out_dir: str | Path | None = None,
    resume: bool = False,
    renderer: Renderer | None = None,
    resolver: Resolver | None = None,
    progress: Progress | None = None,
    stop: asyncio.Event | None = None,
    fetcher: PageFetcher | None = None,
    engine: CrawlEngine | None = None,
) -> CrawlManifest:
    """Crawl from ``seeds`` under ``policy``; with ``out_dir``, write the crawl directory.

    ``stop`` ends the crawl gracefully when set (in-flight pages finish, the
    manifest says ``complete: false``). ``resume=True`` continues the crawl
    recorded in ``out_dir``. ``fetcher`` replaces the acquisition seam (tests, custom
    sources); by default live crawls go through ``fetch_source`` and replays read the store.
    ``engine`` runs the crawl elsewhere (``RayEngine`` shards it by host across a cluster).
    """
    called_at = time.monotonic()
    policy = policy or CrawlPolicy()
    policy.validate()
    if engine is not None:
        if fetcher is not None or renderer is not None:
            raise CrawlError("engine= cannot be combined with fetcher= or renderer=")
        return await engine.run(seeds, policy, out_dir=out_dir, resume=resume,
                                resolver=resolver, progress=progress, stop=stop)
    seed_list = normalise_seeds(seeds, policy)
    if resume and out_dir is None:
        raise CrawlError("resume needs the output directory of the interrupted crawl")
    if policy.mode == "replay" and policy.store is None and out_dir is None:
        raise CrawlError("replay needs a store (policy.store) or an output directory with one")
    out = OutputDir(Path(out_dir)) if out_dir is not None else None
    previous: list[PageRecord] = []
    if out is not None:
        in_place = policy.mode == "replay" and _same_store(policy.store, out.store_dir)
        previous = out.prepare(resume=resume, replace=in_place, output=policy.output)
    journal = ResumeJournal(out.state_dir) if out is not None else None
    identity = {"seeds": [url for _, url, _ in seed_list], "policy": policy.describe()}
    started_at = _utc_now()
    prior_s = 0.0
    restored: tuple[list[Any], list[Any]] | None = None
    if out is not None and journal is not None:
        journal.check_or_write_identity(identity, resume=resume)
        if resume:
            started_at, prior_s = _previous_run(out, started_at)
            restored = (journal.load(), out.read_pages())
        journal.open()
        out.open_pages()
        out.reserve(extra=len(json.dumps(identity)))
    stop = stop or asyncio.Event()
    progress = progress or NullProgress()
    target: SnapshotStore | None = None  # where fetched snapshots are put
    pool: ParseWorkers | None = None
    if fetcher is not None:
        pass
    elif policy.mode == "replay":
        source, target = crawl_stores(policy, out)
        fetcher = ReplayFetcher(source, robots=policy.robots, user_agent=policy.user_agent)
    else:
        target, _ = crawl_stores(policy, out)
        wants_browser = policy.render != "never" or any(s.render for s, _, _ in seed_list)
        if renderer is None and wants_browser:
            # Browser pages at once are sized for the machine (or --render-concurrency),
            # not by the crawl's request concurrency: a rendering page mostly waits.
            from pressmark.render import LazyRenderer  # noqa: PLC0415  # no browser import

            renderer = LazyRenderer(policy.egress, resolver,
                                    max_tabs=policy.render_concurrency)
        # Validators come from a store the caller passed, or from the directory's own
        # store when it holds an earlier crawl (a first crawl has nothing to revalidate).
        validators = target if policy.store is not None or previous or resume else None
        pool = make_pool(policy)
        live = LiveFetcher(policy, resolver=resolver, renderer=renderer, validators=validators,
                           shell_check=None if pool is None else OffLoopShellCheck(pool))
        fetcher = await live.__aenter__()
    # Puts wait on metadata I/O more than on the CPU, so several run at once.
    writer = (StoreWriter(target, threads=min(8, policy.politeness.concurrency))
              if target is not None else None)
    if pool is None:
        pool = make_pool(policy)
    links = None
    if out is not None and policy.mode == "live":
        links = LinkMemo(out.links_path)
        if previous or resume:
            links.load()
    runner = Engine(policy=policy, seeds=seed_list, fetcher=fetcher, out=out, journal=journal,
                    progress=progress, pool=pool, stop=stop, writer=writer,
                    previous=previous if policy.mode == "live" else (), started=called_at,
                    render_slots=_render_slots(policy, renderer), links=links)
    if restored is not None:
        runner.restore(*restored)
    t0 = time.monotonic()
    interrupted = False
    progress.start(runner)
    try:
        await runner.run()
        if target is not None and isinstance(fetcher, LiveFetcher | ReplayFetcher):
            await asyncio.to_thread(fetcher.store_robots, target)
    except (asyncio.CancelledError, KeyboardInterrupt):
        interrupted = True
        raise
    finally:
        duration = prior_s + (time.monotonic() - t0)
        complete = not interrupted and runner.stop_reason not in (
            "interrupted", "time-budget", *OUTPUT_STOPS)
        # A large crawl into a directory hands back its pages.jsonl, read when asked
        # (taken as it is once the last lines are written, below).
        page_file = PageFile(out.pages_path, seal=False) if out and runner.spilled else None
        manifest = CrawlManifest(
            started_at=started_at, finished_at=_utc_now(),
            seeds=tuple(url for _, url, _ in seed_list), policy=policy.describe(),
            summary=runner.summary.to_dict(duration), sitemap=runner.sitemap.to_dict(),
            complete=complete,
            pages=tuple(runner.pages) if page_file is None else page_file,
            stop_reason="interrupted" if interrupted else runner.stop_reason,
            changes=runner.changes.report(),
            agent_views=None if runner.agent_views is None else runner.agent_views.report(),
        )
        try:
            if out is not None:
                _write_manifest(out, manifest, runner.output_error)
        finally:
            if journal is not None:
                journal.close()
            if out is not None:
                out.close()
            if page_file is not None:
                page_file.seal()
            if links is not None:
                links.close()
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
            await fetcher.aclose()
            if writer is not None:
                writer.close()
            progress.finish(manifest)
    return manifest


def _write_manifest(out: OutputDir, manifest: CrawlManifest, failed: str | None) -> None:
    try:
        out.write_manifest(manifest.to_dict())
    except OSError as exc:
        out.release_reserve()
        why = f"; it stopped because {failed}" if failed else ""
        raise CrawlError(f"could not write {out.manifest_path} ({type(exc).__name__}: {exc})"
                         f"{why}", code="output-error") from exc


def crawl_stores(policy: CrawlPolicy, out: OutputDir | None, *, shard: int | None = None,
                 ) -> tuple[SnapshotStore, SnapshotStore | None]:
    """(the store pages are fetched into or replayed from, an extra store to copy them to).

    With ``shard`` (a Ray shard), a segment store written to is that shard's own
    (``SegmentStore.shard``): no lock is shared across machines; the driver merges the
    shards' indexes when the crawl ends.
    """
    own: SnapshotStore | None = None
    if out is not None:
        own = own_store(policy, out)

    def alone(store: SnapshotStore) -> SnapshotStore:
        from pressmark.store import SegmentStore  # noqa: PLC0415  # loaded on first use

        return store.shard(shard) if shard is not None and isinstance(store, SegmentStore) \
            else store

    if policy.store is not None:
        in_place = out is not None and _same_store(policy.store, out.store_dir)
        if policy.mode == "replay":
            return policy.store, (alone(own) if own is not None and not in_place else None)
        return alone(policy.store), None
    if own is not None:
        return (own if policy.mode == "replay" else alone(own)), None
    from pressmark.store import MemorySnapshotStore  # noqa: PLC0415  # loaded on first use

    return MemorySnapshotStore(), None


def own_store(policy: CrawlPolicy, out: OutputDir) -> SnapshotStore:
    """The output directory's store; an existing one (a recrawl, a resume) keeps its format."""
    from pressmark.store import open_store, store_format  # noqa: PLC0415  # on first use

    chosen = store_format(out.store_dir) or policy.store_format
    return open_store(out.store_dir, create=True, format=chosen,
                      durability=policy.store_durability)


def _same_store(store: SnapshotStore | None, root: Path) -> bool:
    where = getattr(store, "root", None)
    return where is not None and Path(where).resolve() == root.resolve()


def worker_store_spec(store: SnapshotStore | None) -> StoreSpec | None:
    """How a worker process can open ``store`` itself (filesystem stores only)."""
    from pressmark.store import FilesystemSnapshotStore  # noqa: PLC0415  # loaded on first use

    if not isinstance(store, FilesystemSnapshotStore):
        return None
    return StoreSpec(root=str(store.root), durability="fsync" if store.fsync else "flush")


def _previous_run(out: OutputDir, default_start: str) -> tuple[str, float]:
    if not out.manifest_path.exists():
        return default_start, 0.0
    try:
        data = json.loads(out.manifest_path.read_text(encoding="utf-8"))
        return str(data["started_at"]), float(data["summary"]["duration_s"])
    except (ValueError, KeyError, TypeError):
        return default_start, 0.0


def crawl_sync(
    seeds: SeedLike | Sequence[SeedLike],
    policy: CrawlPolicy | None = None,
    *,
    handle_sigint: bool = False,
    **kwargs: Any,
) -> CrawlManifest:
    """``asyncio.run(crawl(...))``. With ``handle_sigint``, Ctrl-C or SIGTERM stops the crawl
    gracefully: in-flight pages get a short grace, parser workers and browsers are reaped,
    every recorded page is flushed (the second signal aborts)."""

    async def main() -> CrawlManifest:
        stop: asyncio.Event = kwargs.pop("stop", None) or asyncio.Event()
        if handle_sigint:
            loop = asyncio.get_running_loop()
            current = asyncio.current_task()

            def on_sigint() -> None:
                if stop.is_set() and current is not None:
                    current.cancel()
                stop.set()

            for signum in (signal.SIGINT, signal.SIGTERM):  # a service manager sends SIGTERM
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.add_signal_handler(signum, on_sigint)
        return await crawl(seeds, policy, stop=stop, **kwargs)

    return asyncio.run(main())


def render_summary_table(manifest: CrawlManifest) -> Table:
    """A rich table of a crawl's summary (print it with ``rich.console.Console().print``)."""
    from rich.table import Table  # noqa: PLC0415  # loaded on first use

    s = manifest.summary
    table = Table(title="pressmark crawl", show_header=True, header_style="bold")
    table.add_column("metric")
    table.add_column("value", justify="right")
    rows: list[tuple[str, str]] = [
        ("pages", str(s["pages"])),
        *((f"  {k}", str(v)) for k, v in s["by_outcome"].items()),
        *((f"  kind: {k}", str(v)) for k, v in s["errors_by_kind"].items()),
        ("robots denied", str(s["robots_denied"])),
        ("egress denied", str(s["egress_denied"])),
        ("render rate", f"{s['render_rate']:.1%}"),
        ("validation pass rate",
         "-" if s["validation_pass_rate"] is None else f"{s['validation_pass_rate']:.1%}"),
        ("mean readiness",
         "-" if s["mean_readiness_ms"] is None else f"{s['mean_readiness_ms']} ms"),
        ("bytes", f"{s['bytes']:,}"),
        ("duration", f"{s['duration_s']} s"),
        ("pages/s", str(s["pages_per_s"])),
        ("sitemap documents", str(manifest.sitemap.get("documents_read", 0))),
        ("sitemap URLs", str(manifest.sitemap.get("urls_discovered", 0))),
        ("complete", "yes" if manifest.complete else f"no ({manifest.stop_reason})"),
    ]
    for key, value in rows:
        table.add_row(key, value)
    return table
