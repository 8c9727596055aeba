"""Containers that old or generated pages misuse: text in a list with no items, a region
that starts at a table's body."""

from __future__ import annotations

from pressmark.markdown import ConversionPolicy, to_markdown
from pressmark.markdown._convert import Converter
from pressmark.markdown._render import render
from pressmark.markdown._tree import parse

CONVERT = ConversionPolicy(select_main=False)


def test_text_in_a_list_without_items_is_kept_as_blocks() -> None:
    # a parliament's transcript indented with a bare <ul>: the speeches are text nodes
    page = ("<ul><br><div align=center><b>SECOND READING</b></div><br>"
            "<b>The Hon DUNCAN GAY</b> (Deputy Leader) [2.34 p.m.]: Given earlier debate on "
            "the bill, it has probably escaped notice.<br><br>Members will recall it.</ul>")
    md = to_markdown(page, policy=CONVERT).markdown
    assert md == ("**SECOND READING**\n\n**The Hon DUNCAN GAY** (Deputy Leader) \\[2.34 p.m.\\]: "
                  "Given earlier debate on the bill, it has probably escaped notice.\n\n"
                  "Members will recall it.\n")


def test_text_between_items_joins_the_item_before_it() -> None:
    md = to_markdown("<ul><li>one</li> and a note <li>two</li></ul>", policy=CONVERT).markdown
    assert md == "- one\n\n  and a note\n\n- two\n"


def test_a_list_of_only_elements_keeps_them_in_one_item() -> None:
    md = to_markdown("<ul><h4><li>Water the tree.</li></h4><h4><li>Keep it cool.</li></h4></ul>",
                     policy=CONVERT).markdown
    assert "Water the tree." in md and "Keep it cool." in md


def test_a_region_that_starts_at_a_table_body_is_a_table() -> None:
    doc = parse("<table><tbody><tr><th>Module</th><th>Summary</th></tr>"
                "<tr><td><a href='/a'>a</a></td><td>First</td></tr></tbody></table>")
    tbody = next(n for n in doc.nodes if n.tag == "tbody")
    row = next(n for n in doc.nodes if n.tag == "tr")
    converter = Converter(CONVERT, lambda href: href)
    assert render(converter.block(tbody))[0] == (
        "| Module | Summary |\n| --- | --- |\n| [a](/a) | First |\n")
    assert render(converter.block(row))[0] == "| Module | Summary |\n| --- | --- |\n"
