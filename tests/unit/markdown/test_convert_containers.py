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


def test_a_highlighters_inline_line_numbers_go() -> None:
    # Pygments with linenos="inline" (Sphinx's :linenos:): a number opens every line
    lines = ["from docutils import nodes", "", "class todo(nodes.Element):", "    pass"]
    pre = "".join(f'<span class="linenos">{i:>3}</span>{line}\n'
                  for i, line in enumerate(lines, start=1))
    md = to_markdown(f'<div class="highlight-python"><div class="highlight"><pre><span></span>'
                     f"{pre}</pre></div></div>", policy=CONVERT).markdown
    assert md == "```python\n" + "\n".join(lines) + "\n```\n"


def test_a_highlighters_numbers_column_goes() -> None:
    # Pygments' table form: a cell of numbers beside the cell of code
    numbers = "\n".join(f'<span class="normal">{i}</span>' for i in range(1, 4))
    md = to_markdown(f'<table class="highlighttable"><tr><td class="linenos"><div><pre>{numbers}'
                     '</pre></div></td><td class="code"><div class="highlight"><pre>import os\n'
                     "print(os.name)\nx = 1\n</pre></div></td></tr></table>",
                     policy=CONVERT).markdown
    assert md == "```\nimport os\nprint(os.name)\nx = 1\n```\n"


def test_numbers_that_are_code_stay() -> None:
    md = to_markdown("<pre><span>10</span> GOTO 20\n<span>20</span> END</pre>"
                     "<pre>year 1999\n2000</pre>", policy=CONVERT).markdown
    assert md == "```\n10 GOTO 20\n20 END\n```\n\n```\nyear 1999\n2000\n```\n"
