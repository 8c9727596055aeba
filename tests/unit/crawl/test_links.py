from __future__ import annotations

from pressmark.crawl._links import extract_links

PAGE = """<!doctype html><html><head><title> Hello </title>
<base href="http://a.com/dir/"></head><body>
<a href="x">1</a><a href="/y#f" rel="nofollow">2</a><a href="a.PDF">3</a>
<a href="mailto:x@y">m</a><a href=" javascript:void(0)">j</a><a href="tel:1">t</a>
<a href="#top">frag</a><a href="//b.com/z">z</a><a href="x#again">dup</a>
<map><area href="/area"></map><a>no href</a><a href="img/p.png?x=1">png</a>
</body></html>"""


def test_extracts_canonical_links_in_order() -> None:
    got = extract_links(PAGE, "http://a.com/")
    assert got.title == "Hello"
    assert [u for u, _ in got.links] == ["http://a.com/dir/x", "http://b.com/z",
                                         "http://a.com/area"]
    assert got.links[1][1] == "b.com"
    assert got.nofollow_skipped == 1


def test_nofollow_optional() -> None:
    got = extract_links(PAGE, "http://a.com/", respect_nofollow=False)
    assert "http://a.com/y" in [u for u, _ in got.links]


def test_meta_robots_nofollow() -> None:
    html = '<meta name="ROBOTS" content="noindex, NoFollow"><a href="/a">a</a>'
    assert extract_links(html, "http://a.com/").links == ()
    assert len(extract_links(html, "http://a.com/", respect_nofollow=False).links) == 1


def test_no_base_uses_page_url_and_ports() -> None:
    got = extract_links('<a href="../q?b=2&a=1">q</a>', "http://127.0.0.1:8080/p/r/s")
    assert got.links == (("http://127.0.0.1:8080/p/q?b=2&a=1", "127.0.0.1:8080"),)
    assert got.title is None


import html  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pressmark.crawl._canonical import canonical_parts  # noqa: E402
from pressmark.crawl._links import has_binary_extension  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab./%?#=&-~ 2", max_size=6), min_size=1, max_size=4))
def test_fast_path_matches_canonicalisation(parts: list[str]) -> None:
    href = "/" + "/".join(parts)
    base = "http://h.test:81/x/y"
    got = extract_links(f'<a href="{html.escape(href)}">l</a>', base,
                        respect_nofollow=False).links
    want = canonical_parts(href, base)
    if want is None or has_binary_extension(want.url):
        assert got == ()
    else:
        assert got == ((want.url, want.host),)
