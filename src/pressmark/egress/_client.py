"""GuardedClient: an HTTP client whose every connection goes through the guarded opener.

Redirects are followed here, never by the transport: each hop is parsed,
checked, passed to ``hop_check`` and sent through the same pool, whose opener
resolves, validates and pins again for any new connection. Proxy environment
variables are never read.
"""

from __future__ import annotations

import asyncio
import re
import ssl
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Final

from pressmark._version import __version__
from pressmark.egress._canonical import canonical_url
from pressmark.egress._connector import AsyncioConnector, Connector, GuardedOpener
from pressmark.egress._errors import (
    REDIRECT_CROSS_HOST,
    REDIRECT_DOWNGRADE,
    TOO_MANY_REDIRECTS,
    EgressDenied,
    EgressTimeout,
    ResponseTooLarge,
)
from pressmark.egress._http1 import (
    BodyStream,
    Connection,
    Pool,
    ProtocolError,
    StaleConnection,
    framing_for,
)
from pressmark.egress._policy import EgressPolicy, Timeout, check_url
from pressmark.egress._resolver import Resolver, SystemResolver
from pressmark.egress._response import GuardedResponse, RedirectHop, map_transport_error
from pressmark.egress._url import ParsedURL, join_url, parse_url

HeadersArg = Mapping[str, str] | Sequence[tuple[str, str]] | None
HopCheck = Callable[[str], Awaitable[None]]

DEFAULT_MAX_BODY_BYTES: Final = 64 * 1024 * 1024
REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})
_REDIRECT_DRAIN: Final = 64 * 1024  # redirect bodies up to this size are drained for reuse
_CREDENTIAL_HEADERS: Final = frozenset({"authorization", "cookie", "proxy-authorization"})
# Validators describe the stored response of one URL (``validators_for``, by default the
# one requested): any other hop is another resource, and an If-None-Match sent there would
# hand our stored ETag (which a page author may have chosen) to whatever host a redirect
# names, and could earn a 304 that says nothing about the URL the validators belong to.
_CONDITIONAL_HEADERS: Final = frozenset(
    {"if-none-match", "if-modified-since", "if-match", "if-unmodified-since", "if-range"}
)
_SKIP_HEADERS: Final = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te"}
)
# CR, LF, NUL, or anything Latin-1 cannot encode (every code point above U+00FF).
_BAD_HEADER_VALUE: Final = re.compile(r"[\r\n\x00]|[^\x00-\xff]")
_HEADER_NAME: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


class _Limiter:
    """At most ``total`` requests in flight, and ``per_host`` per origin; idle entries vanish."""

    __slots__ = ("_per_host", "_slots", "_total")

    def __init__(self, total: int, per_host: int) -> None:
        self._total = asyncio.Semaphore(total) if total > 0 else None
        self._per_host = per_host
        self._slots: dict[str, tuple[asyncio.Semaphore, list[int]]] = {}

    async def acquire(self, key: str) -> Callable[[], None]:
        entry = self._slots.get(key)
        if entry is None:
            entry = (asyncio.Semaphore(self._per_host), [0])
            self._slots[key] = entry
        semaphore, users = entry
        users[0] += 1
        try:
            await semaphore.acquire()
        except BaseException:
            self._leave(key, entry)
            raise
        total = self._total
        if total is not None:
            try:
                await total.acquire()
            except BaseException:
                semaphore.release()
                self._leave(key, entry)
                raise
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                if total is not None:
                    total.release()
                semaphore.release()
                self._leave(key, entry)

        return release

    def _leave(self, key: str, entry: tuple[asyncio.Semaphore, list[int]]) -> None:
        entry[1][0] -= 1
        if entry[1][0] == 0 and self._slots.get(key) is entry:
            del self._slots[key]


def _prepare_headers(headers: HeadersArg, user_agent: str) -> list[tuple[str, str]]:
    items = list(headers.items() if isinstance(headers, Mapping) else (headers or ()))
    out: list[tuple[str, str]] = []
    seen_ua = seen_ae = False
    for name, value in items:
        if _HEADER_NAME.fullmatch(name) is None:  # "Host:x" or "Host " would smuggle a header
            raise ValueError("header names must be HTTP tokens")
        if _BAD_HEADER_VALUE.search(value) is not None:
            raise ValueError("header values must be Latin-1 without CR, LF or NUL")
        low = name.lower()
        if low in _SKIP_HEADERS:
            continue
        seen_ua = seen_ua or low == "user-agent"
        seen_ae = seen_ae or low == "accept-encoding"
        out.append((name, value))
    if not seen_ua:
        out.append(("User-Agent", user_agent))
    if not seen_ae:
        out.append(("Accept-Encoding", "gzip, deflate, br, zstd"))
    return out


def _location_text(raw: str) -> str:
    """A Location value as a browser reads it: UTF-8 when the bytes are UTF-8, else Latin-1."""
    if raw.isascii():
        return raw
    try:
        return raw.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return raw


def _hop_headers(
    headers: list[tuple[str, str]], *, credentials: bool, conditional: bool
) -> list[tuple[str, str]]:
    """The headers one hop sends: credentials only to the first origin, validators only
    to the URL they were stored for (see ``_CONDITIONAL_HEADERS``)."""
    if credentials and conditional:
        return headers
    return [
        (name, value) for name, value in headers
        if (credentials or name.lower() not in _CREDENTIAL_HEADERS)
        and (conditional or name.lower() not in _CONDITIONAL_HEADERS)
    ]


def _request_head(parsed: ParsedURL, headers: list[tuple[str, str]]) -> bytes:
    lines = [f"GET {parsed.target} HTTP/1.1", f"Host: {parsed.authority}"]
    lines.extend(f"{name}: {value}" for name, value in headers)
    lines.append("\r\n")
    return "\r\n".join(lines).encode("latin-1")


class GuardedClient:
    """An async HTTP/1.1 client that can only reach what the egress policy allows.

    Use as ``async with GuardedClient(policy, resolver) as client``; share one
    per crawl so connections are reused (per origin, never across hosts).
    ``connector`` is the TCP seam (see :mod:`pressmark.egress._connector`).
    """

    def __init__(
        self,
        policy: EgressPolicy | None = None,
        resolver: Resolver | None = None,
        connector: Connector | None = None,
        *,
        max_connections: int = 100,
        max_connections_per_host: int = 16,
        user_agent: str | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        ssl_context: ssl.SSLContext | None = None,
        keepalive_expiry: float = 30.0,
    ) -> None:
        self.policy = policy or EgressPolicy()
        self.resolver = resolver or SystemResolver()
        self.connector = connector or AsyncioConnector()
        self._opener = GuardedOpener(self.policy, self.resolver, self.connector, ssl_context)
        self._pool = Pool(
            max_idle_per_origin=max_connections_per_host,
            max_idle=max_connections,
            keepalive_expiry=keepalive_expiry,
        )
        self._limiter: _Limiter | None = None
        self._limits = (max_connections, max_connections_per_host)
        self._user_agent = user_agent or f"pressmark/{__version__}"
        self._max_body = max_body_bytes
        self._closed = False

    async def __aenter__(self) -> GuardedClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        self._closed = True
        self._pool.close()

    async def get(
        self,
        url: str,
        *,
        headers: HeadersArg = None,
        timeout: Timeout | float | None = None,  # noqa: ASYNC109  # deadlines span hops and body
        max_body_bytes: int | None = None,
        hop_check: HopCheck | None = None,
        validators_for: str | None = None,
    ) -> GuardedResponse:
        """Fetch ``url`` following redirects; the body is read, decoded and capped.

        Conditional headers (``If-None-Match``, ``If-Modified-Since``, ...) are sent only
        on the hop whose URL is ``validators_for`` (default: ``url``), the URL whose stored
        response they describe; credentials only to ``url``'s origin.
        """
        response = await self._open(url, headers, timeout, max_body_bytes, hop_check,
                                    validators_for)
        try:
            await response.read()
        finally:
            await response.aclose()
        return response

    def stream(
        self,
        url: str,
        *,
        headers: HeadersArg = None,
        timeout: Timeout | float | None = None,
        max_body_bytes: int | None = None,
        hop_check: HopCheck | None = None,
        validators_for: str | None = None,
    ) -> _StreamContext:
        """Like :meth:`get`, but the body is not read: ``async with client.stream(url) as r``."""
        return _StreamContext(self, url, headers, timeout, max_body_bytes, hop_check,
                              validators_for)

    async def _open(  # noqa: PLR0917  # private; mirrors stream()
        self,
        url: str,
        headers: HeadersArg,
        timeout: Timeout | float | None,  # noqa: ASYNC109  # see get()
        max_body_bytes: int | None,
        hop_check: HopCheck | None,
        validators_for: str | None = None,
    ) -> GuardedResponse:
        if self._closed:
            raise RuntimeError("the client is closed")
        limits = Timeout.coerce(timeout)
        cap = self._max_body if max_body_bytes is None else max_body_bytes
        parsed = parse_url(url)
        try:
            check_url(parsed, self.policy)
        except EgressDenied as exc:
            exc.url = exc.url or parsed.url
            raise
        prepared = _prepare_headers(headers, self._user_agent)
        try:
            conditional_url = canonical_url(
                parsed if validators_for is None else parse_url(validators_for))
        except EgressDenied:
            conditional_url = None  # an unparseable URL is no hop's: no validators are sent
        if limits.total is None:
            return await self._follow(parsed, prepared, limits, cap, None, hop_check,
                                      conditional_url)
        deadline = asyncio.get_running_loop().time() + limits.total
        try:
            async with asyncio.timeout_at(deadline):
                return await self._follow(parsed, prepared, limits, cap, deadline, hop_check,
                                          conditional_url)
        except TimeoutError as exc:
            raise EgressTimeout(
                f"total deadline passed fetching from {parsed.host}", host=parsed.host, url=url
            ) from exc

    async def _connection(self, parsed: ParsedURL, limits: Timeout) -> tuple[Connection, bool]:
        key = (parsed.scheme, parsed.host, parsed.port)
        conn = self._pool.take(key)
        if conn is not None:
            return conn, True
        return await self._opener.open(key, limits.connect), False

    async def _exchange(
        self, parsed: ParsedURL, head: bytes, limits: Timeout
    ) -> tuple[Connection, int, str, str, list[tuple[str, str]]]:
        conn, reused = await self._connection(parsed, limits)
        try:
            await conn.send(head)
            status, reason, version, headers = await conn.read_head(limits.read, reused=reused)
        except StaleConnection:
            key = (parsed.scheme, parsed.host, parsed.port)
            conn = await self._opener.open(key, limits.connect)
            try:
                await conn.send(head)
                status, reason, version, headers = await conn.read_head(limits.read, reused=False)
            except BaseException:
                conn.close()
                raise
        except BaseException:
            conn.close()
            raise
        return conn, status, reason, version, headers

    async def _follow(  # noqa: PLR0917  # private; one call site
        self,
        parsed: ParsedURL,
        headers: list[tuple[str, str]],
        limits: Timeout,
        cap: int,
        deadline: float | None,
        hop_check: HopCheck | None,
        conditional_url: str | None,
    ) -> GuardedResponse:
        if self._limiter is None:
            self._limiter = _Limiter(*self._limits)
        first_origin = parsed.origin
        hops: list[RedirectHop] = []
        pool_put = self._pool.put
        while True:
            if hop_check is not None:
                await hop_check(parsed.url)
            host = parsed.host
            # Credentials go to the origin they were given for, never to another one
            # (a redirect to another host, port or scheme), as browsers do.
            sent = _hop_headers(headers, credentials=parsed.origin == first_origin,
                                conditional=canonical_url(parsed) == conditional_url)
            head = _request_head(parsed, sent)
            release = await self._limiter.acquire(parsed.origin)
            try:
                conn, status, reason, version, resp_headers = await self._exchange(
                    parsed, head, limits
                )
                try:
                    framing, length, keep_alive = framing_for(status, version, resp_headers)
                except ProtocolError:
                    conn.close()
                    raise
            except Exception as exc:
                release()
                if isinstance(exc, EgressDenied):
                    exc.url = parsed.url
                    exc.hops = tuple(hops)
                    raise
                mapped = map_transport_error(exc, host)
                if mapped is exc:
                    raise
                raise mapped from exc
            except BaseException:
                release()
                raise
            at = time.time()  # when this hop answered (its archive record's date)
            if not keep_alive:
                conn.reusable = False
            body = conn.body(
                framing, length, timeout=limits.read, deadline=deadline, on_done=pool_put
            )
            location = None
            if status in REDIRECT_STATUSES:
                for k, v in resp_headers:
                    if k == "location":
                        location = v
                        break
            if location is None:
                response = GuardedResponse(
                    raw=body,
                    status=status,
                    headers=tuple(resp_headers),
                    url=parsed.url,
                    redirects=tuple(hops),
                    peer_ip=conn.peer_ip,
                    max_body_bytes=cap,
                    on_close=release,
                    host=host,
                    reason=reason,
                    http_version=version,
                    request_headers=tuple(sent),
                )
                if framing == "length" and length > cap:
                    await response.aclose()
                    raise ResponseTooLarge(
                        f"body from {host} declares {length} bytes, over {cap}",
                        host=host,
                        limit=cap,
                    )
                return response
            try:
                await _drain(body, framing, length)
            finally:
                release()
            hops.append(RedirectHop(status, location, parsed.url, conn.peer_ip, at))
            parsed = self._next_hop(parsed, location, hops)

    def _next_hop(self, current: ParsedURL, location: str, hops: list[RedirectHop]) -> ParsedURL:
        policy = self.policy
        host = current.host
        try:
            if len(hops) > policy.max_redirects:
                limit = policy.max_redirects
                raise EgressDenied(TOO_MANY_REDIRECTS, host, f"over {limit} redirects ({host})")
            nxt = parse_url(join_url(current, _location_text(location)))
            if nxt.fragment is None and current.fragment is not None:
                nxt = replace(nxt, fragment=current.fragment)
            if current.scheme == "https" and nxt.scheme == "http":
                raise EgressDenied(
                    REDIRECT_DOWNGRADE, nxt.host, f"https to http redirect refused ({nxt.host})"
                )
            if policy.redirects == "same-host" and nxt.host != current.host:
                raise EgressDenied(
                    REDIRECT_CROSS_HOST, nxt.host, f"cross-host redirect to {nxt.host} refused"
                )
            check_url(nxt, policy)
        except EgressDenied as exc:
            exc.hops = tuple(hops)
            if exc.url is None:
                exc.url = current.url
            raise
        return nxt


async def _drain(body: BodyStream, framing: str, length: int) -> None:
    """Read a small redirect body so the connection can be reused; close it otherwise."""
    if framing == "close" or (framing == "length" and length > _REDIRECT_DRAIN):
        await body.aclose()
        return
    received = 0
    try:
        async for chunk in body:
            received += len(chunk)
            if received > _REDIRECT_DRAIN:
                break
    except Exception:  # the body of a redirect is never used; errors just close it
        pass
    finally:
        await body.aclose()


class _StreamContext:
    __slots__ = ("_args", "_client", "_response")

    def __init__(  # noqa: PLR0917  # private; mirrors GuardedClient.stream
        self,
        client: GuardedClient,
        url: str,
        headers: HeadersArg,
        timeout: Timeout | float | None,
        max_body_bytes: int | None,
        hop_check: HopCheck | None,
        validators_for: str | None,
    ) -> None:
        self._client = client
        self._args = (url, headers, timeout, max_body_bytes, hop_check, validators_for)
        self._response: GuardedResponse | None = None

    async def __aenter__(self) -> GuardedResponse:
        self._response = await self._client._open(*self._args)
        return self._response

    async def __aexit__(self, *exc_info: object) -> None:
        if self._response is not None:
            await self._response.aclose()
