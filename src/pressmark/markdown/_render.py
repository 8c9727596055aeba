"""Block tree -> Markdown text. A pure function of the blocks.

Layout: one blank line between blocks, a single trailing newline, ATX
headings, ``-`` bullets with content indented 2 spaces, ordered items with
their source number and content indented to the marker's width (3 spaces for
``1.``-``9.``), fenced code, GFM tables, ``>`` quotes, ``: `` definitions. Two
adjacent lists of the same kind are kept apart by an empty HTML comment (they
would merge into one list otherwise).
"""

from __future__ import annotations

from pressmark.markdown import _escape
from pressmark.markdown._blocks import (
    Block,
    Code,
    DefList,
    Heading,
    ListBlock,
    Para,
    Quote,
    Rule,
    Table,
)

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

# A top-level block and its ``[start, end)`` character span in the Markdown. A plain
# tuple, not a class: one is made per block of every page, and a tuple is built in C.
Placed = tuple[Block, int, int]


def render(blocks: list[Block]) -> tuple[str, list[Placed]]:
    parts: list[str] = []
    placed: list[Placed] = []
    offset = 0
    previous: Block | None = None
    for block in blocks:
        text = render_block(block)
        if not text:
            continue
        if parts:
            if isinstance(block, ListBlock) and _same_list(previous, block):
                parts.append(f"\n\n{LIST_BREAK}")
                offset += 2 + len(LIST_BREAK)
            parts.append("\n\n")
            offset += 2
        parts.append(text)
        placed.append((block, offset, offset + len(text)))
        offset += len(text)
        previous = block
    if not parts:
        return "", []
    parts.append("\n")
    return "".join(parts), placed


LIST_BREAK: Final = "<!-- -->"


def _same_list(a: Block | None, b: Block) -> bool:
    """Two adjacent lists of one kind would merge into one list in CommonMark."""
    return isinstance(a, ListBlock) and isinstance(b, ListBlock) and a.ordered == b.ordered


def _join(blocks: list[Block]) -> str:
    out: list[str] = []
    previous: Block | None = None
    for block in blocks:
        text = render_block(block)
        if not text:
            continue
        if out:
            out.append(f"\n\n{LIST_BREAK}\n\n" if _same_list(previous, block) else "\n\n")
        out.append(text)
        previous = block
    return "".join(out)


def render_block(block: Block) -> str:
    if isinstance(block, Para):
        return block.text
    if isinstance(block, Heading):
        return "#" * block.level + " " + block.text
    if isinstance(block, ListBlock):
        return _list(block)
    if isinstance(block, Code):
        fence = _escape.code_fence(block.text)
        return f"{fence}{block.lang}\n{block.text}\n{fence}"
    if isinstance(block, Quote):
        inner = _join(block.blocks)
        return "\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, DefList):
        return _deflist(block)
    if isinstance(block, Rule):
        return "---"
    raise TypeError(f"not a block: {block!r}")  # pragma: no cover - exhaustive above


def _item_body(blocks: list[Block]) -> str:
    out: list[str] = []
    prev: Block | None = None
    for block in blocks:
        text = render_block(block)
        if not text:
            continue
        if out:
            # a nested list right after the item's text stays tight
            out.append("\n" if isinstance(block, ListBlock) and isinstance(prev, Para) else "\n\n")
        out.append(text)
        prev = block
    return "".join(out)


def _list(block: ListBlock) -> str:
    rendered: list[str] = []
    for item in block.items:
        marker = f"{item.number}." if block.ordered else "-"
        pad = " " * (len(marker) + 1)
        body = _item_body(item.blocks)
        if not body:
            continue
        lines = body.split("\n")
        first = f"{marker} {lines[0]}"
        rest = [pad + line if line else "" for line in lines[1:]]
        rendered.append("\n".join([first, *rest]))
    loose = any("\n\n" in r for r in rendered)
    return ("\n\n" if loose else "\n").join(rendered)


def _table(block: Table) -> str:
    rows = block.rows
    width = len(rows[0])
    lines = ["|" + "|".join(f" {c} " if c else " " for c in row) + "|" for row in rows[:1]]
    lines.append("|" + "|".join(" --- " for _ in range(width)) + "|")
    lines.extend("|" + "|".join(f" {c} " if c else " " for c in row) + "|" for row in rows[1:])
    return "\n".join(lines)


def _deflist(block: DefList) -> str:
    items: list[str] = []
    for term, defs in block.items:
        lines: list[str] = [term] if term else []
        for definition in defs:
            body = _join(definition).split("\n")
            lines.append(f": {body[0]}")
            lines.extend(f"  {line}" if line else "" for line in body[1:])
        items.append("\n".join(lines))
    return "\n\n".join(items)


_MARKER_WIDTH: Final = 12  # "999999999. ": the widest list marker render writes, and a space
JOIN_MAX: Final = 12  # what render writes between two blocks at most ("\n\n<!-- -->\n\n")


def written(block: Block) -> tuple[int, int, int]:
    """Upper bounds of what rendering ``block`` writes (every nesting level counted, as each
    level copies what it holds), of its rendered length, and of its lines.

    The conversion budget's count (``_budget.check_render``), beside the rendering it
    bounds: the second is never below ``len(render_block(block))`` (a property test
    holds the two to it). WHY here: this module is compiled, and the budget's (its
    exception class stays interpreted, see pyproject.toml) ran this walk of every
    block as Python, about 100,000 instructions a page.
    """
    if isinstance(block, Para):
        size, lines = len(block.text), block.text.count("\n") + 1
        return size, size, lines
    if isinstance(block, Heading):
        size = len(block.text) + block.level + 1
        return size, size, 1
    if isinstance(block, Code):
        size = 3 * len(block.text) + len(block.lang) + 10  # the fence outgrows no run in it
        return size, size, block.text.count("\n") + 3
    if isinstance(block, Rule):
        return 3, 3, 1
    if isinstance(block, Quote):
        return _nested(block.blocks, 2)
    if isinstance(block, ListBlock):
        work = size = lines = 0
        for item in block.items:
            w, s, n = _nested(item.blocks, _MARKER_WIDTH)
            work, size, lines = work + w + 1, size + s + 2, lines + n + 1
        return work, size, lines
    if isinstance(block, DefList):
        work = size = lines = 0
        for term, definitions in block.items:
            size, lines = size + len(term) + 2, lines + 2
            for definition in definitions:
                w, s, n = _nested(definition, 2)
                work, size, lines = work + w, size + s + 1, lines + n
        return work + size, size, lines
    if isinstance(block, Table):
        width = len(block.rows[0]) if block.rows else 0
        size = sum(sum(len(cell) + 3 for cell in row) + 2 for row in block.rows) + 5 * width + 2
        return size, size, len(block.rows) + 1
    raise TypeError(f"not a block: {block!r}")  # a new block kind needs its bound here


def _nested(blocks: list[Block], prefix: int) -> tuple[int, int, int]:
    """Blocks rendered inside a container that writes ``prefix`` more on each line."""
    work = size = lines = 0
    for block in blocks:
        w, s, n = written(block)
        work, size, lines = work + w, size + s + JOIN_MAX, lines + n + 4
    size += prefix * lines
    return work + size, size, lines
