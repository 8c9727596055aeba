"""What the MCP tools do, with no MCP in sight: plain async methods returning dicts.

The SDK glue (:mod:`pressmark.mcp._server`) only turns these dicts into structured
results and :class:`ToolFailure` into tool errors; everything a test needs to check
about limits, codes and citations is here, on the public APIs of the layers below
(``fetch_source``, ``crawl``, ``to_markdown``, ``resolve_source_ref``).

Every limit is the operator's (:class:`McpOptions`): a call may ask for less, never
for more, and a lowered request comes back with a warning saying so.

Conversions run in killable parser processes (``pressmark.crawl``'s parse workers,
under the same address-space limit as a crawl's): a call past its time limit has its
conversion's process killed, so a slow page never keeps a slot another call needs (in a
thread, a timed-out conversion ran on and held its executor slot). Every string a
result carries is capped (:data:`MAX_FIELD_CHARS`), the page text by pieces.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pressmark import PressmarkError
from pressmark.mcp._options import (
    CITATION_BODY_BYTES,
    MARKDOWN_PAGE_BYTES,
    UNTRUSTED_NOTICE,
    McpOptions,
    RenderMode,
    clamp_render,
)
from pressmark.mcp._pages import Page, capped, clip, convert_page
from pressmark.mcp._paging import cut

if TYPE_CHECKING:
    from pressmark.crawl import CrawlManifest, PageRecord
    from pressmark.crawl._workers import ParseWorkers
    from pressmark.egress import Connector, EgressPolicy, Resolver
    from pressmark.fetch import FetchOptions
    from pressmark.render import LazyRenderer
    from pressmark.snapshot import Snapshot
    from pressmark.store import SnapshotStore

ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None]]
DISCOVERY = ("links", "sitemap", "both")
TEXT_KINDS = frozenset({"html", "xml", "json", "text"})
CONVERT_WORKERS = 2
"""Parser processes converting for one server's calls (started on first use)."""


class ToolFailure(PressmarkError):
    """A tool call that produced nothing usable; ``code`` is the lower layer's stable code.

    ``kind`` is the fetch-level category (``egress-denied``, ``robots-denied``,
    ``http-error``, ...) when there is one; ``code`` the most specific code known
    (``DENIED_ADDRESS`` rather than ``egress-denied``).
    """

    def __init__(self, code: str, message: str, *, kind: str | None = None,
                 url: str | None = None, status: int | None = None) -> None:
        # (the message may quote a page: a redirect target, a reason phrase)
        super().__init__(clip(message) or "", code=code)
        self.kind = kind or code
        self.url = clip(url)
        self.status = status

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "kind": self.kind, "message": self.message, "url": self.url,
                "status": self.status}


class PressmarkTools:
    """The tools of one server: store, client, robots, politeness and browser shared by calls.

    ``resolver`` and ``connector`` are the egress seams (``StaticResolver`` and
    ``RecordingConnector`` in tests); the defaults are the system's. ``convert`` is the
    job a parser process runs for a page (:func:`convert_page`; a module-level function,
    which the process imports by name).
    """

    def __init__(self, options: McpOptions, *, resolver: Resolver | None = None,
                 connector: Connector | None = None,
                 convert: Callable[[Any], Any] | None = None) -> None:
        from pressmark.egress import EgressPolicy  # noqa: PLC0415  # start-up stays light

        self.options = options
        self.resolver = resolver
        self.connector = connector
        try:
            self.egress: EgressPolicy = EgressPolicy().allow_loopback(*options.allow_loopback)
        except PressmarkError as exc:
            raise ToolFailure("invalid-config", f"--allow-loopback: {exc.message}") from exc
        self._store: SnapshotStore | None = None
        self._verifier: Any = None
        self._fetch_options: FetchOptions | None = None
        self._renderer: LazyRenderer | None = None
        self._workers: ParseWorkers | None = None
        self._convert_job: Callable[[Any], Any] = convert or convert_page

    # -- shared machinery, created on first use -------------------------------------------

    @property
    def store(self) -> SnapshotStore:
        if self._store is None:
            from pressmark.store import open_store  # noqa: PLC0415  # lazy

            # either format, by its marker; a new store is a segment store
            self._store = open_store(self.options.store_dir, create=True)
        return self._store

    def _renderer_for(self, mode: str) -> LazyRenderer | None:
        if mode == "never":
            return None
        if self._renderer is None:
            from pressmark.render import LazyRenderer  # noqa: PLC0415  # lazy

            self._renderer = LazyRenderer(self.egress, self.resolver)
        return self._renderer

    def _shared(self) -> FetchOptions:
        """One client (connections reused), robots cache and politeness for every fetch_page."""
        if self._fetch_options is None:
            from pressmark.egress import GuardedClient  # noqa: PLC0415  # lazy
            from pressmark.fetch import (  # noqa: PLC0415  # lazy
                DEFAULT_USER_AGENT,
                FetchOptions,
                Pacer,
                RobotsCache,
            )

            agent = self.options.user_agent or DEFAULT_USER_AGENT
            client = GuardedClient(self.egress, self.resolver, self.connector, user_agent=agent,
                                   max_body_bytes=self.options.max_bytes)
            self._fetch_options = FetchOptions(
                egress=self.egress, resolver=self.resolver, client=client, store=self.store,
                robots=RobotsCache(client, policy=self.egress, resolver=self.resolver,
                                   user_agent=agent),
                politeness=Pacer(max_per_host=2), user_agent=agent,
                max_response_bytes=self.options.max_bytes)
        return self._fetch_options

    async def aclose(self) -> None:
        if self._workers is not None:
            self._workers.close()
        if self._fetch_options is not None and self._fetch_options.client is not None:
            await self._fetch_options.client.aclose()
        if self._renderer is not None:
            await self._renderer.aclose()

    async def _convert(self, snapshot: Snapshot, readiness: Any) -> Page:
        """The page's Markdown exactly as ``pressmark md --url FINAL_URL`` gives it,
        converted in a parser process that the call's time limit kills (module doc)."""
        if snapshot.content_type in TEXT_KINDS and snapshot.content_type != "html":
            return Page(snapshot.body, None, False, ("not-html",))  # the text itself
        if snapshot.content_type != "html":
            raise ToolFailure("unsupported-content",
                              f"{snapshot.content_type} content has no text to return",
                              url=snapshot.url)
        if self._workers is None:
            from pressmark.crawl._process import warm_up  # noqa: PLC0415  # lazy
            from pressmark.crawl._workers import ParseWorkers  # noqa: PLC0415  # lazy

            self._workers = ParseWorkers(CONVERT_WORKERS, deadline_s=self.options.call_timeout_s,
                                         warm=warm_up)
        from pressmark.crawl._workers import PageTimeout, WorkerDied  # noqa: PLC0415  # lazy

        facts = None if readiness is None else (
            bool(readiness.passed), str(readiness.reason), float(readiness.elapsed_ms))
        try:
            page = await self._workers.run(self._convert_job, (snapshot, facts))
        except (PageTimeout, WorkerDied) as exc:
            raise ToolFailure(exc.kind, str(exc), url=snapshot.url) from exc
        if isinstance(page, Page):
            return page
        code, message = page
        raise ToolFailure(code, message, url=snapshot.url)

    # -- the tools ---------------------------------------------------------------------------

    async def fetch_page(self, url: str, render: str = "on-shell") -> dict[str, Any]:
        """One guarded, polite fetch (robots on), converted and validated, first piece."""
        from pressmark.fetch import SourceConfig, fetch_source  # noqa: PLC0415  # lazy

        mode, lowered = self._render_mode(render)
        opts = self.options
        source = SourceConfig(url=url, render_policy=mode, max_response_bytes=opts.max_bytes,
                              timeout_ms=int(opts.call_timeout_s * 1000),
                              user_agent=opts.user_agent, respect_robots=True)
        fetch_options = replace(self._shared(), renderer=self._renderer_for(mode))
        result = await self._bounded(fetch_source(source, fetch_options), url)
        if result.error is not None:
            err = result.error
            raise ToolFailure(err.code or err.kind, err.message, kind=err.kind,
                              url=err.url or url, status=err.status)
        snapshot = result.snapshot
        if snapshot is None or result.source_ref is None:   # pragma: no cover - fetch invariant
            raise ToolFailure("adapter-error", "the fetch returned no snapshot", url=url)
        page = await self._bounded(self._convert(snapshot, result.readiness), url)
        warnings = [*result.warnings, *([lowered] if lowered else [])]
        return capped({
            "url": url,
            "final_url": snapshot.url,
            "status": result.http_status if result.http_status is not None else snapshot.status,
            "rendered": bool(snapshot.rendered),
            **page.head(result.source_ref),
            **page.piece(0),
            "warnings": warnings,
        })

    async def read_markdown(self, source_ref: str, offset: int = 0) -> dict[str, Any]:
        """The Markdown of a captured page, from ``offset``; the same text fetch_page gave."""
        snapshot = self._resolve(source_ref)
        page = await self._bounded(self._convert(snapshot, None), snapshot.url)
        return capped({"url": snapshot.url, **page.head(source_ref),
                       **page.piece(max(0, offset))})

    async def get_chunks(self, source_ref: str, max_chars: int = 2000,
                         start: int = 0) -> dict[str, Any]:
        """The chunks of a captured page (``pressmark.cite.chunk``), from chunk ``start``,
        capped per call like the Markdown (continue with ``next_start``)."""
        from pressmark.cite import chunk_markdown  # noqa: PLC0415  # lazy

        snapshot = self._resolve(source_ref)
        page = await self._bounded(self._convert(snapshot, None), snapshot.url)
        try:
            pieces = chunk_markdown(page.markdown, page.block_map, max_chars=max_chars,
                                    source_ref=source_ref, url=snapshot.url)
        except ValueError as exc:
            raise ToolFailure("invalid-config", str(exc)) from exc
        out: list[dict[str, Any]] = []
        size = 0
        at = max(0, start)
        while at < len(pieces) and (not out or size + len(pieces[at].text.encode("utf-8"))
                                    <= MARKDOWN_PAGE_BYTES):
            size += len(pieces[at].text.encode("utf-8"))
            out.append(pieces[at].to_dict())
            at += 1
        return capped({"url": snapshot.url, **page.head(source_ref), "chunks": out,
                       "total_chunks": len(pieces), "next_start": at if at < len(pieces) else None,
                       "untrusted_content": True, "notice": UNTRUSTED_NOTICE})

    async def verify_quote(self, source_ref: str, quote: str,
                           policy_version: str | None = None) -> dict[str, Any]:
        """Is ``quote`` in the page ``source_ref`` names? exact, normalised or not-found
        (``policy_version``: the one the quote was cited under, warned about if another)."""
        from pressmark.cite import CitationError, Verifier  # noqa: PLC0415  # lazy

        if self._verifier is None:
            self._verifier = Verifier(self.store)
        try:
            check = await self._bounded(
                asyncio.to_thread(self._verifier.verify, source_ref, quote,
                                  policy_version=policy_version), source_ref)
        except CitationError as exc:
            raise ToolFailure(exc.code, exc.message) from exc
        return capped({**check.to_dict(), "untrusted_content": True, "notice": UNTRUSTED_NOTICE})

    async def diff_captures(self, old_ref: str, new_ref: str, start: int = 0,
                            ) -> dict[str, Any]:
        """The block-level diff of two captures in the store (``pressmark.cite``'s
        ``diff_captures``: blocks added, removed, changed, each side citable), its changes
        from ``start`` capped per call like the Markdown (continue with ``next_start``)."""
        from pressmark.cite import CitationError, diff_captures  # noqa: PLC0415  # lazy

        try:
            diff = await self._bounded(
                asyncio.to_thread(diff_captures, self.store, old_ref, new_ref), new_ref)
        except CitationError as exc:
            raise ToolFailure(exc.code, exc.message) from exc
        data = diff.to_dict()
        changes: list[dict[str, Any]] = data.pop("changes")
        out: list[dict[str, Any]] = []
        size = 0
        at = max(0, start)
        while at < len(changes):
            cost = sum(len(side["text"].encode("utf-8")) for side in
                       (changes[at]["old"], changes[at]["new"]) if side is not None)
            if out and size + cost > MARKDOWN_PAGE_BYTES:
                break
            size += cost
            out.append(changes[at])
            at += 1
        return capped({**data, "changes": out, "total_changes": len(changes),
                       "next_start": at if at < len(changes) else None,
                       "untrusted_content": True, "notice": UNTRUSTED_NOTICE})

    async def resolve_citation(self, source_ref: str) -> dict[str, Any]:
        """Verify ``source_ref`` against the store; the exact body for text (capped)."""
        snapshot = self._resolve(source_ref)
        body: str | None = None
        truncated = False
        if snapshot.content_type in TEXT_KINDS:
            piece = cut(snapshot.body, 0, CITATION_BODY_BYTES)
            body, truncated = piece.text, piece.truncated
        return capped({
            "ok": True,
            # pressmark has one reference grammar, and it commits to the whole envelope
            "integrity": "snapshot-envelope",
            "source_ref": source_ref,
            "url": snapshot.url,
            "requested_url": snapshot.requested_url,
            "fetched_at": snapshot.fetched_at,
            "status": snapshot.status,
            "content_type": snapshot.content_type,
            "body_hash": snapshot.body_hash,
            "snapshot_sha256": snapshot.snapshot_sha256,
            "bytes": len(snapshot.bytes),
            "body": body,
            "body_truncated": truncated,
            "untrusted_content": body is not None,
            "notice": UNTRUSTED_NOTICE,
        })

    async def crawl_site(self, url: str, max_pages: int = 20, max_depth: int = 2,
                         discovery: str = "links",
                         progress: ProgressCallback | None = None) -> dict[str, Any]:
        """A bounded crawl from ``url`` into the store; one entry per page, no page text."""
        from pressmark.crawl import CrawlError, CrawlPolicy, crawl  # noqa: PLC0415  # lazy
        from pressmark.egress import DnsFailure, EgressDenied, evaluate_url  # noqa: PLC0415

        if discovery not in DISCOVERY:
            raise ToolFailure("invalid-config",
                              f"discovery must be one of {', '.join(DISCOVERY)}")
        opts = self.options
        warnings: list[str] = []
        pages = max(0, min(max_pages, opts.max_pages))
        if pages < max_pages:
            warnings.append(f"max_pages={max_pages} lowered to {pages} by the server's "
                            "--max-pages")
        depth = max(0, min(max_depth, opts.max_depth))
        if depth < max_depth:
            warnings.append(f"max_depth={max_depth} lowered to {depth} by the server")
        try:   # the seed is checked the way every later hop will be: a denial is the answer
            await evaluate_url(url, policy=self.egress, resolver=self.resolver)
        except EgressDenied as exc:
            raise ToolFailure(exc.code, exc.message, kind="egress-denied", url=url) from exc
        except DnsFailure as exc:   # a network error, not a denial
            raise ToolFailure(exc.code, exc.message, kind="dns-failure", url=url) from exc
        policy = CrawlPolicy(
            max_pages=pages, max_depth=depth, discovery=discovery,  # type: ignore[arg-type]
            render=opts.render, robots=True, egress=self.egress, store=self.store,
            markdown=True, max_response_bytes=opts.max_bytes, time_budget_s=opts.call_timeout_s,
            user_agent=opts.user_agent, workers=0,
        )
        reporter = _ProgressRelay(pages, progress)
        try:
            manifest = await self._bounded(
                reporter.around(crawl(url, policy, resolver=self.resolver, progress=reporter,
                                      renderer=self._renderer_for(opts.render))),
                url, grace_s=10.0)
        except CrawlError as exc:
            raise ToolFailure(exc.code, exc.message, url=url) from exc
        return capped(_crawl_result(manifest, warnings))

    # -- helpers ---------------------------------------------------------------------------

    def _render_mode(self, asked: str) -> tuple[RenderMode, str | None]:
        try:
            return clamp_render(asked, self.options.render)
        except ValueError as exc:
            raise ToolFailure("invalid-config", str(exc)) from exc

    def _resolve(self, source_ref: str) -> Snapshot:
        from pressmark.snapshot import resolve_source_ref  # noqa: PLC0415  # lazy

        result = resolve_source_ref(self.store, source_ref)
        if result.snapshot is None:
            assert result.error is not None
            raise ToolFailure(result.error.code, result.error.message)
        return result.snapshot

    async def _bounded(self, work: Awaitable[Any], url: str, *, grace_s: float = 0.0) -> Any:
        """``work`` within the call's time limit, or a ``timeout`` failure."""
        limit = self.options.call_timeout_s + grace_s
        try:
            async with asyncio.timeout(limit):
                return await work
        except TimeoutError:
            raise ToolFailure("timeout", f"the call took longer than its {limit:g} s limit",
                              url=url) from None


class _ProgressRelay:
    """Crawl progress (called synchronously by the engine) relayed as MCP notifications."""

    def __init__(self, total: int, send: ProgressCallback | None) -> None:
        self.total = total
        self.send = send
        self.queue: asyncio.Queue[tuple[int, str] | None] = asyncio.Queue()

    def start(self, engine: Any) -> None:
        return None

    def page(self, record: PageRecord, engine: Any) -> None:
        self.queue.put_nowait((int(engine.summary.requested), record.url))

    def tick(self, engine: Any) -> None:
        """While the crawl only waits (renders, slow pages), say on what (issue #35)."""
        waits = getattr(engine, "progress_waits", None)
        found = waits() if callable(waits) else ()
        if found:
            names = ", ".join(f"{url} ({'rendering, ' if rendering else ''}{seconds:.0f} s)"
                              for url, seconds, rendering in found)
            self.queue.put_nowait((int(engine.summary.requested), f"waiting on: {names}"))

    def finish(self, manifest: CrawlManifest) -> None:
        return None

    async def around(self, work: Awaitable[CrawlManifest]) -> CrawlManifest:
        """Run the crawl while a sender relays its pages; every page is sent before return."""
        if self.send is None:
            return await work
        sender = asyncio.create_task(self._drain())
        try:
            return await work
        finally:
            self.queue.put_nowait(None)   # after the last page: the sender ends there
            await sender

    async def _drain(self) -> None:
        assert self.send is not None
        while (item := await self.queue.get()) is not None:
            done, url = item
            await self.send(float(done), float(self.total), f"{done}/{self.total}: {url}")


def _entry(record: PageRecord) -> dict[str, Any]:
    return {
        "url": record.url, "final_url": record.final_url, "depth": record.depth,
        "status": record.status, "outcome": record.outcome, "source_ref": record.source_ref,
        "title": record.title, "rendered": record.rendered,
        "validation": None if record.validation is None else {
            "passed": record.validation.passed, "reasons": list(record.validation.reasons)},
        "error": None if record.error is None else {"kind": record.error.kind,
                                                    "message": record.error.message},
    }


def _crawl_result(manifest: CrawlManifest, warnings: list[str]) -> dict[str, Any]:
    pages = sorted(manifest.pages, key=lambda p: (p.depth, p.url))   # completion order varies
    fetched = [p for p in pages if p.outcome in ("ok", "not-modified")]
    seed = next((p for p in pages if p.depth == 0), None)
    if not fetched and seed is not None and seed.error is not None:
        raise ToolFailure(seed.error.kind, seed.error.message, url=seed.url, status=seed.status)
    s = manifest.summary
    return {
        "seeds": list(manifest.seeds),
        "complete": manifest.complete,
        "stop_reason": manifest.stop_reason,
        "summary": {"pages": s["pages"], "by_outcome": dict(s["by_outcome"]),
                    "errors_by_kind": dict(s["errors_by_kind"]),
                    "robots_denied": s["robots_denied"], "egress_denied": s["egress_denied"],
                    "render_rate": s["render_rate"],
                    "validation_pass_rate": s["validation_pass_rate"], "bytes": s["bytes"],
                    "duration_s": s["duration_s"]},
        "pages": [_entry(p) for p in pages],
        "warnings": warnings,
        "untrusted_content": True,   # page titles are the pages' own words
        "notice": UNTRUSTED_NOTICE,
    }
