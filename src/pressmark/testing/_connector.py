"""RecordingConnector: a connector that records every dial and refuses non-loopback ones.

Pass it as ``GuardedClient(connector=...)`` or ``EgressProxy(connector=...)`` to
prove where pressmark would have connected without sending a packet off the
machine: ``dials`` lists every ``(ip, port)`` asked for, in order; a dial to an
address outside ``127.0.0.0/8`` and ``::1`` raises ``ConnectionRefusedError``
instead of opening a socket (so the client reports a ``NetworkError``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import ssl as _ssl
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pressmark.egress._connector import Connector


def _is_loopback(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        return address == ipaddress.IPv6Address("::1")
    return address.is_loopback


class RecordingConnector:
    """Records ``(ip, port)`` for every dial; only loopback dials reach ``inner``."""

    def __init__(self, inner: Connector | None = None) -> None:
        if inner is None:
            from pressmark.egress._connector import AsyncioConnector  # noqa: PLC0415  # lazy

            inner = AsyncioConnector()
        self._inner: Connector = inner
        self.dials: list[tuple[str, int]] = []
        self.refused: list[tuple[str, int]] = []
        self.tls_names: list[str | None] = []

    @property
    def dialled_ips(self) -> list[str]:
        return [ip for ip, _ in self.dials]

    async def open_connection(
        self,
        ip: str,
        port: int,
        *,
        ssl: _ssl.SSLContext | None = None,
        server_hostname: str | None = None,
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        self.dials.append((ip, port))
        self.tls_names.append(server_hostname if ssl is not None else None)
        if not _is_loopback(ip):
            self.refused.append((ip, port))
            raise ConnectionRefusedError(
                f"RecordingConnector refused to dial non-loopback {ip}:{port}"
            )
        return await self._inner.open_connection(
            ip, port, ssl=ssl, server_hostname=server_hostname
        )

    def __repr__(self) -> str:
        return f"RecordingConnector(dials={self.dials!r})"
