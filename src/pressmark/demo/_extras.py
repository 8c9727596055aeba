"""Non-article resources: robots.txt, sitemaps, charset variants, cache validators, assets."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import struct
import zlib
from typing import TYPE_CHECKING

from pressmark.demo import _text
from pressmark.demo._http import Fault, Response
from pressmark.demo._pages import SITE_DATE, etag_of
from pressmark.demo._site import DISALLOWED_PREFIXES

if TYPE_CHECKING:
    from pressmark.demo._site import DemoSite

_RULES = "".join(f"Disallow: {prefix}\n" for prefix in DISALLOWED_PREFIXES)
_HUGE_LIMIT = 500 * 1024


def robots_body(site: DemoSite, origin: str) -> str:
    delay = "" if site.crawl_delay is None else f"Crawl-delay: {site.crawl_delay:g}\n"
    return (
        "# robots.txt for the pressmark demo site\n"
        "User-agent: slowbot\nCrawl-delay: 5\n"
        + "".join(f"Disallow: {p}\n" for p in DISALLOWED_PREFIXES[:4])
        + f"\nUser-agent: *\n{delay}Allow: /private/open\n{_RULES}\n"
        f"Sitemap: {origin}/sitemap.xml\n"
    )


def robots(site: DemoSite, origin: str) -> Response | Fault:
    mode = site.robots
    text = "text/plain; charset=utf-8"
    if mode == "500":
        return Response(status=500, body=b"internal error\n", content_type=text)
    if mode == "404":
        return Response(status=404, body=b"not found\n", content_type=text)
    if mode == "timeout":
        return Fault(_never_answer)
    if mode == "redirect":
        return Response(status=302, content_type=None,
                        headers=(("Location", "/robots-moved.txt"),))
    body = robots_body(site, origin)
    if mode == "huge":
        filler = []
        size = 0
        number = 0
        while size < _HUGE_LIMIT + 16 * 1024:
            line = f"# filler line {number:06d} padding the file past the parser's limit\n"
            filler.append(line)
            size += len(line)
            number += 1
        body = "".join(filler) + body
    return Response(status=200, body=body.encode("utf-8"), content_type=text)


async def _never_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    del reader, writer
    await asyncio.sleep(3600)


def sitemap_index(origin: str) -> Response:
    entries = "".join(
        f"<sitemap><loc>{origin}{path}</loc><lastmod>2026-11-02</lastmod></sitemap>"
        for path in ("/sitemaps/articles.xml", "/sitemaps/more.xml.gz", "/sitemaps/images.xml"))
    body = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"{entries}</sitemapindex>\n")
    return Response(status=200, body=body.encode("utf-8"), content_type="application/xml")


def _urlset(site: DemoSite, origin: str, articles: bool) -> bytes:
    rows = []
    for page in site.pages:
        if not page.in_sitemap or (page.kind == "article") != articles:
            continue
        lastmod = (_text.published(site.seed, page.page_id) if page.page_id is not None
                   else "2026-11-02")
        rows.append(f"<url><loc>{origin}{page.path}</loc><lastmod>{lastmod}</lastmod></url>")
    body = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            + "\n".join(rows) + "\n</urlset>\n")
    return body.encode("utf-8")


def sitemap_articles(site: DemoSite, origin: str) -> Response:
    return Response(status=200, body=_urlset(site, origin, True),
                    content_type="application/xml")


def sitemap_images(site: DemoSite, origin: str) -> Response:
    """An image sitemap (Google's extension) over the first few sitemap articles: only each
    ``<url><loc>`` is a page; the ``<image:loc>`` entries are pictures, never pages."""
    rows = []
    for page in [p for p in site.pages if p.in_sitemap and p.kind == "article"][:5]:
        slug = page.path.rsplit("/", 1)[-1]
        rows.append(f"<url><loc>{origin}{page.path}</loc>"
                    f"<image:image><image:loc>{origin}/media/{slug}.jpg</image:loc></image:image>"
                    f"<image:image><image:loc>{origin}/media/{slug}-2.jpg</image:loc>"
                    "</image:image></url>")
    body = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
            'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n'
            + "\n".join(rows) + "\n</urlset>\n")
    return Response(status=200, body=body.encode("utf-8"), content_type="application/xml")


def sitemap_more(site: DemoSite, origin: str) -> Response:
    body = gzip.compress(_urlset(site, origin, False), compresslevel=6, mtime=0)
    return Response(status=200, body=body, content_type="application/gzip")


# -- charset variants -------------------------------------------------------------

CHARSET_TEXT: dict[str, str] = {
    "/charset/shift_jis": "日本語のページです。港の市場が再開しました。",
    "/charset/windows-1252": "“Smart quotes” cost €5 at the café.",
    "/charset/http-equiv": "Ça va très bien, la façade est naïve.",
    "/charset/bom": "Ünïcödé text after a byte order mark ✓",
    "/charset/bom-conflict": "The BOM says UTF-8 — ignore the header’s windows-1252.",
    "/charset/invalid-utf8": "Valid text before broken bytes: ",
    "/charset/none": "Grüße aus Köln, ohne Deklaration.",
}


def _doc(text: str, meta: str = "") -> str:
    return (f"<!DOCTYPE html>\n<html>\n<head>\n{meta}<title>Charset test</title>\n</head>\n"
            f"<body>\n<h1>Charset test</h1>\n<p>{text}</p>\n</body>\n</html>\n")


def charset(path: str) -> Response | None:
    text = CHARSET_TEXT.get(path)
    if text is None:
        return None
    html = "text/html"
    if path == "/charset/shift_jis":
        body = _doc(text).encode("shift_jis")
        ctype = "text/html; charset=Shift_JIS"
    elif path == "/charset/windows-1252":
        body = _doc(text, '<meta charset="windows-1252">\n').encode("cp1252")
        ctype = html
    elif path == "/charset/http-equiv":
        meta = '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">\n'
        body = _doc(text, meta).encode("iso-8859-1")
        ctype = html
    elif path == "/charset/bom":
        body = b"\xef\xbb\xbf" + _doc(text).encode("utf-8")
        ctype = html
    elif path == "/charset/bom-conflict":
        body = b"\xef\xbb\xbf" + _doc(text).encode("utf-8")
        ctype = "text/html; charset=windows-1252"
    elif path == "/charset/invalid-utf8":
        doc = _doc(text + "@@BROKEN@@ and after.").encode("utf-8")
        body = doc.replace(b"@@BROKEN@@", b"\xff \xc3\x28 \xe2\x82")
        ctype = "text/html; charset=utf-8"
    else:
        body = _doc(text).encode("utf-8")
        ctype = html
    return Response(status=200, body=body, content_type=ctype, etag=etag_of(body),
                    last_modified=SITE_DATE)


# -- cache validators ---------------------------------------------------------------


def cache(path: str, counter: int) -> Response | None:
    name = path.rsplit("/", 1)[1]
    if path not in {f"/cache/{n}" for n in ("both", "etag", "last-modified", "weak", "none",
                                            "changing")}:
        return None
    text = f"Validators: {name}."
    if name == "changing":
        text += f" Version {counter}."
    body = _doc(text).encode("utf-8")
    tag = etag_of(body)
    etag: str | None = tag
    modified: str | None = SITE_DATE
    if name == "etag":
        modified = None
    elif name == "last-modified":
        etag = None
    elif name == "weak":
        etag = "W/" + tag
    elif name == "none":
        etag = modified = None
    elif name == "changing":
        modified = None
    return Response(status=200, body=body, etag=etag, last_modified=modified,
                    content_type="text/html; charset=utf-8", cacheable=name != "changing")


# -- assets -------------------------------------------------------------------------

SITE_CSS = (
    "body{font-family:Georgia,serif;margin:0;line-height:1.5}"
    ".site-header,.site-footer{background:#123;color:#eee;padding:1rem}"
    ".site-header a,.site-footer a{color:#cde}"
    ".primary-nav ul,.secondary-nav ul,.footer-columns{display:flex;gap:1rem;"
    "list-style:none;padding:0}"
    ".cookie-banner{position:fixed;left:0;right:0;background:#fff;border:1px solid #999;"
    "padding:1rem;z-index:10}.cookie-top{top:0}.cookie-bottom{bottom:0}"
    "main,.container,.page-wrapper{max-width:48rem;margin:0 auto;padding:1rem}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem}"
    "[hidden]{display:none}"
)


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    width = height = 8
    raw = b"".join(b"\x00" + b"\x40\x70\xa0" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


PNG = _png()


def asset(path: str) -> Response | None:
    if path == "/static/site.css":
        body = SITE_CSS.encode("utf-8")
        return Response(status=200, body=body, content_type="text/css; charset=utf-8",
                        etag=etag_of(body), compressible=True,
                        headers=(("Cache-Control", "max-age=3600"),))
    if path.startswith("/img/") and path.endswith(".png"):
        return Response(status=200, body=PNG, content_type="image/png",
                        etag='"' + hashlib.sha256(PNG).hexdigest()[:16] + '"',
                        headers=(("Cache-Control", "max-age=3600"),))
    if path == "/favicon.ico":
        return Response(status=204, content_type=None)
    return None
