"""HTML tables -> GFM pipe tables, or, when a table cannot be one, its cells in order.

Rules (``tests/unit/markdown/test_tables.py`` and the golden files pin each one):

* A table is a pipe table when every cell's content fits in a cell: inline content,
  paragraphs, line breaks, short lists, one-line code
  blocks and term lists, up to ``CELL_LINES`` lines and ``CELL_MAX_CHARS`` characters.
  Blocks inside a cell are joined with ``<br>`` (GFM renderers
  show it as a line break; a real line break would end the row): paragraphs and line
  breaks as they come, list items as ``- item`` / ``1. item``, a one-line code block as
  an inline code span. This is what documentation generators write: docutils (every
  Sphinx site) and DocBook wrap each cell in ``<p>``, MediaWiki and Bootstrap tables
  hold ``<br>``, lists and ``<code>``.
* The first row is the header row. ``colspan`` and ``rowspan`` are laid into a grid:
  the spanned cell's text once, in its first row and column, the cells it covers
  empty. Columns and rows left empty in every cell are dropped.
* A table that cannot be a pipe table falls back to its cells' blocks in document
  order (row by row, cell by cell; every cell's text kept, nested tables converted
  where they stand): a cell holding a heading, a nested table, a code block of more than
  one line, or more lines or text than the caps above (a menu or a page region, not a
  value); a table of a single row or a single column whose cells hold blocks (blocks
  set side by side or one above another: a page's layout); a table marked
  ``role=presentation``; a table of one cell.
* Bounds, whatever the markup: at most ``MAX_GRID_COLS`` columns (the text of cells
  beyond joins the row's last cell), ``MAX_GRID_ROWS`` rows per pipe table (longer
  tables continue in another table with the same header row), and ``MAX_SPAN_CELLS``
  grid cells covered by spans per table (past that a cell spans itself only). Each cap
  that cut in names itself in the result's warnings (``table-limit:columns``,
  ``table-limit:rows``, ``table-limit:spans``); no text is dropped by them.
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
from pressmark.markdown._tree import HEADINGS, Node

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

    from pressmark.markdown._convert import Converter

MAX_GRID_COLS: Final = 64      # columns of one pipe table
MAX_GRID_ROWS: Final = 2000    # rows of one pipe table (the header row repeats after)
MAX_SPAN_CELLS: Final = 10_000  # grid cells spans may cover, per table
# lines a cell may hold, counting paragraphs, list items, terms and line breaks (more: a
# menu, an index or a page region set in a table)
CELL_LINES: Final = 12
CELL_MAX_CHARS: Final = 1200   # text a cell may hold (more: a page region laid out in a table)
_LINES: Final = frozenset(("p", "li", "dt", "br", "blockquote"))
BREAK: Final = "<br>"          # joins the blocks of one cell
_CELLS: Final = frozenset(("td", "th"))
_ROW_GROUPS: Final = frozenset(("thead", "tbody", "tfoot"))
_LISTS: Final = frozenset(("ul", "ol", "menu", "dir"))


def convert_table(conv: Converter, node: Node) -> list[Block]:
    """The blocks of one ``<table>`` (see the module docstring), or of the rows of one of
    its parts (``<tbody>``, ``<tr>``: a selected region may start there)."""
    caption: Node | None = None
    rows: list[list[Node]] = [_cells(node)] if node.tag == "tr" else []
    for child in node.elems:
        if child.removed is not None:
            continue
        tag = child.tag
        if tag == "tr":
            rows.append(_cells(child))
        elif tag in _ROW_GROUPS:
            rows.extend(_cells(row) for row in child.elems
                        if row.tag == "tr" and row.removed is None)
        elif tag == "caption" and caption is None:
            caption = child
    out: list[Block] = conv.blocks(caption) if caption is not None else []
    cells = [cell for row in rows for cell in row]
    if not cells:
        return out
    role = node.attr("role").strip().lower()
    if len(cells) == 1 or role in ("presentation", "none") or _laid_out(rows, cells) \
            or not all(_fits(cell) for cell in cells):
        if len(cells) > 1:
            conv.counts.layout_tables += 1
        return _unwrapped(conv, cells, out)
    texts = _cell_texts(conv, rows)
    limits = conv.counts.table_limits
    tables: list[Block] = []
    for start in range(0, len(rows), MAX_GRID_ROWS):
        grid = _grid(rows[start:start + MAX_GRID_ROWS], texts[start:start + MAX_GRID_ROWS],
                     limits)
        if start:
            limits.add("rows")
            if tables and grid:
                grid.insert(0, rows_of(tables[-1])[0])  # the header row again
        if grid:
            tables.append(Table(grid, node))
    if not tables:
        conv.counts.broken_tables += 1
    elif len(tables) == 1 and len(rows_of(tables[0])) == 1 and len(rows_of(tables[0])[0]) == 1:
        return _unwrapped(conv, cells, out)  # one cell left with text: no table
    out.extend(tables)
    return out


def rows_of(block: Block) -> list[list[str]]:
    return block.rows if isinstance(block, Table) else []


def _unwrapped(conv: Converter, cells: list[Node], out: list[Block]) -> list[Block]:
    """The fallback: every cell's blocks in document order."""
    for cell in cells:
        out.extend(conv.blocks(cell))
    return out


def _laid_out(rows: list[list[Node]], cells: list[Node]) -> bool:
    """Blocks set side by side (one row) or one above another (one column): a page's
    layout, not data, which has rows and columns both."""
    return (sum(1 for row in rows if row) == 1 or max(len(row) for row in rows) == 1) \
        and any(cell.blocky for cell in cells)


def _cells(row: Node) -> list[Node]:
    return [cell for cell in row.elems if cell.tag in _CELLS and cell.removed is None]


def _fits(cell: Node) -> bool:
    """Can this cell's content be written inside one pipe-table cell?

    One walk of the cell that stops at the first sign it cannot, and never enters a
    nested table: each element is looked at by its innermost table only.
    """
    if cell.text_len > CELL_MAX_CHARS:
        return False
    lines = 0
    stack: list[Node] = list(cell.elems)
    while stack:
        node = stack.pop()
        if node.removed is not None:
            continue
        tag = node.tag
        if tag == "table" or tag in HEADINGS:
            return False
        if tag == "pre":
            if _lines(node) > 1:
                return False
            continue
        if tag in _LINES:
            lines += 1
            if lines > CELL_LINES:
                return False
        stack.extend(node.elems)
    return True


def _lines(pre: Node) -> int:
    """Lines of a code block as ``Converter`` writes it (ends stripped), at most 2."""
    parts: list[str] = []
    stack: list[Node | str] = [pre]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            parts.append(item)
        elif item.tag == "br":
            parts.append("\n")
        elif item.removed is None or item is pre:
            stack.extend(reversed(item.children))
    text = "".join(parts).replace("\r", "\n").strip()
    return 2 if "\n" in text else 1


def _cell_texts(conv: Converter, rows: list[list[Node]]) -> list[list[str]]:
    """Each cell's content as one line of Markdown, converted in cell mode (``|`` in code
    spans and link targets escaped, see ``Converter.in_cell``)."""
    saved = conv.in_cell
    conv.in_cell = True
    try:
        return [[cell_text(conv.blocks(cell)) for cell in row] for row in rows]
    finally:
        conv.in_cell = saved


def cell_text(blocks: list[Block]) -> str:
    """Blocks as one line: joined with ``<br>``, lists item by item (see module docstring)."""
    parts: list[str] = []
    for block in blocks:
        text = _block_line(block)
        if text:
            parts.append(text)
    return BREAK.join(parts)


def _block_line(block: Block) -> str:
    if isinstance(block, Para):
        return block.text.replace("\\\n", BREAK)
    if isinstance(block, ListBlock):
        lines: list[str] = []
        for item in block.items:
            body = cell_text(item.blocks)
            if body:
                marker = f"{item.number}." if block.ordered else "-"
                lines.append(f"{marker} {body}")
        return BREAK.join(lines)
    if isinstance(block, Code):
        # one line (``_fits``); a longer one reaching here stays code, line by line
        return BREAK.join(_code_line(line) for line in block.text.split("\n") if line.strip())
    if isinstance(block, Quote):
        return cell_text(block.blocks)
    if isinstance(block, DefList):
        lines = []
        for term, defs in block.items:
            body = BREAK.join(cell_text(d) for d in defs)
            lines.append(f"{term}: {body}" if term and body else term or body)
        return BREAK.join(lines)
    if isinstance(block, Heading):
        return block.text
    if isinstance(block, Table):
        return " ".join(c for row in block.rows for c in row if c)
    if isinstance(block, Rule):
        return ""
    raise TypeError(f"not a block: {block!r}")  # pragma: no cover - exhaustive above


def _code_line(line: str) -> str:
    # GFM splits a row at every "|" not escaped, inside code spans too
    return _escape.code_span(line.strip()).replace("|", "\\|")


def _grid(rows: list[list[Node]], texts: list[list[str]], limits: set[str],
          ) -> list[list[str]]:
    """The cells laid into a rectangle, spans filled with empty cells (module docstring).

    ``None`` marks a free slot while the rows fill; a slot a span covers holds ``""``.
    Work is bounded by the caps: each cell costs one slot plus what its span covers,
    and spans cover at most ``MAX_SPAN_CELLS`` slots in all.
    """
    height = len(rows)
    grid: list[list[str | None]] = [[] for _ in range(height)]
    budget = MAX_SPAN_CELLS
    for r in range(height):
        line = grid[r]
        c = 0
        for cell, text in zip(rows[r], texts[r], strict=True):
            while c < len(line) and line[c] is not None:
                c += 1
            if c >= MAX_GRID_COLS:
                limits.add("columns")
                if text:  # past the last column: the text joins the row's last cell
                    last = line[MAX_GRID_COLS - 1]
                    line[MAX_GRID_COLS - 1] = f"{last} {text}" if last else text
                continue
            colspan = min(_span(cell, "colspan"), MAX_GRID_COLS - c)
            rowspan = _span(cell, "rowspan")
            rowspan = height - r if rowspan == 0 else min(rowspan, height - r)  # 0: to the end
            if colspan * rowspan - 1 > budget:
                limits.add("spans")
                rowspan = max(1, min(rowspan, (budget + 1) // colspan))
                if colspan * rowspan - 1 > budget:
                    colspan = budget + 1
            budget -= colspan * rowspan - 1
            for dr in range(rowspan):
                covered = grid[r + dr]
                if len(covered) < c + colspan:
                    covered.extend([None] * (c + colspan - len(covered)))
                for dc in range(c, c + colspan):
                    if covered[dc] is None:
                        covered[dc] = ""
            line[c] = text
            c += colspan
    width = max((len(line) for line in grid), default=0)
    used = [any(line[c] for line in grid if c < len(line)) for c in range(width)]
    table = [[line[c] or "" if c < len(line) else "" for c in range(width) if used[c]]
             for line in grid]
    return [row for row in table if any(row)]


def _span(cell: Node, name: str) -> int:
    """A ``colspan``/``rowspan`` as HTML reads it: digits up to the first other character
    (``"2;"`` is 2), 1 when absent or unreadable, HTML's own caps (1000 and 65534)."""
    value = cell.attrs.get(name)
    if value is None:
        return 1
    digits = ""
    for char in value.strip():
        if not char.isdigit() or not char.isascii():
            break
        digits += char
        if len(digits) > 6:
            break
    if not digits:
        return 1
    number = int(digits)
    if name == "colspan":
        return max(1, min(number, 1000))
    return min(number, 65534)  # rowspan="0": to the end of the table
