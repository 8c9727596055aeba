"""The C stylesheet scan against its Python twin: the same rules, always.

``_hidden.read_sheet`` finds the rules that may hide through ``_native_sheet.c`` when it is
built, else through ``_sheet.candidates_in_python`` (the reading it replaced, kept as the
reference). Both are compared here on every ``<style>`` of the repository's pages and of the
shared dev sets (as text, as UTF-8 bytes, and as the cut bodies ``_rawcut`` hands over), on
shapes that take different paths (comments, strings, escapes, nested braces, at-rules,
spaces, digits and case-folded letters outside ASCII, UCS-2 and UCS-4 text, CR and NUL in
bytes, lone surrogates), on every character the regular expressions treat specially, and
on generated sheets.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from pressmark.markdown import _sheet
from pressmark.markdown._bounded import parse_page
from pressmark.markdown._hidden import MAX_SHEET_CANDIDATES, MAX_SHEET_CHARS
from pressmark.markdown._sheet import Piece, candidates_in_python

from ._bench import bench_dir

try:
    from pressmark.markdown import _native_sheet
except ImportError:  # built without a C compiler: nothing to compare
    _native_sheet = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(_native_sheet is None, reason="the C scan is not built")

REPO = Path(__file__).resolve().parents[3]
SHARED = bench_dir()


def _same(pieces: list[Piece], max_chars: int = MAX_SHEET_CHARS,
          max_candidates: int = MAX_SHEET_CANDIDATES) -> list[tuple[str, str]] | None:
    assert _native_sheet is not None
    found = _native_sheet.candidates(pieces, max_chars, max_candidates)
    assert found == candidates_in_python(pieces, max_chars, max_candidates), (
        pieces, max_chars, max_candidates)
    return found


def _as_bytes(text: str) -> tuple[bytes, int, int]:
    data = b"<style>" + text.encode("utf-8") + b"</style>"
    return data, 7, len(data) - 8


def _every_way(css: str) -> None:
    """``css`` as text, as bytes, cut in two pieces, and cut short."""
    _same([css])
    if not re.search(r"[\ud800-\udfff]", css):
        _same([_as_bytes(css)])
        half = len(css) // 2
        _same([css[:half], _as_bytes(css[half:])])
    for max_chars in (0, 1, len(css) // 3, len(css) - 1):
        _same([css], max_chars=max_chars)
    _same([css], max_candidates=1)


def test_the_hidden_check_reads_through_c() -> None:
    assert _sheet.sheet_candidates is _native_sheet.candidates


SHAPES = [
    "", ".a{display:none}", ".a{display:none", ".a{ display : none ; }", "display:none",
    "}.a{display:none}", ".a{color:red}", ".a{display:none}.b{visibility:hidden}",
    ".a,.b , div.c,#d, .e .f{display:none}", ".e .f{display:none}", "a:hover{display:none}",
    "@media print{.a{display:none}}.b{display:none}", "@media (x){.a{display:none}",
    ".a{b{display:none}}.c{display:none}", ".a{display:none;b{}}", "{display:none}",
    "/* .a{display:none} */.b{display:none}", ".a{display:/* x */none}",
    ".a{display/**/:none}", "/*/.a{display:none}*/", "/* unclosed .a{display:none}",
    ".a{display:none}/* x", "/**/", "/*", "*/.a{display:none}", ".a{content:'}';display:none}",
    ".a{content:\"{\"}.b{display:none}", ".a\\:b{display:none}", ".a{display:no\\ne}",
    ".a{DISPLAY:NONE}", ".a{Display:None !important}", ".a{opacity:0}", ".a{opacity:0.5}",
    ".a{opacity:0.05}", ".a{opacity:.0}", ".a{opacity:0.}", ".a{top:-9999px;position:absolute}",
    ".a{left:-99px}", ".a{text-indent:-1000em}", ".a{clip:rect(0 0 0 0)}",
    ".a{clip:rect( 0,0,0,0)}", ".a{clip-path:inset(50%)}", ".a{clip-path:circle( 0)}",
    ".a{transform:scale(0)}", ".a{transform:scalex(0)}", ".a{font-size:0}",
    ".a{height:0;overflow:hidden}", ".a{visibility:collapse}", ".a{margin:0}",
    ".a{border:none}", ".a{overflow:hidden}", ".a{widths:0}", ".a{x-display:none}",
    ".a{                  display:none}", ".a{display                 :none}",
    ".a{display\t\n:\t\nnone}", ".a{display\u00a0:none}", ".a{display:\u2003none}",
    ".a{display\u3000:\u3000none}", ".a{displaY:none}", ".a{dısplay:none}", ".a{dİsplay:none}",
    ".a{diſplay:none}", ".a{display:nOne}", ".a{visibility:hıdden}", ".a{visibility:hİdden}",
    ".a{clip:rect(\u20000)}", ".a{top:-\u0661\u0662\u0663}", ".a{top:-\uff11\uff12\uff13px}",
    ".a{top:0\u0665}", ".a{top:0.\u0661}", ".a{top:0\uff15}", ".a{top:0.005}", ".a{top:0..9}",
    ".a{top:05}", ".a{top:00}", ".a{opacity:0\u00a01}", "é.a{display:none}", ".é{display:none}",
    ".a{display:none}é", "日本.a{display:none}.b{display:none}", ".日本{display:none}",
    "\u00a0.a\u00a0{display:none}", "\u2028.a,\u2029.b{display:none}", "\x1c.a\x1f{display:none}",
    ".a😀{display:none}", "😀.a{display:none}.b{display:none}", ".a{display:none;x:😀}",
    ".a{😀😀😀😀😀😀😀😀display:none}", ".a{😀display:none}", ".a{x😀:none}",
    "😀" * 20 + ".a{display:none}", ".a{display:none}" + "😀" * 20,
    ".a{é" + " " * 14 + "top:0}", ".a{" + "é" * 20 + "top:0}", ".a{ﬃ:0}",
    ".a{\ud800display:none}", "\ud800.a{display:none}", ".a{display:none}\udfff",
    ".a{display:none}\x00.b{display:none}", ".a{display:none}\r\n.b{display:none}",
    ".a{display\r:none}", ".a{display:\r\nnone}", "\r\r\n\r.a{display:none}",
    ".a{display:none}" * 40,
]


@pytest.mark.parametrize("css", SHAPES)
def test_shapes_read_the_same(css: str) -> None:
    _every_way(css)


def test_shapes_find_what_they_should() -> None:
    assert _same([".a{display:none}"]) == [(".a", "display:none")]
    assert _same([".a{height:none}"]) == []  # a hint, not after a hiding property
    assert _same(["p{margin:0}"]) is None  # no hint at all
    assert _same(["@media print{.a{display:none}}"]) == []
    assert _same([".a{display:none}.b{display:none}"], max_candidates=1) == [
        (".a", "display:none")]
    assert _same([" .a , .b .c{display:none}"]) == [(".a , .b .c", "display:none")]
    assert _same([".a{display:none", ".b{}"]) == [(".a", "display:none\n.b{")]
    for data, found in ((b".a{display:none}\r\n\x00", [(".a", "display:none")]),
                        (b".a{top:0\r\n;\x00}", [(".a", "top:0\n;\ufffd")])):
        assert _same([(data, 0, len(data))]) == found


def test_bytes_that_do_not_decode_raise_as_decode_does() -> None:
    assert _native_sheet is not None
    for bad in (b".a{display:none}\xff", b"\xed\xa0\x80", b"\xc3"):
        with pytest.raises(UnicodeDecodeError):
            _native_sheet.candidates([(bad, 0, len(bad))], MAX_SHEET_CHARS, 10)
        with pytest.raises(UnicodeDecodeError):
            candidates_in_python([(bad, 0, len(bad))], MAX_SHEET_CHARS, 10)


def test_bad_pieces_are_refused() -> None:
    assert _native_sheet is not None
    with pytest.raises(TypeError):
        _native_sheet.candidates([1], 10, 10)  # type: ignore[list-item]
    with pytest.raises(TypeError):
        _native_sheet.candidates([(b"x", 0)], 10, 10)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="outside"):
        _native_sheet.candidates([(b"x", 0, 2)], 10, 10)


_EVERY = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c < 0xE000)


def _characters(pattern: str) -> list[str]:
    return re.findall(pattern, _EVERY)


LETTERS = _characters(r"(?i)[a-z]")  # ASCII, and the dotted and dotless i, long s, Kelvin
SPACES = _characters(r"\s")
DIGITS = _characters(r"\d")


def test_the_regex_engines_letters_are_the_ones_folded() -> None:
    assert [c for c in LETTERS if not c.isascii()] == ["\u0130", "\u0131", "\u017f", "\u212a"]


HIDING = [".a{display:none}", ".b{visibility:hidden}", ".c{opacity:0}", ".d{font-size:0}",
          ".e{text-indent:-9999px}", ".f{left:-1000px}", ".g{top:-999px}",
          ".h{right:-5000px}", ".i{clip:rect(0 0 0 0)}", ".j{clip-path:inset(50%)}",
          ".k{transform:scale(0)}", ".l{visibility:collapse}", ".m{clip-path:circle(0)}"]


def test_every_letter_of_the_hints_folds_as_the_regex_engine_folds_it() -> None:
    for css in HIDING:
        for at in range(css.index("{") + 1, len(css)):
            if css[at].isascii() and css[at].isalpha():
                for letter in LETTERS:
                    _same([css[:at] + letter + css[at + 1:]])


def test_every_space_and_digit_reads_as_the_regex_engines() -> None:
    templates = [".a{display%s:none}", ".a{display:%snone}", ".a{clip:rect(%s0)}",
                 "%s.a%s{display:none}", ".a{top:-1%s3}", ".a{top:-%s23}", ".a{top:0%s}",
                 ".a{top:0.%s5}", ".a{top:0%s5}", ".a{c%s:none}", ".a{%s:none}",
                 ".a{display" + " " * 8 + "%s:none}"]
    for char in SPACES + DIGITS:
        for template in templates:
            _same([template.replace("%s", char)])


_PIECES = st.sampled_from([
    ".a", ".b", "#c", "div", ".d .e", ",", "{", "}", ":", ";", " ", "\n", "\r", "\x00", "/*",
    "*/", "'", '"', "\\", "@media print", "display", "visibility", "top", "clip", "opacity",
    "transform", "text-indent", "margin", "none", "hidden", "collapse", "0", "-999", "1",
    ".", "rect(", "inset(", "circle(", "scale", "px", "é", "İ", "ſ", "\u00a0", "\u0661",
    "😀", "日本", "!important"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_PIECES | st.text(max_size=3), max_size=30).map("".join),
                min_size=0, max_size=3),
       st.lists(st.booleans(), min_size=3, max_size=3),
       st.integers(min_value=-1, max_value=200), st.integers(min_value=0, max_value=4))
def test_generated_sheets_read_the_same(texts: list[str], as_bytes: list[bool],
                                        max_chars: int, max_candidates: int) -> None:
    pieces: list[Piece] = [_as_bytes(text) if raw else text
                           for text, raw in zip(texts, as_bytes, strict=False)]
    _same(pieces)
    _same(pieces, max_chars=max_chars, max_candidates=max_candidates)


def _pages() -> list[Path]:
    pages = sorted(p for p in (REPO / "tests").rglob("*.html"))
    for name in ("extraction-dev", "extraction-dev-readability"):
        if SHARED is not None:
            pages.extend(sorted((SHARED / name).glob("*.html")))
    return pages


def test_every_corpus_sheet_reads_the_same() -> None:
    read = 0
    for page in _pages():
        data = page.read_bytes()
        if b"<style" not in data and b"<STYLE" not in data:
            continue
        texts = [node.text(deep=True) for node in LexborHTMLParser(data).tags("style")]
        _same(texts)
        _same([_as_bytes(text) for text in texts])
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        parser, _, raw = parse_page(None, utf8=data)
        pieces = [raw.piece(node.text(deep=True)) for node in parser.tags("style")]
        assert _same(pieces) == _same(texts)  # the cut bodies read as the page's own
        read += 1
    assert read > (100 if SHARED is not None else 0)
