"""The connector seam, and the guarded opener that is the only caller of it.

A *connector* is the single object that opens TCP connections::

    class Connector(Protocol):
        async def open_connection(self, ip: str, port: int, *, ssl: SSLContext | None = None,
                                  server_hostname: str | None = None
                                  ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]

It is only ever called with an IP literal that has already been validated.
For https, TLS is layered over that TCP stream with ``server_hostname`` set to
the *name* from the URL, so SNI and certificate verification use the name,
never the IP. :class:`AsyncioConnector` is the default;
:class:`pressmark.testing.RecordingConnector` records dials and refuses
non-loopback ones.

:class:`GuardedOpener` is what the client's pool calls for every new
connection: it resolves the origin's host once through the resolver seam,
validates every answer (one denied answer denies the host), dials the first
and returns a connection tagged with the IP it is pinned to. The pool keys
connections by origin, so a connection is never reused for another host, and
a rebinding answer can only reach a new connection, which is validated again.
When the policy names an upstream proxy, the opener still resolves and
validates locally and asks the proxy for ``CONNECT <validated ip>:<port>``, so
the pin holds through the proxy too.
"""

from __future__ import annotations

import asyncio
import socket
import ssl as _ssl
from typing import Final, Protocol, runtime_checkable

from pressmark.egress._address import is_ip_literal
from pressmark.egress._errors import DENIED_HOST, EgressDenied, EgressTimeout, NetworkError
from pressmark.egress._http1 import MAX_HEAD_BYTES, Connection, OriginKey
from pressmark.egress._policy import (
    LOCALHOST_ADDRESSES,
    EgressPolicy,
    UpstreamProxy,
    check_addresses,
    host_name_denial,
    is_test_localhost,
    normalise_answer,
    resolve_checked,
)
from pressmark.egress._resolver import Resolver

STREAM_LIMIT: Final = MAX_HEAD_BYTES + 1024


@runtime_checkable
class Connector(Protocol):
    """Opens a TCP connection to an already validated IP literal (see the module docstring)."""

    async def open_connection(
        self,
        ip: str,
        port: int,
        *,
        ssl: _ssl.SSLContext | None = None,
        server_hostname: str | None = None,
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]: ...


class AsyncioConnector:
    """``asyncio.open_connection`` to the IP; TLS (if any) verifies ``server_hostname``."""

    async def open_connection(
        self,
        ip: str,
        port: int,
        *,
        ssl: _ssl.SSLContext | None = None,
        server_hostname: str | None = None,
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        # AI_NUMERICHOST: the socket layer must never resolve a name on its own,
        # even if something other than a vetted literal reached this point.
        return await asyncio.open_connection(
            ip, port, ssl=ssl, server_hostname=server_hostname if ssl else None,
            limit=STREAM_LIMIT, flags=socket.AI_NUMERICHOST,
        )

    def __repr__(self) -> str:
        return "AsyncioConnector()"


async def pin(
    host: str,
    port: int,
    policy: EgressPolicy,
    resolver: Resolver,
    timeout: float | None,  # noqa: ASYNC109  # the connect deadline also bounds resolution
    *,
    scheme: str = "",
) -> str:
    """Resolve ``host`` once, validate every answer, return the one address to dial.

    ``scheme`` is the URL's (``"http"`` lets a test-only loopback origin through);
    a CONNECT tunnel passes none.
    """
    if is_ip_literal(host):
        if policy.guarded:
            check_addresses(host, (host,), port, policy, scheme=scheme)
        else:
            policy.warn_unguarded(host)
        return host
    if policy.guarded:
        reason = host_name_denial(host)
        if reason is not None:
            raise EgressDenied(DENIED_HOST, host, f"host {host} is denied: {reason}", reason=reason)
    else:
        policy.warn_unguarded(host)
    try:
        async with asyncio.timeout(timeout):
            answers = await resolve_checked(host, port, policy, resolver)
    except TimeoutError as exc:
        raise EgressTimeout(f"resolving {host} timed out", host=host) from exc
    return answers[0]


class GuardedOpener:
    """Opens pinned connections: resolve once, validate all, dial one, keep the name for TLS."""

    __slots__ = ("_connector", "_policy", "_resolver", "_ssl_context")

    def __init__(
        self,
        policy: EgressPolicy,
        resolver: Resolver,
        connector: Connector,
        ssl_context: _ssl.SSLContext | None,
    ) -> None:
        self._policy = policy
        self._resolver = resolver
        self._connector = connector
        self._ssl_context = ssl_context

    def _tls(self) -> _ssl.SSLContext:
        if self._ssl_context is None:
            self._ssl_context = default_ssl_context()
        return self._ssl_context

    async def open(
        self, key: OriginKey, timeout: float | None  # noqa: ASYNC109  # connect deadline
    ) -> Connection:
        scheme, host, port = key
        if is_test_localhost(scheme, host, port, self._policy):
            # A test server on localhost may listen on either loopback family only.
            *first, last = LOCALHOST_ADDRESSES
            for ip in first:
                try:
                    return await self._dial(key, ip, None, timeout)
                except NetworkError as exc:
                    if isinstance(exc, EgressTimeout):
                        raise
            return await self._dial(key, last, None, timeout)
        ip = await pin(host, port, self._policy, self._resolver, timeout, scheme=scheme)
        tls = self._tls() if scheme == "https" else None
        return await self._dial(key, ip, tls, timeout)

    async def _dial(
        self, key: OriginKey, ip: str, tls: _ssl.SSLContext | None,
        timeout: float | None,  # noqa: ASYNC109  # connect deadline
    ) -> Connection:
        """Connect to the vetted ``ip`` (through the policy's proxy, if any)."""
        _, host, port = key
        upstream = self._policy.upstream_proxy
        try:
            async with asyncio.timeout(timeout):
                if upstream is not None:
                    reader, writer = await self.tunnel(upstream, ip, port, host, tls)
                else:
                    reader, writer = await self._connector.open_connection(
                        ip, port, ssl=tls, server_hostname=host if tls else None
                    )
        except TimeoutError as exc:
            raise EgressTimeout(f"connecting to {host} timed out", host=host) from exc
        except _ssl.SSLError as exc:
            raise NetworkError(f"TLS error talking to {host}", host=host) from exc
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
            raise NetworkError(f"could not connect to {host}", host=host) from exc
        return Connection(reader, writer, key, ip)

    async def tunnel(
        self, upstream: UpstreamProxy, ip: str, port: int, host: str, tls: _ssl.SSLContext | None
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """CONNECT to the pinned IP through the policy's proxy; TLS (if any) inside the tunnel.

        Also used by :class:`EgressProxy` for the browser's CONNECT tunnels, so a
        policy that names an upstream proxy is honoured on every path out.
        """
        proxy_ip = upstream.host
        where = f"the proxy {upstream.host}:{upstream.port}"
        if not is_ip_literal(proxy_ip):
            try:
                answers = [normalise_answer(a) for a in await self._resolver.resolve(proxy_ip)]
            except Exception as exc:  # the proxy's own name: configuration, not the target
                raise NetworkError(f"{where} does not resolve", host=host) from exc
            if not answers or answers[0] is None:
                raise NetworkError(f"{where} does not resolve", host=host)
            proxy_ip = answers[0]
        try:
            reader, writer = await self._connector.open_connection(proxy_ip, upstream.port)
        except OSError as exc:
            raise NetworkError(f"could not connect to {where} (for {host})", host=host) from exc
        authority = f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"
        lines = [f"CONNECT {authority} HTTP/1.1", f"Host: {authority}"]
        if upstream.authorization:
            lines.append(f"Proxy-Authorization: {upstream.authorization}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            status_line = head.split(b"\r\n", 1)[0].split(b" ")
            if len(status_line) < 2 or status_line[1] != b"200":
                answer = b" ".join(status_line[1:3]).decode("latin-1", "replace")[:60]
                raise NetworkError(f"{where} refused the tunnel to {host} ({answer})",
                                   host=host)
            if tls is not None:
                await writer.start_tls(tls, server_hostname=host)
        except BaseException:
            writer.close()
            raise
        return reader, writer


def default_ssl_context() -> _ssl.SSLContext:
    """System trust store plus certifi when installed; hostname checking on."""
    context = _ssl.create_default_context()
    try:
        import certifi  # noqa: PLC0415  # optional extra roots

        context.load_verify_locations(certifi.where())
    except ImportError:  # pragma: no cover
        pass
    return context
