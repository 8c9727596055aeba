"""The small HTTP vocabulary shared by the demo site and its server.

The site answers a :class:`Request` with either a finished :class:`Response` (the
server handles keep-alive, HEAD, gzip and conditional requests for it) or a
:class:`Fault`, which takes over the raw connection and closes it afterwards. Faults
exist to break the rules, so they cannot be expressed as well-formed responses.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

REASONS: dict[int, str] = {
    200: "OK", 204: "No Content", 301: "Moved Permanently", 302: "Found",
    304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect",
    400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
    429: "Too Many Requests", 431: "Request Header Fields Too Large",
    500: "Internal Server Error", 503: "Service Unavailable",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestRecord:
    """One request as the server saw it; ``time`` is ``time.monotonic()`` at arrival."""

    time: float
    method: str
    path: str
    headers: tuple[tuple[str, str], ...]
    connection: int = 0
    peer: str = ""

    def header(self, name: str) -> str | None:
        name = name.lower()
        for key, value in self.headers:
            if key == name:
                return value
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    method: str
    target: str
    version: str
    headers: tuple[tuple[str, str], ...]
    origin: str  # "http://host:port" as the client addressed us
    counters: dict[str, int] = field(default_factory=dict)  # per-server mutable state

    @property
    def path(self) -> str:
        return self.target.partition("?")[0]

    @property
    def query(self) -> dict[str, str]:
        return dict(parse_qsl(self.target.partition("?")[2]))

    def header(self, name: str) -> str | None:
        name = name.lower()
        for key, value in self.headers:
            if key == name:
                return value
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class Response:
    status: int
    body: bytes = b""
    content_type: str | None = "text/html; charset=utf-8"
    headers: tuple[tuple[str, str], ...] = ()
    etag: str | None = None
    last_modified: str | None = None
    compressible: bool = False  # may be sent gzip-encoded when asked
    cacheable: bool = True  # may be kept in the server's render cache


FaultRunner = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Fault:
    """Takes over the connection; the server closes it when ``run`` returns."""

    run: FaultRunner = field()


def status_line(status: int) -> bytes:
    return f"HTTP/1.1 {status} {REASONS.get(status, 'Unknown')}\r\n".encode("ascii")


def encode_head(status: int, headers: list[tuple[str, str]]) -> bytes:
    lines = [status_line(status)]
    lines.extend(f"{name}: {value}\r\n".encode("latin-1") for name, value in headers)
    lines.append(b"\r\n")
    return b"".join(lines)
