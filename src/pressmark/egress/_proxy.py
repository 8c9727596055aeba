"""EgressProxy: the browser's only way out, with the same policy, resolver and pin as the client.

An asyncio forward proxy on 127.0.0.1 (ephemeral port) that understands:

* absolute-form HTTP requests (``GET http://host/path HTTP/1.1``): the URL is
  parsed and checked, the request is forwarded over a pooled connection that
  was resolved, validated and pinned exactly like :class:`GuardedClient`'s, and
  the response is streamed back (redirects are the browser's to follow; each
  hop comes back through here and is checked again);
* ``CONNECT host:port`` tunnels (https, wss): the port must be allowed, the
  host is checked, resolved once, every answer validated, and the tunnel is
  opened to the first answer; TLS stays end to end, so the browser verifies
  the certificate against the host name.

Request framing is read strictly and re-framed with the proxy's own
Content-Length: both Content-Length and Transfer-Encoding, several lengths,
codings other than ``chunked``, sloppy chunk sizes, non-token header names and
bare CR/LF/NUL are refused with 400 (no request smuggling to the upstream).
When the policy names an upstream proxy, CONNECT tunnels go through it too.

With ``refuse_prefetch``, a plain-HTTP request the browser marks as speculative
(``Sec-Purpose: prefetch``) is answered ``503`` at once, without an upstream
connection (a tunnel's requests cannot be seen, so https prefetches still go out).

Every request must carry ``Proxy-Authorization: Basic`` with this instance's
random credentials (407 otherwise), so other local processes cannot use it as
an open proxy. Everything refused is appended to :attr:`EgressProxy.denied`, except
the browser's ordinary handshake: a first attempt without credentials that is then
retried with the right ones is counted in :attr:`EgressProxy.challenges` only. A
challenge never answered is recorded as a ``PROXY_AUTH`` denial when its connection
ends; wrong credentials are a denial at once.

:meth:`EgressProxy.close` cancels every request in flight (one waiting on its
upstream included) and closes every connection it accepted.

The byte-level work (strict body framing, the upstream head, relaying a response, a
tunnel's copy loop) is in :mod:`._proxy_wire`; every decision is taken here.
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import logging
import secrets
from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from pressmark.egress._connector import AsyncioConnector, Connector, GuardedOpener, pin
from pressmark.egress._errors import (
    INVALID_URL,
    EgressDenied,
    EgressTimeout,
    NetworkError,
)
from pressmark.egress._http1 import (
    MAX_HEAD_BYTES,
    Connection,
    OriginKey,
    Pool,
    ProtocolError,
    StaleConnection,
    framing_for,
)
from pressmark.egress._policy import EgressPolicy, check_url
from pressmark.egress._proxy_wire import (
    HEADER_NAME,
    READ_TIMEOUT,
    TOO_LARGE,
    close_writer,
    read_request_body,
    relay_response,
    request_framing,
    splice,
    status_line,
    target_host,
    upstream_head,
)
from pressmark.egress._resolver import Resolver, SystemResolver
from pressmark.egress._url import parse_url

logger = logging.getLogger("pressmark.egress.proxy")

MAX_DENIED_KEPT: Final = 10_000  # the newest refusals are kept in EgressProxy.denied
MAX_PENDING_CHALLENGES: Final = 32  # per connection; beyond that a 407 is a denial at once
IDLE_TIMEOUT: Final = 60.0
CONNECT_TIMEOUT: Final = 10.0
PROXY_AUTH: Final = "PROXY_AUTH"  # a denial code of the proxy only: missing or wrong secret


@dataclass(frozen=True, slots=True, kw_only=True)
class ProxyDenial:
    """One request the proxy refused. ``code`` is an EgressDenied code or ``PROXY_AUTH``."""

    code: str
    method: str
    host: str | None
    port: int | None
    reason: str | None = None


class _ClientGone(Exception):
    pass


@dataclass(slots=True)
class _Peer:
    """Per-connection state: the 407 challenges this connection has not answered yet."""

    pending: list[tuple[str, str]] = field(default_factory=list)


class EgressProxy:
    """A forward proxy for Chromium that enforces the egress policy on every request.

    ``async with EgressProxy(policy, resolver) as proxy``: pass ``proxy.server``,
    ``proxy.username`` and ``proxy.password`` to the browser.
    """

    def __init__(
        self,
        policy: EgressPolicy | None = None,
        resolver: Resolver | None = None,
        connector: Connector | None = None,
        *,
        refuse_prefetch: bool = False,
    ) -> None:
        self.policy = policy or EgressPolicy()
        self.refuse_prefetch = refuse_prefetch
        self.prefetches_refused = 0
        self.resolver = resolver or SystemResolver()
        self.connector = connector or AsyncioConnector()
        self._opener = GuardedOpener(self.policy, self.resolver, self.connector, None)
        self._pool = Pool(max_idle_per_origin=8)
        self.username = "pressmark-" + secrets.token_hex(4)
        self.password = secrets.token_urlsafe(24)
        self._expected = "Basic " + base64.b64encode(
            f"{self.username}:{self.password}".encode()
        ).decode("ascii")
        self.denied: list[ProxyDenial] = []
        self.challenges = 0  # 407s answered by a retry with the right credentials
        self._unanswered: Counter[tuple[str, str]] = Counter()
        self.forwarded = 0
        self.tunnels = 0
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._closing = False
        self.port = 0

    @property
    def server(self) -> str:
        if self._server is None:
            raise RuntimeError("the proxy is not started")
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        if self._server is not None:
            return
        self._closing = False
        self._server = await asyncio.start_server(
            self._handle, "127.0.0.1", 0, limit=MAX_HEAD_BYTES + 1024
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        """Stop accepting, cancel every request in flight and close every connection."""
        self._closing = True
        server, self._server = self._server, None
        if server is not None:
            server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        for writer in list(self._writers):  # accepted, but its handler never ran
            await close_writer(writer)
        self._writers.clear()
        if server is not None:
            await server.wait_closed()
        self._pool.close()

    async def __aenter__(self) -> EgressProxy:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def _deny(
        self, code: str, method: str, host: str | None, port: int | None, reason: str | None
    ) -> None:
        if len(self.denied) >= MAX_DENIED_KEPT:  # unauthenticated peers must not grow it forever
            del self.denied[: MAX_DENIED_KEPT // 2]
        self.denied.append(
            ProxyDenial(code=code, method=method, host=host, port=port, reason=reason)
        )

    # -- connection handling -------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._closing:  # accepted just before close(): nothing is served after it
            await close_writer(writer)
            return
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        self._writers.add(writer)
        peer = _Peer()
        try:
            while True:
                try:
                    async with asyncio.timeout(IDLE_TIMEOUT):
                        head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
                    return
                keep = await self._request(head, reader, writer, peer)
                if not keep:
                    return
        except (ConnectionError, _ClientGone, asyncio.CancelledError):
            return
        except Exception:  # a malformed request from the browser ends its connection, nothing else
            logger.debug("proxy connection ended by an error", exc_info=True)
            return
        finally:
            self._settle(peer)
            if task is not None:
                self._tasks.discard(task)
            self._writers.discard(writer)
            await close_writer(writer)

    def _challenge(self, peer: _Peer, method: str, target: str) -> None:
        if len(peer.pending) >= MAX_PENDING_CHALLENGES:  # a peer that never authenticates
            self._deny(PROXY_AUTH, method, target_host(method, target), None,
                       "no proxy credentials")
            return
        key = (method, target)
        peer.pending.append(key)
        self._unanswered[key] += 1

    def _answered(self, method: str, target: str) -> None:
        """An authenticated request: it answers an earlier challenge for the same target
        (Chromium retries on the same connection, or on another one)."""
        key = (method, target)
        if self._unanswered[key] > 0:
            self._unanswered[key] -= 1
            if not self._unanswered[key]:
                del self._unanswered[key]
            self.challenges += 1

    def _settle(self, peer: _Peer) -> None:
        """A connection ended: its challenges nobody answered are refusals after all."""
        for method, target in peer.pending:
            if self._unanswered[(method, target)] > 0:
                self._unanswered[(method, target)] -= 1
                if not self._unanswered[(method, target)]:
                    del self._unanswered[(method, target)]
                self._deny(PROXY_AUTH, method, target_host(method, target), None,
                           "no proxy credentials after the challenge")
        peer.pending.clear()

    async def _reply(
        self,
        writer: asyncio.StreamWriter,
        status: int,
        reason: str,
        extra: tuple[tuple[str, str], ...] = (),
        *,
        close: bool = False,
    ) -> bool:
        body = f"{status} {reason}\n".encode()
        lines = [status_line(status, reason)]
        lines += [f"{k}: {v}\r\n".encode("latin-1") for k, v in extra]
        lines.append(b"Content-Type: text/plain\r\n")
        lines.append(f"Content-Length: {len(body)}\r\n".encode())
        if close:
            lines.append(b"Connection: close\r\n")
        writer.write(b"".join(lines) + b"\r\n" + body)
        await writer.drain()
        return not close

    async def _request(
        self,
        head: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        peer: _Peer,
    ) -> bool:
        lines = head[:-4].decode("latin-1").split("\r\n")
        if any(c in line for line in lines for c in "\r\n\0"):  # bare CR/LF: request splitting
            return await self._reply(writer, 400, "Bad Request", close=True)
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            return await self._reply(writer, 400, "Bad Request", close=True)
        method, target, version = parts
        headers: list[tuple[str, str]] = []
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep or HEADER_NAME.fullmatch(name) is None:  # tokens only: no smuggling
                return await self._reply(writer, 400, "Bad Request", close=True)
            headers.append((name, value.strip()))
        auth = next((v for k, v in headers if k.lower() == "proxy-authorization"), None)
        if auth is None or not hmac.compare_digest(
            auth.encode("latin-1"), self._expected.encode("latin-1")
        ):
            if auth is None:  # the browser's first attempt: a denial only if never answered
                self._challenge(peer, method, target)
            else:
                self._deny(PROXY_AUTH, method, None, None, "wrong proxy credentials")
            keep = await self._discard_body(headers, reader)
            return await self._reply(
                writer, 407, "Proxy Authentication Required",
                (("Proxy-Authenticate", 'Basic realm="pressmark"'),), close=not keep,
            )
        self._answered(method, target)
        if method == "CONNECT":
            await self._tunnel(target, reader, writer)
            return False
        return await self._forward(method, target, version, headers, reader, writer)

    async def _discard_body(
        self, headers: list[tuple[str, str]], reader: asyncio.StreamReader
    ) -> bool:
        """Skip a refused request's body; False when the connection cannot be kept."""
        framing = request_framing(headers)
        if not isinstance(framing, int):
            return False
        try:
            await reader.readexactly(framing)
        except asyncio.IncompleteReadError:
            return False
        return True

    # -- CONNECT ---------------------------------------------------------------------------

    async def _tunnel(
        self, authority: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        host_hint, _, port_text = authority.rpartition(":")
        if not port_text.isdigit() or not host_hint or any(c in authority for c in "/?#\\@"):
            self._deny(INVALID_URL, "CONNECT", None, None, "CONNECT needs host:port")
            await self._reply(writer, 400, "Bad Request", close=True)
            return
        try:
            parsed = parse_url(f"https://{authority}/")
            check_url(parsed, self.policy)  # a tunnel is never a test-only (http) origin
            ip = await pin(parsed.host, parsed.port, self.policy, self.resolver, CONNECT_TIMEOUT)
            upstream = self.policy.upstream_proxy
            async with asyncio.timeout(CONNECT_TIMEOUT):
                if upstream is not None:  # the policy's proxy: CONNECT to the pinned IP there
                    up_reader, up_writer = await self._opener.tunnel(
                        upstream, ip, parsed.port, parsed.host, None
                    )
                else:
                    up_reader, up_writer = await self.connector.open_connection(ip, parsed.port)
        except EgressDenied as exc:
            self._deny(exc.code, "CONNECT", exc.host, None, exc.reason)
            await self._reply(
                writer, 403, "Forbidden", (("X-Pressmark-Denied", exc.code),), close=True
            )
            return
        except (TimeoutError, EgressTimeout):
            await self._reply(writer, 504, "Gateway Timeout", close=True)
            return
        except (OSError, NetworkError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            await self._reply(writer, 502, "Bad Gateway", close=True)
            return
        self.tunnels += 1
        writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        try:
            await writer.drain()
            await splice(reader, writer, up_reader, up_writer)
        finally:
            up_writer.close()

    # -- absolute-form HTTP ------------------------------------------------------------------

    async def _forward(  # noqa: PLR0917  # private; one call site
        self,
        method: str,
        target: str,
        version: str,
        headers: list[tuple[str, str]],
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        if not target.lower().startswith("http://"):
            self._deny(INVALID_URL, method, None, None, "proxy requests must be absolute http URLs")
            return await self._reply(writer, 400, "Bad Request", close=True)
        try:
            parsed = parse_url(target)
            check_url(parsed, self.policy)
        except EgressDenied as exc:
            self._deny(exc.code, method, exc.host, None, exc.reason)
            keep = await self._discard_body(headers, reader)
            return await self._reply(
                writer, 403, "Forbidden", (("X-Pressmark-Denied", exc.code),), close=not keep
            )
        if self.refuse_prefetch and any(
                k.lower() in ("sec-purpose", "purpose") and "prefetch" in v.lower()
                for k, v in headers):
            # A speculative load never changes a rendered page's text: answered here (after
            # the policy, so a denied one is still recorded), with no upstream connection,
            # and not stored (the page's own request, if it comes, goes out then).
            self.prefetches_refused += 1
            keep = await self._discard_body(headers, reader)
            return await self._reply(writer, 503, "Prefetch Refused",
                                     (("Cache-Control", "no-store"),), close=not keep)
        body = await read_request_body(headers, reader)
        if body == TOO_LARGE:
            return await self._reply(writer, 413, "Request Entity Too Large", close=True)
        if not isinstance(body, bytes):
            self._deny(INVALID_URL, method, parsed.host, parsed.port, "ambiguous request framing")
            return await self._reply(writer, 400, "Bad Request", close=True)
        request_head = upstream_head(method, parsed, headers, len(body))
        client_keep = "close" not in ",".join(
            v.lower() for k, v in headers if k.lower() in ("connection", "proxy-connection")
        ) and version == "HTTP/1.1"
        key = (parsed.scheme, parsed.host, parsed.port)
        try:
            conn, status, reason, resp_headers = await self._upstream(key, request_head, body)
            try:
                framing, length, upstream_keep = framing_for(
                    status, "HTTP/1.1", resp_headers, head_request=method == "HEAD"
                )
            except ProtocolError:
                conn.close()
                raise
        except EgressDenied as exc:
            self._deny(exc.code, method, exc.host, parsed.port, exc.reason)
            return await self._reply(writer, 403, "Forbidden", (("X-Pressmark-Denied", exc.code),))
        except (TimeoutError, EgressTimeout):
            return await self._reply(writer, 504, "Gateway Timeout")
        except (OSError, NetworkError, ProtocolError, asyncio.IncompleteReadError):
            return await self._reply(writer, 502, "Bad Gateway")
        if not upstream_keep:
            conn.reusable = False
        self.forwarded += 1
        return await relay_response(conn, status, reason, resp_headers, framing, length,
                                    writer, client_keep=client_keep, pool=self._pool)

    async def _upstream(
        self, key: OriginKey, head: bytes, body: bytes
    ) -> tuple[Connection, int, str, list[tuple[str, str]]]:
        """Send over a pooled (or new, pinned) connection; retry once if an idle one went stale."""
        conn = self._pool.take(key)
        reused = conn is not None
        if conn is None:
            conn = await self._opener.open(key, CONNECT_TIMEOUT)
        try:
            await conn.send(head, body)
            status, reason, _, headers = await conn.read_head(READ_TIMEOUT, reused=reused)
        except StaleConnection:
            conn = await self._opener.open(key, CONNECT_TIMEOUT)
            try:
                await conn.send(head, body)
                status, reason, _, headers = await conn.read_head(READ_TIMEOUT, reused=False)
            except BaseException:
                conn.close()
                raise
        except BaseException:
            conn.close()
            raise
        return conn, status, reason, headers

