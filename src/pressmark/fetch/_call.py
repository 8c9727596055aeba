"""The state and steps of one ``fetch_source`` call: config checks, robots, the plain
attempt, the rendered attempt and the store. The policy that orders these steps
lives in :mod:`pressmark.fetch._fetch`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from pressmark._errors import PressmarkError
from pressmark.egress import (
    DnsFailure,
    EgressDenied,
    GuardedClient,
    NetworkError,
    canonical_url,
    parse_url,
)
from pressmark.fetch._attempt import (
    AttemptFailed,
    Meter,
    RobotsDenied,
    WireResponse,
    fail,
    plain_attempt,
    translate,
)
from pressmark.fetch._config import (
    DEFAULT_ACCEPT,
    FetchFailure,
    FetchOptions,
    FetchResult,
    FetchTimings,
    RenderEscalation,
    RenderPolicy,
    SourceConfig,
    SystemClock,
    headers_items,
)
from pressmark.fetch._provenance import archive_fields
from pressmark.fetch._revalidate import Validators, plain_validator_info, revalidation_base
from pressmark.fetch._robots import RobotsCache, RobotsNavigationGuard, product_token
from pressmark.render import ReadinessReport, ReadinessSpec, RenderOptions, RenderResult
from pressmark.snapshot import (
    build_source_ref,
    classify_content_type,
    new_snapshot,
    source_id_for_url,
)
from pressmark.store import MemorySnapshotStore, SnapshotRef

if TYPE_CHECKING:
    from pressmark.egress import ParsedURL
    from pressmark.snapshot import Snapshot

_FORBIDDEN_HEADERS = frozenset({
    "host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer",
    "keep-alive", "proxy-authorization", "proxy-connection",
})
_MAX_RETRIES = 10
_T = TypeVar("_T")


@functools.lru_cache(maxsize=1024)
def host_key(url: str) -> str:
    """The politeness key of a URL: the host egress dials (cached: one per page).

    An unparseable URL gets the empty key; egress refuses it before any request."""
    try:
        return parse_url(url).host
    except EgressDenied:
        return ""


def validate_source(source: SourceConfig) -> str | None:
    if not isinstance(source.url, str) or not source.url.strip():
        return "url must be a non-empty string"
    for name in ("timeout_ms", "max_response_bytes"):
        value = getattr(source, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value <= 0):
            return f"{name} must be a positive integer"
    if source.min_delay_ms is not None and (not isinstance(source.min_delay_ms, int)
                                            or source.min_delay_ms < 0):
        return "min_delay_ms must be a non-negative integer"
    if source.retries is not None and (isinstance(source.retries, bool)
                                       or not isinstance(source.retries, int)
                                       or not 0 <= source.retries <= _MAX_RETRIES):
        return f"retries must be an integer from 0 to {_MAX_RETRIES}"
    for key, value in headers_items(source.headers):
        if not key or any(c in key for c in " \t\r\n:") or "\r" in value or "\n" in value:
            return f"invalid header {key!r}"
        if key.lower() in _FORBIDDEN_HEADERS:
            return f"header {key!r} is managed by the client and may not be set"
    if source.user_agent is not None and ("\r" in source.user_agent
                                          or "\n" in source.user_agent):
        return "user_agent may not contain line breaks"
    return None


class CallState:
    """Everything one fetch_source call needs, resolved once."""

    def __init__(self, source: SourceConfig, options: FetchOptions, policy: RenderPolicy) -> None:
        self.source = source
        self.options = options
        self.policy = policy
        self.url = source.url
        self.clock = options.clock or SystemClock()
        self.user_agent = source.user_agent or options.user_agent
        self.timeout_s = (source.timeout_ms or options.timeout_ms) / 1000.0
        self.retries = options.retries if source.retries is None else source.retries
        self.max_bytes = source.max_response_bytes or options.max_response_bytes
        self.meter = Meter()
        self.warnings: list[str] = []
        self.started = self.clock.now()
        self.robots: RobotsCache | None = None
        self.client: GuardedClient | None = None
        self._source_id: str | None = source.source_id
        self._parsed: ParsedURL | None = None
        self.token = product_token(self.user_agent)
        self.origin: str | None = None   # robots.txt origin of the URL, once it was checked
        self._robots_ok: set[str] = set()   # URLs robots.txt already allowed in this call
        self.render_called = False           # the renderer was invoked (at most once)

    @property
    def source_id(self) -> str:
        """The caller's, else derived from the URL browser-parsed with the fragment dropped."""
        if self._source_id is None:
            try:
                parsed = self.parsed_url()
            except EgressDenied:
                canonical = self.url
            else:
                canonical = parsed.origin + parsed.target
            self._source_id = source_id_for_url(canonical)
        return self._source_id

    def parsed_url(self) -> ParsedURL:
        """The requested URL as the egress layer parses it (parsed once per call)."""
        if self._parsed is None:
            self._parsed = parse_url(self.url)
        return self._parsed

    def result(self, *, snapshot: Snapshot | None = None, ref: SnapshotRef | None = None,
               source_ref: str | None = None, error: FetchFailure | None = None,
               warnings: tuple[str, ...] | None = None,
               escalation: RenderEscalation | None = None, not_modified: bool = False,
               http_status: int | None = None,
               readiness: ReadinessReport | None = None) -> FetchResult:
        m = self.meter
        timings = FetchTimings(
            total_ms=(self.clock.now() - self.started) * 1000.0, robots_ms=m.robots_ms,
            wait_ms=m.wait_ms, network_ms=m.network_ms, render_ms=m.render_ms,
            store_ms=m.store_ms, attempts=m.attempts)
        if warnings is None:
            warnings = tuple(self.warnings)
        return FetchResult(url=self.url, snapshot=snapshot, snapshot_ref=ref,
                           source_ref=source_ref, error=error, warnings=_dedupe(warnings),
                           render_escalation=escalation, timings=timings,
                           not_modified=not_modified, http_status=http_status,
                           readiness=readiness)

    # -- robots ---------------------------------------------------------------------------

    async def check_robots(self, url: str) -> None:
        """Raise RobotsDenied (or EgressDenied for an origin we may not reach at all)."""
        if not self.source.respect_robots or self.robots is None or url in self._robots_ok:
            return
        # Parse as the egress layer (WHATWG) does, so robots.txt judges the very URL that
        # is requested (a backslash or dot-segment spelling cannot dodge a Disallow).
        parsed = self.parsed_url() if url == self.url else parse_url(url)
        origin, url = parsed.origin, parsed.url
        if url in self._robots_ok:
            return
        started = self.clock.now()
        try:
            entry = self.robots.cached(origin)
            if entry is None:
                # A hanging robots.txt may not hold this fetch past its own budget.
                async with asyncio.timeout(self.timeout_s):
                    entry = await self.robots.entry(origin, client=self.client,
                                                    user_agent=self.user_agent)
        finally:
            self.meter.robots_ms += (self.clock.now() - started) * 1000.0
        if entry.allowed(url, self.token):
            self._robots_ok.add(url)
            if self.origin is None:
                self.origin = origin
            return
        if entry.reason.startswith("denied:"):
            code = entry.reason.partition(":")[2]
            raise EgressDenied(code, host_key(url) or None,
                               entry.detail or "the egress policy denies this host", url=url)
        if entry.reason == DnsFailure.code:
            raise DnsFailure(entry.detail or "the host does not resolve",
                             host=host_key(url) or None, url=url)
        if entry.reason == NetworkError.code:
            # robots.txt could not even be asked for (refused, reset, a proxy that is down):
            # nothing is fetched (RFC 9309, unreachable means disallow), and the page's
            # error names the network, the decisive reason, not a robots.txt rule.
            raise NetworkError(f"robots.txt unreachable: {entry.detail or 'network error'}",
                               host=host_key(url) or None, url=url)
        raise RobotsDenied(url, entry.reason)

    async def crawl_delay_s(self) -> float | None:
        delay = (self.source.min_delay_ms or 0) / 1000.0
        if self.source.respect_robots and self.robots is not None and self.origin is not None:
            site = self.robots.cached_crawl_delay(self.origin, self.token)
            if site is not None:
                delay = max(delay, site)
        return delay if delay > 0 or self.source.min_delay_ms is not None else None

    # -- plain ----------------------------------------------------------------------------

    async def plain(self, *, use_validators: bool) -> tuple[Snapshot | None, WireResponse,
                                                             Snapshot | None]:
        """(new snapshot or None for a trustworthy 304, the response, the prior snapshot)."""
        assert self.client is not None
        headers: list[tuple[str, str]] = [("accept", DEFAULT_ACCEPT),
                                          ("user-agent", self.user_agent)]
        custom = headers_items(self.source.headers)
        custom_names = {k.lower() for k, _ in custom}
        headers = [(k, v) for k, v in headers if k not in custom_names] + custom
        base: Validators | None = None
        store = self.options.store
        sent_validators = False
        if use_validators and self.source.revalidate and store is not None:
            try:
                base = await self._store_call(revalidation_base, store, self.source_id)
            except (PressmarkError, OSError) as exc:
                # No validators is a full fetch, not a failed one: say why and go on.
                code = getattr(exc, "code", None) or type(exc).__name__
                self.warnings.append(f"revalidate-skipped:store-error:{code}")
                base = None
            if base is not None:
                if base.etag:
                    headers.append(("if-none-match", base.etag))
                    sent_validators = True
                if base.last_modified:
                    headers.append(("if-modified-since", base.last_modified))
                    sent_validators = True
        hop_check: Callable[[str], Awaitable[None]] | None = (
            self.check_robots if self.source.respect_robots else None)
        robots_before = self.meter.robots_ms
        if hop_check is not None:
            await self.check_robots(self.url)   # also loads robots for the Crawl-delay
        # Downloading robots.txt is part of fetching the page: it spends the page's budget.
        robots_spent_s = (self.meter.robots_ms - robots_before) / 1000.0
        delay = await self.crawl_delay_s()
        wire = await plain_attempt(
            client=self.client, url=self.url, headers=headers, timeout_s=self.timeout_s,
            max_bytes=self.max_bytes, retries=self.retries, hop_check=hop_check,
            spent_s=robots_spent_s,
            politeness=self.options.politeness, host=host_key(self.url),
            delay_s=delay, clock=self.clock, options=self.options, meter=self.meter,
            warnings=self.warnings,
            # The stored response is the final hop's: its validators belong to that URL.
            validators_for=base.url if sent_validators and base is not None else None)
        if wire.status == 304:
            if not sent_validators or base is None:
                raise fail("http-error", "304 Not Modified to a request without validators",
                           status=304, url=wire.url)
            if not _same_resource(wire.url, base.url):
                # Only the URL the validators were stored for can confirm them (egress
                # sends them to that URL alone, so any other hop's 304 is its own idea).
                raise fail("http-error", "304 Not Modified from another URL than the one the "
                           "validators were stored for", status=304, url=wire.url)
            etag = wire.header("etag")
            if etag and base.etag and _weak(etag) != _weak(base.etag):
                raise fail("http-error", "304 Not Modified with a different ETag than the "
                           "stored snapshot", status=304, url=wire.url)
            return None, wire, base.keep
        if not 200 <= wire.status < 300:
            raise fail("http-error", f"HTTP {wire.status}", status=wire.status, url=wire.url)
        return self._wire_snapshot(wire), wire, None if base is None else base.keep

    def _wire_snapshot(self, wire: WireResponse) -> Snapshot:
        content_type_header = wire.header("content-type")
        kind = classify_content_type(content_type_header, wire.body[:1024])
        # The charset is new_snapshot's one decision (decide_charset), as for imports.
        return new_snapshot(
            source_id=self.source_id, requested_url=self.url, url=wire.url, status=wire.status,
            headers=wire.headers, body=wire.body, content_type=kind,
            **archive_fields(wire.peer_ip, wire.redirects, wire.request_headers))

    # -- rendered -------------------------------------------------------------------------

    async def rendered(self, plain: Snapshot | None = None,
                       ) -> tuple[Snapshot, ReadinessReport | None]:
        """One rendered attempt: robots once, no validators, no retry; raise AttemptFailed.

        ``plain``: the plain attempt this render replaces (``on-shell``); its validators
        ride along in ``render_info`` for the next fetch (:mod:`pressmark.fetch._revalidate`)."""
        renderer = self.options.renderer
        assert renderer is not None
        robots_before = self.meter.robots_ms
        try:
            await self.check_robots(self.url)
        except AttemptFailed:
            raise
        except Exception as exc:
            raise translate(exc, self.url) from exc
        # The hint (decision 2) is what is left of the budget once robots.txt was read.
        hint_ms = max(1, int(self.timeout_s * 1000 - (self.meter.robots_ms - robots_before)))
        guard = None
        if self.source.respect_robots and self.robots is not None:
            guard = RobotsNavigationGuard(self.robots, self.user_agent, timeout_s=self.timeout_s)
        politeness = self.options.politeness
        gate = None
        if politeness is not None:
            # The politeness slot covers the request for the page's document, not the
            # wait for readiness (no request to the host is in flight then).
            delay = await self.crawl_delay_s()
            host = host_key(self.url)
            gate = functools.partial(politeness.slot, host, delay_s=delay)
        options = RenderOptions(timeout_ms=hint_ms, user_agent=self.user_agent,
                                readiness=self.options.readiness or ReadinessSpec(),
                                max_html_bytes=self.max_bytes, navigation_guard=guard,
                                navigation_slot=gate)
        started = self.clock.now()
        try:
            self.render_called = True
            result = await renderer.render(self.url, options)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if getattr(exc, "code", None) == "robots-denied":  # a navigation hop was refused
                denied = getattr(exc, "url", None) or self.url
                raise fail("robots-denied", str(exc), code="robots-denied", url=denied) from exc
            raise fail("adapter-error", f"the renderer failed: {type(exc).__name__}: {exc}",
                       code=getattr(exc, "code", None), url=self.url) from exc
        finally:
            self.meter.render_ms += (self.clock.now() - started) * 1000.0
        status = 200 if result.status is None else result.status
        final_url = result.final_url or self.url
        if not 200 <= status < 300:
            raise fail("http-error", f"the rendered page answered HTTP {status}", status=status,
                       url=final_url)
        if not isinstance(result.html, str):
            raise fail("adapter-error", "the renderer returned no HTML string", url=self.url)
        body = result.html.encode("utf-8", "surrogatepass")
        if len(body) > self.max_bytes:
            raise fail("response-too-large", f"the rendered HTML exceeds the {self.max_bytes}"
                       "-byte limit", url=final_url)
        snapshot = new_snapshot(
            source_id=self.source_id, requested_url=self.url, url=final_url, status=status,
            headers=(), body=body, redirects=(), declared_charset="utf-8",
            charset_source="default", content_type="html", rendered=True,
            warnings=tuple(result.warnings),
            render_info=_render_info(renderer, result)
            + (() if plain is None else plain_validator_info(plain)))
        return snapshot, result.readiness

    # -- store ----------------------------------------------------------------------------

    async def _store_call(self, fn: Callable[..., _T], *args: object) -> _T:
        """Run a (synchronous) store call off the event loop, unless it is in memory.

        A thread hop costs more than a dict insert, so the in-memory store is called
        directly; any other store (files, locks, fsync) runs in ``asyncio.to_thread``.
        """
        started = self.clock.now()
        try:
            if isinstance(self.options.store, MemorySnapshotStore):
                return fn(*args)
            return await asyncio.to_thread(fn, *args)
        finally:
            self.meter.store_ms += (self.clock.now() - started) * 1000.0

    async def keep(self, snapshot: Snapshot) -> tuple[SnapshotRef | None, str]:
        store = self.options.store
        if store is None or not self.options.keep_snapshots:
            return None, build_source_ref(snapshot)
        ref = await self._store_call(store.put, snapshot)
        return ref, ref.source_ref

    def prior_ref(self, prior: Snapshot) -> SnapshotRef | None:
        """The ref of the stored snapshot a 304 confirmed (it came from the store as is,
        so its ref is computed, not looked up: ``list`` may read the whole history)."""
        if self.options.store is None:
            return None
        return SnapshotRef.of(prior)


def _same_resource(a: str, b: str) -> bool:
    """Do two URLs name one resource as egress requests it (fragment and spelling aside)?"""
    try:
        return canonical_url(parse_url(a)) == canonical_url(parse_url(b))
    except EgressDenied:
        return False


def _weak(etag: str) -> str:
    etag = etag.strip()
    return etag[2:] if etag.startswith(("W/", "w/")) else etag


def _dedupe(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def borrow_robots(call: CallState) -> None:
    """Use the shared robots cache, or make a per-call one."""
    options = call.options
    robots = options.robots
    if robots is None:
        robots = RobotsCache(policy=options.egress, resolver=options.resolver, clock=call.clock)
    else:
        robots.adopt(options.egress, options.resolver)
    call.robots = robots


def _render_info(renderer: object, result: RenderResult) -> tuple[tuple[str, str], ...]:
    """How the browser made this DOM (renderer, readiness, page state): archive metadata."""
    renderer = getattr(renderer, "wrapped", renderer)  # a caller's watch around the renderer
    info = [("renderer", type(renderer).__name__), ("final_url", result.final_url or ""),
            ("status", "" if result.status is None else str(result.status))]
    readiness = result.readiness
    if readiness is not None:
        info += [("readiness_passed", str(readiness.passed).lower()),
                 ("readiness_reason", readiness.reason),
                 ("readiness_elapsed_ms", f"{readiness.elapsed_ms:.0f}"),
                 ("readiness_samples", str(readiness.samples))]
    state = getattr(renderer, "page_state", None)
    if state is not None and dataclasses.is_dataclass(state) and not isinstance(state, type):
        for item in dataclasses.fields(state):
            info.append((f"page_state.{item.name}", _plain(getattr(state, item.name))))
    return tuple(info)


def _plain(value: object) -> str:
    if isinstance(value, frozenset | set):
        return ",".join(sorted(map(str, value)))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return json.dumps(dataclasses.asdict(value), sort_keys=True, default=str)
    return str(value)
