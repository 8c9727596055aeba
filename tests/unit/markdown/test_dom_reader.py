"""The C reader of Lexbor's tree against selectolax's API: the same values, always.

``_dom.Tree`` reads through ``_native_dom.c`` when it is built and bound, else through
selectolax. Everything the Markdown layer reads is compared here, reader against
reader, on every HTML file of the repository and of the shared corpora and on
generated markup; and the body tree ``_tree.parse`` copies through each is the same.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from pressmark.markdown import _dom
from pressmark.markdown._bounded import parse_page
from pressmark.markdown._rawcut import NO_CUT, RawCut
from pressmark.markdown._tree import Node, parse

pytestmark = pytest.mark.skipif(_dom.NATIVE is None, reason="the C reader is not built")

REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared" / "bench"


# tags a caller leaves out (``_tree`` drops these): neither reader lists them
_SKIPPED = frozenset(("script", "style", "b", "svg"))


def _read_all(tree: _dom.Tree, cut: RawCut) -> list[Any]:
    """Every reading of every element below the body, in document order."""
    out: list[Any] = [tree.head_elements(), [tree.deeper_than(d) for d in (1, 3, 8, 40)]]
    body = tree.parser.body
    if body is None:
        return out
    stack = [tree.handle(body)]
    while stack:
        node = stack.pop()
        out.append((tree.text(node), tree.text_size(node, cut), tree.visible_size(node, cut),
                    tree.prose_size(node, 5, cut)))
        kids = tree.children(node)
        out.append([kid if isinstance(kid, str) else kid[:2] for kid in kids])
        out.append([kid if isinstance(kid, str) else kid[:2]
                    for kid in tree.children(node, _SKIPPED)])
        own, entries = tree.level(node, _SKIPPED)
        out.append((own, [kid if isinstance(kid, str) else (*kid[:2], kid[3])
                          for kid in entries]))
        stack.extend(kid[2] for kid in reversed(kids) if not isinstance(kid, str))
    return out


def _same_readings(parser: Any, cut: RawCut) -> None:
    native = _read_all(_dom.Tree(parser), cut)
    api = _read_all(_dom.Tree(parser, native=False), cut)
    assert native == api


def _nodes(node: Node) -> list[Any]:
    out: list[Any] = []
    stack: list[Node | str] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        out.append((item.tag, item.attrs, item.nth, item.depth, item.chrome, item.text_len,
                    item.link_len, item.own_len, item.own_link, item.blocky))
        stack.extend(reversed(item.children))
    return out


def check(html: str) -> None:
    data = html.encode("utf-8", "surrogatepass")
    _same_readings(LexborHTMLParser(data), NO_CUT)
    parser, _, cut = parse_page(html, utf8=data)
    _same_readings(parser, cut)
    native, api = parse(html, utf8=data), parse(html, utf8=data, native=False)
    assert _nodes(native.body) == _nodes(api.body)
    assert native.skipped == api.skipped


_PIECES = ["<div class='share'>", "<div>", "</div>", "<p>", "</p>", "<nav>", "</nav>",
           "<aside class=sidebar>", "</aside>", "<script>x()</script>", "<style>p{}</style>",
           "<noscript><script>y()</script>n</noscript>", "<template><p>t</p></template>",
           "<title>T</title>", "<meta name=a content=b>", "<link rel=canonical href=/c>",
           "<base href=/b/>", "<span itemprop=datePublished content=2024>", "<a href=x>",
           "</a>", "<details><summary>s</summary>d</details>", "<b hidden>h</b>",
           "<svg><title>i</title></svg>", "<!-- c -->", "text ", "é", "\u20ac", "\U0001f600",
           "<p class='Share'>", "<footer>", "</footer>", " ", "\n", "<x-custom a=1>",
           "<table><td>c</td></table>", "<math><mi>x</mi></math>", "<br>", "<img alt=a>",
           # links other than the canonical one are left out by both readers
           "<link rel=preload href=/p>", "<link rel='Alternate CANONICAL' href=/C>",
           "<link rel=stylesheet itemprop=dateModified href=/s>", "<link rel>",
           "<link rel='canon\u0130cal' href=/i>", "<link rel=noncanonical href=/n>"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_PIECES), max_size=50))
def test_generated_markup_reads_the_same(pieces: list[str]) -> None:
    check("".join(pieces))


def test_undecodable_bytes_are_measured_as_they_decode() -> None:
    """Valid UTF-8 is counted where it lies; text holding bytes that do not decode (a
    lone continuation byte, a cut-off sequence, an overlong form, a surrogate) is
    decoded to be measured, each bad byte a U+FFFD as selectolax reads it."""
    for bad in (b"\xff", b"\x80", b"\xc3", b"\xe2\x82", b"\xc0\xaf", b"\xed\xa0\x80",
                b"\xf4\x90\x80\x80", b"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"):
        page = b"<p>a" + bad + b"b<b>" + bad + b"</b></p><div>" + bad * 40 + b"</div>"
        _same_readings(LexborHTMLParser(page), NO_CUT)


def test_deep_pages_read_the_same() -> None:
    check("<div>" * 300 + "deep <b>text</b>" + "</div>" * 300)
    check("<section>" * 200 + "<script>s()</script><p>x</p>")


def test_every_corpus_page_reads_the_same() -> None:
    pages = sorted(p for p in REPO.rglob("*.html") if ".venv" not in p.parts)
    for name in ("extraction-dev", "extraction-dev-readability"):
        pages.extend(sorted((SHARED / name).glob("*.html")))
    for page in pages:
        check(page.read_bytes().decode("utf-8", "replace"))


def _own_sizes(tree: _dom.Tree) -> list[tuple[int, int]]:
    """(``level``'s own, the collapsed length of its texts) of every element."""
    body = tree.parser.body
    out = []
    stack = [tree.handle(body)]
    while stack:
        own, entries = tree.level(stack.pop(), frozenset())
        out.append((own, sum(len(" ".join(kid.split())) for kid in entries
                             if isinstance(kid, str))))
        stack.extend(kid[2] for kid in entries if not isinstance(kid, str))
    return out


def test_level_measures_text_as_a_split_and_join_on_every_character() -> None:
    """``level``'s ``own`` stands in for ``len(" ".join(text.split()))`` of each text in
    the tree copy (``_tree._build``): every code point alone, between words and in runs
    (in one-, two- and four-byte strings), each in an element of its own."""
    codes = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000 and chr(c) not in "<&"]
    for at in range(0, len(codes), 4000):
        # comments part the texts: one text node each
        html = "".join(f"<p>{c}<!---->a{c}b<!---->{c}x{c}<!---->ab{c}{c}c</p>"
                       for c in map(chr, codes[at:at + 4000]))
        sizes = _own_sizes(_dom.Tree(LexborHTMLParser(html.encode("utf-8"))))
        assert all(own == measured for own, measured in sizes), codes[at]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(
    ["a", "b", " ", "\n", "\t", "\xa0", "\x85", "\u2028", "\u3000", "\xe9", "\U0001f600", "\x1c",
     "\x0b", "<i>", "</i>", "<b hidden>", "<p>"]) | st.characters(), max_size=40).map("".join))
def test_level_measures_any_text_as_a_split_and_join(text: str) -> None:
    data = f"<div>{text}</div>".encode("utf-8", "surrogatepass")
    tree = _dom.Tree(LexborHTMLParser(data))
    assert all(own == measured for own, measured in _own_sizes(tree))
