"""Sitemap parsing (pure) and bounded sitemap discovery.

Accepted forms: XML ``<urlset>`` and ``<sitemapindex>``, plain text (one URL per
line), each optionally gzip-compressed. In XML only ``<url><loc>`` and
``<sitemap><loc>`` in the sitemap namespace (or in no namespace, a common sloppy
form) yield URLs; a ``loc`` anywhere else, such as the image, video or news
extensions' ``<image:loc>``, names a picture or a player, not a page: it is
ignored and counted (``extension_locs_ignored``). XML is parsed with
expat with DTDs and entity declarations refused outright, so neither external
entities nor entity expansion bombs can run. Gzip is inflated incrementally up
to a byte cap, and each document yields at most ``max_urls`` URLs.
"""

from __future__ import annotations

import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal
from xml.parsers import expat

from pressmark.crawl._policy import SitemapLimits

SitemapKind = Literal["urlset", "index", "text", "unknown"]


class SitemapParseError(ValueError):
    """A sitemap that cannot be read within its limits. ``reason`` is a stable word."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class SitemapDocument:
    kind: SitemapKind
    urls: tuple[str, ...]
    truncated: bool = False
    ignored_locs: int = 0
    """``loc`` elements outside ``<url>``/``<sitemap>`` of the sitemap namespace."""


INLINE_SITEMAP_BYTES = 64 * 1024
"""A plain sitemap up to this size is parsed where it is fetched (about a millisecond);
a bigger or gzipped one goes through the crawl's ``parse`` hook (its parser workers)."""

ParseSitemap = Callable[[bytes, int, int], Awaitable[SitemapDocument]]
"""``(data, max_bytes, max_urls) -> document``; raises :class:`SitemapParseError`."""


def parse_sitemap_job(args: tuple[bytes, int, int]) -> SitemapDocument | tuple[str, str]:
    """:func:`parse_sitemap` for a worker process: a refusal comes back as (reason, message)."""
    data, max_bytes, max_urls = args
    try:
        return parse_sitemap(data, max_bytes=max_bytes, max_urls=max_urls)
    except SitemapParseError as exc:
        return (exc.reason, str(exc))


def gunzip_capped(data: bytes, max_bytes: int) -> bytes:
    """Inflate gzip ``data``, refusing to produce more than ``max_bytes``."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, max_bytes + 1)
    except zlib.error as exc:
        raise SitemapParseError("bad-gzip", f"sitemap gzip is corrupt: {exc}") from exc
    if len(out) > max_bytes or inflater.unconsumed_tail:
        raise SitemapParseError("too-large", f"sitemap inflates beyond {max_bytes} bytes")
    return out


def parse_sitemap(
    data: bytes, *, max_bytes: int = 50 * 1024 * 1024, max_urls: int = 50_000
) -> SitemapDocument:
    """Parse one sitemap document (XML, text, or either gzipped)."""
    if data[:2] == b"\x1f\x8b":
        data = gunzip_capped(data, max_bytes)
    elif len(data) > max_bytes:
        raise SitemapParseError("too-large", f"sitemap is larger than {max_bytes} bytes")
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"<"):
        return _parse_xml(data, max_urls)
    return _parse_text(data, max_urls)


def _parse_text(data: bytes, max_urls: int) -> SitemapDocument:
    urls: list[str] = []
    for raw in data.decode("utf-8", "replace").splitlines():
        line = raw.strip()
        if line.startswith(("http://", "https://")):
            if len(urls) >= max_urls:
                return SitemapDocument("text", tuple(urls), truncated=True)
            urls.append(line)
    return SitemapDocument("text", tuple(urls))


class _Stop(Exception):
    pass


SITEMAP_NAMESPACES = frozenset({
    "",  # no namespace: not an extension, so accepted
    "http://www.sitemaps.org/schemas/sitemap/0.9",
    "http://www.google.com/schemas/sitemap/0.9",
    "http://www.google.com/schemas/sitemap/0.84",
})
_ENTRY = {"urlset": "url", "index": "sitemap"}


def _split_name(name: str) -> tuple[str, str]:
    namespace, _, local = name.rpartition(" ")
    return namespace, local


def _parse_xml(data: bytes, max_urls: int) -> SitemapDocument:
    parser = expat.ParserCreate(namespace_separator=" ")
    kind: list[SitemapKind] = []
    urls: list[str] = []
    text: list[str] = []
    in_loc = [False]
    truncated = [False]
    ignored = [0]
    stack: list[str] = []  # the open elements, as "namespace local" names

    def refuse(*_: object) -> None:
        raise SitemapParseError("dtd-refused", "sitemap declares a DTD or entities; refused")

    def is_entry_loc(name: str) -> bool:
        namespace, _ = _split_name(name)
        if namespace not in SITEMAP_NAMESPACES or len(stack) != 2 or not kind:
            return False
        parent_ns, parent = _split_name(stack[1])
        return parent_ns in SITEMAP_NAMESPACES and parent == _ENTRY.get(kind[0])

    def start(name: str, _attrs: object) -> None:
        local = _split_name(name)[1]
        if not kind:
            kind.append("urlset" if local == "urlset" else "index" if local == "sitemapindex"
                        else "unknown")
        if local == "loc":
            if is_entry_loc(name):
                in_loc[0] = True
                text.clear()
            else:
                ignored[0] += 1
        stack.append(name)

    def end(name: str) -> None:
        stack.pop()
        if in_loc[0] and _split_name(name)[1] == "loc":
            in_loc[0] = False
            loc = "".join(text).strip()
            if loc:
                if len(urls) >= max_urls:
                    truncated[0] = True
                    raise _Stop
                urls.append(loc)

    def chars(data: str) -> None:
        if in_loc[0]:
            text.append(data)

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse  # type: ignore[assignment]  # expat wants int
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        parser.Parse(data, True)
    except _Stop:
        pass
    except expat.ExpatError as exc:
        raise SitemapParseError("bad-xml", f"sitemap XML is malformed: {exc}") from exc
    return SitemapDocument(kind[0] if kind else "unknown", tuple(urls), truncated=truncated[0],
                           ignored_locs=ignored[0])


@dataclass(slots=True)
class SitemapReport:
    documents_read: int = 0
    urls_discovered: int = 0
    extension_locs_ignored: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "documents_read": self.documents_read,
            "urls_discovered": self.urls_discovered,
            "extension_locs_ignored": self.extension_locs_ignored,
            "errors": list(self.errors),
        }


FetchDocument = Callable[[str], Awaitable[bytes]]
"""Fetches one sitemap document; raises :class:`SitemapParseError` (or anything) on failure."""


async def discover_sitemap_urls(
    roots: list[str],
    fetch: FetchDocument,
    limits: SitemapLimits,
    report: SitemapReport,
    on_url: Callable[[str], None],
    *,
    parse: ParseSitemap | None = None,
) -> None:
    """Walk sitemap ``roots`` breadth-first through nested indexes (at most
    ``max_index_depth`` levels below a root, ``max_documents`` documents in all)
    and call ``on_url`` for each page URL. Failures go to ``report.errors``.
    ``parse`` takes documents over :data:`INLINE_SITEMAP_BYTES` (or gzipped) off the
    caller's event loop."""
    queue: list[tuple[str, int]] = [(url, 0) for url in roots]
    seen: set[str] = set()
    while queue:
        url, level = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        if report.documents_read >= limits.max_documents:
            report.errors.append({"url": url, "reason": "document-limit",
                                  "message": f"more than {limits.max_documents} sitemaps"})
            break
        try:
            data = await fetch(url)
            report.documents_read += 1
            if parse is not None and (len(data) > INLINE_SITEMAP_BYTES
                                      or data[:2] == b"\x1f\x8b"):
                doc = await parse(data, limits.max_bytes, limits.max_urls_per_document)
            else:
                doc = parse_sitemap(data, max_bytes=limits.max_bytes,
                                    max_urls=limits.max_urls_per_document)
        except SitemapParseError as exc:
            report.errors.append({"url": url, "reason": exc.reason, "message": str(exc)})
            continue
        except Exception as exc:  # a fetch failure is reported, never fatal to the crawl
            reason = str(getattr(exc, "code", None) or type(exc).__name__)
            report.errors.append({"url": url, "reason": reason, "message": str(exc)})
            continue
        report.extension_locs_ignored += doc.ignored_locs
        if doc.truncated:
            report.errors.append({"url": url, "reason": "url-limit",
                                  "message": f"more than {limits.max_urls_per_document} URLs"})
        if doc.kind == "index":
            if level >= limits.max_index_depth:
                report.errors.append({"url": url, "reason": "index-depth",
                                      "message": f"nested deeper than {limits.max_index_depth}"})
                continue
            queue.extend((child, level + 1) for child in doc.urls)
        else:
            for page in doc.urls:
                report.urls_discovered += 1
                on_url(page)
