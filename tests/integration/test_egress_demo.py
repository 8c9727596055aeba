"""GuardedClient and EgressProxy against the demo site and its fault endpoints (loopback only)."""

from __future__ import annotations

import base64
import time
from typing import TYPE_CHECKING

import pytest

from pressmark.egress import (
    EgressDenied,
    EgressPolicy,
    EgressProxy,
    EgressTimeout,
    GuardedClient,
    NetworkError,
    ResponseTooLarge,
    StaticResolver,
    Timeout,
)
from pressmark.testing import RecordingConnector

if TYPE_CHECKING:
    from pressmark.demo import DemoServer, DemoSite


def client_for(origin: str, **policy: object) -> GuardedClient:
    return GuardedClient(
        EgressPolicy(test_only_allowed_loopback_origins=(origin,), **policy),  # type: ignore[arg-type]
        StaticResolver({}),
        RecordingConnector(),
    )


async def test_every_demo_page_through_the_client(
    demo_site: DemoSite, demo_server: DemoServer, demo_origin: str
) -> None:
    mark = len(demo_server.requests)
    async with client_for(demo_origin) as client:
        for page in demo_site.pages:
            response = await client.get(demo_origin + page.path)
            assert response.status == 200, page.path
            assert b"<html" in response.content.lower()
            assert response.peer_ip == "127.0.0.1"
        dials = client.connector.dials  # type: ignore[attr-defined]
    seen = demo_server.requests[mark:]
    assert len(seen) == len(demo_site.pages)
    assert all("gzip" in (r.header("accept-encoding") or "") for r in seen)
    assert len(dials) <= 2  # keep-alive: one connection for the whole walk (sequential)


async def test_demo_redirect_chain(demo_origin: str) -> None:
    async with client_for(demo_origin) as client:
        response = await client.get(demo_origin + "/redirect/chain")
    assert response.url == demo_origin + "/special/redirect-target"
    assert [h.status for h in response.redirects] == [301, 302, 307, 308]
    assert all(h.ip == "127.0.0.1" for h in response.redirects)


@pytest.mark.parametrize("path", ["/redirect/loop", "/redirect/n/11"])
async def test_demo_redirect_limits(demo_origin: str, path: str) -> None:
    async with client_for(demo_origin) as client:
        with pytest.raises(EgressDenied) as info:
            await client.get(demo_origin + path)
    assert info.value.code == "TOO_MANY_REDIRECTS"
    async with client_for(demo_origin, max_redirects=20) as client:
        response = await client.get(demo_origin + "/redirect/n/20")
    assert len(response.redirects) == 20


async def test_fault_bomb_fails_fast(fault_server: DemoServer) -> None:
    origin = fault_server.url
    async with client_for(origin) as client:
        start = time.perf_counter()
        with pytest.raises(ResponseTooLarge):
            await client.get(origin + "/fault/gzip-bomb?mb=1024", max_body_bytes=1 << 31)
        assert time.perf_counter() - start < 10


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("/fault/bad-gzip", NetworkError),
        ("/fault/reset", NetworkError),
        ("/fault/length-long", NetworkError),
        ("/fault/empty", NetworkError),
        ("/fault/garbage", NetworkError),
        ("/fault/huge?mb=50", ResponseTooLarge),
        ("/fault/huge-chunked?mb=50", ResponseTooLarge),
        ("/fault/redirect-forever/0", EgressDenied),
    ],
)
async def test_fault_endpoints(fault_server: DemoServer, path: str, error: type[Exception]) -> None:
    origin = fault_server.url
    async with client_for(origin) as client:
        with pytest.raises(error):
            await client.get(origin + path, max_body_bytes=1 << 20)
        assert (await client.get(origin + "/")).status == 200  # the client is still usable


async def test_fault_timeouts(fault_server: DemoServer) -> None:
    origin = fault_server.url
    async with client_for(origin) as client:
        with pytest.raises(EgressTimeout):
            await client.get(origin + "/fault/slow-headers?seconds=3", timeout=Timeout(read=0.3))
        with pytest.raises(EgressTimeout):
            await client.get(
                origin + "/fault/slow-body?chunks=20&interval=0.2",
                timeout=Timeout(read=5, total=0.5),
            )


async def test_demo_pages_through_the_proxy(demo_site: DemoSite, demo_origin: str) -> None:
    import aiohttp

    policy = EgressPolicy(test_only_allowed_loopback_origins=(demo_origin,))
    async with (
        EgressProxy(policy, StaticResolver({}), RecordingConnector()) as proxy,
        GuardedClient(policy, StaticResolver({})) as direct,
        aiohttp.ClientSession(trust_env=False) as session,
    ):
        token = base64.b64encode(f"{proxy.username}:{proxy.password}".encode()).decode()
        auth = {"Proxy-Authorization": f"Basic {token}"}
        for page in demo_site.pages[:40]:
            async with session.get(
                demo_origin + page.path, proxy=proxy.server, headers=auth
            ) as r:
                body = await r.read()
                assert r.status == 200
            assert body == (await direct.get(demo_origin + page.path)).content
        async with session.get("http://10.0.0.1/", proxy=proxy.server, headers=auth) as r:
            assert r.status == 403
        async with session.get(demo_origin + "/", proxy=proxy.server) as r:
            assert r.status == 407
    assert proxy.forwarded == 40
    assert [d.code for d in proxy.denied] == ["DENIED_ADDRESS", "PROXY_AUTH"]
