"""Link extraction from HTML with Lexbor (selectolax): one parse per page.

Follows ``<a href>`` and ``<area href>``; honours ``<base href>``; with
``respect_nofollow`` skips ``rel=nofollow`` links and every link of a page whose
robots meta says ``nofollow``. Non-HTTP schemes and URLs whose path ends in a
binary or asset extension are skipped. The result is canonical, deduplicated
and in document order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser

from pressmark.crawl._canonical import CanonicalURL, canonical_or_refusal, canonical_parts
from pressmark.markdown import parse_html

BINARY_EXTENSIONS = frozenset(
    (
        "7z", "aac", "apk", "avi", "avif", "bin", "bmp", "bz2", "css", "deb", "dmg", "doc",
        "docx", "eot", "eps", "exe", "flac", "flv", "gif", "gz", "ico", "ics", "iso", "jar",
        "jpeg", "jpg", "js", "json", "m4a", "m4v", "mid", "mkv", "mov", "mp3", "mp4",
        "mpeg", "mpg", "msi", "odt", "ogg", "ogv", "otf", "pdf", "png", "ppt", "pptx", "ps",
        "psd", "rar", "rpm", "rss", "svg", "swf", "tar", "tgz", "tif", "tiff", "ttf", "wav",
        "webm", "webp", "wma", "wmv", "woff", "woff2", "xls", "xlsx", "xz", "zip",
    )
)

_SKIP_PREFIXES = ("mailto:", "javascript:", "tel:", "data:", "ftp:", "sms:", "file:", "blob:")


@dataclass(frozen=True, slots=True)
class ExtractedLinks:
    title: str | None
    links: tuple[tuple[str, str], ...]
    """``(canonical_url, host)`` pairs in document order."""
    nofollow_skipped: int = 0
    refused: tuple[tuple[str, int], ...] = ()
    """``(egress code, count)`` for hrefs the egress URL parser refused, sorted by code."""


_SEG = r"[A-Za-z0-9\-_~!$&'()*+,;=:@]+(?:\.[A-Za-z0-9\-_~!$&'()*+,;=:@]+)*"
_FAST = re.compile(  # unambiguous: segments are separated by exactly one "/"
    rf"(/(?:{_SEG}(?:/{_SEG})*/?)?)(\?[A-Za-z0-9\-._~!$&()*+,;=:@/?]+)?(?:#.*)?",
    re.DOTALL,
)
_MEMO: dict[tuple[str, str, bool], CanonicalURL | str] = {}
_MEMO_MAX = 20_000
"""Entries of ``_MEMO`` (cleared when full): ~300 bytes each, so 6 MiB (50,000 held 15 MiB of
the 200,000-page bench crawl's peak, where a page's relative links repeat within a host)."""
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_C0_SPACE = "".join(chr(c) for c in range(0x21))
_TAB_NL = str.maketrans("", "", "\t\n\r")
_AUTHORITY_STARTS = frozenset({"//", "\\\\", "/\\", "\\/"})


def _context(href: str, base: str, origin: str, base_dir: str) -> str:
    """The part of the base URL that resolving ``href`` depends on (the memo key):
    nothing for an absolute URL, the scheme for ``//host``, the origin for ``/path``,
    the directory for a relative path, the whole base for ``?query`` or empty refs."""
    h = href.strip(_C0_SPACE).translate(_TAB_NL)
    if h[:2] in _AUTHORITY_STARTS:
        return origin.partition(":")[0]
    if h.startswith(("/", "\\")):
        return origin
    if not h or h[0] in "?#":
        return base
    match = _SCHEME.match(h)
    if match is not None:
        # ``http:x`` / ``http:/x`` with the base's own scheme are relative (WHATWG).
        scheme = h[: match.end() - 1].lower()
        if scheme not in ("http", "https") or h[match.end() : match.end() + 2] == "//":
            return ""
        return base
    return base_dir


def has_binary_extension(url: str) -> bool:
    path = url.split("?", 1)[0]
    slash = path.rfind("/")
    dot = path.rfind(".")
    if dot <= slash:
        return False
    return path[dot + 1 :].lower() in BINARY_EXTENSIONS


def extract_links(
    html: str | LexborHTMLParser,
    page_url: str,
    *,
    respect_nofollow: bool = True,
    strip_tracking: bool = False,
) -> ExtractedLinks:
    """Parse ``html`` (or reuse a parsed tree) and return its followable links."""
    tree = html if isinstance(html, LexborHTMLParser) else parse_html(html)[0]
    title_node = tree.css_first("title")
    title = title_node.text(strip=True) or None if title_node is not None else None
    page = canonical_parts(page_url)
    base = page.url if page is not None else page_url
    base_node = tree.css_first("base[href]")
    if base_node is not None:
        href = base_node.attributes.get("href")
        if href:
            resolved = canonical_parts(href, page_url)
            if resolved is not None:
                base = resolved.url
    page_nofollow = False
    if respect_nofollow:
        for meta in tree.css("meta[name]"):
            name = (meta.attributes.get("name") or "").lower()
            if name == "robots" and "nofollow" in (meta.attributes.get("content") or "").lower():
                page_nofollow = True
                break
    scheme, _, rest = base.partition("://")
    host = rest.split("/", 1)[0]
    origin = f"{scheme}://{host}"
    base_dir = base.split("?", 1)[0].rsplit("/", 1)[0]
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    skipped = 0
    refused: dict[str, int] = {}
    for node in tree.css("a[href], area[href]"):
        attrs = node.attributes
        href = attrs.get("href")
        if not href:
            continue
        if respect_nofollow and (page_nofollow or "nofollow" in (attrs.get("rel") or "").lower()):
            skipped += 1
            continue
        head = href[:11].lstrip().lower()
        if head.startswith(_SKIP_PREFIXES) or head.startswith("#"):
            continue
        fast = _FAST.fullmatch(href)
        if fast is not None and (fast[2] is None or not strip_tracking):
            # A plain path-absolute link (no dot segments, escapes or odd characters):
            # its canonical form is the origin plus the link, minus any fragment.
            url = origin + fast[1] + (fast[2] or "")
            if url not in seen and not has_binary_extension(url):
                seen.add(url)
                out.append((url, host))
            continue
        key = (href, _context(href, base, origin, base_dir), strip_tracking)
        if key in _MEMO:
            found = _MEMO[key]
        else:
            found = canonical_or_refusal(href, base, strip_tracking=strip_tracking)
            if isinstance(found, CanonicalURL) and has_binary_extension(found.url):
                found = ""
            if len(_MEMO) >= _MEMO_MAX:
                _MEMO.clear()
            _MEMO[key] = found
        if isinstance(found, str):
            if found:
                refused[found] = refused.get(found, 0) + 1
            continue
        if found.url in seen:
            continue
        seen.add(found.url)
        out.append((found.url, found.host))
    return ExtractedLinks(title=title, links=tuple(out), nofollow_skipped=skipped,
                          refused=tuple(sorted(refused.items())))
