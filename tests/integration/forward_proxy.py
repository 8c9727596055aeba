"""A small, real HTTP forward proxy on loopback for the ``--proxy`` tests (CONNECT only).

It stands for a corporate proxy: it tunnels to whatever ``host:port`` it is asked for,
with no policy of its own, and writes down everything that reaches it: each accepted
connection, the bytes it received and each CONNECT target. A test can then prove what
pressmark sent through it (the vetted IP literal, never a name) and what it never sent
(a denied target: not one byte). It only ever dials loopback: a tunnel to anything else
is logged and answered 502 (tests send no packet off this machine). Runs on its own event
loop in a thread, so in-process CLI tests (click's runner) and subprocesses can use it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ipaddress
import threading
from dataclasses import dataclass, field


@dataclass
class ProxyLog:
    accepted: int = 0
    bytes_received: int = 0
    connects: list[str] = field(default_factory=list)  # "ip:port" as asked
    refused_auth: int = 0
    outbound_ports: set[int] = field(default_factory=set)  # local ports of upstream sockets


class ForwardProxy:
    """``with ForwardProxy() as proxy: proxy.url``; ``proxy.log`` holds what reached it."""

    def __init__(self, *, credentials: tuple[str, str] | None = None) -> None:
        self.log = ProxyLog()
        self._expected = None if credentials is None else "Basic " + base64.b64encode(
            f"{credentials[0]}:{credentials[1]}".encode()).decode()
        self._credentials = credentials
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.port = 0
        self._lock = threading.Lock()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        if self._credentials is None:
            return f"http://127.0.0.1:{self.port}"
        user, password = self._credentials
        return f"http://{user}:{password}@127.0.0.1:{self.port}"

    def __enter__(self) -> ForwardProxy:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._start(), self._loop)
        future.result(timeout=30)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop.close()

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        """Stop listening and end every tunnel still open (a browser keeps them alive)."""
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            async with asyncio.timeout(5):
                await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._serve(reader, writer)
        finally:
            self._tasks.discard(task)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with self._lock:
            self.log.accepted += 1
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            with self._lock:
                self.log.bytes_received += len(head)
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            auth = next((line.partition(":")[2].strip() for line in lines[1:]
                         if line.lower().startswith("proxy-authorization:")), None)
            if self._expected is not None and auth != self._expected:
                with self._lock:
                    self.log.refused_auth += 1
                writer.write(b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                             b"Proxy-Authenticate: Basic realm=\"test\"\r\n\r\n")
                await writer.drain()
                return
            if method != "CONNECT":
                writer.write(b"HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\n\r\n")
                await writer.drain()
                return
            with self._lock:
                self.log.connects.append(target)
            host, _, port = target.rpartition(":")
            if not _is_loopback(host.strip("[]")):
                writer.write(b"HTTP/1.1 502 Bad Gateway\r\n\r\n")  # logged, never dialled
                await writer.drain()
                return
            try:
                up_reader, up_writer = await asyncio.open_connection(host.strip("[]"), int(port))
            except OSError:
                writer.write(b"HTTP/1.1 502 Bad Gateway\r\n\r\n")
                await writer.drain()
                return
            with self._lock:
                self.log.outbound_ports.add(up_writer.get_extra_info("sockname")[1])
            try:
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                await writer.drain()
                await asyncio.gather(self._pump(reader, up_writer, count=True),
                                     self._pump(up_reader, writer, count=False))
            finally:
                up_writer.close()
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await up_writer.wait_closed()
        except (asyncio.IncompleteReadError, ConnectionError, ValueError,
                asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await writer.wait_closed()

    async def _pump(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, *,
                    count: bool) -> None:
        try:
            while data := await source.read(65536):
                if count:
                    with self._lock:
                        self.log.bytes_received += len(data)
                sink.write(data)
                await sink.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(OSError, RuntimeError):
                if sink.can_write_eof():
                    sink.write_eof()


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: this proxy resolves nothing
