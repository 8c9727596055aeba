"""GuardedClient against real loopback origins (admitted as test-only origins)."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator

import pytest

from pressmark.egress import (
    DnsFailure,
    EgressDenied,
    EgressPolicy,
    EgressTimeout,
    GuardedClient,
    NetworkError,
    ResponseTooLarge,
    StaticResolver,
    Timeout,
)
from pressmark.testing import RecordingConnector

from ._server import TEXT, LoopbackOrigin
from ._tls import contexts


@pytest.fixture
async def client(policy: EgressPolicy) -> AsyncIterator[GuardedClient]:
    async with GuardedClient(policy, StaticResolver({}), RecordingConnector()) as c:
        yield c


async def test_get_plain(client: GuardedClient, origin: LoopbackOrigin) -> None:
    r = await client.get(origin.url("/page"))
    assert r.status == 200
    assert r.content == TEXT
    assert r.url == origin.url("/page")
    assert r.peer_ip == "127.0.0.1"
    assert r.redirects == ()
    assert r.header("Content-Type") == "text/html"
    assert all(k == k.lower() for k, _ in r.headers)


@pytest.mark.parametrize("path", ["/gzip", "/deflate", "/rawdeflate", "/br", "/zstd", "/gzip-br"])
async def test_content_decoding(client: GuardedClient, origin: LoopbackOrigin, path: str) -> None:
    r = await client.get(origin.url(path))
    assert r.content == TEXT


async def test_request_headers(client: GuardedClient, origin: LoopbackOrigin) -> None:
    r = await client.get(origin.url("/headers"), headers={"X-Test": "1", "Host": "evil.test"})
    seen = json.loads(r.content)
    assert seen["host"] == f"127.0.0.1:{origin.port}"
    assert seen["x-test"] == "1"
    assert seen["user-agent"].startswith("pressmark/")
    assert "zstd" in seen["accept-encoding"]


async def test_connections_are_reused(policy: EgressPolicy, origin: LoopbackOrigin) -> None:
    connector = RecordingConnector()
    async with GuardedClient(policy, StaticResolver({}), connector) as c:
        for _ in range(5):
            await c.get(origin.url("/page"))
    assert connector.dials == [("127.0.0.1", origin.port)]


async def test_redirect_chain_records_hops(client: GuardedClient, origin: LoopbackOrigin) -> None:
    r = await client.get(origin.url("/chain/3"))
    assert r.url == origin.url("/chain/0")
    assert [(h.status, h.location, h.url, h.ip) for h in r.redirects] == [
        (302, "/chain/2", origin.url("/chain/3"), "127.0.0.1"),
        (302, "/chain/1", origin.url("/chain/2"), "127.0.0.1"),
        (302, "/chain/0", origin.url("/chain/1"), "127.0.0.1"),
    ]


async def test_too_many_redirects(client: GuardedClient, origin: LoopbackOrigin) -> None:
    with pytest.raises(EgressDenied) as info:
        await client.get(origin.url("/loop"))
    assert info.value.code == "TOO_MANY_REDIRECTS"
    assert len(info.value.hops) == 11


async def test_max_redirects_zero(origin: LoopbackOrigin) -> None:
    policy = EgressPolicy(max_redirects=0).allow_loopback(origin.origin)
    async with GuardedClient(policy, StaticResolver({})) as c:
        assert (await c.get(origin.url("/page"))).status == 200
        with pytest.raises(EgressDenied, match="redirects"):
            await c.get(origin.url("/chain/1"))


def test_max_redirects_capped() -> None:
    with pytest.raises(ValueError, match="max_redirects"):
        EgressPolicy(max_redirects=21)


REDIRECT_TARGETS = [
    ("http://127.0.0.2/", "DENIED_ADDRESS"),
    ("http://localhost/", "DENIED_HOST"),
    ("http://169.254.169.254/latest/meta-data/", "DENIED_ADDRESS"),
    ("http://metadata.google.internal/", "DENIED_HOST"),
    ("http://[::1]/", "DENIED_ADDRESS"),
    ("http://[::ffff:127.0.0.1]/", "DENIED_ADDRESS"),
    ("http://2130706433/", "DENIED_ADDRESS"),
    ("http://0x7f.1/", "DENIED_ADDRESS"),
    ("http://internal.test/", "DENIED_ADDRESS"),
    ("http://rebind.test/", "DENIED_ADDRESS"),
    ("file:///etc/passwd", "INVALID_SCHEME"),
    ("gopher://127.0.0.1:6379/_INFO", "INVALID_SCHEME"),
    ("http://user:pw@example.test/", "USERINFO"),
    ("http://public.test:6379/", "INVALID_PORT"),
    ("http://[::1/", "INVALID_HOST"),
]


@pytest.mark.parametrize(("target", "code"), REDIRECT_TARGETS)
async def test_redirect_to_internal_target_is_refused(
    policy: EgressPolicy, origin: LoopbackOrigin, target: str, code: str
) -> None:
    resolver = StaticResolver(
        {"internal.test": ["10.1.2.3"], "rebind.test": ["93.184.216.34", "192.168.0.1"],
         "public.test": ["93.184.216.34"], "example.test": ["93.184.216.34"]}
    )
    connector = RecordingConnector()
    seen: list[str] = []

    async def hop_check(url: str) -> None:
        seen.append(url)

    async with GuardedClient(policy, resolver, connector) as c:
        with pytest.raises(EgressDenied) as info:
            await c.get(origin.url(f"/redirect?to={target}"), hop_check=hop_check)
    assert info.value.code == code
    assert len(info.value.hops) == 1
    assert connector.dials == [("127.0.0.1", origin.port)]
    assert seen[0] == origin.url(f"/redirect?to={target}")  # DNS-denied hops are checked at dial
    assert "/redirect" not in str(info.value)


async def test_redirect_to_a_name_without_answer_is_a_dns_failure(
    policy: EgressPolicy, origin: LoopbackOrigin
) -> None:
    connector = RecordingConnector()
    async with GuardedClient(policy, StaticResolver({}), connector) as c:
        with pytest.raises(DnsFailure) as info:
            await c.get(origin.url("/redirect?to=http://nowhere.test/"))
    assert info.value.code == "dns-failure" and info.value.host == "nowhere.test"
    assert connector.dials == [("127.0.0.1", origin.port)]


async def test_hop_check_runs_before_every_request(
    client: GuardedClient, origin: LoopbackOrigin
) -> None:
    seen: list[str] = []

    async def hop_check(url: str) -> None:
        seen.append(url)

    await client.get(origin.url("/chain/2"), hop_check=hop_check)
    assert seen == [origin.url("/chain/2"), origin.url("/chain/1"), origin.url("/chain/0")]


async def test_hop_check_exception_propagates(
    client: GuardedClient, origin: LoopbackOrigin
) -> None:
    class Robots(Exception):
        pass

    async def hop_check(url: str) -> None:
        if url.endswith("/chain/0"):
            raise Robots(url)

    with pytest.raises(Robots):
        await client.get(origin.url("/chain/1"), hop_check=hop_check)
    assert origin.requests[-1].target == "/chain/1"


async def test_cross_host_redirect(origin: LoopbackOrigin) -> None:
    async with LoopbackOrigin(host="127.0.0.2") as other:
        follow = EgressPolicy().allow_loopback(origin.origin, other.origin)
        async with GuardedClient(follow, StaticResolver({})) as c:
            r = await c.get(
                origin.url(f"/redirect?to={other.url('/headers')}"),
                headers={"Authorization": "secret", "X-Keep": "1"},
            )
        assert r.peer_ip == "127.0.0.2"
        assert r.redirects[0].ip == "127.0.0.1"
        seen = json.loads(r.content)
        assert "authorization" not in seen and seen["x-keep"] == "1"
        same = EgressPolicy(redirects="same-host").allow_loopback(origin.origin, other.origin)
        async with GuardedClient(same, StaticResolver({})) as c:
            with pytest.raises(EgressDenied) as info:
                await c.get(origin.url(f"/redirect?to={other.url('/')}"))
        assert info.value.code == "REDIRECT_CROSS_HOST"


async def test_https_redirect_to_http_is_a_downgrade(
    caplog: pytest.LogCaptureFixture, origin: LoopbackOrigin
) -> None:
    server_ctx, client_ctx = contexts("secure.test")
    async with LoopbackOrigin(ssl=server_ctx) as tls:
        resolver = StaticResolver({"secure.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
        policy = EgressPolicy(guarded=False)
        async with GuardedClient(policy, resolver, ssl_context=client_ctx) as c:
            url = f"https://secure.test:{tls.port}"
            r = await c.get(url + "/page")
            assert r.status == 200 and r.content == TEXT and r.peer_ip == "127.0.0.1"
            with pytest.raises(EgressDenied) as info:
                await c.get(url + f"/redirect?to={origin.url('/')}")
            assert info.value.code == "REDIRECT_DOWNGRADE"
            # the certificate is checked against the name, not the pinned IP
            with pytest.raises(NetworkError, match="TLS"):
                await c.get(f"https://other.test:{tls.port}/page")
    assert "UNGUARDED" in caplog.text


async def test_unguarded_logs_every_use(
    caplog: pytest.LogCaptureFixture, origin: LoopbackOrigin
) -> None:
    caplog.set_level(logging.WARNING, logger="pressmark.egress")
    async with GuardedClient(EgressPolicy(guarded=False), StaticResolver({})) as c:
        await c.get(origin.url("/page"))
        await c.get(origin.url("/page"))
    assert caplog.text.count("UNGUARDED") >= 2


async def test_declared_length_over_cap(client: GuardedClient, origin: LoopbackOrigin) -> None:
    with pytest.raises(ResponseTooLarge, match="declares"):
        await client.get(origin.url("/declared-big"), max_body_bytes=1000)


async def test_streamed_body_over_cap(client: GuardedClient, origin: LoopbackOrigin) -> None:
    with pytest.raises(ResponseTooLarge):
        await client.get(origin.url("/chunked-big"), max_body_bytes=100_000)
    r = await client.get(origin.url("/chunked-big"), max_body_bytes=10_000_000)
    assert len(r.content) == 32 * 65536


@pytest.mark.parametrize("path", ["/bomb", "/bomb-br", "/bomb-zstd"])
async def test_compression_bomb(client: GuardedClient, origin: LoopbackOrigin, path: str) -> None:
    with pytest.raises(ResponseTooLarge) as info:
        await client.get(origin.url(path), max_body_bytes=1 << 30)
    assert "bomb" in str(info.value)
    with pytest.raises(ResponseTooLarge):
        await client.get(origin.url(path), max_body_bytes=100_000)


async def test_stream_reads_incrementally(client: GuardedClient, origin: LoopbackOrigin) -> None:
    async with client.stream(origin.url("/chunked-big")) as r:
        assert r.status == 200
        total = 0
        async for chunk in r.aiter_bytes():
            total += len(chunk)
            if total > 100_000:
                break
    assert total > 100_000
    assert (await client.get(origin.url("/page"))).status == 200


async def test_read_timeout(client: GuardedClient, origin: LoopbackOrigin) -> None:
    with pytest.raises(EgressTimeout):
        await client.get(origin.url("/slow?s=2"), timeout=Timeout(read=0.2, total=5))


async def test_total_timeout(client: GuardedClient, origin: LoopbackOrigin) -> None:
    with pytest.raises(EgressTimeout, match=r"127\.0\.0\.1"):
        await client.get(origin.url("/slow?s=2"), timeout=0.3)
    with pytest.raises(EgressTimeout):
        await client.get(origin.url("/slow-body?s=2"), timeout=Timeout(read=5, total=0.3))


async def test_connection_refused(origin: LoopbackOrigin) -> None:
    dead = LoopbackOrigin()
    await dead.start()
    await dead.close()
    policy = EgressPolicy().allow_loopback(dead.origin)
    async with GuardedClient(policy, StaticResolver({})) as c:
        with pytest.raises(NetworkError) as info:
            await c.get(dead.url("/"))
    assert info.value.code == "network-error"


async def test_protocol_error(client: GuardedClient, origin: LoopbackOrigin) -> None:
    with pytest.raises(NetworkError):
        await client.get(origin.url("/garbage"))


async def test_pin_dials_first_answer_only() -> None:
    resolver = StaticResolver({"r.test": [["93.184.216.34", "93.184.216.35"], ["10.0.0.1"]]})
    connector = RecordingConnector()
    async with GuardedClient(EgressPolicy(), resolver, connector) as c:
        with pytest.raises(NetworkError):  # the recording connector refuses public dials
            await c.get("http://r.test/")
        assert connector.dials == [("93.184.216.34", 80)]
        with pytest.raises(EgressDenied) as info:  # rebinding: the second answer is private
            await c.get("http://r.test/")
    assert info.value.code == "DENIED_ADDRESS"
    assert connector.dials == [("93.184.216.34", 80)]
    assert resolver.calls == ["r.test", "r.test"]


async def test_mixed_answers_deny_before_dialling() -> None:
    resolver = StaticResolver({"mixed.test": ["93.184.216.34", "127.0.0.1"]})
    connector = RecordingConnector()
    async with GuardedClient(EgressPolicy(), resolver, connector) as c:
        with pytest.raises(EgressDenied) as info:
            await c.get("http://mixed.test/")
    assert info.value.code == "DENIED_ADDRESS"
    assert "loopback" in str(info.value)
    assert connector.dials == []


async def test_policy_port_must_match_test_origin(origin: LoopbackOrigin) -> None:
    other = f"http://127.0.0.1:{origin.port + 1}"
    policy = EgressPolicy(test_only_allowed_loopback_origins=(other,))
    connector = RecordingConnector()
    async with GuardedClient(policy, StaticResolver({}), connector) as c:
        with pytest.raises(EgressDenied):
            await c.get(origin.url("/"))
    assert connector.dials == []


async def test_proxy_environment_is_ignored(
    monkeypatch: pytest.MonkeyPatch, policy: EgressPolicy, origin: LoopbackOrigin
) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "HTTPS_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    connector = RecordingConnector()
    async with GuardedClient(policy, StaticResolver({}), connector) as c:
        assert (await c.get(origin.url("/page"))).status == 200
    assert connector.dials == [("127.0.0.1", origin.port)]


async def test_closed_client_refuses(policy: EgressPolicy, origin: LoopbackOrigin) -> None:
    client = GuardedClient(policy, StaticResolver({}))
    await client.aclose()
    with pytest.raises(RuntimeError):
        await client.get(origin.url("/page"))


async def test_concurrent_requests_share_the_pool(
    policy: EgressPolicy, origin: LoopbackOrigin
) -> None:
    import asyncio

    connector = RecordingConnector()
    async with GuardedClient(
        policy, StaticResolver({}), connector, max_connections_per_host=4
    ) as c:
        results = await asyncio.gather(*(c.get(origin.url(f"/p{i}")) for i in range(40)))
    assert all(r.status == 200 and r.content == TEXT for r in results)
    assert 1 <= len(connector.dials) <= 4


async def test_bad_header_values_are_refused(client: GuardedClient, origin: LoopbackOrigin) -> None:
    with pytest.raises(ValueError, match="CR"):
        await client.get(origin.url("/page"), headers={"X-Evil": "a\r\nHost: evil"})


async def test_idle_connections_are_capped_across_origins(origin: LoopbackOrigin) -> None:
    servers = [LoopbackOrigin(host=f"127.0.0.{i}") for i in range(2, 6)]
    for server in servers:
        await server.start()
    try:
        policy = EgressPolicy().allow_loopback(origin.origin, *(s.origin for s in servers))
        async with GuardedClient(policy, StaticResolver({}), max_connections=2) as c:
            for server in [origin, *servers]:
                assert (await c.get(server.url("/page"))).status == 200
            assert c._pool.idle_count == 2
            assert (await c.get(servers[-1].url("/page"))).status == 200
    finally:
        for server in servers:
            await server.close()


@pytest.mark.parametrize(
    "path", ["/huge-header", "/many-headers", "/conflicting-length", "/bad-chunk"]
)
async def test_framing_violations(client: GuardedClient, origin: LoopbackOrigin, path: str) -> None:
    with pytest.raises(NetworkError, match="protocol"):
        await client.get(origin.url(path))
    assert (await client.get(origin.url("/page"))).status == 200


async def test_interim_and_close_delimited(client: GuardedClient, origin: LoopbackOrigin) -> None:
    r = await client.get(origin.url("/continue"))
    assert r.status == 200 and r.content == TEXT
    r = await client.get(origin.url("/close-delimited"))
    assert r.status == 200 and r.content == TEXT
    r = await client.get(origin.url("/switch"))
    assert r.status == 101 and r.content == b""
    assert (await client.get(origin.url("/page"))).status == 200


async def test_validators_go_to_the_first_url_only(origin: LoopbackOrigin) -> None:
    """Red team #34: stored validators were forwarded on redirect hops (to other hosts too)."""
    async with LoopbackOrigin(host="127.0.0.2") as other:
        follow = EgressPolicy().allow_loopback(origin.origin, other.origin)
        async with GuardedClient(follow, StaticResolver({})) as c:
            for target in (other.url("/headers"), origin.url("/headers")):
                r = await c.get(
                    origin.url(f"/redirect?to={target}"),
                    headers={"If-None-Match": '"forged"', "If-Modified-Since": "x", "X-Keep": "1"},
                )
                seen = json.loads(r.content)
                assert "if-none-match" not in seen and "if-modified-since" not in seen
                assert seen["x-keep"] == "1"
                first = [q for q in origin.requests if q.target.startswith("/redirect")][-1]
                assert first.headers.get("if-none-match") == '"forged"'
                assert not any(k.lower().startswith("if-") for k, _ in r.request_headers)
            direct = await c.get(origin.url("/headers"), headers={"If-None-Match": '"v"'})
            assert json.loads(direct.content)["if-none-match"] == '"v"'
