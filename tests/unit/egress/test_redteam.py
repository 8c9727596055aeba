"""Red-team regressions: pooled rebinding, redirect Location tricks, header and proxy smuggling.

Public names resolve (through ``StaticResolver``) to public addresses; the
``LoopbackDialer`` below records each dial the client asks for and carries it
to a loopback test origin instead, so the client's pool, pin and redirect
logic run for real without a packet leaving 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import logging
import ssl as _ssl
from collections.abc import AsyncIterator
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.cli import main
from pressmark.egress import (
    DnsFailure,
    EgressDenied,
    EgressPolicy,
    EgressProxy,
    GuardedClient,
    NetworkError,
    StaticResolver,
    evaluate_url,
    parse_url,
)
from pressmark.egress._address import classify_address
from pressmark.egress._connector import AsyncioConnector
from pressmark.testing import RecordingConnector

from ._server import TEXT, LoopbackOrigin
from .test_proxy import auth, exchange

PUBLIC = "93.184.216.34"
PUBLIC2 = "93.184.216.35"


class LoopbackDialer:
    """A connector that records ``(ip, port)`` and dials the loopback origin instead."""

    def __init__(self, origin: LoopbackOrigin) -> None:
        self.origin = origin
        self.dials: list[tuple[str, int]] = []

    async def open_connection(
        self,
        ip: str,
        port: int,
        *,
        ssl: _ssl.SSLContext | None = None,
        server_hostname: str | None = None,
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        self.dials.append((ip, port))
        assert ssl is None
        return await asyncio.open_connection("127.0.0.1", self.origin.port)


@pytest.fixture
async def dialer(origin: LoopbackOrigin) -> LoopbackDialer:
    return LoopbackDialer(origin)


# -- pooled connections and rebinding ------------------------------------------------------


async def test_pool_is_never_shared_between_hosts(dialer: LoopbackDialer) -> None:
    resolver = StaticResolver({"a.test": [PUBLIC], "b.test": [PUBLIC]})
    async with GuardedClient(EgressPolicy(), resolver, dialer) as c:
        await c.get("http://a.test/page")
        await c.get("http://a.test/page")  # reused: no new dial
        await c.get("http://b.test/page")  # same IP, other host: a new pinned connection
    assert dialer.dials == [(PUBLIC, 80), (PUBLIC, 80)]
    assert resolver.calls == ["a.test", "b.test"]


async def test_new_connection_after_expiry_revalidates(dialer: LoopbackDialer) -> None:
    resolver = StaticResolver({"r.test": [[PUBLIC], ["127.0.0.1"]]})
    async with GuardedClient(EgressPolicy(), resolver, dialer, keepalive_expiry=0.0) as c:
        assert (await c.get("http://r.test/page")).peer_ip == PUBLIC
        with pytest.raises(EgressDenied) as info:  # the idle connection expired: resolve again
            await c.get("http://r.test/page")
    assert info.value.code == "DENIED_ADDRESS"
    assert dialer.dials == [(PUBLIC, 80)]
    assert resolver.calls == ["r.test", "r.test"]


async def test_pooled_connection_keeps_its_pin(dialer: LoopbackDialer) -> None:
    resolver = StaticResolver({"r.test": [[PUBLIC], ["127.0.0.1"]]})
    async with GuardedClient(EgressPolicy(), resolver, dialer) as c:
        first = await c.get("http://r.test/page")
        second = await c.get("http://r.test/page")  # reused connection: still the vetted IP
    assert first.peer_ip == second.peer_ip == PUBLIC
    assert resolver.calls == ["r.test"]


async def test_dialled_address_is_canonical(dialer: LoopbackDialer) -> None:
    resolver = StaticResolver({"v6.test": ["2606:2800:0220:0001:0248:1893:25C8:1946"]})
    async with GuardedClient(EgressPolicy(), resolver, dialer) as c:
        await c.get("http://v6.test/page")
    assert dialer.dials == [("2606:2800:220:1:248:1893:25c8:1946", 80)]


@pytest.mark.parametrize("answer", [" 93.184.216.34", "93.184.216.34\n", "127.1", "localhost"])
async def test_odd_answers_are_never_dialled(dialer: LoopbackDialer, answer: str) -> None:
    async with GuardedClient(EgressPolicy(), StaticResolver({"x.test": [answer]}), dialer) as c:
        with pytest.raises(EgressDenied) as info:
            await c.get("http://x.test/")
    assert info.value.code == "DENIED_ADDRESS"
    assert dialer.dials == []


async def test_resolver_crash_is_a_dns_failure() -> None:
    class Broken:
        async def resolve(self, host: str) -> list[str]:
            raise RuntimeError("resolver bug")

    with pytest.raises(DnsFailure) as info:
        await evaluate_url("http://x.test/", resolver=Broken())
    assert info.value.code == "dns-failure"


async def test_resolver_returning_one_string() -> None:
    class OneString:
        async def resolve(self, host: str) -> list[str]:
            return "127.0.0.1"  # type: ignore[return-value]  # a buggy custom resolver

    with pytest.raises(EgressDenied) as info:
        await evaluate_url("http://x.test/", resolver=OneString())
    assert info.value.code == "DENIED_ADDRESS"


def test_classify_address_is_strict() -> None:
    assert classify_address(" 93.184.216.34") == "not an IP address"
    assert classify_address("93.184.216.34\n") == "not an IP address"
    assert classify_address("93.184.216.34") is None


# -- redirect Location tricks ----------------------------------------------------------------

LOCATIONS = [
    ("//127.0.0.1/", "DENIED_ADDRESS"),
    ("///127.0.0.1/", "DENIED_ADDRESS"),
    ("\\\\127.0.0.1\\", "DENIED_ADDRESS"),
    ("/\\127.0.0.1/", "DENIED_ADDRESS"),
    ("\\/169.254.169.254/", "DENIED_ADDRESS"),
    ("http:/\\127.0.0.1/", "DENIED_ADDRESS"),
    ("http://[::1]/", "DENIED_ADDRESS"),
    ("http://[::ffff:7f00:1]/", "DENIED_ADDRESS"),
    ("HTTP://0x7f.1/", "DENIED_ADDRESS"),
    ("\thttp://127.0.0.1/", "DENIED_ADDRESS"),
    ("http://pub.test@127.0.0.1/", "USERINFO"),
    ("https:127.0.0.1", "DENIED_ADDRESS"),
    ("http://loc\u00e2\u0080\u008balhost/", "DENIED_HOST"),  # UTF-8 bytes of U+200B on the wire
    ("http://" + "ｌｏｃａｌｈｏｓｔ".encode().decode("latin-1"), "DENIED_HOST"),  # UTF-8 bytes
    ("http://rebind.test/", "DENIED_ADDRESS"),
]


@pytest.mark.parametrize(("location", "code"), LOCATIONS)
async def test_redirect_location_tricks(
    dialer: LoopbackDialer, location: str, code: str
) -> None:
    resolver = StaticResolver({"pub.test": [PUBLIC], "rebind.test": [[PUBLIC2], ["10.0.0.1"]]})
    async with GuardedClient(EgressPolicy(), resolver, dialer) as c:
        await resolver.resolve("rebind.test")  # spend the public answer
        with pytest.raises(EgressDenied) as info:
            await c.get(f"http://pub.test/redirect?to={_q(location)}")
    assert info.value.code == code
    assert len(info.value.hops) == 1
    assert dialer.dials == [(PUBLIC, 80)]


def _q(text: str) -> str:
    return quote(text, safe="")


@pytest.mark.parametrize(
    ("location", "final"),
    [
        ("http:127.0.0.1", "http://pub.test/127.0.0.1"),
        ("http:/127.0.0.1", "http://pub.test/127.0.0.1"),
        ("HTTP:/127.0.0.1?x", "http://pub.test/127.0.0.1?x"),
        ("./a/../b\\..\\c", "http://pub.test/c"),
        ("/%2e%2e/%2E./page", "http://pub.test/page"),
    ],
)
async def test_relative_http_location_stays_on_host(
    dialer: LoopbackDialer, location: str, final: str
) -> None:
    """With the base's scheme, only "//" starts an authority (WHATWG); the rest are paths."""
    resolver = StaticResolver({"pub.test": [PUBLIC]})
    async with GuardedClient(EgressPolicy(), resolver, dialer) as c:
        r = await c.get(f"http://pub.test/redirect?to={_q(location)}")
    assert r.redirects[0].location == location
    assert r.url == final
    assert dialer.dials == [(PUBLIC, 80)]


async def test_credentials_do_not_follow_a_port_change(
    origin: LoopbackOrigin, origin2: LoopbackOrigin
) -> None:
    policy = EgressPolicy().allow_loopback(origin.origin, origin2.origin)
    async with GuardedClient(policy, StaticResolver({}), RecordingConnector()) as c:
        r = await c.get(
            origin.url(f"/redirect?to={_q(origin2.url('/headers'))}"),
            headers={"Authorization": "secret", "Cookie": "a=b", "X-Keep": "1"},
        )
    seen = json.loads(r.content)
    assert "authorization" not in seen and "cookie" not in seen and seen["x-keep"] == "1"


@pytest.mark.parametrize("name", ["Host:evil.test", "Host ", "X A", "", "X\u00e9"])
async def test_header_names_must_be_tokens(
    client_policy_origin: GuardedClient, origin: LoopbackOrigin, name: str
) -> None:
    with pytest.raises(ValueError, match="token"):
        await client_policy_origin.get(origin.url("/headers"), headers=[(name, "1")])
    assert origin.requests == []


@pytest.fixture
async def client_policy_origin(policy: EgressPolicy) -> AsyncIterator[GuardedClient]:
    async with GuardedClient(policy, StaticResolver({}), RecordingConnector()) as c:
        yield c


async def test_unguarded_warns_on_every_use(
    origin: LoopbackOrigin, caplog: pytest.LogCaptureFixture
) -> None:
    policy = EgressPolicy(guarded=False, allowed_ports=(origin.port,))
    caplog.set_level(logging.WARNING, logger="pressmark.egress")
    async with GuardedClient(policy, StaticResolver({}), RecordingConnector()) as c:
        await c.get(origin.url("/page"))
        await c.get(origin.url("/page"))  # a reused connection still warns
    await evaluate_url(origin.url("/"), policy=policy)
    warnings = [r for r in caplog.records if "UNGUARDED" in r.getMessage()]
    assert len(warnings) >= 3


# -- error messages echo the host, nothing more ----------------------------------------------

SECRET_URLS = [
    "http://127.0.0.1/SECRET?SECRET#SECRET",
    "http://SECRET:SECRET@example.test/",
    "http://example.test:6379/SECRET?SECRET",
    "http://localhost/SECRET",
    "gopher://example.test/SECRET",
    "http://example.test:SECRET/",
    "http://[::1/SECRET",
    "http://nx.test/SECRET?SECRET",
    "http://priv.test/SECRET?SECRET",
    "x-api-key-SECRET://example.test/",
    "http://example.test:80SECRET/",
]


@pytest.mark.parametrize("url", SECRET_URLS)
async def test_messages_never_echo_path_query_or_userinfo(url: str) -> None:
    resolver = StaticResolver({"priv.test": ["10.0.0.1"], "example.test": [PUBLIC]})
    with pytest.raises((EgressDenied, DnsFailure)) as info:
        await evaluate_url(url, resolver=resolver)
    assert "secret" not in str(info.value).lower()
    assert "secret" not in (getattr(info.value, "host", None) or "").lower()


# -- proxy: request smuggling and framing --------------------------------------------------

SMUGGLING = [
    "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n",
    "Content-Length: 4\r\nContent-Length: 5\r\n\r\nabcde",
    "Content-Length: +4\r\n\r\nabcd",
    "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
    "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n",
    "Transfer-Encoding: chunked\r\n\r\n0x4\r\nabcd\r\n0\r\n\r\n",
    "Transfer-Encoding: chunked\r\n\r\n-1\r\nabcd\r\n0\r\n\r\n",
    "Transfer-Encoding: chunked\r\n\r\n4\r\nabcdXX0\r\n\r\n",
    "Transfer-Encoding : chunked\r\nContent-Length: 4\r\n\r\nabcd",
    "Content-Length\t: 4\r\n\r\nabcd",
    "Trans\x00fer-Encoding: chunked\r\n\r\n0\r\n\r\n",
]


@pytest.mark.parametrize("framing", SMUGGLING)
async def test_proxy_refuses_ambiguous_framing(
    policy: EgressPolicy, origin: LoopbackOrigin, framing: str
) -> None:
    connector = RecordingConnector()
    async with EgressProxy(policy, StaticResolver({}), connector) as proxy:
        status, _, _ = await exchange(
            proxy,
            f"POST {origin.url('/headers')} HTTP/1.1\r\nHost: x\r\n{auth(proxy)}{framing}",
        )
    assert status == 400
    assert origin.requests == []


async def test_proxy_ignores_host_header_and_reframes(
    policy: EgressPolicy, origin: LoopbackOrigin
) -> None:
    async with EgressProxy(policy, StaticResolver({}), RecordingConnector()) as proxy:
        status, _, body = await exchange(
            proxy,
            f"POST {origin.url('/headers')} HTTP/1.1\r\nHost: 169.254.169.254\r\n{auth(proxy)}"
            "Transfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n",
        )
    assert status == 200
    seen = json.loads(body)
    assert seen["host"] == f"127.0.0.1:{origin.port}"
    assert seen["content-length"] == "4" and "transfer-encoding" not in seen


async def test_proxy_credentials_are_per_instance(policy: EgressPolicy) -> None:
    async with (
        EgressProxy(policy, StaticResolver({}), RecordingConnector()) as one,
        EgressProxy(policy, StaticResolver({}), RecordingConnector()) as two,
    ):
        status, _, _ = await exchange(
            two, f"CONNECT public.test:443 HTTP/1.1\r\n{auth(one)}\r\n"
        )
    assert status == 407


@pytest.mark.parametrize(
    "target", ["127.0.0.1:80", "[::1]:443", "2130706433:443", "priv.test:443", "public.test:22"]
)
async def test_proxy_connect_denied(policy: EgressPolicy, target: str) -> None:
    connector = RecordingConnector()
    resolver = StaticResolver({"priv.test": [[PUBLIC], ["10.0.0.1"]], "public.test": [PUBLIC]})
    await resolver.resolve("priv.test")  # spend the public answer: the proxy sees the private one
    async with EgressProxy(policy, resolver, connector) as proxy:
        status, headers, _ = await exchange(
            proxy, f"CONNECT {target} HTTP/1.1\r\n{auth(proxy)}\r\n"
        )
    assert status == 403
    assert headers["x-pressmark-denied"] in ("DENIED_ADDRESS", "INVALID_PORT")
    assert connector.dials == []


# -- CLI ---------------------------------------------------------------------------------------


def test_cli_resolve_names_are_canonicalised() -> None:
    result = CliRunner().invoke(
        main, ["egress", "check", "http://bücher.de/", "--resolve", "BÜCHER.DE.=93.184.216.34"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "allowed": True, "code": None, "addresses": ["93.184.216.34"]
    }


def test_cli_denial_does_not_echo_the_query() -> None:
    result = CliRunner().invoke(
        main, ["egress", "check", "http://x.test/p?token=SECRET", "--resolve", "x.test=10.0.0.1"]
    )
    assert result.exit_code == 3
    assert "SECRET" not in result.output


async def test_bare_lf_in_a_response_header_is_a_protocol_error(
    policy: EgressPolicy, origin: LoopbackOrigin
) -> None:
    async with GuardedClient(policy, StaticResolver({}), RecordingConnector()) as c:
        with pytest.raises(NetworkError, match="protocol"):
            await c.get(origin.url("/bare-lf"))
    async with EgressProxy(policy, StaticResolver({}), RecordingConnector()) as proxy:
        status, headers, _ = await exchange(
            proxy, f"GET {origin.url('/bare-lf')} HTTP/1.1\r\nHost: x\r\n{auth(proxy)}\r\n"
        )
    assert status == 502  # never relayed: the browser would see a smuggled header
    assert "x-a" not in headers


async def test_proxy_refuses_bare_lf_in_request_headers(
    policy: EgressPolicy, origin: LoopbackOrigin
) -> None:
    async with EgressProxy(policy, StaticResolver({}), RecordingConnector()) as proxy:
        status, _, _ = await exchange(
            proxy,
            f"GET {origin.url('/headers')} HTTP/1.1\r\nX-A: 1\nHost: 10.0.0.1\r\n{auth(proxy)}\r\n",
        )
    assert status == 400
    assert origin.requests == []


async def test_proxy_connect_goes_through_the_policy_upstream(origin: LoopbackOrigin) -> None:
    outer_connector = RecordingConnector()
    inner_connector = RecordingConnector()
    resolver = StaticResolver({})
    async with EgressProxy(EgressPolicy(guarded=False), resolver, outer_connector) as outer:
        token = f"{outer.username}:{outer.password}"
        policy = EgressPolicy(
            guarded=False, proxy=f"http://{token}@127.0.0.1:{outer.port}"
        )
        async with EgressProxy(policy, resolver, inner_connector) as inner:
            reader, writer = await asyncio.open_connection("127.0.0.1", inner.port)
            try:
                writer.write(
                    f"CONNECT 127.0.0.1:{origin.port} HTTP/1.1\r\n{auth(inner)}\r\n".encode()
                )
                assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
                writer.write(b"GET /page HTTP/1.1\r\nHost: x\r\n\r\n")
                assert (await reader.readuntil(b"\r\n")).startswith(b"HTTP/1.1 200")
            finally:
                writer.close()
    assert inner_connector.dials == [("127.0.0.1", outer.port)]
    assert outer_connector.dials == [("127.0.0.1", origin.port)]
    assert outer.tunnels == 1


async def test_default_connector_never_resolves_a_name() -> None:
    with pytest.raises(OSError):  # AI_NUMERICHOST: "localhost" is not an IP literal
        await AsyncioConnector().open_connection("localhost", 9)


async def test_stacked_content_codings_are_capped(
    policy: EgressPolicy, origin: LoopbackOrigin
) -> None:
    async with GuardedClient(policy, StaticResolver({}), RecordingConnector()) as c:
        assert (await c.get(origin.url("/stacked?n=5"))).content == TEXT
        with pytest.raises(NetworkError, match="Content-Encoding"):
            await c.get(origin.url("/stacked?n=6"))
        with pytest.raises(NetworkError, match="Content-Encoding"):  # no RecursionError
            await c.get(origin.url("/stacked?n=1500"))


@pytest.mark.parametrize(
    ("args", "allowed", "addresses"),
    [
        (["http://a.test/", "--resolve", "a.test=[2606:4700::1]"], True, ["2606:4700::1"]),
        (["http://a.test/", "--resolve", "a.test=[::1]"], False, []),
        (["http://a.test/", "--resolve", "a.test=127.1"], False, []),
        (["http://a.test/", "--resolve", "a.test=93.184.216.34,93.184.216.34"], True,
         ["93.184.216.34"]),
        (["http://☃.net/", "--resolve", "xn--n3h.net=93.184.216.34"], True, ["93.184.216.34"]),
        (["http://a.test./", "--resolve", "A.TEST=93.184.216.34"], True, ["93.184.216.34"]),
    ],
)
def test_cli_resolve_forms(args: list[str], allowed: bool, addresses: list[str]) -> None:
    result = CliRunner().invoke(main, ["egress", "check", *args])
    assert result.exit_code == (0 if allowed else 3), result.output
    payload = json.loads(result.stdout)
    assert payload["allowed"] is allowed and payload["addresses"] == addresses


_TRICKY = st.sampled_from([
    *"ab19xX.:/\\@[]%?#\t\n -_",
    "%2e", "%40", "%00", "%ff", "%c3", "::", "0x", "ffff",
    "\ud800", "。", "．", "ß", "\u00ad", "\u200b", "\u200d", "é", "\x7f", "\x00", "ｌ", "［", "☃",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(_TRICKY, max_size=14).map("".join))
def test_tricky_urls_parse_or_are_denied(tail: str) -> None:
    """Only EgressDenied escapes; what parses is stable and safe to put on the wire."""
    try:
        parsed = parse_url("http://" + tail)
    except EgressDenied:
        return
    wire = f"GET {parsed.target} HTTP/1.1\r\nHost: {parsed.authority}\r\n"
    assert wire.isascii() and wire.count("\r\n") == 2 and " " not in parsed.target
    again = parse_url(parsed.url)
    assert (again.host, again.port, again.target) == (parsed.host, parsed.port, parsed.target)


async def test_test_origin_is_http_only_even_when_the_port_is_allowed(
    origin: LoopbackOrigin,
) -> None:
    policy = EgressPolicy(allowed_ports=(80, 443, origin.port)).allow_loopback(origin.origin)
    with pytest.raises(EgressDenied) as info:
        await evaluate_url(f"https://127.0.0.1:{origin.port}/", policy=policy)
    assert info.value.code == "DENIED_ADDRESS"
    connector = RecordingConnector()
    async with GuardedClient(policy, StaticResolver({}), connector) as c:
        with pytest.raises(EgressDenied):
            await c.get(f"https://127.0.0.1:{origin.port}/")
        assert (await c.get(origin.url("/page"))).status == 200
    assert connector.dials == [("127.0.0.1", origin.port)]


async def test_static_resolver_keys_are_canonical_names() -> None:
    resolver = StaticResolver({"BÜCHER.de.": [PUBLIC], "☃.net": [PUBLIC2]})
    assert (await evaluate_url("https://bücher.de/", resolver=resolver)).addresses == [PUBLIC]
    assert (await evaluate_url("http://xn--n3h.net/", resolver=resolver)).addresses == [PUBLIC2]
