"""Fast paths held to the slow ones: a settled URL is the egress parser's answer.

``egress.is_canonical_url`` claims that ``parse_url(url).url == url`` for a URL of its shape; the
egress parser stays the one URL parser, so every claim is checked against it here, on
URLs built to break the claim (case, slashes, ports, userinfo, A-labels, numeric
hosts, dot segments, percent escapes, controls, non-ASCII, surrogates).
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.egress import EgressDenied, is_canonical_url, join_url, parse_url
from pressmark.markdown import _escape
from pressmark.markdown._api import _joined, _parsed


def _parsed_url(url: str) -> str | None:
    try:
        return parse_url(url).url
    except EgressDenied:
        return None


def _check(url: str) -> bool:
    if is_canonical_url(url):
        assert _parsed_url(url) == url, url
        return True
    return False


HOSTILE = [chr(c) for c in range(0x80)] + [
    "\xa0", "\xe9", "\u3002", "\uff0e", "\uff41", "\u200b", "\ufeff", "\ud800", "\U0001f600",
    "%2e", "%2E", "%2", "%25", "%00", "%41", "..", ".", "xn--", "//", "\\\\", ":80", ":443",
    ":0", ":65536", "@", "[::1]", "0x7f", "127.0.0.1", "1",
]
HOSTS = ["example.com", "a.b", "a", "_x.y", "a-b.c", "-a.b", "a-.b", "a..b", "a.b.", ".a.b",
         "Example.com", "EXAMPLE.COM", "xn--fa-hia.de", "xn--zz.de", "a.xn--p1ai", "a.1",
         "a.0x7f", "1.2.3.4", "1.2.3", "999.1.1.1", "a_b.c_", "a.b_", "ab1.c2d", "x.y9",
         "faß.de", "a b.c", "a%41.b", "[::1]", "a.b:80", "a.b:8080", "u@a.b", "a.b:"]
PREFIXES = ["http://", "https://", "HTTP://", "Https://", "http:/", "https:///", "http:\\\\",
            "https:", "ftp://", " http://", "\x01https://", "http ://", "https:/\\"]


BENIGN = ["/", "/", "a", "b.c", "-", "_", "~", "?", "#", "&", "=", ";", ":", "!", "$", "(",
          ")", "*", "+", ",", "@", "[", "]", "|", "^", "%20", "x%2ey", "Q9"]
NASTY = ["'", "{", "}", "`", '"', "<", ">", "\\", " ", "\t", "\n", ".well-known", "/./",
         "/../", "/.", "/..", "/%2e/", "/%2E%2e/", "/%2e", "/.%2E"]


def _tail(rng: random.Random) -> str:
    pieces = BENIGN + (NASTY + rng.sample(HOSTILE, 4) if rng.random() < 0.5 else [])
    return "/" * (rng.random() < 0.8) + "".join(
        rng.choice(pieces) for _ in range(rng.randint(0, 10)))


def test_settled_urls_parse_to_themselves_random() -> None:
    rng = random.Random(20261202)
    hits = 0
    for _ in range(40_000):
        url = rng.choice(PREFIXES) + rng.choice(HOSTS) + _tail(rng)
        hits += _check(url)
    assert hits > 500  # the fast path does fire on ordinary shapes


def test_settled_every_character_in_every_part() -> None:
    for char in HOSTILE:
        for url in (f"https://a.b/x{char}y", f"https://a.b/{char}", f"http://a.b/?q{char}",
                    f"https://a.b/p?{char}#f", f"https://a.b/p#{char}", f"https://a{char}b.c/",
                    f"https://{char}a.b/", f"https://a.b{char}/", f"http{char}://a.b/",
                    f"https:/{char}/a.b/", f"https://a.b/x/{char}/y", f"https://a.b/{char}{char}"):
            _check(url)


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(HOSTILE + BENIGN + NASTY), max_size=12).map("".join))
def test_settled_property(tail: str) -> None:
    _check("https://a.b/" + tail)
    _check("http://x.y" + tail)


def test_joined_matches_the_parser_for_relative_references() -> None:
    rng = random.Random(7)
    bases = ["https://example.com/a/b.html", "http://example.com/", "https://EXAMPLE.com:8443/x/",
             "https://xn--fa-hia.de/a/b?q#f", "http://1.2.3.4/a/./b/", "https://a.b/dir/%2e/x"]
    for base_url in bases:
        base = _parsed(base_url)
        assert base is not None
        for _ in range(3_000):
            ref = rng.choice(["", "/", "//", "?", "#", "../", "./", "x/", "http:", "https://a.b"])
            ref += _tail(rng)
            try:
                slow: str | None = parse_url(join_url(base, ref)).url
            except EgressDenied:
                slow = None
            assert _joined(base, ref) == slow, (base_url, ref)


def test_escape_text_fast_path_knows_every_syntax_character() -> None:
    """``escape_text`` returns text at once when it holds none of the characters it
    escapes or marks; that written-out list must be the loops' own set."""
    syntax = set(_escape._ALWAYS_CHARS) | set(_escape._MARKS)
    for code in range(0x80):
        char = chr(code)
        assert (_escape.escape_text(f"a{char}b") != f"a{char}b") == (char in syntax), char
