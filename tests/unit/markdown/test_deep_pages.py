"""Pages nested deeper than any real page: the structure stays, texts never run together.

The element tree is copied however deep the parse lets a page nest (``_tree``); the
converter enters plain containers without a call per level and caps the nesting of the
structures it recurses into (``_convert.MAX_NESTING``, ``MAX_INLINE``); past the parse's
own depth cap (``_bounded``) a dropped block tag leaves whitespace.
"""

from __future__ import annotations

import re

import pytest

from pressmark.markdown import ConversionPolicy, to_markdown
from pressmark.markdown._convert import MAX_INLINE, MAX_NESTING
from pressmark.markdown._screen import MAX_DEPTH, SCREEN_STARTS
from pressmark.markdown._tree import parse

CONVERT = ConversionPolicy(select_main=False)
BOTH = [CONVERT, ConversionPolicy()]
ARTICLE = ("<h2>Deep title</h2><p>Word one is here.</p><p>Word two is there.</p>"
           "<ul><li>item a</li><li>item b</li></ul><pre>code\n  x</pre>")
EXPECTED = ("## Deep title\n\nWord one is here.\n\nWord two is there.\n\n- item a\n- item b\n\n"
            "```\ncode\n  x\n```\n")


def page(body: str) -> str:
    return f"<!doctype html><html><body>{body}</body></html>"


@pytest.mark.parametrize("policy", BOTH, ids=["convert", "select"])
@pytest.mark.parametrize("depth", [150, 400, SCREEN_STARTS - 20])
def test_a_deep_page_keeps_its_structure(depth: int, policy: ConversionPolicy) -> None:
    # within the screen's start tags a page is parsed as it is, however deep it nests
    result = to_markdown(page("<div>" * depth + ARTICLE + "</div>" * depth), policy=policy)
    assert result.markdown == EXPECTED
    assert not result.warnings
    assert max(node.depth for node in parse(page("<div>" * depth + ARTICLE)).nodes) > depth


def test_nothing_hidden_or_scripted_comes_out_of_a_deep_subtree() -> None:
    body = ("<div>" * 400 + "<script>var secret = 1;</script><style>p{color:red}</style>"
            "<p hidden>hidden words</p><p>Shown words.</p>" + "</div>" * 400)
    assert to_markdown(page(body), policy=CONVERT).markdown == "Shown words.\n"


@pytest.mark.parametrize("policy", BOTH, ids=["convert", "select"])
def test_blocks_past_the_parse_depth_cap_do_not_run_together(policy: ConversionPolicy) -> None:
    # more start tags than the screen passes: the scan drops the tags past MAX_DEPTH, and
    # each dropped block tag leaves whitespace ("deep page. Paragraph", not "page.Paragraph")
    depth = SCREEN_STARTS // 2 + 200  # two start tags a level
    body = "".join(f"<div><p>Paragraph number {i} of the deep page.</p>" for i in range(depth))
    result = to_markdown(page(body + "</div>" * depth), policy=policy)
    assert "parse-limit:depth" in result.warnings
    numbers = [int(n) for n in re.findall(r"Paragraph number (\d+) of the deep page\.",
                                         result.markdown)]
    assert numbers == list(range(numbers[0], depth)) and numbers[0] < MAX_DEPTH
    assert ".Paragraph" not in result.markdown


NESTED = {
    "lists": ("<ul><li>t{i}", "</li></ul>"),
    "ordered": ("<ol><li><p>t{i}</p>", "</li></ol>"),
    "quotes": ("<blockquote><p>t{i}</p>", "</blockquote>"),
    "definitions": ("<dl><dt>t{i}</dt><dd>", "</dd></dl>"),
    "tables": ("<table><tr><td><p>t{i}</p></td><td>", "</td></tr></table>"),
    "mixed": ("<div><ul><li><blockquote><section><p>t{i}</p>",
              "</p></section></blockquote></li></ul></div>"),
}


@pytest.mark.parametrize("shape", sorted(NESTED))
def test_nesting_past_the_cap_keeps_every_text_in_order(shape: str) -> None:
    opening, closing = NESTED[shape]
    levels = 3 * MAX_NESTING
    body = "".join(opening.format(i=i) for i in range(levels)) + closing * levels
    markdown = to_markdown(page(body), policy=CONVERT).markdown
    assert re.findall(r"\bt(\d+)\b", markdown) == [str(i) for i in range(levels)]


def test_inline_nesting_past_the_cap_keeps_its_text() -> None:
    levels = 4 * MAX_INLINE

    def spans(word: str, end: str = " ", every: int = 1) -> str:
        return "".join(f"<span>{word}{i}{end}" if i % every == 0 else "<span>"
                       for i in range(levels)) + "</span>" * levels

    # (the heading's words at every eighth level: a heading of a line, where one holding a
    # paragraph's length of text is written as a paragraph, ``_score.reads_as_prose``)
    markdown = to_markdown(page(f"<h2>{spans('h', every=8)}</h2><p>{spans('s')}</p>"),
                           policy=CONVERT).markdown
    assert markdown == "## {}\n\n{}\n".format(
        " ".join(f"h{i}" for i in range(0, levels, 8)), " ".join(f"s{i}" for i in range(levels)))
    markdown = to_markdown(page(f"<p>{spans('b', '<br>')}</p>"), policy=CONVERT).markdown
    assert markdown == "\\\n".join(f"b{i}" for i in range(levels)) + "\n"


def test_only_short_texts_are_kept_once_built_and_release_lets_them_go() -> None:
    """``Node.text`` keeps what it built for the rules that ask again, but only a short
    text (``TEXT_MEMO_MAX``): a deep nest of elements, each a little longer than the one
    inside it, must not hold every level's text at once."""
    from pressmark.markdown._tree import TEXT_MEMO_MAX

    depth = 200
    doc = parse(page("<div>" + "<span>word " * depth + "</span>" * depth + "</div>"
                     + "<p>A short line.</p>"))
    short = next(n for n in doc.nodes if n.tag == "p")
    assert short.text() == "A short line." and short.text() is short.text()
    spans = [n for n in doc.nodes if n.tag == "span"]
    texts = [n.text() for n in spans]
    assert texts[0] == " ".join(["word"] * depth)
    kept = [n for n in spans if n.text_memo is not None]
    assert kept and all(len(n.text_memo or "") <= TEXT_MEMO_MAX for n in kept)
    assert len(kept) < len(spans)
    doc.release()
    assert all(n.text_memo is None for n in doc.nodes)
