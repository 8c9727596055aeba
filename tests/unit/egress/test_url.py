"""parse_url / join_url: browser-style parsing and serialisation (plus property tests)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.egress import EgressDenied, parse_url
from pressmark.egress._url import join_url, parse_ipv4


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTP://Example.COM", "http://example.com/"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("http://example.com./", "http://example.com/"),
        ("http://example.com/a/./b/../c", "http://example.com/a/c"),
        ("http://example.com/a/%2e%2E/c", "http://example.com/c"),
        ("http://example.com/a/..", "http://example.com/"),
        ("http://example.com/a b?c d#e f", "http://example.com/a%20b?c%20d#e%20f"),
        ("http://example.com/ü?ü", "http://example.com/%C3%BC?%C3%BC"),
        ("http://example.com/?a='", "http://example.com/?a=%27"),
        ("http:\\\\example.com\\a\\b", "http://example.com/a/b"),
        ("http:///example.com/", "http://example.com/"),
        ("http://exa%4Dple.com/", "http://example.com/"),
        ("http://bücher.de/", "http://xn--bcher-kva.de/"),
        ("http://ＥＸＡＭＰＬＥ．com/", "http://example.com/"),
        ("http://[0:0::1]:8080/", "http://[::1]:8080/"),
        ("http://[::FFFF:127.0.0.1]/", "http://[::ffff:7f00:1]/"),
        ("http://0x7f.1/", "http://127.0.0.1/"),
        ("http://example.com?x", "http://example.com/?x"),
        ("http://example.com#x", "http://example.com/#x"),
        ("http://a_b.example.com/", "http://a_b.example.com/"),
    ],
)
def test_serialisation(url: str, expected: str) -> None:
    assert parse_url(url).url == expected


def test_parts() -> None:
    p = parse_url("https://Example.com:8443/p/q?x=1#frag")
    assert (p.scheme, p.host, p.host_kind, p.port, p.explicit_port) == (
        "https", "example.com", "domain", 8443, 8443,
    )
    assert (p.path, p.query, p.fragment) == ("/p/q", "x=1", "frag")
    assert p.target == "/p/q?x=1"
    assert p.origin == "https://example.com:8443"
    assert p.authority == "example.com:8443"
    assert str(p) == p.url
    v6 = parse_url("http://[2606:4700::1111]/")
    assert (v6.host, v6.host_kind) == ("2606:4700::1111", "ipv6")
    assert v6.netloc_host == "[2606:4700::1111]"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("127.0.0.1", 0x7F000001), ("2130706433", 0x7F000001), ("0x7f.1", 0x7F000001),
        ("0177.0.0.1", 0x7F000001), ("127.1", 0x7F000001), ("0x", 0), ("0.0.0.0.", 0),
        ("1.2.3.4.", 0x01020304),
    ],
)
def test_ipv4_parser(text: str, value: int) -> None:
    assert parse_ipv4(text) == value


@pytest.mark.parametrize("text", ["1.2.3.4.5", "256.1.1.1", "1.2.3.256", "0x1g", "09", "1..2"])
def test_ipv4_parser_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_ipv4(text)


@pytest.mark.parametrize(
    ("base", "ref", "expected"),
    [
        ("http://a.test/x/y?q", "/z", "http://a.test/z"),
        ("http://a.test/x/y?q", "z", "http://a.test/x/z"),
        ("http://a.test/x/y?q", "../z", "http://a.test/z"),
        ("http://a.test/x/y?q", "?r", "http://a.test/x/y?r"),
        ("http://a.test/x/y?q", "#f", "http://a.test/x/y?q#f"),
        ("http://a.test/x/y?q", "", "http://a.test/x/y?q"),
        ("http://a.test/x", "//b.test/p", "http://b.test/p"),
        ("https://a.test/x", "\\\\b.test\\p", "https://b.test/p"),
        ("http://a.test/x", "https://b.test/", "https://b.test/"),
        ("http://a.test/x", "http:y", "http://a.test/y"),
        ("http://a.test:8080/x", "/y", "http://a.test:8080/y"),
        ("http://a.test/x", " /y ", "http://a.test/y"),
    ],
)
def test_join_url(base: str, ref: str, expected: str) -> None:
    assert parse_url(join_url(parse_url(base), ref)).url == expected


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_parse_url_only_raises_egress_denied(text: str) -> None:
    for candidate in (text, "http://" + text, "http://a.test/" + text):
        try:
            parsed = parse_url(candidate)
        except EgressDenied:
            continue
        again = parse_url(parsed.url)  # serialisation is a fixed point
        assert again.url == parsed.url
        assert parsed.url.isascii()


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_every_ipv4_form_parses_to_the_same_address(value: int) -> None:
    dotted = ".".join(str((value >> s) & 255) for s in (24, 16, 8, 0))
    for form in (str(value), hex(value), "0" + oct(value)[2:], dotted):
        assert parse_url(f"http://{form}/").host == dotted
