"""A tiny asyncio HTTP/1.1 origin on 127.0.0.1 for egress tests (keep-alive, canned routes)."""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

import brotli
import zstandard

TEXT = b"<html><body>" + b"pressmark egress test page. " * 200 + b"</body></html>"


@dataclass
class Seen:
    method: str
    target: str
    headers: dict[str, str]
    peer: str


@dataclass
class LoopbackOrigin:
    host: str = "127.0.0.1"
    port: int = 0
    requests: list[Seen] = field(default_factory=list)
    _server: asyncio.AbstractServer | None = None
    ssl: object = None  # an ssl.SSLContext for an https origin
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _bomb: bytes = b""

    @property
    def origin(self) -> str:
        scheme = "https" if self.ssl is not None else "http"
        return f"{scheme}://{self.host}:{self.port}"

    def url(self, path: str) -> str:
        return self.origin + path

    async def start(self) -> LoopbackOrigin:
        self._server = await asyncio.start_server(
            self._handle, self.host, self.port, ssl=self.ssl  # type: ignore[arg-type]
        )
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self._server.wait_closed()

    async def __aenter__(self) -> LoopbackOrigin:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")[0]
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                method, target, _ = line.decode("latin-1").split(" ", 2)
                headers: dict[str, str] = {}
                while True:
                    h = await reader.readline()
                    if h in (b"\r\n", b"\n", b""):
                        break
                    k, _, v = h.decode("latin-1").partition(":")
                    headers[k.strip().lower()] = v.strip()
                self.requests.append(Seen(method, target, headers, peer))
                if "content-length" in headers:
                    headers["x-body"] = (
                        await reader.readexactly(int(headers["content-length"]))
                    ).decode("latin-1")
                keep = await self._respond(target, headers, writer)
                await writer.drain()
                if not keep:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _respond(
        self, target: str, headers: dict[str, str], writer: asyncio.StreamWriter
    ) -> bool:
        parts = urlsplit(target)
        path, query = parts.path, parse_qs(parts.query)
        status, extra, body = 200, [("Content-Type", "text/html")], TEXT
        if path == "/redirect":
            status, extra, body = int(query.get("status", ["302"])[0]), [
                ("Location", query["to"][0])
            ], b"moved"
        elif path.startswith("/chain/"):
            n = int(path.rsplit("/", 1)[1])
            if n > 0:
                status, extra, body = 302, [("Location", f"/chain/{n - 1}")], b""
        elif path == "/loop":
            status, extra, body = 301, [("Location", "/loop")], b""
        elif path == "/headers":
            body = json.dumps(headers, sort_keys=True).encode()
            extra = [("Content-Type", "application/json")]
        elif path in ("/gzip", "/deflate", "/rawdeflate", "/br", "/zstd", "/gzip-br"):
            coding = path[1:]
            if coding == "gzip":
                body = gzip.compress(TEXT)
            elif coding == "deflate":
                body = zlib.compress(TEXT)
            elif coding == "rawdeflate":
                c = zlib.compressobj(wbits=-15)
                body, coding = c.compress(TEXT) + c.flush(), "deflate"
            elif coding == "br":
                body = brotli.compress(TEXT)
            elif coding == "zstd":
                body = zstandard.ZstdCompressor().compress(TEXT)
            else:
                body, coding = brotli.compress(gzip.compress(TEXT)), "gzip, br"
            extra = [("Content-Type", "text/html"), ("Content-Encoding", coding)]
        elif path in ("/bomb", "/bomb-br", "/bomb-zstd"):
            zeros = b"\0" * (64 * 1024 * 1024)
            if path == "/bomb":
                body, coding = gzip.compress(zeros, 9), "gzip"
            elif path == "/bomb-br":
                body, coding = brotli.compress(zeros, quality=5), "br"
            else:
                body, coding = zstandard.ZstdCompressor(level=3).compress(zeros), "zstd"
            extra = [("Content-Encoding", coding)]
        elif path == "/declared-big":
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n")
            return False
        elif path == "/chunked-big":
            writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            chunk = b"x" * 65536
            for _ in range(32):
                writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                await writer.drain()
            writer.write(b"0\r\n\r\n")
            return True
        elif path == "/slow":
            await asyncio.sleep(float(query.get("s", ["5"])[0]))
        elif path == "/slow-body":
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
            await writer.drain()
            await asyncio.sleep(float(query.get("s", ["5"])[0]))
            return False
        elif path == "/huge-header":
            writer.write(b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n")
            return False
        elif path == "/many-headers":
            writer.write(b"HTTP/1.1 200 OK\r\n" + b"X-A: 1\r\n" * 300 + b"\r\n")
            return False
        elif path == "/switch":
            writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n")
            return False
        elif path == "/continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        elif path == "/conflicting-length":
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!")
            return False
        elif path == "/bad-chunk":
            writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
            return False
        elif path == "/close-delimited":
            writer.write(b"HTTP/1.1 200 OK\r\n\r\n" + TEXT)
            return False
        elif path == "/stacked":  # Content-Encoding: gzip x N, each layer really applied
            layers = int(query.get("n", ["6"])[0])
            body = TEXT
            for _ in range(layers):
                body = gzip.compress(body)
            extra = [("Content-Encoding", ", ".join(["gzip"] * layers))]
        elif path == "/bare-lf":  # a header value hiding a second header behind a bare LF
            writer.write(
                b"HTTP/1.1 200 OK\r\nX-A: 1\nTransfer-Encoding: chunked\r\n"
                b"Content-Length: 2\r\n\r\nok"
            )
            return False
        elif path == "/garbage":
            writer.write(b"NOT HTTP AT ALL\r\n\r\n")
            return False
        head = [f"HTTP/1.1 {status} X", f"Content-Length: {len(body)}"]
        head += [f"{k}: {v}" for k, v in extra]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        return True
