"""The response a GuardedClient hands back: headers now, a capped, decoded body on demand."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pressmark.egress._decode import DecodeError, Decoder, decoders_for, run_chain
from pressmark.egress._errors import EgressDenied, EgressTimeout, NetworkError, ResponseTooLarge
from pressmark.egress._http1 import ProtocolError, StaleConnection

if TYPE_CHECKING:
    from collections.abc import Iterator

    from pressmark.egress._http1 import BodyStream

# A body may expand this many times over the bytes received once it has
# produced more than RATIO_FLOOR bytes; beyond that it is treated as a bomb.
MAX_RATIO: Final = 200
RATIO_FLOOR: Final = 2 * 1024 * 1024


def map_transport_error(exc: Exception, host: str | None) -> Exception:
    """Translate OS, TLS and framing errors; messages name the host and the kind only."""
    if isinstance(exc, NetworkError | EgressDenied | ResponseTooLarge):
        return exc
    if isinstance(exc, TimeoutError):
        return EgressTimeout(f"timed out talking to {host}", host=host)
    if isinstance(exc, ssl.SSLError):
        return NetworkError(f"TLS error talking to {host}", host=host)
    if isinstance(exc, ProtocolError):
        return NetworkError(f"HTTP protocol error from {host}: {exc}", host=host)
    if isinstance(exc, OSError | asyncio.IncompleteReadError | StaleConnection):
        return NetworkError(f"connection to {host} failed ({type(exc).__name__})", host=host)
    return exc



@dataclass(frozen=True, slots=True)
class RedirectHop:
    """One redirect followed: ``url`` answered ``status`` with ``location``, served by ``ip``.

    ``at`` is the wall-clock time (epoch seconds) its response head arrived: an archive
    gives every hop its own date.
    """

    status: int
    location: str
    url: str
    ip: str
    at: float = 0.0


class GuardedResponse:
    """Status and headers of the final hop; the body is streamed, decoded and capped.

    ``headers`` keeps wire order with names lower-cased. ``content`` is only
    available after :meth:`read` (``get()`` reads for you).
    """

    __slots__ = (
        "_closed",
        "_content",
        "_host_name",
        "_max_body",
        "_on_close",
        "_raw",
        "headers",
        "http_version",
        "peer_ip",
        "reason",
        "redirects",
        "request_headers",
        "status",
        "url",
    )

    def __init__(
        self,
        *,
        raw: BodyStream | None,
        status: int,
        headers: tuple[tuple[str, str], ...],
        url: str,
        redirects: tuple[RedirectHop, ...],
        peer_ip: str,
        max_body_bytes: int | None,
        on_close: Callable[[], None] | None = None,
        host: str = "",
        reason: str = "",
        http_version: str = "HTTP/1.1",
        request_headers: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self._raw = raw
        self.status = status
        self.headers = headers
        self.url = url
        self.redirects = redirects
        self.peer_ip = peer_ip
        self.reason = reason
        self.http_version = http_version
        # What was sent for the final hop (without Host): archives record the request.
        self.request_headers = request_headers
        self._max_body = max_body_bytes
        self._on_close = on_close
        self._host_name = host
        self._content: bytes | None = None
        self._closed = False

    def header(self, name: str) -> str | None:
        """All values of header ``name`` joined with ``", "``, or ``None``."""
        key = name.lower()
        values = [v for k, v in self.headers if k == key]
        if not values:
            return None
        return values[0] if len(values) == 1 else ", ".join(values)

    @property
    def content(self) -> bytes:
        if self._content is None:
            raise RuntimeError("the body has not been read; call `await response.read()` first")
        return self._content

    async def read(self) -> bytes:
        if self._content is None:
            self._content = b"".join([chunk async for chunk in self.aiter_bytes()])
        return self._content

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """Yield the decoded body; raises :class:`ResponseTooLarge` past the cap or for a bomb."""
        if self._content is not None:
            if self._content:
                yield self._content
            return
        if self._raw is None or self._closed:
            raise RuntimeError("the response is closed")
        limit = self._max_body
        chain = decoders_for(self.header("content-encoding"))
        received = 0
        produced = 0
        stream = self._raw
        try:
            while True:
                try:
                    chunk = await anext(stream, None)  # reads honour the read and total deadlines
                except Exception as exc:
                    mapped = self._map(exc)
                    if mapped is exc:
                        raise
                    raise mapped from exc
                if chunk is None:
                    break
                received += len(chunk)
                if chain is None:
                    produced += len(chunk)
                    if limit is not None and produced > limit:
                        raise self._too_large(limit)
                    yield chunk
                    continue
                for piece in self._decode(chain, chunk, final=False):
                    produced += len(piece)
                    self._check(produced, received, limit)
                    yield piece
            if chain is not None:
                for piece in self._decode(chain, b"", final=True):
                    produced += len(piece)
                    self._check(produced, received, limit)
                    yield piece
        finally:
            await self.aclose()

    def _decode(self, chain: list[Decoder], data: bytes, *, final: bool) -> Iterator[bytes]:
        try:
            yield from run_chain(chain, data, final=final)
        except DecodeError as exc:
            raise NetworkError(
                f"body from {self._host()} does not decode as its Content-Encoding says",
                host=self._host(),
            ) from exc

    def _check(self, produced: int, received: int, limit: int | None) -> None:
        if limit is not None and produced > limit:
            raise self._too_large(limit)
        if produced > RATIO_FLOOR and produced > MAX_RATIO * max(received, 1):
            raise ResponseTooLarge(
                f"body from {self._host()} expands over {MAX_RATIO}x: refusing a compression bomb",
                host=self._host(),
                limit=limit,
            )

    def _too_large(self, limit: int) -> ResponseTooLarge:
        return ResponseTooLarge(
            f"body from {self._host()} exceeds {limit} bytes", host=self._host(), limit=limit
        )

    def _host(self) -> str:
        return self._host_name

    def _map(self, exc: Exception) -> Exception:
        return map_transport_error(exc, self._host_name)

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self._raw is not None:
                await self._raw.aclose()  # an unfinished body closes its connection
        finally:
            if self._on_close is not None:
                self._on_close()

    def __repr__(self) -> str:
        return f"<GuardedResponse [{self.status}] {self._host()}>"
