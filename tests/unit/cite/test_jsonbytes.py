"""The JSON strings of ``md --batch --chunks``' lines, in C against the Python reading.

``pressmark.cite._jsonbytes`` writes through ``_native_json.c`` when it is built, else
through its ``*_in_python`` functions; both are compared here on the shapes that take
different paths (each string width, escapes, every kind of whitespace, lone surrogates),
on generated text and on every page of the shared dev sets read as text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.cite import _jsonbytes
from pressmark.cite._jsonbytes import (
    json_text_in_python,
    json_texts_in_python,
    json_words_in_python,
)

from .test_provenance_sweep import SETS, bench_dir

try:
    from pressmark.cite import _native_json
except ImportError:  # built without a C compiler: nothing to compare
    _native_json = None  # type: ignore[assignment]

needs_c = pytest.mark.skipif(_native_json is None, reason="the C writer is not built")

SHAPES = [
    "", " ", "a", "plain ascii text", ' "quoted" and \\ back\\slash ', "\b\f\n\r\t",
    "".join(chr(c) for c in range(0x20)), "\x7f\x80\x85\xa0\xff", "é à ü",
    "\u2028\u2029 \u3000 \u2003 \u200b \ufeff", "\x1c\x1d\x1e\x1f", "curly ’quotes’ “here”",
    "\U0001f600 \U00010000 \U0010ffff", "\ud800 lone \udfff surrogates \udc80",
    "  leading and trailing  \n\n", "a\u00a0b\u0085c\u1680d", "tab\tnew\nline\r\n",
]


def _same(s: str, start: int, end: int) -> None:
    assert _native_json is not None
    assert _native_json.json_text(s, start, end) == json_text_in_python(s, start, end)
    assert _native_json.json_words(s, start, end) == json_words_in_python(s, start, end)
    piece = s[start:end]
    strings = [piece, s[:start], s[end:]]
    assert _native_json.json_texts(strings) == json_texts_in_python(strings)
    assert _native_json.json_texts(tuple(strings[:1])) == json_texts_in_python(strings[:1])


def test_the_python_reading_is_json_dumps() -> None:
    for s in SHAPES:
        want = json.dumps(s, ensure_ascii=False).encode("utf-8", "surrogatepass")
        assert json_text_in_python(s, 0, len(s)) == want
        words = json.dumps(" ".join(s.split()), ensure_ascii=False)
        assert json_words_in_python(s, 0, len(s)) == words.encode("utf-8", "surrogatepass")
    assert json_texts_in_python([]) == b""
    assert json_texts_in_python(["a", 'b"']) == b'"a","b\\""'


@needs_c
def test_chunks_are_written_through_c() -> None:
    assert _jsonbytes.json_text is _native_json.json_text
    assert _jsonbytes.json_words is _native_json.json_words
    assert _jsonbytes.json_texts is _native_json.json_texts


@needs_c
@pytest.mark.parametrize("s", SHAPES)
def test_shapes(s: str) -> None:
    for wide in ("", "\u0100", "\U0001f600"):  # the same text in each string width
        text = s + wide
        for start in range(min(len(text), 4) + 1):
            _same(text, start, len(text))
            _same(text, 0, start)


@needs_c
@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(blacklist_categories=())), st.data())
def test_generated_text(s: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(s)))
    end = data.draw(st.integers(start, len(s)))
    _same(s, start, end)


@needs_c
def test_every_dev_set_page_read_as_text() -> None:
    bench = bench_dir()
    if bench is None:
        pytest.skip("benchmark corpus (../shared/bench) not found")
    for name in SETS:
        for path in sorted((bench / name).glob("*.html")):
            text = Path(path).read_bytes().decode("utf-8", "surrogateescape")
            _same(text, 0, len(text))
            step = max(1, len(text) // 7)
            for start in range(0, len(text), step):
                _same(text, start, min(len(text), start + 3_000))


@pytest.mark.parametrize("write", [
    *((getattr(_native_json, n) for n in ("json_text", "json_words")) if _native_json else ()),
    json_text_in_python, json_words_in_python,
])
def test_a_span_outside_the_string_is_a_value_error(write: object) -> None:
    for start, end in ((2, 1), (-1, 1), (0, 4), (4, 4)):
        with pytest.raises(ValueError, match="not a span"):
            write("abc", start, end)  # type: ignore[operator]


@needs_c
def test_not_strings_are_type_errors() -> None:
    assert _native_json is not None
    with pytest.raises(TypeError):
        _native_json.json_text(b"abc", 0, 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        _native_json.json_texts(["a", 1])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        _native_json.json_texts(3)  # type: ignore[arg-type]
