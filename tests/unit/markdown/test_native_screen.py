"""The C parse screen against the regular-expression screen and the full scan.

The C pass may decide more precisely than the regular expressions (it reads tags as the
tokenizer does), never less safely: whatever it passes, the full scan leaves alone.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.markdown import _screen
from pressmark.markdown._bounded import _bound
from pressmark.markdown._escape import printable
from pressmark.markdown._score import spread_in_python

NATIVE = _screen.NATIVE
UNSURE = -2
pytestmark = pytest.mark.skipif(
    NATIVE is None and os.environ.get("HATCH_BUILD_NO_HOOKS") == "true",
    reason="built as pure Python (HATCH_BUILD_NO_HOOKS=true): no C screen to compare",
)


def _native(text: str) -> int:
    assert NATIVE is not None, "the C screen was not built (see hatch_build.py)"
    return NATIVE(text, _screen.MAX_ATTRIBUTES, _screen.MAX_FORMATTING, None,
                  _screen.MAX_SELECT_WORK)


def _check(text: str) -> None:
    native = _native(text)
    if native == UNSURE:
        return
    regex = _screen.regex_screened_starts(text)
    if native >= 0:
        hit = _bound(text, screened_out=True).warnings
        assert not [w for w in hit if w.endswith((":attributes", ":formatting", ":select"))], text
        if regex >= 0:
            assert native <= regex, text  # both bound the start tags; C reads them exactly
    else:
        assert regex < 0, text  # the C pass refuses nothing the regexes pass


_PIECES = st.sampled_from([
    "<p>", "</p>", "<div class='a'>", "</div>", "<b>", "</b>", "<i>", "</i>", "<a href=x>",
    "</a>", "<a title='>'>", "<span>", "text ", "<", "< ", "</", "</>", "<!--", "-->", "--!>",
    "<!-->", "<!--->", "<!x>", "<?p>", "<svg>", "</svg>", "<math>", "</math>", "<desc>",
    "<foreignObject>", "<title>", "</title>", "<style>", "</style>", "<script>",
    "</script>", "<SCRIPT>", "</script ", "<textarea>", "</textarea>", "<![CDATA[", "]]>",
    "<img src=x/>", '"', "'", "=", ">", "/", " a=1", " b", ' c="', "<B>", "<noscript>",
    "<xmp>", "</xmp>", "<plaintext>", "<ſcript>", "<font face=x>", "</font>",
    "<select>", "</select>", "<option>", "<body a=1>", "<html b>", "<table>", "<object>",
])


@settings(max_examples=3000, deadline=None)
@given(st.lists(_PIECES, max_size=40))
def test_generated_markup_is_screened_safely(pieces: list[str]) -> None:
    _check("".join(pieces))


def _bodies(text: str | bytes) -> tuple[int, list[tuple[str, int, int]]]:
    assert NATIVE is not None
    cuts: list[int] = []
    starts = NATIVE(text, _screen.MAX_ATTRIBUTES, _screen.MAX_FORMATTING, cuts,
                    _screen.MAX_SELECT_WORK)
    bodies = []
    for at in range(0, len(cuts), 4):
        start, end, chars, kind = cuts[at:at + 4]
        body = text[start:end]
        bodies.append((body.decode() if isinstance(body, bytes) else body, chars, kind))
    return starts, bodies


@settings(max_examples=1500, deadline=None)
@given(st.lists(_PIECES | st.sampled_from(["é", "\u20ac", "\U0001f600", "\r\n", "\r",
                                           "\ufdd0"]), max_size=40))
def test_utf8_bytes_are_read_as_their_text(pieces: list[str]) -> None:
    """Every character the pass looks at is ASCII, so the page's UTF-8 bytes give the
    same count and the same script and style bodies as its text."""
    text = "".join(pieces)
    assert _bodies(text.encode()) == _bodies(text)
    for body, chars, _ in _bodies(text)[1]:
        assert chars == len(body.replace("\r\n", "\n"))  # the input stream's count


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 300), st.integers(0, 130), st.sampled_from(["", "<svg>", "<p>"]))
def test_caps_are_seen_at_their_edges(attributes: int, unclosed: int, prefix: str) -> None:
    attrs = " ".join(f"a{i}=1" for i in range(attributes))
    _check(f"{prefix}<div {attrs}>x</div>")
    _check(prefix + "<b>" * unclosed + "<a href=x>link</a> <i>x</i>")


def test_c_and_regex_screens_agree_on_every_html_file() -> None:
    # the project's own pages and the shared bench's real ones: not the whole checkout,
    # whose .venv holds other packages' HTML (playwright's bundled dashboards)
    repo = Path(__file__).parents[3]
    roots = [*(repo / name for name in ("tests", "bench", "src", "examples")),
             repo.parent / "shared" / "bench"]
    files = sorted(p for root in roots if root.is_dir() for p in root.rglob("*.html"))
    assert files
    differ = []
    for path in files:
        text = path.read_bytes().decode("utf-8", "replace")
        if len(text) > _screen.MAX_TEXT_CHARS:
            continue
        _check(text)
        native, regex = _native(text), _screen.regex_screened_starts(text)
        if native != UNSURE and (0 <= native <= 2048) != (0 <= regex <= 2048):
            differ.append(path.name)
    # where they differ, the C pass is the precise one (a comment in a script, a page
    # just past the regexes' looser bound): never a page the regexes pass
    assert len(differ) <= len(files) // 50, differ


def test_the_c_pass_reads_what_the_regexes_follow() -> None:
    assert _native("<p>a <b>b</b> <a href=x title='<i>'>c</a>") == 3
    assert _native("<script>if (a < b) x('<div>')</script><p>") == 2
    assert _native("<svg><title>icon</title></svg>") == 2
    assert _native("<svg><style>a{}</style><style>b</style>") == 3
    assert _native("<svg><style><p></style>") == UNSURE  # markup there: the regexes decide
    assert _native("<math><![CDATA[x]]>") == UNSURE
    assert _native("<div " + " ".join(f"a{i}" for i in range(257)) + ">") == -1
    assert _native("<div " + " ".join(f"a{i}" for i in range(256)) + ">") == 1
    assert _native("<b>" * 100 + "<i>") == -1
    assert _native("<!-- <div> --><!x <div>><? <div>>") == 0
    assert _native("\u0100<p>\U0001f600<p>") == 2  # two- and four-byte strings


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


_UTF8_PIECES = st.sampled_from([
    b"a", b"<p>", b"\xc2\x80", b"\xdf\xbf", b"\xe0\xa0\x80", b"\xed\x9f\xbf", b"\xed\xa0\x80",
    b"\xef\xbf\xbf", b"\xf0\x90\x80\x80", b"\xf4\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xc0\x80",
    b"\xc1\xbf", b"\x80", b"\xe1", b"\xe1\x80", b"\xf5\x80\x80\x80", b"\xff", b"x" * 17,
])


@settings(max_examples=3000, deadline=None)
@given(st.binary(max_size=40) | st.lists(_UTF8_PIECES, max_size=24).map(b"".join))
def test_utf8_check_agrees_with_the_decoder(data: bytes) -> None:
    """The C check stands in for a decode (``_api._decode_body``): it must accept exactly
    what ``bytes.decode("utf-8")`` accepts (no overlongs, surrogates, or past U+10FFFF)."""
    assert _screen.utf8_valid(data) == _decodes(data)


def test_printable_agrees_with_python_on_every_character() -> None:
    """``printable`` stands in for ``str.isprintable`` wherever the converter asks it:
    every code point alone, at each position of an ASCII run the vector loop reads
    sixteen at a time, and inside one- two- and four-byte strings."""
    for code in range(0x110000):
        char = chr(code)
        assert printable(char) == char.isprintable(), hex(code)
    for length in (15, 16, 17, 33, 64):
        for at in range(length):
            for odd in ("\x00", "\x1f", "\x7f", "\t", "\xa0", "\u2028", "\U000e0001"):
                text = "a" * at + odd + "b" * (length - at - 1)
                assert printable(text) == text.isprintable(), (length, at, odd)
    for text in ("", "plain ASCII " * 5, "caf\xe9 \xad", "\u2019quoted\u2019", "\U0001f600 x"):
        assert printable(text) == text.isprintable(), text


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=80))
def test_printable_agrees_with_python_on_any_text(text: str) -> None:
    assert printable(text) == text.isprintable()


def test_spread_agrees_with_python_on_every_character() -> None:
    """``spread`` stands in for ``_score.spread_in_python`` (the script scale's sample
    sizes): every code point alone (whitespace or not, one to four UTF-8 bytes, lone
    surrogates), beside spaces, and inside one- two- and four-byte strings."""
    from pressmark.markdown._native_screen import spread

    for code in range(0x110000):
        char = chr(code)
        assert spread(char) == spread_in_python(char), hex(code)
        text = f" {char}\u3000x{char}\n"
        assert spread(text) == spread_in_python(text), hex(code)
    for text in ("", "   \n\t", "plain ASCII words " * 9, "caf\xe9\xa0 \x85na\xefve",
                 "\u65e5\u672c\u8a9e\u306e\u6587\u7ae0\u3002 \ud55c\uad6d\uc5b4",
                 "\U0001f600 x \ud800 \udfff", "\u2028\u2029\u202f\u205f\u3000\u1680"):
        assert spread(text) == spread_in_python(text), text


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=80))
def test_spread_agrees_with_python_on_any_text(text: str) -> None:
    from pressmark.markdown._native_screen import spread

    assert spread(text) == spread_in_python(text)


_HOLD_BYTES = st.binary(max_size=60).map(
    lambda raw: bytes(b"_SNTAEUX_a"[byte % 10] for byte in raw))
_HOLD_NEEDLES = st.lists(st.sampled_from(
    ["_STATE__", "__NUXT__", "__", "_", "X_", "NUXT", "a_S", ""]), max_size=4)


@settings(max_examples=2000, deadline=None)
@given(_HOLD_BYTES, st.integers(0, 60), st.integers(0, 60), _HOLD_NEEDLES)
def test_holds_any_finds_what_bytes_find_finds(data: bytes, a: int, b: int,
                                               needles: list[str]) -> None:
    """``holds_any`` stands in for ``RawCut.holds``' searches of a body held as bytes:
    any needle found in data[start:end], however the needles' first bytes differ."""
    from pressmark.markdown._native_screen import holds_any

    start, end = sorted((min(a, len(data)), min(b, len(data))))
    expected = any(data.find(n.encode(), start, end) >= 0 for n in needles)
    assert holds_any(data, start, end, tuple(needles)) == expected


def test_holds_any_on_the_state_names_in_script_bodies() -> None:
    from pressmark.markdown._native_screen import holds_any

    body = b'var a=1;window.__INITIAL_STATE__={"x":1};__webpack_require__(1)'
    names = ("__INITIAL_STATE__", "__PRELOADED_STATE__", "__APOLLO_STATE__", "__NUXT__")
    for start in range(len(body)):
        for end in range(start, len(body) + 1):
            for needles in (("_STATE__", "__NUXT__"), names, ("__NUXT__",)):
                expected = any(body.find(n.encode(), start, end) >= 0 for n in needles)
                assert holds_any(body, start, end, needles) == expected
    with pytest.raises(ValueError):
        holds_any(body, 5, 4, ("_",))
