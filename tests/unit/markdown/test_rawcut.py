"""The raw-text cut: Lexbor skips script and style bodies, and nothing else changes.

Every test compares a page parsed with the cut against the same page parsed whole:
where the cut verifies, the two trees are the same node for node (a script or style
reads its body through the cut), and the Markdown and evidence are the same bytes
whether or not it verified.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pressmark.markdown import to_markdown
from pressmark.markdown._bounded import parse_page
from pressmark.markdown._dom import Tree
from pressmark.markdown._metadata import HeadNodes
from pressmark.markdown._rawcut import NO_CUT, RawCut
from pressmark.markdown._screen import NATIVE

pytestmark = pytest.mark.skipif(NATIVE is None, reason="the cut needs the C screen")

REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared" / "bench"


def _tree(parser: Any, cut: RawCut) -> list[tuple[Any, ...]]:
    """Every node of the document in order: (depth, tag, attributes, text)."""
    out: list[tuple[Any, ...]] = []
    stack = [(parser.root, 0)]
    while stack:
        node, depth = stack.pop()
        tag = node.tag
        if tag in ("-text", "-comment"):
            parent = node.parent.tag if node.parent is not None else ""
            text = node.text_content or ""
            out.append((depth, tag, None, cut.body(text) if parent in ("script", "style")
                        else text))
            continue
        out.append((depth, tag, sorted(node.attributes.items()), None))
        children = []
        child = node.child
        while child is not None:
            children.append((child, depth + 1))
            child = child.next
        stack.extend(reversed(children))
    return out


def _parse(html: str, *, cut: bool) -> tuple[Any, RawCut, bool]:
    utf8 = html.encode("utf-8", "surrogatepass")
    try:
        utf8.decode("utf-8")
    except UnicodeDecodeError:
        utf8 = None  # type: ignore[assignment]
    parser, _, raw = parse_page(html, utf8=utf8, cut=cut)
    return parser, raw, raw.verify(HeadNodes(Tree(parser)).raw_texts)


def check_same_tree(html: str) -> bool:
    """Asserts the cut keeps the tree; returns whether anything was cut and verified."""
    whole, no_cut, _ = _parse(html, cut=False)
    assert no_cut is NO_CUT
    cut_tree, raw, verified = _parse(html, cut=True)
    if raw.count and verified:
        assert _tree(cut_tree, raw) == _tree(whole, NO_CUT)
    return bool(raw.count) and verified


# A page holding the markers' first character is never cut (``_native_screen.c``): a
# comment before everything else makes the same page parse whole, and changes nothing.
# After a byte-order mark, not before it: the decoder drops a BOM only at the start, and
# one left inside is a character before the doctype (quirks mode, another tree).
_NEVER_CUT = "<!--\ufdd0-->"


def _never_cut(page: str | bytes) -> str | bytes:
    if isinstance(page, str):
        bom = "\ufeff" if page.startswith("\ufeff") else ""
        return bom + _NEVER_CUT + page[len(bom):]
    bom8 = b"\xef\xbb\xbf" if page.startswith(b"\xef\xbb\xbf") else b""
    return bom8 + _NEVER_CUT.encode() + page[len(bom8):]


def check_same_markdown(html: str) -> None:
    for page in (html, html.encode("utf-8", "surrogatepass")):
        cut = to_markdown(page, url="https://h.test/p")
        whole = to_markdown(_never_cut(page), url="https://h.test/p")
        assert cut.markdown == whole.markdown
        assert cut.embedded_state == whole.embedded_state
        assert cut.evidence.to_json() == whole.evidence.to_json()


def test_a_page_of_scripts_and_styles_is_cut_and_reads_the_same() -> None:
    html = ("<html><head><style>p{color:red}</style><script>var a = '<p>x</p>';</script>"
            '<script type="application/ld+json">{"datePublished": "2024-05-01"}</script>'
            "</head><body><p>One</p><script>if (a < b) {}\r\n</script>"
            "<noscript><script>inner()</script>text</noscript><p>Two</p></body></html>")
    assert check_same_tree(html)
    parser, raw, verified = _parse(html, cut=True)
    assert verified and raw.count == 5
    assert "var a" not in parser.html  # Lexbor never saw the bodies
    state = to_markdown(html.encode()).embedded_state
    assert state["json_ld"] == [{"datePublished": "2024-05-01"}]


@pytest.mark.parametrize("html", [
    # a style the tree builder ignores in a select: its "body" is markup there
    "<select><style></select><p>Kept</p></style><script>x()</script>",
    "<frameset><script>a<p>b</p></script></frameset>",
    "<plaintext><script>not a script</script>",
    "<svg><style>a{}</style><script>x</script></svg><script>y</script>",
    "<svg><desc></svg><script>y()</script><p>z</p>",
    "<math><mi><script>x</script></mi></math><style>s</style>",
    "<template><script>t()</script></template><script>u()</script>",
    "<title>a <b> c</title><script>x()</script>",
    "<textarea></textarea><script><!--<script></script>still()</script><p>after</p>",
    "<script><!--<script>x</script>-->y</script><p>z</p>",
    "<p>\ufdd00\ufdd1</p><script>x()</script>",  # the page holds the marker's character
    "<table><script>a()</script><div><script>b()</script></div></table>",
    "<script>\x00nul\rcr\r\ncrlf</script><style>\r\n</style>",
])
def test_awkward_pages_keep_their_tree(html: str) -> None:
    check_same_tree(html)
    check_same_markdown(html)


_PIECES = ["<select>", "</select>", "<style>", "</style>", "<script>", "</script>",
           "<script type=x>", "<!--", "-->", "<svg>", "</svg>", "<math>", "</math>", "<mi>",
           "<desc>", "<template>", "</template>", "<plaintext>", "<title>", "</title>",
           "<textarea>", "</textarea>", "<frameset>", "<noscript>", "</noscript>", "<table>",
           "<td>", "<p>", "</p>", "<div>", "</div>", "<iframe>", "</iframe>", "<xmp>",
           "<![CDATA[", "]]>", "x", " ", "\r\n", "\r", "\x00", "\ufdd0", "\ufdd1", "0", "<",
           ">", "</", "<b>", "</b>", "é", "<script/>", "</SCRIPT >", "<Style>", "<head>",
           "<body>", "</html>", "<option>"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
@example(["<select>", "<style>", "</select>", "<p>", "x", "</style>", "<script>", "x",
          "</script>"])
def test_generated_markup_keeps_its_tree(pieces: list[str]) -> None:
    html = "".join(pieces)
    check_same_tree(html)
    check_same_markdown(html)


def _corpus() -> list[Path]:
    pages = sorted(p for p in REPO.rglob("*.html") if ".venv" not in p.parts)
    for name in ("extraction-dev", "extraction-dev-readability"):
        pages.extend(sorted((SHARED / name).glob("*.html")))
    return pages


def test_every_corpus_page_keeps_its_tree() -> None:
    cut = 0
    pages = _corpus()
    for page in pages:
        html = page.read_bytes().decode("utf-8", "replace")
        cut += check_same_tree(html)
        check_same_markdown(html)
    if (SHARED / "extraction-dev").is_dir():
        assert cut >= 120, f"only {cut} of {len(pages)} pages were cut"


def test_a_cut_the_tree_refutes_is_parsed_again_whole() -> None:
    """In a frameset the tree builder ignores a script's start tag: its marker is no
    element's whole text, the check fails, and the page is parsed without the cut."""
    html = "<frameset><script>a<p>b</p></script></frameset>"
    _, raw, verified = _parse(html, cut=True)
    assert raw.count == 1 and not verified
    check_same_markdown(html)
