"""Markdown rendered to HTML for reading, with each block tagged by its source lines.

Rendering follows CommonMark plus GFM tables and strikethrough, with raw HTML
off (it is shown as text) and images shown as their alt text, so the rendered
view never loads anything and never carries markup from the page. Each block
element gets ``data-md-lines="START END"`` (0-based, end exclusive) so the page
script can highlight the block that holds a provenance span.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup, escape


def _image_as_text(
    renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any
) -> str:
    alt = tokens[idx].content or "image"
    return f'<span class="md-image" title="image not loaded">[image: {escape(alt)}]</span>'


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    md.add_render_rule("image", _image_as_text)
    return md


_MD = _parser()


def render_markdown(text: str) -> Markup:
    """HTML for ``text``; block elements carry their source line range."""
    tokens = _MD.parse(text)
    for token in tokens:
        if token.map and token.nesting == 1:
            token.attrSet("data-md-lines", f"{token.map[0]} {token.map[1]}")
        for child in token.children or ():
            if child.type == "link_open":
                child.attrSet("rel", "noreferrer nofollow")
    return Markup(_MD.renderer.render(tokens, _MD.options, {}))


def line_of(text: str, offset: int) -> int:
    """The 0-based line that character ``offset`` of ``text`` is on."""
    return text.count("\n", 0, offset)
