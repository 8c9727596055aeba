"""An asyncio HTTP/1.1 server for the demo site.

Written on asyncio streams with a hand-rolled request parser: the demo only has to
understand GET and HEAD with small heads, and owning the socket lets fault endpoints
send bytes that no well-behaved HTTP library would (lying lengths, resets, garbage).
Responses are rendered once and kept in a small LRU, so a crawl benchmark measures the
client, not this server.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import itertools
import re
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from email.utils import parsedate_to_datetime
from types import TracebackType
from typing import TYPE_CHECKING

from pressmark.demo._http import Fault, Request, RequestRecord, Response, encode_head

if TYPE_CHECKING:
    from pressmark.demo._site import DemoSite

_MAX_HEAD = 64 * 1024
_CACHE_SIZE = 1024
_HOST_RE = re.compile(r"^[A-Za-z0-9.\-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$")
_SERVER_NAME = "pressmark-demo"


class _Cached:
    __slots__ = ("gzipped", "response")

    def __init__(self, response: Response) -> None:
        self.response = response
        self.gzipped: bytes | None = None


class DemoServer:
    """Serves a :class:`DemoSite` on a loopback address; an async context manager.

    ``requests`` records every request head the server parsed, in arrival order, so a
    test can prove a path was never asked for or measure the gaps between requests.
    """

    def __init__(self, site: DemoSite, host: str = "127.0.0.1", port: int = 0, *,
                 cache_size: int = _CACHE_SIZE) -> None:
        self.site = site
        self.cache_size = cache_size
        self.host = host
        self.port = port
        self.requests: list[RequestRecord] = []
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._cache: OrderedDict[tuple[str, str], _Cached] = OrderedDict()
        self._connections = itertools.count(1)
        self._counters: dict[str, int] = {}

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def clear_requests(self) -> None:
        self.requests.clear()

    def serve(self, site: DemoSite) -> None:
        """Serve ``site`` from now on, on the same address (a recrawl of an edited site:
        ``DemoSite.edited``); rendered responses of the old site are forgotten."""
        self.site = site
        self._cache = OrderedDict()

    async def start(self) -> None:
        if self._server is not None:
            return
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        self._server = await asyncio.start_server(
            self._on_connection, self.host, self.port, family=family, limit=_MAX_HEAD,
            reuse_address=True, backlog=512,
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await server.wait_closed()

    async def __aenter__(self) -> DemoServer:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- connection handling -------------------------------------------------------

    async def _on_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.add(writer)
        conn_id = next(self._connections)
        peer = writer.get_extra_info("peername")
        peer_text = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else ""
        try:
            await self._serve(reader, writer, conn_id, peer_text)
        except (ConnectionError, asyncio.IncompleteReadError, OSError):
            pass
        except asyncio.CancelledError:
            writer.transport.abort()
        finally:
            self._tasks.discard(task)
            self._writers.discard(writer)
            if not writer.is_closing():
                writer.close()

    async def _serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, conn_id: int,
        peer: str,
    ) -> None:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                return
            except asyncio.LimitOverrunError:
                await _reject(reader, writer, _simple(431, b"request head too large\n",
                                                      close=True))
                return
            parsed = _parse_head(head)
            if parsed is None:
                await _reject(reader, writer, _simple(400, b"bad request\n", close=True))
                return
            method, target, version, headers = parsed
            self.requests.append(RequestRecord(
                time=time.monotonic(), method=method, path=target, headers=headers,
                connection=conn_id, peer=peer,
            ))
            length = _header(headers, "content-length")
            if _header(headers, "transfer-encoding") is not None:
                await _reject(reader, writer, _simple(
                    501, b"chunked request bodies are not supported\n", close=True))
                return
            if length is not None:
                if not length.isdigit() or int(length) > 1_000_000:
                    await _reject(reader, writer, _simple(400, b"bad content-length\n",
                                                          close=True))
                    return
                await reader.readexactly(int(length))
            keep_alive = _keep_alive(version, headers)
            request = Request(
                method=method, target=target, version=version, headers=headers,
                origin=self._origin(headers), counters=self._counters,
            )
            if method not in ("GET", "HEAD"):
                writer.write(_simple(405, b"method not allowed\n", close=not keep_alive,
                                     extra=[("Allow", "GET, HEAD")]))
                await writer.drain()
                if not keep_alive:
                    return
                continue
            result = self._lookup(request)
            if isinstance(result, Fault):
                await result.run(reader, writer)
                return
            writer.write(self._encode(request, result, keep_alive))
            await writer.drain()
            if not keep_alive:
                return

    def _origin(self, headers: tuple[tuple[str, str], ...]) -> str:
        host = _header(headers, "host")
        if host and _HOST_RE.match(host):
            return f"http://{host}"
        return self.url

    def _lookup(self, request: Request) -> Response | Fault:
        key = (request.origin, request.target)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached.response
        result = self.site.respond(request)
        if isinstance(result, Response) and result.cacheable:
            self._cache[key] = _Cached(result)
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return result

    def _encode(self, request: Request, response: Response, keep_alive: bool) -> bytes:
        headers: list[tuple[str, str]] = [("Server", _SERVER_NAME)]
        if response.content_type is not None:
            headers.append(("Content-Type", response.content_type))
        headers.extend(response.headers)
        if response.etag is not None:
            headers.append(("ETag", response.etag))
        if response.last_modified is not None:
            headers.append(("Last-Modified", response.last_modified))
        if not keep_alive:
            headers.append(("Connection", "close"))
        if _not_modified(request, response):
            return encode_head(304, headers)
        body = response.body
        if response.compressible:
            headers.append(("Vary", "Accept-Encoding"))
            if _accepts_gzip(request) and response.status == 200:
                body = self._gzipped(request, response)
                headers.append(("Content-Encoding", "gzip"))
        headers.append(("Content-Length", str(len(body))))
        head = encode_head(response.status, headers)
        return head if request.method == "HEAD" else head + body

    def _gzipped(self, request: Request, response: Response) -> bytes:
        cached = self._cache.get((request.origin, request.target))
        if cached is not None and cached.response is response:
            if cached.gzipped is None:
                cached.gzipped = gzip.compress(response.body, compresslevel=5, mtime=0)
            return cached.gzipped
        return gzip.compress(response.body, compresslevel=5, mtime=0)


async def _reject(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, answer: bytes
) -> None:
    """Answer, then read and drop what the client still sends before closing.

    Closing a socket with unread input makes the kernel send a reset, which can destroy
    the answer before the client reads it (the "lingering close" problem).
    """
    writer.write(answer)
    await writer.drain()
    if writer.can_write_eof():
        writer.write_eof()
    with contextlib.suppress(TimeoutError, ConnectionError, OSError):
        async with asyncio.timeout(1.0):
            received = 0
            while received < 4 * 1024 * 1024:
                chunk = await reader.read(65536)
                if not chunk:
                    break
                received += len(chunk)


def _parse_head(
    head: bytes,
) -> tuple[str, str, str, tuple[tuple[str, str], ...]] | None:
    try:
        text = head.decode("latin-1")
    except UnicodeDecodeError:  # pragma: no cover - latin-1 decodes every byte
        return None
    lines = text.split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        return None
    method, target, version = parts
    if version not in ("HTTP/1.1", "HTTP/1.0") or not method.isalpha():
        return None
    if not target.startswith("/"):
        # absolute-form (a proxy request): keep only the path part
        match = re.match(r"^https?://[^/]+(/.*)?$", target)
        if match is None:
            return None
        target = match.group(1) or "/"
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            return None
        headers.append((name.lower(), value.strip()))
    return method, target, version, tuple(headers)


def _header(headers: tuple[tuple[str, str], ...], name: str) -> str | None:
    for key, value in headers:
        if key == name:
            return value
    return None


def _keep_alive(version: str, headers: tuple[tuple[str, str], ...]) -> bool:
    tokens = {t.strip().lower() for t in (_header(headers, "connection") or "").split(",")}
    if version == "HTTP/1.0":
        return "keep-alive" in tokens
    return "close" not in tokens


def _accepts_gzip(request: Request) -> bool:
    value = request.header("accept-encoding") or ""
    for item in value.split(","):
        coding, _, params = item.strip().partition(";")
        if coding.strip().lower() == "gzip":
            return params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


def _not_modified(request: Request, response: Response) -> bool:
    if response.status != 200:
        return False
    inm = request.header("if-none-match")
    if inm is not None:
        if response.etag is None:
            return False
        if inm.strip() == "*":
            return True
        mine = response.etag.removeprefix("W/")
        return any(tag.strip().removeprefix("W/") == mine for tag in inm.split(","))
    ims = request.header("if-modified-since")
    if ims is not None and response.last_modified is not None:
        try:
            return parsedate_to_datetime(ims) >= parsedate_to_datetime(response.last_modified)
        except (TypeError, ValueError):
            return False
    return False


def _simple(
    status: int, body: bytes, *, close: bool, extra: list[tuple[str, str]] | None = None
) -> bytes:
    headers = [("Server", _SERVER_NAME), ("Content-Type", "text/plain; charset=utf-8")]
    headers.extend(extra or [])
    headers.append(("Content-Length", str(len(body))))
    if close:
        headers.append(("Connection", "close"))
    return encode_head(status, headers) + body


@contextlib.contextmanager
def run_demo_server_in_thread(
    site: DemoSite, host: str = "127.0.0.1", port: int = 0
) -> Iterator[DemoServer]:
    """Run a :class:`DemoServer` on its own event loop in a daemon thread.

    For synchronous tests and for giving other processes a URL; the server is stopped
    and its loop closed when the block exits.
    """
    loop = asyncio.new_event_loop()
    server = DemoServer(site, host=host, port=port)
    ready = threading.Event()
    failure: list[BaseException] = []

    def main() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(server.start())
        except BaseException as exc:  # reported to the caller below
            failure.append(exc)
            loop.close()
            ready.set()
            return
        ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    thread = threading.Thread(target=main, name=f"pressmark-demo-{host}", daemon=True)
    thread.start()
    ready.wait()
    if failure:
        thread.join()
        raise failure[0]
    try:
        yield server
    finally:
        # everything runs on the server's own loop, so this works from sync code and from
        # inside another running event loop alike
        future = asyncio.run_coroutine_threadsafe(server.close(), loop)
        with contextlib.suppress(Exception):
            future.result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
