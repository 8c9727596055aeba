from __future__ import annotations

import gzip

import pytest

from pressmark.crawl import SitemapLimits
from pressmark.crawl._sitemaps import (
    SitemapParseError,
    SitemapReport,
    discover_sitemap_urls,
    parse_sitemap,
)

URLSET = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc> http://a.com/1 </loc><lastmod>2026-01-01</lastmod></url>
<url><loc>http://a.com/2?x=1&amp;y=2</loc></url>
</urlset>"""

INDEX = b"""<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>http://a.com/s1.xml</loc></sitemap><sitemap><loc>http://a.com/s2.xml.gz</loc></sitemap>
</sitemapindex>"""


def test_urlset_and_index() -> None:
    doc = parse_sitemap(URLSET)
    assert doc.kind == "urlset"
    assert doc.urls == ("http://a.com/1", "http://a.com/2?x=1&y=2")
    idx = parse_sitemap(INDEX)
    assert idx.kind == "index" and len(idx.urls) == 2


IMAGES = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">
<url><loc>http://a.com/page</loc>
  <image:image><image:loc>http://a.com/pic.jpg</image:loc></image:image>
  <video:video><video:content_loc>http://a.com/v.mp4</video:content_loc>
    <video:player_loc>http://a.com/player</video:player_loc></video:video>
  <news:news><news:loc>http://a.com/news-loc</news:loc></news:news>
  <xhtml:link rel="alternate" hreflang="de" href="http://a.com/de/page"/>
</url>
<url><image:image><image:loc>http://a.com/orphan.jpg</image:loc></image:image></url>
<loc>http://a.com/stray-top-level</loc>
<url><other xmlns="urn:x"><loc>http://a.com/foreign</loc></other><loc>http://a.com/two</loc></url>
</urlset>"""


def test_extension_locs_are_not_pages() -> None:
    doc = parse_sitemap(IMAGES)
    assert doc.kind == "urlset"
    assert doc.urls == ("http://a.com/page", "http://a.com/two")
    assert doc.ignored_locs == 5


def test_index_takes_only_sitemap_locs() -> None:
    doc = parse_sitemap(b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
                        b'xmlns:i="urn:i"><sitemap><loc>http://a.com/s.xml</loc>'
                        b"<i:loc>http://a.com/x</i:loc></sitemap>"
                        b"<url><loc>http://a.com/wrong-entry</loc></url></sitemapindex>")
    assert doc.kind == "index" and doc.urls == ("http://a.com/s.xml",)
    assert doc.ignored_locs == 2


def test_gzip_and_text() -> None:
    assert parse_sitemap(gzip.compress(URLSET)).urls == parse_sitemap(URLSET).urls
    text = b"http://a.com/1\n\n  https://a.com/2  \nnot a url\n"
    doc = parse_sitemap(text)
    assert doc.kind == "text" and doc.urls == ("http://a.com/1", "https://a.com/2")


def test_caps() -> None:
    bomb = gzip.compress(b"\n" * 2_000_000)
    with pytest.raises(SitemapParseError) as info:
        parse_sitemap(bomb, max_bytes=1_000_000)
    assert info.value.reason == "too-large"
    doc = parse_sitemap(URLSET, max_urls=1)
    assert doc.truncated and doc.urls == ("http://a.com/1",)
    with pytest.raises(SitemapParseError):
        parse_sitemap(b"\x1f\x8bnot gzip at all")


@pytest.mark.parametrize(
    "evil",
    [
        b'<?xml version="1.0"?><!DOCTYPE u [<!ENTITY a "aaaa">]>'
        b"<urlset><url><loc>&a;</loc></url></urlset>",
        b'<?xml version="1.0"?><!DOCTYPE u SYSTEM "http://evil/x.dtd"><urlset/>',
        b'<?xml version="1.0"?><!DOCTYPE u [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b"<urlset><url><loc>&x;</loc></url></urlset>",
    ],
)
def test_dtd_and_entities_refused(evil: bytes) -> None:
    with pytest.raises(SitemapParseError) as info:
        parse_sitemap(evil)
    assert info.value.reason == "dtd-refused"


async def test_discovery_bounds_nesting_and_documents() -> None:
    def index(children: list[str]) -> bytes:
        locs = "".join(f"<sitemap><loc>{c}</loc></sitemap>" for c in children)
        return f"<sitemapindex>{locs}</sitemapindex>".encode()

    docs = {
        "http://a.com/sitemap.xml": index(["http://a.com/l1.xml", "http://a.com/pages.xml"]),
        "http://a.com/l1.xml": index(["http://a.com/l2.xml"]),
        "http://a.com/l2.xml": index(["http://a.com/l3.xml"]),
        "http://a.com/l3.xml": index(["http://a.com/l4.xml"]),
        "http://a.com/pages.xml": URLSET,
    }

    async def fetch(url: str) -> bytes:
        if url not in docs:
            raise SitemapParseError("missing", url)
        return docs[url]

    found: list[str] = []
    report = SitemapReport()
    await discover_sitemap_urls(["http://a.com/sitemap.xml"], fetch, SitemapLimits(), report,
                                found.append)
    assert found == ["http://a.com/1", "http://a.com/2?x=1&y=2"]
    assert report.documents_read == 5
    assert report.urls_discovered == 2
    assert [e["reason"] for e in report.errors] == ["index-depth"]

    report2 = SitemapReport()
    await discover_sitemap_urls(["http://a.com/sitemap.xml"], fetch,
                                SitemapLimits(max_documents=2), report2, found.append)
    assert report2.documents_read == 2
    assert report2.errors[-1]["reason"] == "document-limit"
