"""EgressProxy: authentication, CONNECT and plain HTTP under the egress policy."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator

import pytest

from pressmark.egress import EgressPolicy, EgressProxy, StaticResolver
from pressmark.testing import RecordingConnector

from ._server import TEXT, LoopbackOrigin

RESOLVER = {
    "rebind.test": [["93.184.216.34"], ["10.0.0.1"]],
    "mixed.test": ["93.184.216.34", "192.168.1.1"],
    "private.test": ["10.0.0.7"],
    "public.test": ["93.184.216.34"],
}


def auth(proxy: EgressProxy) -> str:
    token = base64.b64encode(f"{proxy.username}:{proxy.password}".encode()).decode()
    return f"Proxy-Authorization: Basic {token}\r\n"


async def exchange(
    proxy: EgressProxy, raw: str | bytes
) -> tuple[int, dict[str, str], bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    try:
        writer.write(raw.encode("latin-1") if isinstance(raw, str) else raw)
        return await read_response(reader)
    finally:
        writer.close()


async def read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        if line:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
    body = b""
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding") == "chunked":
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            body += await reader.readexactly(size)
            await reader.readexactly(2)
    return status, headers, body


@pytest.fixture
async def proxy(policy: EgressPolicy) -> AsyncIterator[EgressProxy]:
    async with EgressProxy(policy, StaticResolver(RESOLVER), RecordingConnector()) as p:
        yield p


async def test_server_address_and_secret(proxy: EgressProxy) -> None:
    assert proxy.server == f"http://127.0.0.1:{proxy.port}"
    assert proxy.username and len(proxy.password) >= 16
    other = EgressProxy()
    assert other.password != proxy.password


@pytest.mark.parametrize("credentials", ["", "Proxy-Authorization: Basic d3Jvbmc6c2VjcmV0\r\n"])
async def test_missing_or_wrong_secret(
    proxy: EgressProxy, origin: LoopbackOrigin, credentials: str
) -> None:
    status, headers, _ = await exchange(
        proxy, f"GET {origin.url('/page')} HTTP/1.1\r\nHost: x\r\n{credentials}\r\n"
    )
    assert status == 407
    assert headers["proxy-authenticate"].startswith("Basic")
    status, _, _ = await exchange(proxy, f"CONNECT public.test:443 HTTP/1.1\r\n{credentials}\r\n")
    assert status == 407
    # Without credentials the 407 is a challenge, a denial once the connection ends unanswered.
    for _ in range(300):
        if len(proxy.denied) == 2:
            break
        await asyncio.sleep(0.01)
    assert [d.code for d in proxy.denied] == ["PROXY_AUTH", "PROXY_AUTH"]
    assert origin.requests == []


async def test_plain_http_is_forwarded(proxy: EgressProxy, origin: LoopbackOrigin) -> None:
    status, _, body = await exchange(
        proxy, f"GET {origin.url('/page')} HTTP/1.1\r\nHost: x\r\n{auth(proxy)}\r\n"
    )
    assert status == 200 and body == TEXT
    status, _, body = await exchange(
        proxy,
        f"POST {origin.url('/headers')} HTTP/1.1\r\nHost: x\r\n{auth(proxy)}"
        "Content-Length: 5\r\nX-Test: yes\r\n\r\nhello",
    )
    seen = json.loads(body)
    assert status == 200
    assert seen["host"] == f"127.0.0.1:{origin.port}"
    assert seen["x-test"] == "yes" and seen["x-body"] == "hello"
    assert "proxy-authorization" not in seen
    assert proxy.forwarded == 2


async def test_prefetches_are_refused_without_an_upstream_when_asked(
    policy: EgressPolicy, origin: LoopbackOrigin
) -> None:
    async with EgressProxy(policy, StaticResolver(RESOLVER), refuse_prefetch=True) as proxy:
        before = len(origin.requests)
        status, headers, _ = await exchange(
            proxy, f"GET {origin.url('/page')} HTTP/1.1\r\nHost: x\r\n{auth(proxy)}"
            "Sec-Purpose: prefetch\r\n\r\n",
        )
        assert status == 503 and headers["cache-control"] == "no-store"
        assert len(origin.requests) == before and proxy.prefetches_refused == 1
        assert proxy.denied == [] and proxy.forwarded == 0
        status, _, body = await exchange(  # the same request, not speculative, goes out
            proxy, f"GET {origin.url('/page')} HTTP/1.1\r\nHost: x\r\n{auth(proxy)}\r\n"
        )
        assert status == 200 and body == TEXT
        # The URL policy comes first: a denied target is recorded. (A name is not even
        # resolved for a prefetch: nothing is sent anywhere.)
        status, _, _ = await exchange(
            proxy, f"GET http://10.0.0.1/ HTTP/1.1\r\nHost: x\r\n{auth(proxy)}"
            "Sec-Purpose: prefetch\r\n\r\n",
        )
        assert status == 403 and [d.code for d in proxy.denied] == ["DENIED_ADDRESS"]


async def test_keep_alive_between_browser_and_proxy(
    proxy: EgressProxy, origin: LoopbackOrigin
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    try:
        for path in ("/page", "/gzip", "/chunked-big"):
            writer.write(
                f"GET {origin.url(path)} HTTP/1.1\r\nHost: x\r\n{auth(proxy)}\r\n".encode()
            )
            status, headers, body = await read_response(reader)
            assert status == 200
            if path == "/gzip":
                assert headers["content-encoding"] == "gzip"  # relayed as is
            if path == "/chunked-big":
                assert len(body) == 32 * 65536
    finally:
        writer.close()


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("http://10.0.0.1/", "DENIED_ADDRESS"),
        ("http://localhost/", "DENIED_HOST"),
        ("http://169.254.169.254/latest/meta-data/", "DENIED_ADDRESS"),
        ("http://metadata.google.internal/", "DENIED_HOST"),
        ("http://0x7f.1/", "DENIED_ADDRESS"),
        ("http://[::ffff:a9fe:a9fe]/", "DENIED_ADDRESS"),
        ("http://private.test/", "DENIED_ADDRESS"),
        ("http://mixed.test/", "DENIED_ADDRESS"),
        ("http://public.test:8080/", "INVALID_PORT"),
        ("http://user@public.test/", "USERINFO"),
    ],
)
async def test_plain_http_to_denied_targets(proxy: EgressProxy, url: str, code: str) -> None:
    request = f"GET {url} HTTP/1.1\r\nHost: x\r\n{auth(proxy)}\r\n"
    status, headers, _ = await exchange(proxy, request)
    assert status == 403
    assert headers["x-pressmark-denied"] == code
    assert proxy.denied[-1].code == code
    assert proxy.connector.dials == []  # type: ignore[attr-defined]


async def test_plain_http_to_rebinding_host(proxy: EgressProxy) -> None:
    request = f"GET http://rebind.test/ HTTP/1.1\r\nHost: rebind.test\r\n{auth(proxy)}\r\n"
    status, _, _ = await exchange(proxy, request)
    assert status == 502  # first answer public: dialled (the recording connector refuses)
    status, headers, _ = await exchange(proxy, request)
    assert status == 403 and headers["x-pressmark-denied"] == "DENIED_ADDRESS"
    assert proxy.connector.dials == [("93.184.216.34", 80)]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("authority", "code"),
    [
        ("10.0.0.1:443", "DENIED_ADDRESS"),
        ("127.0.0.1:443", "DENIED_ADDRESS"),
        ("[::1]:443", "DENIED_ADDRESS"),
        ("localhost:443", "DENIED_HOST"),
        ("metadata.google.internal:443", "DENIED_HOST"),
        ("private.test:443", "DENIED_ADDRESS"),
        ("mixed.test:443", "DENIED_ADDRESS"),
        ("public.test:22", "INVALID_PORT"),
        ("public.test:6379", "INVALID_PORT"),
        ("2130706433:443", "DENIED_ADDRESS"),
    ],
)
async def test_connect_to_denied_host(proxy: EgressProxy, authority: str, code: str) -> None:
    status, headers, _ = await exchange(proxy, f"CONNECT {authority} HTTP/1.1\r\n{auth(proxy)}\r\n")
    assert status == 403
    assert headers["x-pressmark-denied"] == code
    assert proxy.denied[-1].code == code
    assert proxy.connector.dials == []  # type: ignore[attr-defined]


async def test_connect_to_a_name_without_answer_is_a_bad_gateway(proxy: EgressProxy) -> None:
    status, _, _ = await exchange(proxy, f"CONNECT nxdomain.test:443 HTTP/1.1\r\n{auth(proxy)}\r\n")
    assert status == 502  # a DNS failure is a network error: nothing was refused
    assert proxy.denied == []
    assert proxy.connector.dials == []  # type: ignore[attr-defined]


async def test_connect_to_test_origin_port_is_refused(
    proxy: EgressProxy, origin: LoopbackOrigin
) -> None:
    status, _, _ = await exchange(
        proxy, f"CONNECT 127.0.0.1:{origin.port} HTTP/1.1\r\n{auth(proxy)}\r\n"
    )
    assert status == 403


async def test_connect_rebinding_pins_first_answer(proxy: EgressProxy) -> None:
    status, _, _ = await exchange(proxy, f"CONNECT rebind.test:443 HTTP/1.1\r\n{auth(proxy)}\r\n")
    assert status == 502
    status, _, _ = await exchange(proxy, f"CONNECT rebind.test:443 HTTP/1.1\r\n{auth(proxy)}\r\n")
    assert status == 403
    assert proxy.connector.dials == [("93.184.216.34", 443)]  # type: ignore[attr-defined]


async def test_connect_tunnel_relays_bytes(origin: LoopbackOrigin) -> None:
    async with EgressProxy(EgressPolicy(guarded=False), StaticResolver({})) as proxy:
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        try:
            writer.write(f"CONNECT 127.0.0.1:{origin.port} HTTP/1.1\r\n{auth(proxy)}\r\n".encode())
            assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
            writer.write(b"GET /page HTTP/1.1\r\nHost: x\r\n\r\n")
            status, _, body = await read_response(reader)
            assert status == 200 and body == TEXT
        finally:
            writer.close()
        assert proxy.tunnels == 1


async def test_origin_form_and_https_absolute_form_are_refused(proxy: EgressProxy) -> None:
    status, _, _ = await exchange(proxy, f"GET / HTTP/1.1\r\nHost: x\r\n{auth(proxy)}\r\n")
    assert status == 400
    status, _, _ = await exchange(
        proxy, f"GET https://public.test/ HTTP/1.1\r\nHost: x\r\n{auth(proxy)}\r\n"
    )
    assert status == 400


async def test_malformed_request_does_not_crash(proxy: EgressProxy, origin: LoopbackOrigin) -> None:
    status, _, _ = await exchange(proxy, "BROKEN\r\n\r\n")
    assert status == 400
    status, _, body = await exchange(
        proxy, f"GET {origin.url('/page')} HTTP/1.1\r\nHost: x\r\n{auth(proxy)}\r\n"
    )
    assert status == 200 and body == TEXT


def upstream(proxy: EgressProxy, password: str | None = None) -> str:
    return f"http://{proxy.username}:{password or proxy.password}@127.0.0.1:{proxy.port}"


async def test_client_through_an_upstream_proxy(origin: LoopbackOrigin) -> None:
    from pressmark.egress import EgressDenied, GuardedClient, NetworkError

    proxy_connector = RecordingConnector()
    resolver = StaticResolver(RESOLVER)
    async with EgressProxy(EgressPolicy(guarded=False), resolver, proxy_connector) as proxy:
        policy = EgressPolicy(proxy=upstream(proxy)).allow_loopback(origin.origin)
        client_connector = RecordingConnector()
        async with GuardedClient(policy, resolver, client_connector) as client:
            for _ in range(3):
                r = await client.get(origin.url("/page"))
                assert r.status == 200 and r.content == TEXT and r.peer_ip == "127.0.0.1"
            with pytest.raises(EgressDenied):  # checked before the proxy is asked
                await client.get("http://private.test/")
            with pytest.raises(NetworkError):  # rebind.test: public first, tunnel refused
                await client.get("http://rebind.test/")
            with pytest.raises(EgressDenied):  # then private: never reaches the proxy
                await client.get("http://rebind.test/")
        assert proxy.tunnels == 1  # one pooled connection for the three gets
        assert client_connector.dials == [("127.0.0.1", proxy.port)] * 2
        assert proxy_connector.dials == [("127.0.0.1", origin.port), ("93.184.216.34", 80)]
        bad = EgressPolicy(proxy=upstream(proxy, "wrong")).allow_loopback(origin.origin)
        async with GuardedClient(bad, resolver) as client:
            with pytest.raises(NetworkError, match="refused the tunnel"):
                await client.get(origin.url("/page"))


async def test_tls_inside_an_upstream_tunnel() -> None:
    from pressmark.egress import GuardedClient, NetworkError

    from ._tls import contexts

    server_ctx, client_ctx = contexts("secure.test")
    resolver = StaticResolver({"secure.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
    async with (
        LoopbackOrigin(ssl=server_ctx) as tls,
        EgressProxy(EgressPolicy(guarded=False), resolver) as proxy,
    ):
        policy = EgressPolicy(guarded=False, proxy=upstream(proxy))
        async with GuardedClient(policy, resolver, ssl_context=client_ctx) as client:
            r = await client.get(f"https://secure.test:{tls.port}/page")
            assert r.status == 200 and r.content == TEXT
            with pytest.raises(NetworkError, match="TLS"):  # the name is verified, not the IP
                await client.get(f"https://other.test:{tls.port}/page")


@pytest.mark.parametrize("authority", ["public.test/x:443", "u@public.test:443", "public.test"])
async def test_connect_authority_must_be_host_port(proxy: EgressProxy, authority: str) -> None:
    status, _, _ = await exchange(proxy, f"CONNECT {authority} HTTP/1.1\r\n{auth(proxy)}\r\n")
    assert status == 400
    assert proxy.connector.dials == []  # type: ignore[attr-defined]


async def test_refused_request_body_is_skipped(proxy: EgressProxy, origin: LoopbackOrigin) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    try:
        writer.write(b"POST http://10.0.0.1/ HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody")
        status, _, _ = await read_response(reader)
        assert status == 407
        writer.write(
            f"GET {origin.url('/page')} HTTP/1.1\r\nHost: x\r\n{auth(proxy)}\r\n".encode()
        )
        status, _, body = await read_response(reader)
        assert status == 200 and body == TEXT
        writer.write(
            f"POST http://10.0.0.1/ HTTP/1.1\r\n{auth(proxy)}Transfer-Encoding: chunked\r\n\r\n"
            "4\r\nbody\r\n0\r\n\r\n".encode()
        )
        status, headers, _ = await read_response(reader)
        assert status == 403 and headers.get("connection") == "close"
    finally:
        writer.close()
