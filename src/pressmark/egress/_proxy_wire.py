"""The egress proxy's HTTP/1 wire work, apart from its decisions (:mod:`._proxy`).

What is here reads and writes bytes and never decides what may go out: request bodies
read strictly and re-framed with the proxy's own Content-Length (ambiguous framing is
refused, not guessed at: no request smuggling), the head sent upstream without
hop-by-hop headers, a response streamed back to the browser, and the copy loop of a
CONNECT tunnel. Every check of the egress policy stays in :class:`._proxy.EgressProxy`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from typing import Final

from pressmark.egress._http1 import Connection, Pool, ProtocolError
from pressmark.egress._url import ParsedURL

READ_TIMEOUT: Final = 30.0
MAX_REQUEST_BODY: Final = 16 * 1024 * 1024
TOO_LARGE: Final = "too-large"  # what read_request_body says of a body over the cap
HEADER_NAME: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # a token: nothing else
_HEX: Final = re.compile(rb"[0-9A-Fa-f]+")
HOP_BY_HOP: Final = frozenset(
    {
        "connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
        "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
    }
)


def status_line(status: int, reason: str) -> bytes:
    return f"HTTP/1.1 {status} {reason}\r\n".encode("latin-1")


async def read_request_body(
    headers: list[tuple[str, str]], reader: asyncio.StreamReader
) -> bytes | str | None:
    """The request body, read strictly; ``"too-large"``, or ``None`` when malformed.

    The proxy re-frames every body with its own Content-Length, so upstream
    sees exactly what was parsed here; ambiguous framing (both Content-Length
    and Transfer-Encoding, several lengths, codings other than ``chunked``,
    sloppy chunk sizes) is refused rather than guessed at (request smuggling).
    """
    framing = request_framing(headers)
    if framing is None or framing == TOO_LARGE:
        return framing
    if framing == "chunked":
        out = bytearray()
        while True:
            line = await reader.readuntil(b"\r\n")
            size_text = line[:-2].split(b";", 1)[0]
            if not _HEX.fullmatch(size_text) or len(size_text) > 8:
                return None
            size = int(size_text, 16)
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":
                    pass
                return bytes(out)
            if len(out) + size > MAX_REQUEST_BODY:
                return TOO_LARGE
            out += await reader.readexactly(size)
            if await reader.readexactly(2) != b"\r\n":
                return None
    assert isinstance(framing, int)
    return b"" if framing == 0 else await reader.readexactly(framing)


async def relay_response(  # noqa: PLR0917  # the proxy's one call site
    conn: Connection,
    status: int,
    reason: str,
    resp_headers: list[tuple[str, str]],
    framing: str,
    length: int,
    writer: asyncio.StreamWriter,
    *,
    client_keep: bool,
    pool: Pool,
) -> bool:
    """Stream an upstream response to the browser, re-framed; ``True`` when the browser's
    connection may carry another request. The upstream connection goes back to ``pool``
    once its body has been read to the end."""
    done = asyncio.get_running_loop().create_future()

    def on_done(c: Connection) -> None:
        pool.put(c)
        if not done.done():
            done.set_result(None)

    lines = [status_line(status, reason or "-")]
    for k, v in resp_headers:
        if k not in HOP_BY_HOP and k != "content-length":
            lines.append(f"{k}: {v}\r\n".encode("latin-1"))
    keep = client_keep
    if framing == "length":
        lines.append(f"content-length: {length}\r\n".encode())
    elif framing == "chunked":
        lines.append(b"transfer-encoding: chunked\r\n")
    elif framing == "close":
        keep = False
    if not keep:
        lines.append(b"connection: close\r\n")
    lines.append(b"\r\n")
    # The head goes out with the first chunk (and a short body's end with it): one
    # send to the browser per small response, not two or three.
    pending: list[bytes] = lines
    relayed = 0
    body = conn.body(framing, length, timeout=READ_TIMEOUT, deadline=None, on_done=on_done)
    try:
        async for chunk in body:
            pending.append(b"%x\r\n%s\r\n" % (len(chunk), chunk)
                           if framing == "chunked" else chunk)
            relayed += len(chunk)
            if framing == "length" and relayed >= length:
                continue  # the last chunk: sent below, after the body has ended
            writer.write(b"".join(pending))
            pending = []
            if writer.transport.get_write_buffer_size() > 256 * 1024:
                await writer.drain()
        if framing == "chunked":
            pending.append(b"0\r\n\r\n")
        writer.write(b"".join(pending))
        await writer.drain()
    except (ProtocolError, OSError, TimeoutError, asyncio.IncompleteReadError):
        await body.aclose()
        return False  # the response is cut short: the browser sees a broken connection
    finally:
        await body.aclose()
    return keep


async def close_writer(writer: asyncio.StreamWriter) -> None:
    """Close a connection and wait (briefly) until its transport is gone."""
    writer.close()
    with contextlib.suppress(Exception, asyncio.CancelledError):
        async with asyncio.timeout(1.0):
            await writer.wait_closed()


def target_host(method: str, target: str) -> str | None:
    """The host a refused request was for, for the record only (never for a decision)."""
    authority = target if method == "CONNECT" else target.partition("://")[2].split("/", 1)[0]
    authority = authority.rpartition("@")[2]
    if authority.startswith("["):
        host = authority[1:].partition("]")[0]
    else:
        host = authority.rsplit(":", 1)[0]
    return host.lower()[:253] or None


def request_framing(headers: list[tuple[str, str]]) -> int | str | None:
    """``"chunked"``, a Content-Length, or ``None`` when framing is ambiguous or too large."""
    lengths = [v for k, v in headers if k.lower() == "content-length"]
    codings = [v for k, v in headers if k.lower() == "transfer-encoding"]
    if codings:
        if lengths or len(codings) != 1 or codings[0].strip().lower() != "chunked":
            return None
        return "chunked"
    if not lengths:
        return 0
    if len(set(lengths)) != 1:
        return None
    value = lengths[0]
    if not value.isascii() or not value.isdigit() or len(value) > 12:
        return None
    length = int(value)
    return TOO_LARGE if length > MAX_REQUEST_BODY else length


def upstream_head(
    method: str, parsed: ParsedURL, headers: list[tuple[str, str]], body_length: int
) -> bytes:
    lines = [f"{method} {parsed.target} HTTP/1.1", f"Host: {parsed.authority}"]
    for name, value in headers:
        low = name.lower()
        if low in HOP_BY_HOP or low in ("host", "content-length"):
            continue
        lines.append(f"{name}: {value}")
    if body_length or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {body_length}")
    lines.append("\r\n")
    return "\r\n".join(lines).encode("latin-1")


async def _pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while True:
            data = await source.read(65536)
            if not data:
                break
            sink.write(data)
            await sink.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        if sink.can_write_eof():
            with contextlib.suppress(OSError, RuntimeError):
                sink.write_eof()


async def splice(
    a_reader: asyncio.StreamReader,
    a_writer: asyncio.StreamWriter,
    b_reader: asyncio.StreamReader,
    b_writer: asyncio.StreamWriter,
) -> None:
    """Copy both ways until both directions are finished (or one side breaks)."""
    await asyncio.gather(_pump(a_reader, b_writer), _pump(b_reader, a_writer))
