"""EgressPolicy, classify_address, StaticResolver, Timeout and the exported surface."""

from __future__ import annotations

import dataclasses
import logging

import pytest

from pressmark import egress
from pressmark._errors import PressmarkError
from pressmark.egress import (
    DnsFailure,
    EgressConfigError,
    EgressDenied,
    EgressPolicy,
    StaticResolver,
    Timeout,
    evaluate_url,
)
from pressmark.egress._address import classify_address

EXPECTED_EXPORTS = {
    "Connector", "DENIAL_CODES", "DnsFailure", "EgressConfigError", "EgressDenied",
    "EgressPolicy", "EgressProxy", "EgressTimeout", "GuardedClient", "GuardedResponse",
    "NetworkError", "ParsedURL", "RedirectHop", "Resolver", "ResponseTooLarge",
    "StaticResolver", "Timeout", "canonical_url", "evaluate_url", "is_canonical_url",
    "join_url", "parse_url"
}


def test_exports_do_not_drift() -> None:
    assert set(egress.__all__) == EXPECTED_EXPORTS
    for name in egress.__all__:
        assert getattr(egress, name) is not None


def test_error_tree() -> None:
    assert issubclass(egress.EgressDenied, PressmarkError)
    assert issubclass(egress.EgressTimeout, egress.NetworkError)
    assert egress.NetworkError("x").code == "network-error"
    assert egress.EgressTimeout("x").code == "timeout"
    assert issubclass(egress.DnsFailure, egress.NetworkError)  # a network error, not a denial
    assert not issubclass(egress.DnsFailure, egress.EgressDenied)
    assert egress.DnsFailure("x").code == "dns-failure"
    assert egress.ResponseTooLarge("x").code == "response-too-large"
    assert issubclass(EgressConfigError, ValueError)
    assert {
        "DENIED_ADDRESS", "DENIED_HOST", "INVALID_URL", "INVALID_HOST", "INVALID_SCHEME",
        "INVALID_PORT", "USERINFO", "REDIRECT_DOWNGRADE", "REDIRECT_CROSS_HOST",
        "TOO_MANY_REDIRECTS",
    } == egress.DENIAL_CODES


def test_policy_defaults_and_copy() -> None:
    policy = EgressPolicy()
    assert policy.guarded and policy.allowed_ports == (80, 443)
    assert policy.redirects == "follow" and policy.max_redirects == 10 and policy.proxy is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.guarded = False  # type: ignore[misc]
    copy = policy.allow_loopback("http://127.0.0.1:4173", "http://[::1]:9000")
    assert copy.test_only_allowed_loopback_origins == (
        "http://127.0.0.1:4173", "http://[::1]:9000",
    )
    assert policy.test_only_allowed_loopback_origins == ()
    assert copy.is_test_origin("127.0.0.1", 4173) and copy.is_test_origin("::1", 9000)
    assert not copy.is_test_origin("127.0.0.1", 4174)


@pytest.mark.parametrize(
    "origin",
    [
        "https://127.0.0.1:4173", "http://127.0.0.1", "http://127.0.0.1:80",
        "https://localhost:4173", "http://localhost", "http://foo.localhost:4173",
        "http://10.0.0.1:4173", "http://8.8.8.8:4173",
        "http://127.0.0.1:4173/path", "http://127.0.0.1:4173/?q", "http://u@127.0.0.1:4173",
        "http://[::ffff:127.0.0.1]:4173", "ftp://127.0.0.1:21", "not a url",
        "http://2130706433:4173",
    ],
)
def test_bad_loopback_origins_raise_at_construction(origin: str) -> None:
    with pytest.raises(EgressConfigError):
        EgressPolicy(test_only_allowed_loopback_origins=(origin,))


def test_other_policy_validation() -> None:
    with pytest.raises(EgressConfigError):
        EgressPolicy(test_only_allowed_loopback_origins="http://127.0.0.1:1")  # type: ignore[arg-type]
    with pytest.raises(EgressConfigError):
        EgressPolicy(max_redirects=-1)
    EgressPolicy(max_redirects=20)
    with pytest.raises(EgressConfigError):
        EgressPolicy(redirects="anywhere")  # type: ignore[arg-type]
    with pytest.raises(EgressConfigError):
        EgressPolicy(allowed_ports=(0,))


async def test_allowed_ports_extend_the_policy() -> None:
    resolver = StaticResolver({"a.test": ["93.184.216.34"]})
    with pytest.raises(EgressDenied):
        await evaluate_url("http://a.test:8080/", resolver=resolver)
    policy = EgressPolicy(allowed_ports=(80, 443, 8080))
    target = await evaluate_url("http://a.test:8080/", policy=policy, resolver=resolver)
    assert (target.host, target.port, target.addresses) == ("a.test", 8080, ("93.184.216.34",))
    assert target.url == "http://a.test:8080/"


async def test_unguarded_warns_on_every_use(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="pressmark.egress")
    policy = EgressPolicy(guarded=False)
    for _ in range(3):
        target = await evaluate_url("http://127.0.0.1:22/", policy=policy)
        assert target.addresses == ("127.0.0.1",)
    assert caplog.text.count("UNGUARDED") == 3


async def test_unguarded_still_parses_and_resolves() -> None:
    policy = EgressPolicy(guarded=False)
    with pytest.raises(EgressDenied) as info:
        await evaluate_url("file:///etc/passwd", policy=policy)
    assert info.value.code == "INVALID_SCHEME"
    with pytest.raises(DnsFailure) as failure:
        await evaluate_url("http://nx.test/", policy=policy, resolver=StaticResolver({}))
    assert failure.value.code == "dns-failure"


async def test_test_origin_admits_only_that_origin() -> None:
    policy = EgressPolicy().allow_loopback("http://127.0.0.1:4173")
    target = await evaluate_url("http://127.0.0.1:4173/x", policy=policy)
    assert target.addresses == ("127.0.0.1",)
    for url in ("http://127.0.0.2:4173/", "http://127.0.0.1:4174/", "http://localhost:4173/",
                "http://[::1]:4173/"):
        with pytest.raises(EgressDenied):
            await evaluate_url(url, policy=policy, resolver=StaticResolver({}))
    # a name that resolves to the admitted address is still refused: only the literal is admitted
    policy = EgressPolicy(allowed_ports=(80, 443, 4173)).allow_loopback("http://127.0.0.1:4173")
    with pytest.raises(EgressDenied) as info:
        await evaluate_url(
            "http://loop.test:4173/", policy=policy,
            resolver=StaticResolver({"loop.test": ["127.0.0.1"]}),
        )
    assert info.value.code == "DENIED_ADDRESS"


@pytest.mark.parametrize(
    ("ip", "fragment"),
    [
        ("127.0.0.1", "loopback (127.0.0.0/8)"),
        ("10.1.2.3", "private (10.0.0.0/8)"),
        ("169.254.169.254", "metadata"),
        ("169.254.170.2", "ECS"),
        ("100.100.100.200", "Alibaba"),
        ("192.0.0.192", "Oracle"),
        ("168.63.129.16", "Azure"),
        ("255.255.255.255", "broadcast"),
        ("::1", "loopback (::1)"),
        ("::ffff:127.0.0.1", "embedding 127.0.0.1 (loopback"),
        ("::ffff:8.8.8.8", "embedding 8.8.8.8 (public)"),
        ("::7f00:1", "IPv4-compatible"),
        ("64:ff9b::a9fe:a9fe", "NAT64 (64:ff9b::/96) embedding 169.254.169.254"),
        ("64:ff9b:1::a00:1", "embedding 10.0.0.1"),
        ("2002:c0a8:101::1", "6to4 (2002::/16) embedding 192.168.1.1"),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo (2001::/32) embedding 127.0.0.1"),
        ("2001:db8::1", "documentation"),
        ("2001:2::1", "IETF special use"),
        ("fd00:ec2::254", "AWS"),
        ("fe80::1%eth0", "link-local"),
        ("4000::1", "outside 2000::/3"),
        ("[::1]", "loopback"),
        ("0177.0.0.1", "not an IP address"),
        ("example.com", "not an IP address"),
        ("", "not an IP address"),
    ],
)
def test_classify_address_names_the_range(ip: str, fragment: str) -> None:
    reason = classify_address(ip)
    assert reason is not None and fragment in reason


@pytest.mark.parametrize(
    "ip", ["8.8.8.8", "93.184.216.34", "2606:4700::1111", "2a00:1450::1", "2001:4860::8888",
           "172.32.0.1", "100.128.0.1", "1.0.0.0", "223.255.255.255"],
)
def test_classify_address_public(ip: str) -> None:
    assert classify_address(ip) is None


async def test_static_resolver() -> None:
    resolver = StaticResolver({"A.test.": ["1.1.1.1"], "r.test": [["8.8.8.8"], ["10.0.0.1"]]})
    assert await resolver.resolve("a.test") == ["1.1.1.1"]
    assert await resolver.resolve("A.TEST.") == ["1.1.1.1"]
    assert await resolver.resolve("r.test") == ["8.8.8.8"]
    assert await resolver.resolve("r.test") == ["10.0.0.1"]
    assert await resolver.resolve("r.test") == ["10.0.0.1"]
    assert resolver.calls == ["a.test", "a.test", "r.test", "r.test", "r.test"]
    with pytest.raises(DnsFailure) as info:
        await resolver.resolve("nope.test")
    assert info.value.code == "dns-failure"
    with pytest.raises(TypeError):
        StaticResolver({"x": ["1.1.1.1", ["2.2.2.2"]]})  # type: ignore[list-item]


async def test_resolver_errors_become_dns_failure() -> None:
    class Broken:
        async def resolve(self, host: str) -> list[str]:
            raise OSError("boom")

    with pytest.raises(DnsFailure) as info:
        await evaluate_url("http://x.test/", resolver=Broken())
    assert info.value.code == "dns-failure"
    assert "boom" not in str(info.value)


def test_timeout_coerce() -> None:
    assert Timeout.coerce(None) == Timeout()
    assert Timeout.coerce(2) == Timeout(connect=2.0, read=2.0, total=2.0)
    t = Timeout(connect=1, read=None, total=None)
    assert Timeout.coerce(t) is t


async def test_denial_messages_name_only_the_host() -> None:
    resolver = StaticResolver({"x.test": ["10.0.0.1"]})
    with pytest.raises(EgressDenied) as info:
        await evaluate_url("http://x.test/secret/path?token=abc#frag", resolver=resolver)
    assert info.value.host == "x.test"
    message = str(info.value)
    assert "secret" not in message and "token" not in message and "10.0.0.1" not in message


def test_policy_upstream_proxy() -> None:
    policy = EgressPolicy(proxy="http://user:p%40ss@127.0.0.1:3128")
    upstream = policy.upstream_proxy
    assert upstream is not None
    assert (upstream.host, upstream.port) == ("127.0.0.1", 3128)
    assert upstream.authorization == "Basic dXNlcjpwQHNz"
    assert EgressPolicy().upstream_proxy is None
    for bad in ("https://p:1", "http://p", "socks5://p:1", "http://p:1/path", "http://:1"):
        with pytest.raises(EgressConfigError):
            EgressPolicy(proxy=bad)


def test_import_is_light() -> None:
    import subprocess
    import sys

    code = (
        "import sys, pressmark.egress;"
        "heavy = {'pressmark.egress._client', 'pressmark.egress._proxy', 'brotli', 'zstandard',"
        " 'httpcore'};"
        "print(sorted(heavy & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


async def test_target_addresses_compare_as_tuple_or_list() -> None:
    target = await evaluate_url(
        "http://a.test/", resolver=StaticResolver({"a.test": ["93.184.216.34", "2606:4700::1"]})
    )
    assert target.addresses == ("93.184.216.34", "2606:4700::1")
    assert target.addresses == ["93.184.216.34", "2606:4700::1"]
    assert target.addresses != ["93.184.216.34"]
    assert hash(target.addresses) == hash(("93.184.216.34", "2606:4700::1"))
