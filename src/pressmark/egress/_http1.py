"""A small, fast HTTP/1.1 client connection and a per-origin keep-alive pool.

Why not httpcore: its pool re-scans every connection (and polls every socket)
on each request, which costs more than the request itself at crawler
concurrency on loopback. This module does only what egress needs: requests
with an optional body, Content-Length / chunked / close-delimited responses,
keep-alive by origin, strict limits on header size and count. Connections are
opened by a callable supplied by the client (which resolves, validates and
pins); the pool only ever hands a connection back to the origin that opened it.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Final

MAX_HEAD_BYTES: Final = 64 * 1024
MAX_HEADERS: Final = 256
READ_SIZE: Final = 64 * 1024
_TOKEN: Final = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_BARE_CR_LF_NUL: Final = re.compile(rb"[\r\n\0]")

OriginKey = tuple[str, str, int]  # scheme, host, port


class ProtocolError(Exception):
    """The peer broke HTTP/1.1 framing (mapped to NetworkError by the client)."""


class StaleConnection(Exception):
    """A reused keep-alive connection was closed by the peer before any response byte."""


class Connection:
    """One TCP (or TLS) connection to one origin, pinned to ``peer_ip``."""

    __slots__ = ("_reader", "_writer", "idle_since", "key", "peer_ip", "reusable")

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        key: OriginKey,
        peer_ip: str,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self.key = key
        self.peer_ip = peer_ip
        self.reusable = True
        self.idle_since = 0.0

    @property
    def reader(self) -> asyncio.StreamReader:
        return self._reader

    @property
    def writer(self) -> asyncio.StreamWriter:
        return self._writer

    def is_usable(self) -> bool:
        return (
            self.reusable
            and not self._reader.at_eof()
            and self._reader.exception() is None
            and not self._writer.is_closing()
            and len(self._reader._buffer) == 0  # type: ignore[attr-defined]  # unsolicited bytes
        )

    def close(self) -> None:
        self.reusable = False
        transport = self._writer.transport
        if not transport.is_closing():
            transport.close()

    async def send(self, head: bytes, body: bytes | None = None) -> None:
        self._writer.write(head if not body else head + body)
        transport = self._writer.transport
        if transport.get_write_buffer_size() > READ_SIZE:
            await self._writer.drain()

    async def read_head(
        self, timeout: float | None, *, reused: bool  # noqa: ASYNC109  # per-read deadline
    ) -> tuple[int, str, str, list[tuple[str, str]]]:
        """Read a final (non-1xx) response head: (status, reason, version, headers)."""
        while True:
            try:
                async with asyncio.timeout(timeout):
                    raw = await self._reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError as exc:
                self.close()
                if reused and not exc.partial:
                    raise StaleConnection from exc
                raise ProtocolError("connection closed before a complete response head") from exc
            except ConnectionError as exc:
                self.close()
                if reused:  # an idle keep-alive connection the peer reset: safe to retry a GET
                    raise StaleConnection from exc
                raise
            except asyncio.LimitOverrunError as exc:
                self.close()
                raise ProtocolError("response head too large") from exc
            status, reason, version, headers = parse_head(raw)
            if 100 <= status < 200 and status != 101:
                continue
            return status, reason, version, headers

    def body(
        self,
        framing: str,
        length: int,
        *,
        timeout: float | None,  # per-read deadline
        deadline: float | None,  # loop time of the total deadline
        on_done: Callable[[Connection], None],
    ) -> BodyStream:
        return BodyStream(
            self, framing, length, timeout=timeout, deadline=deadline, on_done=on_done
        )


class BodyStream:
    """The raw (still content-encoded) body of a response; closing it early drops the connection."""

    __slots__ = ("_conn", "_empty", "_gen", "_on_done", "_started")

    def __init__(
        self,
        conn: Connection,
        framing: str,
        length: int,
        *,
        timeout: float | None,  # per-read deadline
        deadline: float | None,
        on_done: Callable[[Connection], None],
    ) -> None:
        self._conn = conn
        self._on_done = on_done
        self._gen = _body(conn, framing, length, timeout, deadline, on_done)
        self._started = False
        self._empty = framing == "none" or (framing == "length" and length == 0)

    def __aiter__(self) -> BodyStream:
        return self

    async def __anext__(self) -> bytes:
        self._started = True
        return await self._gen.__anext__()

    async def aclose(self) -> None:
        if self._started:
            await self._gen.aclose()
            return
        self._started = True
        await self._gen.aclose()  # never started: its finally will not run, so finish here
        if not self._empty:
            self._conn.close()
        self._on_done(self._conn)


def parse_head(raw: bytes) -> tuple[int, str, str, list[tuple[str, str]]]:
    lines = raw[:-4].split(b"\r\n")
    status_line = lines[0]
    parts = status_line.split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or len(parts[1]) != 3:
        raise ProtocolError("malformed status line")
    try:
        status = int(parts[1])
    except ValueError as exc:
        raise ProtocolError("malformed status code") from exc
    if not 100 <= status <= 999:
        raise ProtocolError("status code out of range")
    if len(lines) - 1 > MAX_HEADERS:
        raise ProtocolError("too many response headers")
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep or _TOKEN.fullmatch(name) is None:
            raise ProtocolError("malformed header line")
        if _BARE_CR_LF_NUL.search(value) is not None:  # would split the head when relayed
            raise ProtocolError("bare CR, LF or NUL in a header value")
        headers.append((name.decode("ascii").lower(), value.strip(b" \t").decode("latin-1")))
    reason = parts[2].decode("latin-1") if len(parts) > 2 else ""
    if _BARE_CR_LF_NUL.search(status_line) is not None:
        raise ProtocolError("bare CR, LF or NUL in the status line")
    return status, reason, parts[0].decode("ascii"), headers


def framing_for(
    status: int, version: str, headers: list[tuple[str, str]], *, head_request: bool = False
) -> tuple[str, int, bool]:
    """(framing, length, keep_alive) where framing is "none", "length", "chunked" or "close"."""
    connection = ""
    transfer = None
    lengths: list[str] = []
    for name, value in headers:
        if name == "connection":
            connection += value.lower() + ","
        elif name == "transfer-encoding":
            transfer = value.lower() if transfer is None else f"{transfer},{value.lower()}"
        elif name == "content-length":
            lengths.append(value.strip())
    keep_alive = "close" not in connection and (version != "HTTP/1.0" or "keep-alive" in connection)
    if status == 101:  # the connection now speaks another protocol: never reuse it
        return "none", 0, False
    if head_request or status in (204, 304) or 100 <= status < 200:
        return "none", 0, keep_alive
    if transfer is not None:
        if transfer.rsplit(",", 1)[-1].strip() == "chunked":
            return "chunked", 0, keep_alive
        return "close", 0, False
    if lengths:
        values = {v for item in lengths for v in item.split(",")}
        values = {v.strip() for v in values}
        if len(values) != 1:
            raise ProtocolError("conflicting Content-Length headers")
        value = values.pop()
        if not value.isdigit():
            raise ProtocolError("invalid Content-Length")
        return "length", int(value), keep_alive
    return "close", 0, False


async def _read(
    reader: asyncio.StreamReader,
    n: int,
    timeout: float | None,  # noqa: ASYNC109  # per-read deadline
    deadline: float | None,
) -> bytes:
    if reader._buffer or (timeout is None and deadline is None):  # type: ignore[attr-defined]
        return await reader.read(n)  # buffered data: no timer needed
    when = deadline
    if timeout is not None:
        when = asyncio.get_running_loop().time() + timeout
        if deadline is not None:
            when = min(when, deadline)
    async with asyncio.timeout_at(when):
        return await reader.read(n)


async def _readline(
    reader: asyncio.StreamReader,
    timeout: float | None,  # noqa: ASYNC109  # per-read deadline
    deadline: float | None,
) -> bytes:
    when = deadline
    if timeout is not None:
        when = asyncio.get_running_loop().time() + timeout
        if deadline is not None:
            when = min(when, deadline)
    try:
        async with asyncio.timeout_at(when):
            line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        raise ProtocolError("connection closed inside a chunked body") from exc
    except asyncio.LimitOverrunError as exc:
        raise ProtocolError("chunk header too long") from exc
    if len(line) > 1024:
        raise ProtocolError("chunk header too long")
    return line


async def _body(  # noqa: PLR0917  # private
    conn: Connection,
    framing: str,
    length: int,
    timeout: float | None,  # noqa: ASYNC109  # per-read deadline
    deadline: float | None,
    on_done: Callable[[Connection], None],
) -> AsyncGenerator[bytes, None]:
    reader = conn.reader
    complete = False
    try:
        if framing == "length":
            remaining = length
            while remaining:
                data = await _read(reader, min(remaining, READ_SIZE), timeout, deadline)
                if not data:
                    raise ProtocolError("connection closed before the end of the body")
                remaining -= len(data)
                yield data
        elif framing == "chunked":
            while True:
                line = await _readline(reader, timeout, deadline)
                size_text = line.split(b";", 1)[0].strip()
                if not size_text or any(c not in b"0123456789abcdefABCDEF" for c in size_text):
                    raise ProtocolError("malformed chunk size")
                size = int(size_text, 16)
                if size == 0:
                    while (await _readline(reader, timeout, deadline)).strip():
                        pass
                    break
                while size:
                    data = await _read(reader, min(size, READ_SIZE), timeout, deadline)
                    if not data:
                        raise ProtocolError("connection closed inside a chunk")
                    size -= len(data)
                    yield data
                if (await _readline(reader, timeout, deadline)).strip():
                    raise ProtocolError("missing CRLF after a chunk")
        elif framing == "close":
            conn.reusable = False
            while True:
                data = await _read(reader, READ_SIZE, timeout, deadline)
                if not data:
                    break
                yield data
        complete = True
    finally:
        if not complete:
            conn.close()
        on_done(conn)


Opener = Callable[[OriginKey, "float | None"], Awaitable[Connection]]


class Pool:
    """Idle keep-alive connections by origin; never shares a connection across origins.

    At most ``max_idle_per_origin`` idle connections per origin and ``max_idle``
    in total (the oldest idle one is closed first), so a crawl over many hosts
    does not pile up sockets.
    """

    __slots__ = ("_closed", "_expiry", "_idle", "_lru", "_max_idle", "_max_idle_per_origin")

    def __init__(
        self,
        *,
        max_idle_per_origin: int = 16,
        max_idle: int = 100,
        keepalive_expiry: float = 30.0,
    ) -> None:
        self._idle: dict[OriginKey, deque[Connection]] = {}
        self._lru: dict[Connection, None] = {}  # every idle connection, oldest first
        self._max_idle_per_origin = max_idle_per_origin
        self._max_idle = max_idle
        self._expiry = keepalive_expiry
        self._closed = False

    def take(self, key: OriginKey) -> Connection | None:
        idle = self._idle.get(key)
        if not idle:
            return None
        now = time.monotonic()
        while idle:
            conn = idle.pop()
            self._lru.pop(conn, None)
            if now - conn.idle_since < self._expiry and conn.is_usable():
                if not idle:
                    del self._idle[key]
                return conn
            conn.close()
        del self._idle[key]
        return None

    def put(self, conn: Connection) -> None:
        if self._closed or not conn.is_usable():
            conn.close()
            return
        idle = self._idle.get(conn.key)
        if idle is None:
            idle = self._idle[conn.key] = deque()
        if len(idle) >= self._max_idle_per_origin:
            conn.close()
            return
        while len(self._lru) >= self._max_idle:
            self._evict(next(iter(self._lru)))
        conn.idle_since = time.monotonic()
        idle.append(conn)
        self._lru[conn] = None

    def _evict(self, conn: Connection) -> None:
        self._lru.pop(conn, None)
        idle = self._idle.get(conn.key)
        if idle is not None:
            idle.remove(conn)
            if not idle:
                del self._idle[conn.key]
        conn.close()

    @property
    def idle_count(self) -> int:
        return len(self._lru)

    def close(self) -> None:
        self._closed = True
        for conn in list(self._lru):
            conn.close()
        self._idle.clear()
        self._lru.clear()
