"""``_casefold``: the fold the word pre-tests read, and ``_hidden``'s pre-tests answer as
the patterns they stand before (the inline-style hint, the stylesheet hint, the simple
selector)."""

from __future__ import annotations

import re
import string
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.markdown import _hidden, _sheet
from pressmark.markdown._casefold import folded

_EVERY_CHARACTER = "".join(chr(cp) for cp in range(sys.maxunicode + 1)
                           if not 0xD800 <= cp <= 0xDFFF)


def test_a_character_folds_to_an_ascii_letter_exactly_when_ignorecase_takes_it_for_it() -> None:
    fold = folded(_EVERY_CHARACTER)
    assert len(fold) == len(_EVERY_CHARACTER)  # one character for one
    for letter in string.ascii_lowercase:
        taken = [m.start() for m in re.finditer(letter, _EVERY_CHARACTER, re.IGNORECASE)]
        assert taken == [m.start() for m in re.finditer(letter, fold)], letter
    for char in "-:() '©é":  # the other characters of the words: folded to themselves only
        taken = [m.start() for m in re.finditer(re.escape(char), _EVERY_CHARACTER, re.I)]
        assert taken == [m.start() for m in re.finditer(re.escape(char), fold)], char


_STYLE_PIECES = st.sampled_from([
    "display:none", "DISPLAY: NONE", "visibility:Hidden", "colour", "color:#fff", "Color",
    "font-size:0", "font-size : 0px", "FONT-SIZE:\t0", "height:0", "height: 10px", "width :0",
    "left:-9999px", "-１２３", "-12", "-120", "text-indent:-1000px", "clip:rect(0 0 0 0)",
    "scale(0)", "SCALE", "opacity:0", "collapse", "ſcale", "hıdden", "HİDDEN", "wİdth:0",
    "K", "\u0307", ";", " ", "margin:0", "background:#000", "-", "0", "x"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_STYLE_PIECES | st.text(max_size=3), max_size=8).map("".join))
def test_the_inline_style_hint_is_the_patterns(style: str) -> None:
    assert _hidden._style_hint(style) == (_hidden._STYLE_HINT.get().search(style) is not None)


_OLD_SHEET_HINT = re.compile(
    r":(?<=[yetphm\s]:)"
    r"\s*(?:none|hidden|collapse|0(?![.\d]*[1-9])|-\d{3,}|rect\(\s*0|inset\(|circle\(\s*0"
    r"|scale)", re.I)
_SHEET_PIECES = st.sampled_from([
    ".a{", "}", "display:none", "DISPLAY:NONE", "top:-999px", "margin-top:0", "clip:rect(0",
    "opacity:0", "visibilitY:hidden", "displaY :none", "\u00a0:none", "İ:0", "ſ:0", "K:0",
    "transform:scale(0)", ":", ";", " ", "\n", "e:0.5"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_SHEET_PIECES | st.text(max_size=3), max_size=12).map("".join))
def test_the_stylesheet_hint_finds_what_it_found_with_the_letters_folded(css: str) -> None:
    assert [m.span() for m in _sheet._HINT.get().finditer(css)] == \
        [m.span() for m in _OLD_SHEET_HINT.finditer(css)]


_SELECTORS = st.sampled_from([
    ".a", "#b", "div.c", "p#d.e", "a.b.c", ".a .b", ".a>.b", ".a:hover", "a[href]", " .x ",
    "\n.y\t", "DIV.a", "div .a", ".a,", "*", "", ".a\n.b", "#x#y", ".é", "._-9"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_SELECTORS | st.text(max_size=3), max_size=4).map("".join))
def test_a_simple_selector_is_read_as_the_pattern(selector: str) -> None:
    found = _sheet.simple_selector(selector)
    expected = _sheet._SIMPLE.get().match(selector.strip())
    assert (found and found.groups()) == (expected and expected.groups())
