"""One URL model: the host the crawler keys is the host egress dials.

About 200 adversarial absolute and relative URLs go through ``canonical_parts`` (what the
frontier keys scope, dedupe and politeness on) and through the egress parser (what the
guarded client connects to). For every URL the crawler accepts, egress accepts it too and
both name the same host and port; the canonical URL itself parses to the same host again.
"""

from __future__ import annotations

import itertools

import pytest

from pressmark.crawl._canonical import canonical_or_refusal, canonical_parts, canonicalize_url
from pressmark.egress import EgressDenied, join_url, parse_url

BASE = "http://good.example/dir/page.html"

HOSTS = [
    # IPv4 in every legacy form, plus out-of-range and ambiguous ones
    "127.0.0.1", "127.1", "127.0.1", "0x7f.1", "0x7F.0.0.1", "0177.0.0.1", "0177.1",
    "2130706433", "0x7f000001", "017700000001", "127.0.0.1.", "127.000.000.001", "0.0.0.0",
    "255.255.255.255", "256.1.1.1", "1.2.3.4.5", "0x100000000", "1.0x", "09.1", "1..2",
    "93.184.0.1", "1.2.0.1", "4294967295", "4294967296", "0x", "1.2.3.0x",
    # IPv6 and embedded IPv4
    "[::1]", "[0:0::1]", "[::ffff:127.0.0.1]", "[::FFFF:7f00:1]", "[::127.0.0.1]",
    "[64:ff9b::127.0.0.1]", "[2001:db8::1]", "[fe80::1%25eth0]", "[::1", "[::1]x",
    "[1:2:3:4:5:6:7:8:9]", "[::ffff:0x7f.1]",
    # IDNA edge cases (UTS-46 non-transitional)
    "faß.de", "FASS.de", "fass.de", "bücher.de", "BÜCHER.de", "xn--bcher-kva.de",
    "xn--fa-hia.de", "xn--zz-", "xn--", "☃.net", "ǅ.example", "ﬁ.example", "İ.example",
    "ＥＸＡＭＰＬＥ．com", "example。com", "example｡com", "example．com", "a\u200db.example",
    "a\u00adb.example", "\u0301a.example", "ex%61mple.com", "ex%C3%A4mple.com", "%zz.com",
    "exa mple.com", "a_b.example", "-a.example", "a-.example", "example.com.",
    "example.com..", ".example.com", "EXAMPLE.COM", "ex\u2025ample.com", "ex\u2024ample.com",
    # host characters a browser forbids or maps
    "a<b.com", "a^b.com", "a|b.com", "a%00b.com", "a%2fb.com", "a%5cb.com", "a%40b.com",
]

AUTHORITY_TRICKS = [
    "http://evil.example@good.example/", "http://good.example@evil.example/",
    "http://:@good.example/", "http://good.example:@evil.example/",
    "http://good.example#@evil.example/", "http://good.example?@evil.example/",
    "http://good.example\\@evil.example/", "http://good.example/\\evil.example",
    "http:\\\\evil.example\\x", "http:/evil.example/x", "http:evil.example/x",
    "http:///evil.example/x", "https:evil.example/x", "https:///evil.example/",
    "HTTP://GOOD.EXAMPLE:80/", "http://good.example:0080/", "http://good.example:65536/",
    "http://good.example:0/", "http://good.example:8o/", "http://good.example:/x",
    "http://good.example:８０/", "http://good.example:-1/", "https://good.example:443/",
    "https://good.example:80/", "http://[::1]:80/", "http://[::1]:8080/",
    "http://good.example\uff0fevil.example/", "http://good.example\u2215evil.example/",
    "http://good.example\u2044evil.example/", "http://good.example\uff3cevil.example/",
    "http://good.example%2fevil.example/", "http://good.example%2eevil.example/",
    "http://\tgood.example/", "http://good.\nexample/", " http://good.example/ ",
    "\x00http://good.example/", "http://good.example/\x7f", "ftp://good.example/",
    "javascript:alert(1)", "data:text/html,x", "//evil.example/", "http://", "http:///",
    "http://good.example/a/../../../b", "http://good.example/%2e%2e/%2E/x",
    "http://good.example/a?x=1#frag", "http://good.example/?utm_source=1&a=2",
    "http://good.example/\u00e4?\u00e4#\u00e4", "http://good.example/a'b?c'd",
]

RELATIVE = [
    "///evil.example/x", "////evil.example/x", "//evil.example", "/\\evil.example/",
    "\\\\evil.example\\", "\\/evil.example/", "/\\/evil.example/", " //evil.example",
    "\t//evil.example", "/\t/evil.example", "/\n/evil.example", "http:evil", "http:/evil",
    "http://evil", "https:evil", "https:/evil", "http:\\\\evil", "HTTP:evil",
    "//faß.de/", "//127.1/", "//0x7f.1:8080/", "//[::1]/", "//user@evil.example/",
    "//good.example@evil.example/", "//evil.example%2f@good.example/", "../x", "./x", "x",
    "../../../../x", "?q=1", "#frag", "", ".", "..", "/%2e%2e/x", "%2e%2e/x", ":x",
    "//ＥＸＡＭＰＬＥ．com/", "//example。com/", "//a\u2215b.example/", "mailto:x@y",
    "javascript:x", "//evil.example:0/", "//evil.example:99999/", "//:80/", "//%20/",
]


def _corpus() -> list[tuple[str, str | None]]:
    cases: list[tuple[str, str | None]] = []
    for scheme, host in itertools.product(("http", "https"), HOSTS):
        cases.append((f"{scheme}://{host}/p", None))
    for host in HOSTS[::3]:
        cases.append((f"http://{host}:8080/p?q#f", None))
    cases.extend((url, None) for url in AUTHORITY_TRICKS)
    cases.extend((ref, BASE) for ref in RELATIVE)
    cases.extend((ref, "https://[::1]:8443/a/b") for ref in RELATIVE[:12])
    return cases


CORPUS = _corpus()


def _egress(url: str, base: str | None) -> tuple[str, int] | None:
    try:
        target = url if base is None else join_url(parse_url(base), url)
        parsed = parse_url(target)
    except EgressDenied:
        return None
    return parsed.host, parsed.port


def test_corpus_is_large() -> None:
    assert len(CORPUS) >= 200


@pytest.mark.parametrize(("url", "base"), CORPUS)
def test_crawler_key_is_the_dialled_host(url: str, base: str | None) -> None:
    canonical = canonical_parts(url, base)
    dialled = _egress(url, base)
    if canonical is None:
        return  # refused by the crawler: never queued, never dialled
    assert dialled is not None, "the crawler queued a URL egress refuses"
    again = parse_url(canonical.url)
    assert (again.host, again.port) == dialled
    assert canonical.host == again.authority
    assert canonicalize_url(canonical.url) == canonical.url  # idempotent


def test_accepts_what_egress_accepts() -> None:
    """The crawler refuses nothing egress accepts (apart from port 0, which no one serves)."""
    for url, base in CORPUS:
        if _egress(url, base) is not None and canonical_parts(url, base) is None:
            assert _egress(url, base)[1] == 0, (url, base)  # type: ignore[index]


@pytest.mark.parametrize(
    ("url", "base", "host"),
    [
        ("http://faß.de/", None, "xn--fa-hia.de"),
        ("http://127.1/", None, "127.0.0.1"),
        ("http://0x7f.1:8080/", None, "127.0.0.1:8080"),
        ("http://2130706433/", None, "127.0.0.1"),
        ("http://example.com./", None, "example.com"),
        ("http://ＥＸＡＭＰＬＥ．com/", None, "example.com"),
        ("http://[::ffff:127.0.0.1]/", None, "[::ffff:7f00:1]"),
        ("///evil.example/x", BASE, "evil.example"),
        ("/\\evil.example/", BASE, "evil.example"),
        ("http:x", BASE, "good.example"),
        ("https:evil", BASE, "evil"),
    ],
)
def test_known_disagreements_are_gone(url: str, base: str | None, host: str) -> None:
    parts = canonical_parts(url, base)
    assert parts is not None and parts.host == host


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("http://user@good.example/", "USERINFO"),
        ("http://256.1.1.1/", "INVALID_HOST"),
        ("ftp://good.example/", "INVALID_SCHEME"),
        ("http://good.example:99999/", "INVALID_URL"),
        ("http://good.example:0/", "INVALID_URL"),
    ],
)
def test_refusals_are_named(url: str, code: str) -> None:
    assert canonical_or_refusal(url) == code
