"""What kind of content a body is: html, xml, json, text or binary.

The Content-Type header decides when it names a type; the body is sniffed only
when the header is missing or says nothing (``application/octet-stream``,
``*/*``, unparseable). Sniffing looks at the first bytes only and is
conservative: ambiguous input is ``text`` when it decodes and has no NUL bytes,
else ``binary``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Literal

    ContentKind = Literal["html", "xml", "json", "text", "binary"]


_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_XML_TYPES = frozenset({"text/xml", "application/xml", "image/svg+xml"})
_JSON_TYPES = frozenset({"application/json", "text/json", "application/ld+json"})
_TEXT_APPLICATION = frozenset({
    "application/javascript", "application/x-javascript", "application/ecmascript",
    "application/x-www-form-urlencoded", "application/x-sh", "application/sql",
    "application/yaml", "application/x-yaml", "application/toml", "application/graphql",
})
_UNKNOWN = frozenset({"", "application/octet-stream", "application/unknown", "unknown/unknown",
                      "*/*", "binary/octet-stream"})
_HTML_STARTS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<script", b"<iframe",
                b"<h1", b"<div", b"<font", b"<table", b"<a ", b"<a>", b"<style", b"<title",
                b"<b ", b"<b>", b"<br", b"<p ", b"<p>", b"<!--")
_SNIFF_BYTES = 1024


def _essence(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip(" \t\r\n").lower()


def classify_content_type(content_type_header: str | None, body_prefix: bytes) -> ContentKind:
    """Classify a body from its Content-Type header value, sniffing only when it says nothing."""
    essence = _essence(content_type_header or "")
    if essence not in _UNKNOWN and "/" in essence:
        if essence in _HTML_TYPES:
            return "html"
        if essence in _JSON_TYPES or essence.endswith("+json"):
            return "json"
        if essence in _XML_TYPES or essence.endswith("+xml"):
            return "xml"
        if essence.startswith("text/") or essence in _TEXT_APPLICATION:
            return "text"
        return "binary"
    return _sniff(body_prefix[:_SNIFF_BYTES])


def _sniff(prefix: bytes) -> ContentKind:
    head = prefix
    for bom in (b"\xef\xbb\xbf", b"\xfe\xff", b"\xff\xfe"):
        if head.startswith(bom):
            if bom != b"\xef\xbb\xbf":
                return "text"
            head = head[len(bom) :]
            break
    stripped = head.lstrip(b" \t\r\n\x0c").lower()
    if stripped.startswith(b"<?xml"):
        return "html" if b"<html" in stripped else "xml"
    if stripped.startswith(_HTML_STARTS):
        return "html"
    if stripped.startswith((b"<rss", b"<feed", b"<svg", b"<urlset", b"<sitemapindex")):
        return "xml"
    if b"\x00" in head:
        return "binary"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte sequence cut at the prefix boundary is still text.
        # Anything else is judged as single-byte text by its share of control bytes.
        cut = exc.start >= len(head) - 3
        text = head[: exc.start].decode("utf-8") if cut else head.decode("latin-1")
    if text.lstrip().startswith(("{", "[")):
        return "json"
    controls = sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\n\r\x0c")
    return "binary" if controls > len(text) // 20 else "text"
