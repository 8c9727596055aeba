"""Real HTTP requests against the demo server over loopback (stdlib http.client)."""

from __future__ import annotations

import asyncio
import gzip
import http.client
import json
import re
import socket
import time
import zlib
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest

from pressmark.demo import DemoServer, DemoSite


def _conn(server: DemoServer, timeout: float = 10.0) -> http.client.HTTPConnection:
    parts = urlsplit(server.url)
    assert parts.hostname is not None and parts.port is not None
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)


def _get(server: DemoServer, path: str, headers: dict[str, str] | None = None,
         timeout: float = 10.0) -> tuple[http.client.HTTPResponse, bytes]:
    conn = _conn(server, timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response, response.read()
    finally:
        conn.close()


def test_home_answers(demo_server: DemoServer) -> None:
    response, body = _get(demo_server, "/")
    assert response.status == 200
    assert b"The Pressmark Gazette" in body
    assert response.getheader("Content-Type") == "text/html; charset=utf-8"


def test_origin_fixture(demo_origin: str, demo_server: DemoServer) -> None:
    assert demo_origin == demo_server.url
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", demo_origin)


def test_robots_and_sitemaps(demo_server: DemoServer) -> None:
    response, body = _get(demo_server, "/robots.txt")
    assert response.status == 200
    text = body.decode()
    assert "Disallow: /private/" in text
    assert f"Sitemap: {demo_server.url}/sitemap.xml" in text
    _, index = _get(demo_server, "/sitemap.xml")
    children = re.findall(r"<loc>([^<]+)</loc>", index.decode())
    assert children == [f"{demo_server.url}/sitemaps/articles.xml",
                        f"{demo_server.url}/sitemaps/more.xml.gz",
                        f"{demo_server.url}/sitemaps/images.xml"]
    response, packed = _get(demo_server, "/sitemaps/more.xml.gz")
    assert response.getheader("Content-Type") == "application/gzip"
    assert response.getheader("Content-Encoding") is None
    assert b"<urlset" in gzip.decompress(packed)


def test_shell_and_its_json(demo_server: DemoServer, demo_site: DemoSite) -> None:
    path = demo_site.paths_of_kind("shell")[0]
    _, body = _get(demo_server, path)
    api = re.search(r'"(/api/pages/\d{4}\.json)"', body.decode())
    assert api is not None
    response, data = _get(demo_server, api.group(1))
    assert response.getheader("Content-Type") == "application/json"
    doc = json.loads(data)
    assert doc["path"] == path
    assert doc["title"] == demo_site.content(path).title
    assert doc["blocks"] and doc["links"]


def test_conditional_requests(demo_server: DemoServer, demo_site: DemoSite) -> None:
    path = demo_site.paths_of_kind("article")[0]
    response, body = _get(demo_server, path)
    etag, modified = response.getheader("ETag"), response.getheader("Last-Modified")
    assert etag and modified and body
    response, body = _get(demo_server, path, {"If-None-Match": f'"nope", {etag}'})
    assert response.status == 304 and body == b""
    assert response.getheader("ETag") == etag
    response, _ = _get(demo_server, path, {"If-Modified-Since": modified})
    assert response.status == 304
    response, _ = _get(demo_server, path, {"If-None-Match": '"other"',
                                           "If-Modified-Since": modified})
    assert response.status == 200
    response, _ = _get(demo_server, "/cache/weak", {"If-None-Match": "W/\"x\""})
    assert response.status == 200
    weak = _get(demo_server, "/cache/weak")[0].getheader("ETag")
    assert weak is not None and weak.startswith("W/")
    assert _get(demo_server, "/cache/weak", {"If-None-Match": weak})[0].status == 304
    first = _get(demo_server, "/cache/changing")[0].getheader("ETag")
    response, _ = _get(demo_server, "/cache/changing", {"If-None-Match": str(first)})
    assert response.status == 200 and response.getheader("ETag") != first


def test_charset_bytes(demo_server: DemoServer, demo_site: DemoSite) -> None:
    response, body = _get(demo_server, "/charset/shift_jis")
    assert response.getheader("Content-Type") == "text/html; charset=Shift_JIS"
    assert demo_site.charset_text("/charset/shift_jis") in body.decode("shift_jis")
    response, body = _get(demo_server, "/charset/windows-1252")
    assert response.getheader("Content-Type") == "text/html"
    assert b'<meta charset="windows-1252">' in body and b"\x93" in body and b"\x80" in body
    _, body = _get(demo_server, "/charset/bom")
    assert body.startswith(b"\xef\xbb\xbf")
    _, body = _get(demo_server, "/charset/invalid-utf8")
    with pytest.raises(UnicodeDecodeError):
        body.decode("utf-8")


def test_gzip_when_asked(demo_server: DemoServer) -> None:
    response, body = _get(demo_server, "/about", {"Accept-Encoding": "gzip"})
    assert response.getheader("Content-Encoding") == "gzip"
    assert b"About us" in gzip.decompress(body)
    response, body = _get(demo_server, "/about")
    assert response.getheader("Content-Encoding") is None and b"About us" in body


def test_redirects(demo_server: DemoServer) -> None:
    origin = demo_server.url
    expected = {
        "/redirect/301": (301, "/special/redirect-target"),
        "/redirect/302": (302, origin + "/special/redirect-target"),
        "/redirect/307": (307, "../special/redirect-target"),
        "/redirect/308": (308, origin + "/special/redirect-target"),
        "/redirect/chain": (301, "/redirect/chain/2"),
        "/redirect/chain/3": (307, "4"),
        "/redirect/loop/b": (302, "/redirect/loop"),
        "/redirect/n/2": (302, "/redirect/n/1"),
    }
    for path, (status, location) in expected.items():
        response, _ = _get(demo_server, path)
        assert (response.status, response.getheader("Location")) == (status, location), path
    assert _get(demo_server, "/redirect/n/0")[0].status == 200


def test_keep_alive_and_request_log(demo_server: DemoServer) -> None:
    mark = len(demo_server.requests)
    conn = _conn(demo_server)
    for path in ("/", "/about", "/robots.txt", "/nowhere"):
        conn.request("GET", path, headers={"User-Agent": "pressmark-test"})
        response = conn.getresponse()
        response.read()
    conn.request("HEAD", "/about")
    response = conn.getresponse()
    assert response.read() == b"" and response.getheader("Content-Length")
    conn.close()
    records = demo_server.requests[mark:]
    assert [r.path for r in records] == ["/", "/about", "/robots.txt", "/nowhere", "/about"]
    assert len({r.connection for r in records}) == 1
    assert records[0].header("user-agent") == "pressmark-test"
    assert records[-1].method == "HEAD"
    assert all(isinstance(r.time, float) for r in records)


def test_not_found_and_bad_methods(demo_server: DemoServer) -> None:
    response, body = _get(demo_server, "/does/not/exist")
    assert response.status == 404 and b"Page not found" in body
    response, body = _get(demo_server, "/special/soft-404")
    assert response.status == 200 and b"Page not found" in body
    conn = _conn(demo_server)
    conn.request("POST", "/", body=b"x=1")
    assert conn.getresponse().status == 405
    conn.close()
    assert _get(demo_server, "/fault/429")[0].status == 404  # faults are off here


async def test_async_server_on_another_loopback_address() -> None:
    site = DemoSite(pages=5)
    async with DemoServer(site, host="127.0.0.2") as server:
        assert server.url == f"http://127.0.0.2:{server.port}"
        reader, writer = await asyncio.open_connection(server.host, server.port)
        writer.write(b"GET /robots.txt HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
        data = await reader.read()
        writer.close()
        await writer.wait_closed()
    assert data.startswith(b"HTTP/1.1 200 OK")
    assert b"Sitemap: http://a.test/sitemap.xml" in data


# -- robots modes --------------------------------------------------------------------


def test_robots_500_origin(make_demo_server: Callable[..., DemoServer]) -> None:
    server = make_demo_server(robots="500")
    assert _get(server, "/robots.txt")[0].status == 500
    assert _get(server, "/")[0].status == 200


def test_robots_redirect_and_crawl_delay(make_demo_server: Callable[..., DemoServer]) -> None:
    server = make_demo_server(robots="redirect", crawl_delay=0.25, host="127.0.0.3")
    response, _ = _get(server, "/robots.txt")
    assert response.status == 302 and response.getheader("Location") == "/robots-moved.txt"
    _, body = _get(server, "/robots-moved.txt")
    assert "User-agent: *\nCrawl-delay: 0.25\n" in body.decode()


def test_robots_timeout(make_demo_server: Callable[..., DemoServer]) -> None:
    server = make_demo_server(robots="timeout")
    with pytest.raises(TimeoutError):
        _get(server, "/robots.txt", timeout=0.3)


# -- faults --------------------------------------------------------------------------


def test_retry_after(fault_server: DemoServer) -> None:
    response, _ = _get(fault_server, "/fault/429")
    assert (response.status, response.getheader("Retry-After")) == (429, "2")
    response, _ = _get(fault_server, "/fault/503?retry_after=7")
    assert (response.status, response.getheader("Retry-After")) == (503, "7")
    response, _ = _get(fault_server, "/fault/503-date")
    assert response.getheader("Retry-After") == "Wed, 21 Oct 2015 07:28:00 GMT"


def test_flaky(fault_server: DemoServer) -> None:
    statuses = [_get(fault_server, "/fault/flaky/2/it-flaky")[0].status for _ in range(4)]
    assert statuses == [503, 503, 200, 200]


def test_slow_headers(fault_server: DemoServer) -> None:
    with pytest.raises(TimeoutError):
        _get(fault_server, "/fault/slow-headers?seconds=2", timeout=0.3)
    started = time.monotonic()
    response, body = _get(fault_server, "/fault/slow-headers?seconds=0.3")
    assert time.monotonic() - started >= 0.25
    assert response.status == 200 and b"Finally" in body


def test_slow_body(fault_server: DemoServer) -> None:
    started = time.monotonic()
    response, body = _get(fault_server, "/fault/slow-body?chunks=4&interval=0.1")
    assert response.status == 200 and len(body) == 256
    assert time.monotonic() - started >= 0.3


def test_reset_mid_body(fault_server: DemoServer) -> None:
    with pytest.raises((ConnectionResetError, http.client.IncompleteRead)):
        _get(fault_server, "/fault/reset")


def test_content_length_lies(fault_server: DemoServer) -> None:
    with pytest.raises(http.client.IncompleteRead):
        _get(fault_server, "/fault/length-long")
    response, body = _get(fault_server, "/fault/length-short")
    assert response.getheader("Content-Length") == "100" and len(body) == 100


def test_gzip_bomb(fault_server: DemoServer) -> None:
    response, body = _get(fault_server, "/fault/gzip-bomb?mb=32")
    assert response.getheader("Content-Encoding") == "gzip"
    assert len(body) < 64 * 1024
    inflater = zlib.decompressobj(31)
    assert len(inflater.decompress(body, 4 << 20)) == 4 << 20  # and much more to come


def test_bad_gzip(fault_server: DemoServer) -> None:
    response, body = _get(fault_server, "/fault/bad-gzip")
    assert response.getheader("Content-Encoding") == "gzip"
    with pytest.raises(OSError, match="gzip"):
        gzip.decompress(body)


def test_redirect_forever(fault_server: DemoServer) -> None:
    seen = set()
    path = "/fault/redirect-forever/0"
    for _ in range(30):
        response, _ = _get(fault_server, path)
        assert response.status == 302
        location = response.getheader("Location")
        assert location is not None and location not in seen
        seen.add(location)
        path = location


def test_huge_page(fault_server: DemoServer) -> None:
    conn = _conn(fault_server)
    conn.request("GET", "/fault/huge")
    response = conn.getresponse()
    assert response.getheader("Content-Length") == str(50 * 1024 * 1024)
    assert len(response.read(1024)) == 1024
    conn.close()
    response, body = _get(fault_server, "/fault/huge-chunked?mb=1")
    assert response.getheader("Transfer-Encoding") == "chunked"
    assert len(body) == 1024 * 1024


def test_empty_and_garbage(fault_server: DemoServer) -> None:
    with pytest.raises(http.client.RemoteDisconnected):
        _get(fault_server, "/fault/empty")
    with pytest.raises(http.client.BadStatusLine):
        _get(fault_server, "/fault/garbage")


def test_server_survives_faults(fault_server: DemoServer) -> None:
    host, port = fault_server.host, fault_server.port
    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(b"NOT HTTP\r\n\r\n")
        assert sock.recv(100).startswith(b"HTTP/1.1 400")
    assert _get(fault_server, "/")[0].status == 200


def test_every_page_over_a_few_keep_alive_connections(
    demo_server: DemoServer, demo_site: DemoSite
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    paths = [page.path for page in demo_site.pages]

    def fetch_all(share: list[str]) -> list[tuple[str, int, bytes]]:
        conn = _conn(demo_server)
        out = []
        for path in share:
            conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
            response = conn.getresponse()
            body = response.read()
            if response.getheader("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            out.append((path, response.status, body))
        conn.close()
        return out

    with ThreadPoolExecutor(4) as pool:
        results = [r for part in pool.map(fetch_all, [paths[i::4] for i in range(4)])
                   for r in part]
    assert len(results) == len(paths)
    for path, status, body in results:
        assert status == 200, path
        if demo_site.page(path).is_shell:
            assert re.search(rb'<div id="(root|__next)"></div>', body), path


def test_port_in_use_is_reported(demo_server: DemoServer) -> None:
    from pressmark.demo import run_demo_server_in_thread

    with pytest.raises(OSError), run_demo_server_in_thread(DemoSite(pages=1),
                                                          port=demo_server.port):
        pass


async def test_threaded_server_inside_a_running_loop() -> None:
    from pressmark.demo import run_demo_server_in_thread

    with run_demo_server_in_thread(DemoSite(pages=3), host="127.0.0.4") as server:
        reader, writer = await asyncio.open_connection(server.host, server.port)
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (await reader.readuntil(b"\r\n")).startswith(b"HTTP/1.1 200")
        writer.close()
        await writer.wait_closed()


def test_pipelining_and_oversized_heads(demo_server: DemoServer) -> None:
    with socket.create_connection((demo_server.host, demo_server.port), timeout=5) as sock:
        sock.sendall(b"GET /robots.txt HTTP/1.1\r\nHost: x\r\n\r\n"
                     b"GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    statuses = re.findall(rb"HTTP/1\.1 (\d{3}) ", data)
    assert statuses == [b"200", b"404"]
    with socket.create_connection((demo_server.host, demo_server.port), timeout=5) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n")
        assert sock.recv(100).startswith(b"HTTP/1.1 431")
