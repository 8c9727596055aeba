"""classify_content_type: the header decides; the body is sniffed only when it says nothing."""

from __future__ import annotations

import pytest

from pressmark.snapshot import classify_content_type


@pytest.mark.parametrize(
    ("header", "body", "kind"),
    [
        ("text/html; charset=utf-8", b"{}", "html"),
        ("application/xhtml+xml", b"", "html"),
        ("application/json", b"<html>", "json"),
        ("application/problem+json", b"", "json"),
        ("application/rss+xml", b"", "xml"),
        ("text/xml", b"", "xml"),
        ("text/plain", b"<html>", "text"),
        ("text/css", b"", "text"),
        ("application/javascript", b"", "text"),
        ("image/png", b"<html>", "binary"),
        ("application/pdf", b"%PDF", "binary"),
        (None, b"  <!DOCTYPE html><html>", "html"),
        ("", b"\xef\xbb\xbf<html>", "html"),
        ("application/octet-stream", b"<?xml version='1.0'?><rss>", "xml"),
        (None, b"<?xml version='1.0'?><html xmlns='x'>", "html"),
        (None, b'{"a": 1}', "json"),
        (None, b"plain words", "text"),
        (None, b"\x89PNG\r\n\x1a\n\x00\x00", "binary"),
        (None, b"caf\xe9 au lait", "text"),
        ("*/*", b"<urlset>", "xml"),
        ("garbage", b"<html>", "html"),
    ],
)
def test_classify(header: str | None, body: bytes, kind: str) -> None:
    assert classify_content_type(header, body) == kind


def test_multibyte_sequence_cut_at_the_prefix_end_is_still_text() -> None:
    body = ("é" * 600).encode()[:1023]
    assert classify_content_type(None, body) == "text"
