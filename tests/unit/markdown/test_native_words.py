"""The C reading of class and id values against the Python reading: the same rule, always.

``_boilerplate.words_rule`` and ``id_rule`` read through ``_native_words.c`` when it is
built, else through ``read_words_in_python``. Both are compared here on every class and
id value of the repository's and the shared corpora's pages, on the shapes that take
different paths in Python (capitals, separators, non-ASCII letters, Unicode spaces) and
on generated values.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from pressmark.markdown import _boilerplate
from pressmark.markdown._boilerplate import SLUG_WORDS, read_words_in_python

from ._bench import bench_dir

try:
    from pressmark.markdown import _native_words
except ImportError:  # built without a C compiler: nothing to compare
    _native_words = None  # type: ignore[assignment]

pytestmark = pytest.mark.skipif(_native_words is None, reason="the C reading is not built")

REPO = Path(__file__).resolve().parents[3]
SHARED = bench_dir()  # the shared corpora, when they sit beside the checkout


def _same(value: str) -> None:
    assert _native_words is not None
    for slug_words in (0, SLUG_WORDS):
        assert _native_words.word_rule(value, slug_words) == read_words_in_python(
            value, slug_words), (value, slug_words)


def test_the_converter_reads_through_c() -> None:
    assert _boilerplate._read_words is _native_words.word_rule


@pytest.mark.parametrize("value", [
    "", " ", "share", "shareBar", "ShareBar", "SHARE", "HIDDEN", "Hidden", "sr-only",
    "sr_only", "SR-ONLY", "has-sidebar", "Has-Sidebar", "no-comments", "sidebar-content",
    "contentSidebar", "content sidebar", "sidebar content", "user-info", "userInfo",
    "user_info", "most-read", "tag cloud", "relatedPosts", "related", "relat",
    "postprofile", "profile", "useravatar", "avatar", "x-avatar", "footer2", "2footer",
    "footerNav", "a1B", "aB1c", "nav--primary", "--nav", "-", "_", "__", "-_-",
    "é-share", "shäre", "ÉShare", "shareÉ", "naïve-nav", "\u212aomments", "\u0130nfo",
    "hid\u0130den", "share\u00a0bar", "share\u2003bar", "a\u0085nav", "a\x1cnav",
    "cookie-notice x", "x cookie-notice", "story has-ads", "c-0 c-1 c-2 nav",
    "sharing-with-a-single-developer", "sharing with a team", "one two three",
    "shareBarWidgetFooterNavMenu", "nav" * 100, "-".join(["w"] * 100),
    "x" * 200 + "Nav", "hid" + "é" * 200, "😀nav", "nav😀", "ad", "ads", "adsense",
    "signature", "member-signature", "typeSignature", "message-signature", "code-byline",
    "apiAvatar", "post-signature", "methodprofile", "member", "signature-type-nav",
])
def test_shapes_read_the_same(value: str) -> None:
    _same(value)


def _attribute_values() -> list[str]:
    pages = sorted(p for p in REPO.rglob("*.html") if ".venv" not in p.parts)
    for name in ("extraction-dev", "extraction-dev-readability"):
        if SHARED is not None:
            pages.extend(sorted((SHARED / name).glob("*.html")))
    values: set[str] = set()
    for page in pages:
        parser = LexborHTMLParser(page.read_bytes())
        for node in parser.css("[class], [id]"):
            for name in ("class", "id"):
                value = node.attributes.get(name)
                if value:
                    values.add(value)
    return sorted(values)


def test_every_corpus_value_reads_the_same() -> None:
    values = _attribute_values()
    assert len(values) > (2000 if SHARED is not None else 300)
    for value in values:
        _same(value)


_PIECES = st.sampled_from([
    "nav", "Nav", "NAV", "share", "Bar", "related", "Posts", "has", "no", "content",
    "sidebar", "user", "info", "avatar", "profile", "hidden", "sr", "only", "ad", "s",
    "-", "_", " ", "  ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "é", "É", "ß", "\u212a",
    "\u0130", "1", "9", ".", ":", "/", "😀", "\ufdd0", "x", "signature", "member", "Type",
])


@settings(max_examples=3000, deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_generated_values_read_the_same(value: str) -> None:
    _same(value)


@settings(max_examples=1000, deadline=None)
@given(st.text(max_size=40))
def test_any_text_reads_the_same(value: str) -> None:
    _same(value)
