from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.snapshot._charset import header_charset, sniff_charset
from pressmark.snapshot._prescan import prescan_meta_charset


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        (b'<meta charset="windows-1252">', "windows-1252"),
        (b"<meta charset=Shift_JIS>", "shift_jis"),
        (b"<META CHARSET='ISO-8859-2'/>", "iso-8859-2"),
        (b'<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">',
         "iso-8859-1"),
        (b'<meta content="text/html; charset=koi8-r" http-equiv=content-type>', "koi8-r"),
        (b'<meta content="text/html; charset=koi8-r">', None),  # no pragma: ignored
        (b"<!-- <meta charset=koi8-r> --><meta charset=utf-8>", "utf-8"),
        (b'<p title="<meta charset=koi8-r>"><meta charset=euc-jp>', "euc-jp"),
        (b"<meta charset=utf-16le>", "utf-8"),  # an ASCII-readable page is not UTF-16
        (b"<meta charset=x-user-defined>", "windows-1252"),
        (b"<meta charset=no-such-encoding><meta charset=utf-8>", "utf-8"),  # next meta
        (b"<!doctype html><html><head><title>x</title>", None),
        (b"<meta name=viewport charset=gbk content=x>", "gbk"),
        (b"<meta charset=a charset=big5>", None),  # a repeated attribute is ignored
    ],
)
def test_prescan(html: bytes, expected: str | None) -> None:
    assert prescan_meta_charset(html) == expected


def test_prescan_looks_at_the_first_1024_bytes_only() -> None:
    filler = b"<!doctype html>" + b" " * 1100
    assert prescan_meta_charset(filler + b"<meta charset=koi8-r>") is None
    assert prescan_meta_charset(b"<meta charset=koi8-r>" + filler) == "koi8-r"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("text/html; charset=UTF-8", "utf-8"),
        ('text/html; charset="Shift_JIS"', "shift_jis"),
        ("text/html;charset=latin1", "latin1"),
        ("text/html", None),
        ("text/html; charset=bogus", None),
        (None, None),
    ],
)
def test_header_charset(value: str | None, expected: str | None) -> None:
    assert header_charset(value) == expected


def test_sniff_order_bom_header_meta_default() -> None:
    meta = b"<meta charset=koi8-r>"
    assert sniff_charset(b"\xef\xbb\xbf" + meta, "text/html; charset=windows-1252",
                         is_html=True) == ("utf-8", "bom")
    assert sniff_charset(meta, "text/html; charset=windows-1252", is_html=True) == (
        "windows-1252", "header")
    assert sniff_charset(meta, "text/html", is_html=True) == ("koi8-r", "meta")
    assert sniff_charset(meta, "text/plain", is_html=False) == (None, "default")
    assert sniff_charset(meta, "text/html; charset=bogus", is_html=True) == ("koi8-r", "meta")


@given(st.binary(max_size=1500))
@settings(max_examples=300, deadline=None)
def test_prescan_never_crashes(data: bytes) -> None:
    result = prescan_meta_charset(b"<meta " + data)
    assert result is None or isinstance(result, str)
    sniff_charset(data, "text/html", is_html=True)


def test_prescan_first_charset_wins_within_a_meta() -> None:
    # WHATWG prescan: "charset" and "content" only set the encoding while it is still null,
    # and an unknown label is a failure that ends this meta (the next one is tried).
    content_first = (b'<meta http-equiv="content-type" content="text/html; charset=koi8-r"'
                     b' charset="windows-1252">')
    assert prescan_meta_charset(content_first) == "koi8-r"
    unknown_first = (b'<meta charset="bogus" http-equiv="content-type"'
                     b' content="text/html; charset=koi8-r"><meta charset="utf-8">')
    assert prescan_meta_charset(unknown_first) == "utf-8"
