"""The block map: every block's span and element, worked out when read, Markdown untouched."""

from __future__ import annotations

import gc
import json
import pickle

from pressmark.markdown import to_markdown
from pressmark.markdown._blockmap import BlockMap

PAGE = """<html><body><main><h1>Title</h1><p>Hello <b>world</b>. A second sentence.</p>
<ul><li>one</li><li><p>two a</p><p>two b</p><ul><li>nested</li></ul></li></ul>
<blockquote><p>q1</p><p>q2 <a href="/x">link</a></p></blockquote>
<ol start="9"><li>nine</li><li>ten</li></ol><pre>code\n  more</pre>
<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
<dl><dt>term</dt><dd>definition</dd></dl><hr><p>after the rule</p></main></body></html>"""


def _map() -> tuple[str, BlockMap]:
    result = to_markdown(PAGE, url="https://example.test/a")
    return result.markdown, result.evidence.block_map


def test_every_block_is_listed_with_its_span_and_element() -> None:
    markdown, block_map = _map()
    got = [(e.kind, markdown[e.start:e.end], e.dom_path.rsplit(" > ", 1)[-1])
           for e in block_map.entries()]
    assert got == [
        ("heading", "# Title", "h1:nth-of-type(1)"),
        ("paragraph", "Hello **world**. A second sentence.", "p:nth-of-type(1)"),
        ("list", "- one\n\n- two a\n\n  two b\n  - nested", "ul:nth-of-type(1)"),
        ("item", "- one", "li:nth-of-type(1)"),
        ("paragraph", "one", "li:nth-of-type(1)"),
        ("item", "- two a\n\n  two b\n  - nested", "li:nth-of-type(2)"),
        ("paragraph", "two a", "p:nth-of-type(1)"),
        ("paragraph", "two b", "p:nth-of-type(2)"),
        ("list", "- nested", "ul:nth-of-type(1)"),
        ("item", "- nested", "li:nth-of-type(1)"),
        ("paragraph", "nested", "li:nth-of-type(1)"),
        ("quote", "> q1\n>\n> q2 [link](https://example.test/x)", "blockquote:nth-of-type(1)"),
        ("paragraph", "q1", "p:nth-of-type(1)"),
        ("paragraph", "q2 [link](https://example.test/x)", "p:nth-of-type(2)"),
        ("list", "9. nine\n10. ten", "ol:nth-of-type(1)"),
        ("item", "9. nine", "li:nth-of-type(1)"),
        ("paragraph", "nine", "li:nth-of-type(1)"),
        ("item", "10. ten", "li:nth-of-type(2)"),
        ("paragraph", "ten", "li:nth-of-type(2)"),
        ("code", "```\ncode\n  more\n```", "pre:nth-of-type(1)"),
        ("table", "| a | b |\n| --- | --- |\n| 1 | 2 |", "table:nth-of-type(1)"),
        ("deflist", "term\n: definition", "dl:nth-of-type(1)"),
        ("rule", "---", "hr:nth-of-type(1)"),
        ("paragraph", "after the rule", "p:nth-of-type(2)"),
    ]
    assert all(e.dom_path.startswith("body > main:nth-of-type(1) > ") for e in block_map)


def test_json_form_is_compact_and_round_trips() -> None:
    _, block_map = _map()
    data = block_map.to_dict()
    assert data["format"] == "pressmark-blocks/1"
    assert data["dom"][0] == "-1 body 0" and data["blocks"][0].startswith("heading 0 7 ")
    again = BlockMap.from_dict(json.loads(json.dumps(data)))
    assert again == block_map and again.entries() == block_map.entries()
    assert pickle.loads(pickle.dumps(block_map)) == block_map


def test_malformed_json_is_refused() -> None:
    import pytest

    for bad in ({}, {"format": "pressmark-blocks/1", "dom": ["0 body 0"], "blocks": []},
                {"format": "pressmark-blocks/1", "dom": [], "blocks": ["heading 0 1 5"]},
                {"format": "pressmark-blocks/1", "dom": [], "blocks": ["blink 0 1 -1"]}):
        with pytest.raises(ValueError):
            BlockMap.from_dict(bad)


def test_worked_out_after_the_tree_is_released_and_collected() -> None:
    result = to_markdown(PAGE, url="https://example.test/a")
    gc.collect()
    assert len(result.evidence.block_map) == 24
    assert to_markdown(PAGE, url="https://example.test/a") == result  # maps compare by value


def test_an_empty_page_has_an_empty_map() -> None:
    result = to_markdown("<html><body></body></html>")
    assert result.evidence.block_map.to_dict()["blocks"] == []
    assert len(BlockMap()) == 0


def test_a_tag_name_css_gives_a_meaning_to_is_escaped() -> None:
    """A word processor's ``<o:p>`` (or ``<x.y>``) is written so that the path still parses
    as CSS and selects the element."""
    from pressmark.markdown import parse_html
    from pressmark.markdown._blockmap import BlockMap

    block_map = BlockMap(nodes=[(-1, "body", 0), (0, "o:p", 1), (1, "x.y", 2)],
                         blocks=[("paragraph", 0, 5, 2)])
    path = block_map.entries()[0].dom_path
    assert path == "body > o\\:p:nth-of-type(1) > x\\.y:nth-of-type(2)"
    tree = parse_html("<body><o:p><x.y>one</x.y><x.y>two</x.y></o:p></body>")[0]
    node = tree.css_first(path)
    assert node is not None and node.text() == "two"
