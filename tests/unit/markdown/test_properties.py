"""Property tests: random DOMs never crash, output is deterministic, escaping is
exact (a CommonMark renderer shows the original text), and re-converting the
rendered Markdown's HTML gives the same Markdown."""

from __future__ import annotations

import html as htmllib

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from selectolax.lexbor import LexborHTMLParser

from pressmark.markdown import ConversionPolicy, MarkdownError, to_markdown

CONVERT = ConversionPolicy(select_main=False, keep_title=True)
MD = MarkdownIt("commonmark").enable("table").enable("strikethrough")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

TAGS = ["div", "p", "span", "a", "em", "strong", "code", "pre", "ul", "ol", "li", "table", "tr",
        "td", "th", "h1", "h2", "h3", "blockquote", "dl", "dt", "dd", "br", "img", "article",
        "nav", "aside", "footer", "section", "details", "summary", "del", "q", "main", "sup"]
ATTRS = ["", ' class="related"', ' class="language-py"', ' hidden', ' href="/x y"',
         ' colspan="3"', ' rowspan="2"', ' start="5"', ' role="main"', ' src="a.png" alt="[a]"',
         ' aria-hidden="true"', ' style="display:none"', ' value="9"']
TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
PUNCT_TEXT = st.text(alphabet="abc XYZ019 \t\n!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", max_size=40)


@st.composite
def random_html(draw: st.DrawFn, depth: int = 0) -> str:
    parts: list[str] = []
    for _ in range(draw(st.integers(0, 4 if depth < 4 else 0))):
        if draw(st.booleans()):
            parts.append(htmllib.escape(draw(TEXT)))
        else:
            tag = draw(st.sampled_from(TAGS))
            attrs = draw(st.sampled_from(ATTRS))
            parts.append(f"<{tag}{attrs}>{draw(random_html(depth + 1))}</{tag}>")
    return "".join(parts)


@SETTINGS
@given(random_html(), st.booleans())
def test_random_dom_never_crashes_and_is_deterministic(body: str, select: bool) -> None:
    policy = ConversionPolicy(select_main=select)
    a = to_markdown(f"<html><body>{body}</body></html>", url="https://h.test/p", policy=policy)
    b = to_markdown(f"<html><body>{body}</body></html>", url="https://h.test/p", policy=policy)
    assert a == b
    assert a.evidence.to_json() == b.evidence.to_json()
    assert a.markdown == "" or (a.markdown.endswith("\n") and not a.markdown.endswith("\n\n"))


@SETTINGS
@given(st.text(max_size=200))
def test_arbitrary_text_as_html_never_crashes(text: str) -> None:
    result = to_markdown(text)
    assert isinstance(result.markdown, str)
    result.to_json()


def _rendered_text(md: str) -> str:
    tree = LexborHTMLParser(MD.render(md))
    return " ".join(tree.body.text(separator=" ").split()) if tree.body is not None else ""


@SETTINGS
@given(PUNCT_TEXT)
@example("<0@0>")  # an email autolink: "<" before a local part and "@"
@example("<a_b@c> <x&y@z> <!@q>")
def test_escaping_round_trips_through_a_commonmark_renderer(text: str) -> None:
    md = to_markdown(f"<p>{htmllib.escape(text)}</p>", policy=CONVERT).markdown
    assert _rendered_text(md) == " ".join(text.split())


@SETTINGS
@given(PUNCT_TEXT, PUNCT_TEXT)
@example("<0@0>", "")  # found by hypothesis: link text that reads as an email autolink
def test_link_text_and_url_round_trip(text: str, href: str) -> None:
    page = f'<p><a href="{htmllib.escape(href, quote=True)}">{htmllib.escape(text)}</a></p>'
    result = to_markdown(page, url="https://h.test/dir/", policy=CONVERT)
    rendered = LexborHTMLParser(MD.render(result.markdown))
    assert " ".join(rendered.body.text(separator=" ").split()) == " ".join(text.split())


WORD = st.text(alphabet="abcdefgh *_[]#>-+1.`|~<&\\", min_size=1, max_size=12)


@st.composite
def inline(draw: st.DrawFn) -> str:
    words = [htmllib.escape(w) for w in draw(st.lists(WORD, min_size=1, max_size=5))]
    for i in range(len(words)):
        kind = draw(st.sampled_from(["", "", "em", "strong", "code", "a", "del"]))
        if kind == "a":
            words[i] = f'<a href="https://h.test/{i}">{words[i]}</a>'
        elif kind:
            words[i] = f"<{kind}>{words[i]}</{kind}>"
    glue = draw(st.lists(st.sampled_from([" ", "", ", "]), min_size=len(words),
                         max_size=len(words)))
    return "".join(w + g for w, g in zip(words, glue, strict=True))


@st.composite
def document(draw: st.DrawFn, depth: int = 0) -> str:
    blocks: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["p", "h2", "ul", "ol", "pre", "blockquote", "table"]
                                    if depth < 2 else ["p"]))
        if kind in ("p", "h2"):
            blocks.append(f"<{kind}>{draw(inline())}</{kind}>")
        elif kind in ("ul", "ol"):
            items = draw(st.lists(inline(), min_size=1, max_size=3))
            blocks.append(f"<{kind}>" + "".join(f"<li>{i}</li>" for i in items) + f"</{kind}>")
        elif kind == "pre":
            code = draw(st.text(alphabet="ab `~\n\t<>&", min_size=1, max_size=20))
            blocks.append(f"<pre><code>{htmllib.escape(code)}</code></pre>")
        elif kind == "blockquote":
            blocks.append(f"<blockquote>{draw(document(depth + 1))}</blockquote>")
        else:
            cells = draw(st.lists(inline(), min_size=2, max_size=2))
            row = "".join(f"<td>{c}</td>" for c in cells)
            blocks.append(f"<table><tr><th>h1</th><th>h2</th></tr><tr>{row}</tr></table>")
    return "".join(blocks)


@SETTINGS
@given(document())
def test_reconverting_rendered_markdown_is_stable(body: str) -> None:
    first = to_markdown(f"<body>{body}</body>", url="https://h.test/", policy=CONVERT).markdown
    second = to_markdown(MD.render(first), url="https://h.test/", policy=CONVERT).markdown
    assert second == first


def test_emphasis_that_cannot_flank_falls_back_to_html() -> None:
    first = to_markdown('<p>a<em>"q"</em>b and <b>"c"</b></p>', policy=CONVERT).markdown
    assert first == 'a<em>"q"</em>b and **"c"**\n'
    assert to_markdown(MD.render(first), policy=CONVERT).markdown == first


@pytest.mark.parametrize(("html", "expected"), [
    ("<p><em>a</em><em>b</em></p>", "*ab*\n"),
    # touching runs: the second is written as HTML, so the first's marker closes on "<"
    ("<p><strong>a</strong><em>b</em></p>", "**a**<em>b</em>\n"),
    ("<p><em>a</em><strong>b</strong></p>", "*a*<strong>b</strong>\n"),
    ("<p><strong><em>1</em></strong><strong>1</strong></p>", "***1***<strong>1</strong>\n"),
    ("<p><em><strong>1</strong></em><strong>1</strong></p>", "***1***<strong>1</strong>\n"),
    ("<p><em>a</em>x<em>b</em></p>", "<em>a</em>x<em>b</em>\n"),
    ("<p>x <em>a</em>, <em>b</em>.</p>", "x *a*, *b*.\n"),
])
def test_adjacent_emphasis_runs_round_trip(html: str, expected: str) -> None:
    first = to_markdown(html, policy=CONVERT).markdown
    assert first == expected
    assert to_markdown(MD.render(first), policy=CONVERT).markdown == first


INLINE_WORD = st.text(alphabet="ab1 *_[]#>-+.`|~<&\\!()\"'", min_size=1, max_size=8)


@st.composite
def nested_inline(draw: st.DrawFn, depth: int = 0) -> str:
    parts: list[str] = []
    kinds = ["t", "t", "em", "strong", "code", "a", "del", "br", "img"] if depth < 3 else ["t"]
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(kinds))
        if kind == "t":
            parts.append(htmllib.escape(draw(INLINE_WORD)))
        elif kind == "br":
            parts.append("<br>")
        elif kind == "img":
            alt = htmllib.escape(draw(INLINE_WORD), quote=True)
            parts.append(f'<img src="/i.png" alt="{alt}">')
        elif kind == "code":
            parts.append(f"<code>{htmllib.escape(draw(INLINE_WORD))}</code>")
        elif kind == "a":
            parts.append(f'<a href="/l">{draw(nested_inline(depth + 1))}</a>')
        else:
            parts.append(f"<{kind}>{draw(nested_inline(depth + 1))}</{kind}>")
    return "".join(parts)


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(["p", "h2", "li", "td"]), nested_inline()),
                min_size=1, max_size=3))
def test_reconverting_nested_inline_markup_is_stable(blocks: list[tuple[str, str]]) -> None:
    body = ""
    for tag, content in blocks:
        if tag == "li":
            body += f"<ul><li>{content}</li></ul>"
        elif tag == "td":
            body += f"<table><tr><th>h</th></tr><tr><td>{content}</td></tr></table>"
        else:
            body += f"<{tag}>{content}</{tag}>"
    first = to_markdown(f"<body>{body}</body>", url="https://h.test/", policy=CONVERT).markdown
    second = to_markdown(MD.render(first), url="https://h.test/", policy=CONVERT).markdown
    assert second == first


# Markup a parser meets on real pages and rarely in tests: processing instructions (no tag
# name in the DOM), bogus comments, CDATA outside foreign content, namespaced and unknown
# tags, stray end tags, unclosed elements, entity soup.
HOSTILE = ["<?php echo 1 ?>", "<?xml version='1.0'?>", "<!DOCTYPE html>", "<![CDATA[x]]>",
           "<!-->", "<!--", "</p>", "</div></div>", "<p>", "<li>", "<td>", "<tr>", "<table>",
           "<svg><foo:bar>s</foo:bar>", "<math><mi>x</mi>", "<a:b>n</a:b>", "<x-y z>",
           "&#0;", "&#xD800;", "&amp", "\x00", "<h2 id=a><a href='#a'>", "<a href=#>#</a>",
           "<frameset>", "<template><p>t</p></template>", "<noscript><p>n</p></noscript>",
           "<plaintext>", "<xmp>", "<select><p>", "<image src=x>", "<isindex>", "<base href=':'>"]


@SETTINGS
@given(st.lists(st.one_of(st.sampled_from(HOSTILE), random_html(), TEXT), max_size=12),
       st.booleans())
def test_hostile_markup_gives_markdown_or_a_typed_error(parts: list[str], select: bool) -> None:
    page = "".join(parts)
    policy = ConversionPolicy(select_main=select)
    try:
        first = to_markdown(page, url="https://h.test/p", policy=policy)
    except MarkdownError:
        return
    assert first == to_markdown(page, url="https://h.test/p", policy=policy)
    assert first.markdown == "" or first.markdown.endswith("\n")
    first.to_json()


def test_processing_instruction_in_body_does_not_crash() -> None:
    # Lexbor gives a processing instruction a node with no tag name (it crashed the copy)
    result = to_markdown("<body><?php x ?><p>a<?pi ?>b</p></body>", policy=CONVERT)
    assert result.markdown == "ab\n"
