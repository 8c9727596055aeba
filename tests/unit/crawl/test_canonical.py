from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.crawl._canonical import canonicalize_url, remove_dot_segments


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("HTTP://Example.COM:80/a/./b/../c?b=1&a=2#frag", "http://example.com/a/c?b=1&a=2"),
        ("https://ex.com:443", "https://ex.com/"),
        ("https://ex.com:8443/x", "https://ex.com:8443/x"),
        ("http://ex.com/%7euser/%2f/ a?q=%zz", "http://ex.com/~user/%2F/%20a?q=%25zz"),
        ("http://ex.com/%e2%82%ac", "http://ex.com/%E2%82%AC"),
        ("http://ex.com/€", "http://ex.com/%E2%82%AC"),
        ("http://bücher.de/x", "http://xn--bcher-kva.de/x"),
        ("http://ex.com./a", "http://ex.com/a"),
        ("http://ex.com/a?", "http://ex.com/a"),
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),
        ("  http://ex.com/a\tb\n ", "http://ex.com/ab"),
        ("http://ex.com\\a\\b", "http://ex.com/a/b"),
        ("http://ex.com/a/%2E%2E/b", "http://ex.com/b"),
        ("http://127.0.0.1:4173/a/..", "http://127.0.0.1:4173/"),
    ],
)
def test_rules(raw: str, expected: str) -> None:
    assert canonicalize_url(raw) == expected


@pytest.mark.parametrize(
    "raw",
    ["mailto:a@b.c", "javascript:alert(1)", "ftp://ex.com/", "http://", "http://a.com:99999/",
     "http://a.com:0/", "http://a.com:x/", "http://a b.com/", "data:text/html,hi"],
)
def test_rejects(raw: str) -> None:
    assert canonicalize_url(raw) is None


def test_relative_and_tracking() -> None:
    assert canonicalize_url("../x?y=1#z", "http://a.com/b/c/d") == "http://a.com/b/x?y=1"
    url = "http://a.com/p?utm_source=x&id=3&gclid=1&b=2"
    assert canonicalize_url(url) == url
    assert canonicalize_url(url, strip_tracking=True) == "http://a.com/p?id=3&b=2"


def test_remove_dot_segments_rfc_examples() -> None:
    assert remove_dot_segments("/a/b/c/./../../g") == "/a/g"
    assert remove_dot_segments("/mid/content=5/../6") == "/mid/6"
    assert remove_dot_segments("/a/b/..") == "/a/"


_segment = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)
_urls = st.builds(
    lambda scheme, host, port, segs, query, frag: (
        f"{scheme}://{host}{port}/{'/'.join(segs)}{query}{frag}"
    ),
    st.sampled_from(["http", "HTTP", "https", "HtTpS"]),
    st.sampled_from(["example.com", "EXAMPLE.org", "127.0.0.1", "[::1]", "bücher.de", "a-b.c"]),
    st.sampled_from(["", ":80", ":443", ":8080"]),
    st.lists(st.one_of(_segment, st.sampled_from([".", "..", "%2e", "%7E", "%zz", "%"])),
             max_size=5),
    st.one_of(st.just(""), st.builds(lambda q: "?" + q, _segment)),
    st.one_of(st.just(""), st.builds(lambda f: "#" + f, _segment)),
)


@settings(max_examples=300, deadline=None)
@given(_urls)
def test_idempotent_and_well_formed(raw: str) -> None:
    once = canonicalize_url(raw)
    if once is None:
        return
    assert canonicalize_url(once) == once
    assert "#" not in once
    scheme, _, rest = once.partition("://")
    assert scheme in ("http", "https")
    host = rest.split("/", 1)[0]
    assert host == host.lower()
    default = ":80" if scheme == "http" else ":443"
    assert not host.endswith(default)
    path = "/" + rest.partition("/")[2].split("?", 1)[0]
    assert "/./" not in path and "/../" not in path
    assert once.isascii()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="abc=&xyz", min_size=1, max_size=4), min_size=1, max_size=5))
def test_query_order_kept(params: list[str]) -> None:
    query = "&".join(params)
    assert canonicalize_url(f"http://a.com/?{query}") == f"http://a.com/?{query}"
