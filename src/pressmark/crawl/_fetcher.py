"""The crawler's fetch seam: live through :func:`pressmark.fetch.fetch_source`, or
replay from a snapshot store with no network at all.

Both return a :class:`Fetched`, the crawl-level view of one page's acquisition.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pressmark.crawl._canonical import hostname_of
from pressmark.crawl._manifest import PageFailure
from pressmark.crawl._writer import StoreWriter
from pressmark.egress import GuardedClient

if TYPE_CHECKING:
    from pressmark.crawl._frontier import FrontierItem
    from pressmark.crawl._policy import CrawlPolicy, Seed
    from pressmark.egress import Resolver
    from pressmark.fetch import Pacer
    from pressmark.fetch._agent import AgentView, SiteViews
    from pressmark.fetch._robots import RobotsAnswer
    from pressmark.fetch._shell import ShellCheck
    from pressmark.render import Renderer
    from pressmark.snapshot import Snapshot
    from pressmark.store import SnapshotStore


@dataclass(frozen=True, slots=True, kw_only=True)
class Fetched:
    url: str
    snapshot: Snapshot | None
    source_ref: str | None
    status: int | None
    error: PageFailure | None = None
    warnings: tuple[str, ...] = ()
    render_reason: str | None = None
    readiness: tuple[bool, str, float] | None = None
    not_modified: bool = False


class PageFetcher(Protocol):
    async def fetch_page(self, item: FrontierItem, seed: Seed | None) -> Fetched: ...

    async def fetch_document(self, url: str) -> bytes: ...

    async def sitemap_roots(self, origin: str) -> list[str]: ...

    async def crawl_delay(self, origin: str) -> float | None: ...

    def robots_allows(self, url: str) -> bool | None:
        """The cached robots.txt verdict for ``url``, or ``None`` when not known yet."""
        ...

    async def aclose(self) -> None: ...


def _source_id(url: str) -> str:
    from pressmark.snapshot import source_id_for_url  # noqa: PLC0415  # loaded on first use

    return source_id_for_url(url)


class HopPacedClient(GuardedClient):
    """The crawl's HTTP client: before a redirect hop to a host other than the one the
    request started on (whose politeness slot the request already holds), it awaits
    ``on_hop(url)``, which paces the hop like any request to that host."""

    on_hop: Callable[[str], Awaitable[None]] | None = None

    def stream(self, url: str, **options: Any) -> Any:
        first = hostname_of(url)
        inner = options.get("hop_check")

        async def check(hop: str) -> None:
            if inner is not None:
                await inner(hop)  # robots.txt first: a denied hop reserves nothing
            if self.on_hop is not None and hostname_of(hop) != first:
                await self.on_hop(hop)

        return super().stream(url, **{**options, "hop_check": check})


class _WatchedRenderer:
    """The crawl's renderer, noting which pages it is rendering (the progress line names
    them). ``wrapped`` is what the fetch layer records as the renderer."""

    def __init__(self, inner: Renderer) -> None:
        self.wrapped = inner
        self.busy: set[str] = set()

    async def render(self, url: str, options: Any) -> Any:
        self.busy.add(url)
        try:
            return await self.wrapped.render(url, options)
        finally:
            self.busy.discard(url)


class LiveFetcher:
    """Every request goes through ``fetch_source``: robots, politeness, egress guard.

    Without ``store``, snapshots come back unstored (the engine stores them, in a worker
    process or on its writer threads); with one, they are put there before returning."""

    def __init__(self, policy: CrawlPolicy, store: SnapshotStore | None = None, *,
                 resolver: Resolver | None = None, renderer: Renderer | None = None,
                 validators: SnapshotStore | None = None,
                 shell_check: ShellCheck | None = None) -> None:
        from pressmark.egress import EgressPolicy  # noqa: PLC0415  # loaded on first use
        from pressmark.fetch import FetchOptions, Pacer, RobotsCache  # noqa: PLC0415  # loaded on first use
        from pressmark.fetch._robots import product_token  # noqa: PLC0415  # loaded on first use

        self.policy = policy
        pol = policy.politeness
        egress = policy.egress or EgressPolicy()
        self._client = HopPacedClient(
            egress, resolver, max_connections=max(pol.concurrency, 1),
            max_connections_per_host=pol.per_host_concurrency,
        )
        # Every robots.txt answer is kept (newest per URL) and stored with the crawl's
        # snapshots at the end: evidence of why a URL was denied, and what replay judges by.
        self._robots_files: dict[str, RobotsAnswer] = {}
        self._robots = RobotsCache(policy=egress, resolver=resolver, client=self._client,
                                   on_download=self._keep_robots)
        extra: dict[str, Any] = {}
        if policy.user_agent:
            extra["user_agent"] = policy.user_agent
        if policy.max_response_bytes is not None:
            extra["max_response_bytes"] = policy.max_response_bytes
        if policy.timeout_ms is not None:
            extra["timeout_ms"] = policy.timeout_ms
        if policy.retries is not None:
            extra["retries"] = policy.retries
        # Snapshots are never stored inside fetch_source, whose per-put thread hops contend
        # for the GIL: it gets the store only to read validators from (a recrawl).
        self.writer = StoreWriter(store) if store is not None else None
        self.revalidate = validators is not None and policy.revalidate
        self._watch = _WatchedRenderer(renderer) if renderer is not None else None
        self.options = FetchOptions(
            egress=egress, resolver=resolver, client=self._client,
            store=validators if self.revalidate else None, keep_snapshots=False,
            renderer=self._watch, robots=self._robots, shell_check=shell_check,
            # With a delay, one request at a time per host (sitemap documents too), each
            # spaced from the previous one's end as well as its start.
            politeness=Pacer(min_delay_ms=pol.delay_ms, max_concurrency=pol.concurrency,
                                  max_per_host=1 if pol.delay_ms > 0 else pol.per_host_concurrency),
            **extra,
        )
        self._ua: str = self.options.user_agent
        self._token = product_token(self._ua)
        from pressmark.render import LazyRenderer  # noqa: PLC0415  # light; no browser import

        self._lazy = renderer if isinstance(renderer, LazyRenderer) else None
        self._sites: SiteViews | None = None

    def rendering(self) -> frozenset[str]:
        """The URLs being rendered right now."""
        return frozenset(self._watch.busy) if self._watch is not None else frozenset()

    def _keep_robots(self, answer: RobotsAnswer) -> None:
        self._robots_files[answer.url] = answer

    def store_robots(self, store: SnapshotStore) -> None:
        """Put the robots.txt files this crawl read into ``store`` (blocking: a thread's job)."""
        for snapshot in self.robots_snapshots():
            store.put(snapshot)

    def robots_snapshots(self) -> list[Snapshot]:
        """Snapshots of the robots.txt files this crawl read (in the order first read)."""
        from pressmark.snapshot import classify_content_type, new_snapshot  # noqa: PLC0415

        out = []
        for url, got in self._robots_files.items():
            content_type = next((v for k, v in got.headers if k.lower() == "content-type"), None)
            out.append(new_snapshot(
                source_id=_source_id(url), requested_url=url, url=got.final_url,
                status=got.status, headers=got.headers, body=got.body,
                content_type=classify_content_type(content_type, got.body[:512]),
                **got.provenance))  # who answered: the archive names it
        return out

    def pace_hops_with(self, on_hop: Callable[[str], Awaitable[None]]) -> None:
        """Before a redirect hop to another host than the request's, await ``on_hop(url)``
        (the engine paces it like any request to that host)."""
        self._client.on_hop = on_hop

    @property
    def pacing(self) -> Pacer | None:
        """The crawl's one per-host pacing clock (the frontier asks it who may start)."""
        return self.options.politeness

    async def pace(self, url: str) -> None:
        """Wait for a start on ``url``'s host in the fetch layer's ``Pacer`` (every
        request to a host goes through it), holding no slot: no sooner than the host's
        delay (``delay_ms``, or its cached Crawl-delay when larger) after the previous
        request to it, and the next request waits as long after this one. For a redirect
        hop to another host than its page's."""
        politeness = self.options.politeness
        if politeness is None:
            return
        delay = None
        if self.policy.robots:
            delay = self._robots.cached_crawl_delay(_origin(url), self._token)
        await politeness.wait_turn(hostname_of(url), delay_s=delay)

    async def __aenter__(self) -> LiveFetcher:
        await self._client.__aenter__()
        return self

    async def aclose(self) -> None:
        try:
            if self._lazy is not None:
                await self._lazy.aclose()
        finally:
            try:
                await self._client.__aexit__(None, None, None)
            finally:
                if self.writer is not None:
                    self.writer.close()

    async def fetch_page(self, item: FrontierItem, seed: Seed | None) -> Fetched:
        from pressmark.fetch import SourceConfig, fetch_source  # noqa: PLC0415  # loaded on first use

        render: bool | None = None
        headers = None
        ua = None
        if seed is not None:
            render, headers, ua = seed.render, seed.headers, seed.user_agent
        policy = self.policy.render
        config = SourceConfig(
            url=item.url, source_id=_source_id(item.url), headers=headers, user_agent=ua,
            respect_robots=self.policy.robots,
            # A rendered fetch has no validators (fetch warns when asked to revalidate one).
            revalidate=self.revalidate and not render and policy != "always",
            render_policy="always" if render else policy,
        )
        result = await fetch_source(config, self.options)
        fetched = from_fetch_result(item.url, result)
        if self.writer is None or fetched.snapshot is None or fetched.not_modified:
            return fetched
        try:
            ref = await self.writer.put(fetched.snapshot)
        except Exception as exc:  # a store failure is this page's error
            return Fetched(url=item.url, snapshot=None, source_ref=None, status=fetched.status,
                           warnings=fetched.warnings,
                           error=PageFailure(kind="store-error",
                                           message=f"{type(exc).__name__}: {exc}"))
        return dataclasses.replace(fetched, source_ref=ref.source_ref)

    async def agent_views(self, item: FrontierItem, seed: Seed | None, page: Snapshot,
                          ) -> list[tuple[AgentView, Snapshot | None]]:
        """The page's agent views (``crawl._agentviews``), requested as the page was: its
        seed's headers and user agent, robots.txt, this crawl's egress, limits and pacing."""
        from pressmark.fetch import SourceConfig  # noqa: PLC0415  # loaded on first use
        from pressmark.fetch._agent import SiteViews, fetch_agent_views  # noqa: PLC0415

        if self._sites is None:
            self._sites = SiteViews()
        headers, ua = (seed.headers, seed.user_agent) if seed is not None else (None, None)
        config = SourceConfig(url=item.url, headers=headers, user_agent=ua,
                              respect_robots=self.policy.robots)
        return await fetch_agent_views(page, config, self.options, sites=self._sites)

    async def fetch_document(self, url: str) -> bytes:
        from pressmark.fetch import SourceConfig, fetch_source  # noqa: PLC0415  # loaded on first use

        config = SourceConfig(url=url, source_id=_source_id(url), respect_robots=self.policy.robots,
                              render_policy="never",
                              max_response_bytes=self.policy.sitemaps.max_bytes)
        result = await fetch_source(config, self.options)
        if result.error is not None or result.snapshot is None:
            kind = result.error.kind if result.error is not None else "error"
            message = result.error.message if result.error is not None else "no snapshot"
            raise _DocumentError(kind, message)
        status = result.snapshot.status
        if status >= 400:
            raise _DocumentError("http-error", f"HTTP {status}")
        return result.snapshot.bytes

    async def sitemap_roots(self, origin: str) -> list[str]:
        try:
            found = await self._robots.sitemaps(origin)
        except Exception:  # robots trouble means no Sitemap: lines, not a failed crawl
            found = []
        return list(found) or [origin + "/sitemap.xml"]

    def robots_allows(self, url: str) -> bool | None:
        if not self.policy.robots:
            return True
        scheme, _, authority = url.split("/", 3)[:3]
        entry = self._robots.cached(f"{scheme}//{authority}")
        return None if entry is None else entry.allowed(url, self._token)

    async def crawl_delay(self, origin: str) -> float | None:
        if not self.policy.robots:
            return None
        try:
            return await self._robots.crawl_delay(origin, self._ua)
        except Exception:
            return None


class _DocumentError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def from_fetch_result(url: str, result: Any) -> Fetched:
    """Map a ``FetchResult`` to the crawl's view (error kinds kept as they are)."""
    snapshot = result.snapshot
    error = None
    if result.error is not None:
        error = PageFailure(kind=str(result.error.kind), message=str(result.error.message))
    status = getattr(result, "http_status", None)
    if status is None and snapshot is not None:
        status = snapshot.status
    if status is None and result.error is not None:
        status = result.error.status
    escalation = getattr(result, "render_escalation", None)
    render_reason = getattr(escalation, "reason", None) if escalation is not None else None
    readiness = None
    report = getattr(result, "readiness", None)
    if report is not None:
        readiness = (bool(report.passed), str(report.reason), float(report.elapsed_ms))
    return Fetched(
        url=url, snapshot=snapshot, source_ref=result.source_ref, status=status, error=error,
        warnings=tuple(result.warnings), render_reason=render_reason, readiness=readiness,
        not_modified=bool(getattr(result, "not_modified", False)),
    )


class ReplayFetcher:
    """Answers from a store only. Nothing here can open a socket.

    robots.txt is judged as the live crawl judged it, from the robots.txt snapshots the
    live crawl stored: a URL robots.txt disallowed comes back ``denied`` (``robots-denied``),
    not ``not-in-store``. A 4xx robots.txt allows everything, a 5xx denies everything
    (RFC 9309); an origin without a stored robots.txt is not judged."""

    def __init__(self, store: SnapshotStore, *, robots: bool = True,
                 user_agent: str | None = None) -> None:
        from pressmark.fetch import DEFAULT_USER_AGENT  # noqa: PLC0415  # loaded on first use
        from pressmark.fetch._robots import product_token  # noqa: PLC0415  # loaded on first use
        from pressmark.store import MemorySnapshotStore  # noqa: PLC0415  # loaded on first use

        self.store = store
        self._memory = isinstance(store, MemorySnapshotStore)
        self._robots = robots
        self._token = product_token(user_agent or DEFAULT_USER_AGENT)
        self._rules: dict[str, Callable[[str], bool] | None] = {}
        self._robots_read: list[Snapshot] = []

    def store_robots(self, store: SnapshotStore) -> None:
        """Copy the robots.txt snapshots replay judged by into a replay's own store."""
        for snapshot in self.robots_snapshots():
            store.put(snapshot)

    def robots_snapshots(self) -> list[Snapshot]:
        """The stored robots.txt snapshots replay judged by (copied to a replay's own store)."""
        return list(self._robots_read)

    def _robots_rule(self, origin: str) -> Callable[[str], bool] | None:
        if origin in self._rules:
            return self._rules[origin]
        from pressmark.fetch._robots import parse_robots  # noqa: PLC0415  # loaded on first use

        rule: Callable[[str], bool] | None = None
        try:
            snap = self._latest(origin + "/robots.txt")
        except Exception:  # a damaged record judges nothing: the page lookup reports it
            snap = None
        if snap is not None:
            self._robots_read.append(snap)
            if 400 <= snap.status < 500:
                rule = None
            elif not 200 <= snap.status < 300:
                rule = _deny_all
            else:
                rules, token = parse_robots(snap.body), self._token
                rule = functools.partial(_can_fetch, rules, token)
        self._rules[origin] = rule
        return rule

    async def aclose(self) -> None:
        return None

    def _latest(self, url: str) -> Snapshot | None:
        return self.store.latest(_source_id(url))

    async def fetch_page(self, item: FrontierItem, seed: Seed | None) -> Fetched:
        from pressmark.snapshot import build_source_ref  # noqa: PLC0415  # loaded on first use

        snapshot = self._latest(item.url) if self._memory else await asyncio.to_thread(
            self._latest, item.url)
        if snapshot is None:
            return Fetched(url=item.url, snapshot=None, source_ref=None, status=None,
                           error=PageFailure(kind="not-in-store",
                                           message="replay: no snapshot of this URL in the store"))
        return Fetched(url=item.url, snapshot=snapshot, source_ref=build_source_ref(snapshot),
                       status=snapshot.status, warnings=tuple(snapshot.warnings),
                       render_reason="replay" if snapshot.rendered else None)

    async def fetch_document(self, url: str) -> bytes:
        snapshot = await asyncio.to_thread(self._latest, url)
        if snapshot is None:
            raise _DocumentError("not-in-store", "replay: sitemap not in the store")
        return snapshot.bytes

    async def sitemap_roots(self, origin: str) -> list[str]:
        return [origin + "/sitemap.xml"]

    def robots_allows(self, url: str) -> bool | None:
        if not self._robots:
            return True
        rule = self._robots_rule(_origin(url))
        return True if rule is None else rule(url)

    async def crawl_delay(self, origin: str) -> float | None:
        return None


def _deny_all(_url: str) -> bool:
    return False


def _can_fetch(rules: Any, token: str, url: str) -> bool:
    return bool(rules.can_fetch(url, token))


def _origin(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0].split('?', 1)[0]}"
