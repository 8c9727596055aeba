"""DOM -> block tree. Pure: the same subtree and options give the same blocks.

Rules (the golden tests pin each one):

* ``h1``-``h6`` become headings of the same level; empty headings vanish. A link
  inside a heading that points at this page (``#x``, the page URL, or the page URL
  plus a fragment) is its permalink: the text stays unlinked, a bare symbol (``#``,
  ``¶``) goes.
* Inline runs between blocks become paragraphs; ``<br>`` is a hard break and
  two or more ``<br>`` in a row end the paragraph.
* ``ul``/``ol`` become lists; ordered lists keep their source numbering
  (``start``, ``reversed``, ``li value``); empty items are dropped and counted.
* ``pre`` becomes a fenced block, verbatim, with the language taken from a
  ``language-*`` / ``lang-*`` class on the ``pre`` or its ``code`` child.
* A table whose cells hold only inline content is a data table (GFM pipe
  table, first row is the header). ``rowspan``/``colspan`` are normalised to a
  grid by repeating the spanned cell's text in every cell it covers; that is
  the single fallback. A table whose cells hold block content (paragraphs,
  lists, headings, nested tables) is a layout table: its cells are unwrapped in
  document order.
* ``dl`` becomes ``term`` lines followed by ``: definition`` lines.
* Links become ``[text](absolute-url)`` (resolved against ``<base>`` and the
  page URL; ``javascript:`` and other non-web schemes keep the text only),
  images ``![alt](absolute-url)`` (or the alt text, or nothing, per policy).
* Emphasis is ``*em*``, ``**strong**``, ``~~strike~~``. Adjacent runs of one kind
  merge (``*ab*``), as do adjacent code spans; a run CommonMark could not read as
  emphasis (it touches punctuation inside a word, ``a<em>"q"</em>b``) is written
  as inline HTML (``<em>``, ``<strong>``, ``<del>``) instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from pressmark.markdown import _escape
from pressmark.markdown._blocks import (
    Block,
    Code,
    DefList,
    Heading,
    Item,
    ListBlock,
    Para,
    Quote,
    Rule,
    Table,
)
from pressmark.markdown._inline import InlineBuf, add_run, squeeze
from pressmark.markdown._policy import ConversionPolicy
from pressmark.markdown._tree import BLOCK_TAGS, HEADINGS, Node

# (``Final``: compiled code reads a constant directly, a module global is a dictionary
# look-up at every use, and the loops below run per element of every page)
MAX_GRID_COLS: Final = 64
MAX_GRID_ROWS: Final = 2000
_LANG: Final = re.compile(r"(?:^|\s)(?:language|lang)-([A-Za-z0-9_+#.-]+)")
_LAYOUT_SIGNS: Final = frozenset(("table", "p", "ul", "ol", "pre", "blockquote", "dl",
                                  "h1", "h2", "h3", "h4", "h5", "h6"))
_PAGE_SIGNS: Final = frozenset(("table", "h1", "h2", "h3", "h4", "h5", "h6"))
LAYOUT_CELL_SHARE: Final = 0.2  # cells holding blocks, of all cells, that make a table a layout


def _laid_out(cells: list[Node]) -> bool:
    """A table used for page layout rather than data.

    A nested table or a heading in a cell lays out a page. Paragraphs and lists may
    be either: a wiki's table of films with one two-paragraph synopsis is still data,
    while a page set in a table has block content in a good share of its cells.
    """
    with_blocks = 0
    for cell in cells:
        tags = {n.tag for n in cell.iter() if n is not cell}
        if tags & _PAGE_SIGNS:
            return True
        if tags & _LAYOUT_SIGNS:
            with_blocks += 1
    return with_blocks >= max(1.0, LAYOUT_CELL_SHARE * len(cells))
_LISTS: Final = frozenset(("ul", "ol", "menu", "dir"))
_STRUCTURES: Final = HEADINGS | _LISTS | {"pre", "blockquote", "table", "dl", "hr"}  # see ``block``
_CODE: Final = frozenset(("code", "kbd", "samp", "tt"))
_EM: Final = frozenset(("em", "i", "cite", "dfn", "var"))
_STRONG: Final = frozenset(("strong", "b"))
_STRIKE: Final = frozenset(("del", "s", "strike"))
IN_HEADING: Final = 16          # inline state bit: inside a heading (permalinks are unwrapped)
_WORDISH: Final = re.compile(r"\w")


class Counts:
    """Anomalies the converter met, for validation (plain slots: see ``_blocks``)."""

    __slots__ = ("broken_tables", "empty_list_items", "layout_tables")

    def __init__(self) -> None:
        self.empty_list_items = 0
        self.broken_tables = 0
        self.layout_tables = 0


class Converter:
    def __init__(self, policy: ConversionPolicy, resolve: Callable[[str], str | None]) -> None:
        self.policy = policy
        self.resolve = resolve
        self.counts = Counts()
        self.in_cell = False
        self._page: str | None = None  # this page's own URL, resolved on first need

    # ---- blocks ---------------------------------------------------------------------------

    def blocks(self, node: Node) -> list[Block]:
        out: list[Block] = []
        buf = InlineBuf()
        # (methods called as methods: compiled code calls a bound method held in a local
        # generically, through its Python wrapper)
        for child in node.children:
            if isinstance(child, str):
                # whitespace before any inline content (the indentation between blocks)
                # is stripped from the paragraph anyway: ``_flush`` would drop it
                if buf.md or not _blank(child):
                    self._text(child, buf)
            elif child.removed is not None:
                continue
            elif child.tag in BLOCK_TAGS or child.blocky:
                if buf.md:
                    self._flush(buf, node, out)
                    buf = InlineBuf()
                elif buf.plain:  # (plain text without Markdown is dropped with it)
                    buf = InlineBuf()
                # (a link wrapped around blocks keeps the blocks: "a" is no block tag; a
                # plain container goes straight where ``block`` would send it)
                out.extend(self.block(child) if child.tag in _STRUCTURES else self.blocks(child))
            else:
                self._inline(child, buf, 0)
        if buf.md:
            self._flush(buf, node, out)
        return out

    def block(self, node: Node) -> list[Block]:
        tag = node.tag
        if tag not in _STRUCTURES:  # most blocks (div, p, section, li ...) hold just blocks
            return self.blocks(node)
        if tag in HEADINGS:
            buf = InlineBuf()
            self._inline_children(node, buf, IN_HEADING)
            text = squeeze(buf.text(" ").replace("\n", " ")).strip()
            if not text:
                return []
            plain = _collapsed(buf.plain)
            return [Heading(int(tag[1]), _escape.escape_heading_end(text), plain, node)]
        if tag in _LISTS:
            return self._list(node)
        if tag == "pre":
            return self._pre(node)
        if tag == "blockquote":
            inner = self.blocks(node)
            return [Quote(inner, node)] if inner else []
        if tag == "table":
            return self._table(node)
        if tag == "dl":
            return self._dl(node)
        if tag == "hr":
            return [Rule(node)]
        return self.blocks(node)

    def _flush(self, buf: InlineBuf, owner: Node, out: list[Block]) -> None:
        if not buf.md:
            return
        md = buf.text(" ")
        if "\n" not in md:
            # one line, the commonest paragraph: what the loop below makes of it, with
            # the plain text collapsed whole (its breaks, if any, collapse all the same)
            line = squeeze(md).strip()
            if line:
                out.append(Para(_escape.escape_line_start(line), _collapsed(buf.plain), owner))
            return
        md_lines = md.split("\n")
        plain_lines = "".join(buf.plain).split("\n")
        if len(plain_lines) != len(md_lines):  # defensive: keep the pairing total
            plain_lines = [" ".join(plain_lines), *[""] * (len(md_lines) - 1)]
        paras: list[tuple[list[str], list[str]]] = [([], [])]
        for raw, plain in zip(md_lines, plain_lines, strict=True):
            line = squeeze(raw).strip()
            if line:
                paras[-1][0].append(_escape.escape_line_start(line))
                paras[-1][1].append(plain)
            elif paras[-1][0]:
                paras.append(([], []))
        for lines, plains in paras:
            if lines:
                out.append(Para("\\\n".join(lines), " ".join(" ".join(plains).split()), owner))

    # ---- inline ---------------------------------------------------------------------------

    def _text(self, text: str, buf: InlineBuf) -> None:
        if _blank(text):  # the commonest text: indentation between tags
            if text:
                buf.md.append(" ")
                buf.plain.append(" ")
            return
        if _escape.printable(text) and "  " not in text:
            # one line (most inline text): ``clean`` keeps it as it is, and a space is
            # the only whitespace a printable string holds, so collapsing is a strip
            plain = text.strip(" ")
            if plain is text:  # no space at either edge (strip gave the very string back)
                buf.md.append(_escape.escape_text(text))
                buf.plain.append(text)
                return
        else:
            words = text.split()
            plain = " ".join(words)
            if not _escape.holds_no_controls(text, plain):  # rare: let ``clean`` drop them
                text = _escape.clean(text)
                words = text.split()
                plain = " ".join(words)
            if not words:
                if text:
                    buf.md.append(" ")
                    buf.plain.append(" ")
                return
        md = _escape.escape_text(plain)  # the very string when nothing needed escaping
        lead = " " if text[0].isspace() else ""
        trail = " " if text[-1].isspace() else ""
        if lead or trail:
            if md is plain:
                md = plain = lead + plain + trail
            else:
                md = lead + md + trail
                plain = lead + plain + trail
        buf.md.append(md)
        buf.plain.append(plain)

    def _inline_children(self, node: Node, buf: InlineBuf, state: int) -> None:
        for child in node.children:
            if isinstance(child, str):
                self._text(child, buf)
            elif child.removed is None:
                self._inline(child, buf, state)

    # state bits: 1 in link, 2 in emphasis, 4 in strong, 8 in strikethrough, 16 in heading
    def _inline(self, node: Node, buf: InlineBuf, state: int) -> None:
        tag = node.tag
        if tag == "br":
            buf.md.append("\n")
            buf.plain.append("\n")
        elif tag == "img":
            self._image(node, buf)
        elif tag == "a":
            self._link(node, buf, state)
        elif tag in _CODE:
            text = " ".join(_escape.clean(node.text()).split())
            if text:
                buf.add_code(text, self.in_cell)
        elif tag in _EM and not state & 2:
            self._wrap(node, buf, state | 2, "*")
        elif tag in _STRONG and not state & 4:
            self._wrap(node, buf, state | 4, "**")
        elif tag in _STRIKE and not state & 8:
            self._wrap(node, buf, state | 8, "~~")
        elif tag == "q":
            buf.md.append('"')
            self._inline_children(node, buf, state)
            buf.md.append('"')
        else:
            if tag in BLOCK_TAGS:
                buf.md.append(" ")
                buf.plain.append(" ")
            self._inline_children(node, buf, state)
            if tag in BLOCK_TAGS:
                buf.md.append(" ")
                buf.plain.append(" ")

    def _wrap(self, node: Node, buf: InlineBuf, state: int, marker: str) -> None:
        inner = InlineBuf()
        self._inline_children(node, inner, state)
        add_run(buf, inner, marker)

    def _link(self, node: Node, buf: InlineBuf, state: int) -> None:
        if state & 1 or not self.policy.links:
            self._inline_children(node, buf, state)
            return
        inner = InlineBuf()
        self._inline_children(node, inner, state | 1)
        md = inner.raw("[").replace("\n", " ")
        plain = "".join(inner.plain).replace("\n", " ")
        href = node.attrs.get("href")
        url = self.resolve(href) if href is not None else None
        if state & IN_HEADING and href is not None and self._self_anchor(href, url):
            # a heading's permalink ("<h2 id=x><a href=#x>Title</a>", "¶", "#"): the
            # heading is the target, so the text stays unlinked and a bare symbol goes
            if _WORDISH.search(plain):
                buf.md.append(md)
                buf.plain.append(plain)
            return
        buf.plain.append(plain)
        core = squeeze(md).strip()
        if not core or url is None:
            if md:
                buf.md.append(md)
            return
        lead = " " if md[:1] == " " else ""
        trail = " " if md[-1:] == " " else ""
        buf.md.append(f"{lead}[{core}]({_escape.escape_url(url)}){trail}")

    def _self_anchor(self, href: str, url: str | None) -> bool:
        """A link to this very page: a fragment only, or the page's URL (with a fragment or
        not: a forum's or a blog's title linked to the page it heads)."""
        if href.strip().startswith("#"):
            return True
        if url is None:
            return False
        if self._page is None:
            self._page = self.resolve("#") or ""
        return bool(self._page) and url.split("#", 1)[0] == self._page.split("#", 1)[0]

    def _image(self, node: Node, buf: InlineBuf) -> None:
        mode = self.policy.images
        if mode == "drop":
            return
        alt = " ".join(_escape.clean(node.attr("alt")).split())
        if mode == "alt":
            if alt:
                buf.md.append(_escape.escape_text(alt))
                buf.plain.append(alt)
            return
        url = None
        # a lazy-loading script swaps the real image in from data-*; ``src`` holds a
        # placeholder (a spinner, a blank gif) until it runs
        for key in ("data-src", "data-lazy-src", "data-original", "src"):
            value = node.attr(key).strip()
            # (a JSON blob of sizes in data-src is some script's, not an address)
            if value and not value.startswith(("data:", "{", "[")):
                url = self.resolve(value)
                if url is not None:
                    break
        if url is not None:
            buf.md.append(f"![{_escape.escape_text(alt)}]({_escape.escape_url(url)})")

    # ---- structures -----------------------------------------------------------------------

    def _list(self, node: Node) -> list[Block]:
        ordered = node.tag == "ol"
        step = -1 if ordered and "reversed" in node.attrs else 1
        items: list[Item] = []
        empty = 0
        raw_items = [c for c in node.children if not isinstance(c, str) and c.removed is None]
        number = _int(node.attrs.get("start")) if ordered else None
        if number is None and ordered:
            number = len([c for c in raw_items if c.tag == "li"]) if step < 0 else 1
        for child in raw_items:
            if child.tag != "li":
                blocks = self.block(child)
                if blocks and items:
                    items[-1].blocks.extend(blocks)
                elif blocks:
                    items.append(Item(None, blocks))
                continue
            if ordered:
                value = _int(child.attrs.get("value"))
                if value is not None:
                    number = value
            blocks = self.blocks(child)
            if not blocks:
                # dropped without using up its number: Markdown cannot skip one, so a
                # gap would not survive a round trip through a renderer. An item that
                # selection emptied on purpose (its chrome pruned) is no anomaly.
                if not any(n.removed is not None or n.chrome for n in child.iter()):
                    empty += 1
                continue
            items.append(Item(_clamp(number) if ordered else None, blocks))
            if number is not None:
                number += step
        if ordered:
            for item in items:
                if item.number is None:
                    item.number = 1
        if items:
            # a list with nothing but empty items is a control (carousel dots, a star
            # rating), not a list that lost its content
            self.counts.empty_list_items += empty
        return [ListBlock(ordered, items, node)] if items else []

    def _pre(self, node: Node) -> list[Block]:
        parts: list[str] = []
        stack: list[Node | str] = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                parts.append(item)
            elif item.tag == "br":
                parts.append("\n")
            elif item.removed is None or item is node:
                stack.extend(reversed(item.children))
        text = _escape.clean("".join(parts).replace("\r\n", "\n").replace("\r", "\n"))
        text = "\n".join(line.rstrip() for line in text.split("\n")).strip("\n")
        if not text.strip():
            return []
        lang = ""
        for holder in (node, *(c for c in node.children if not isinstance(c, str))):
            m = _LANG.search(holder.attr("class"))
            if m is not None:
                lang = m.group(1).lower()
                break
        return [Code(lang, text, node)]

    def _dl(self, node: Node) -> list[Block]:
        items: list[tuple[str, list[list[Block]]]] = []
        stack: list[Node] = [c for c in reversed(node.children) if not isinstance(c, str)]
        while stack:
            child = stack.pop()
            if child.removed is not None:
                continue
            if child.tag == "dt":
                buf = InlineBuf()
                self._inline_children(child, buf, 0)
                term = squeeze(buf.text(" ").replace("\n", " ")).strip()
                items.append((_escape.escape_line_start(term), []))
            elif child.tag == "dd":
                blocks = self.blocks(child)
                if not blocks:
                    continue
                if not items:
                    items.append(("", []))
                items[-1][1].append(blocks)
            elif child.tag == "div":
                stack.extend(c for c in reversed(child.children) if not isinstance(c, str))
        items = [(term, defs) for term, defs in items if term or defs]
        return [DefList(items, node)] if items else []

    def _table(self, node: Node) -> list[Block]:
        rows: list[Node] = []
        caption: Node | None = None
        cells_seen: list[Node] = []
        for child in node.children:
            if isinstance(child, str) or child.removed is not None:
                continue
            if child.tag == "caption":
                caption = child
            elif child.tag == "tr":
                rows.append(child)
            elif child.tag in ("thead", "tbody", "tfoot"):
                rows.extend(c for c in child.children
                            if not isinstance(c, str) and c.tag == "tr" and c.removed is None)
        grid_cells: list[list[Node]] = []
        for row in rows:
            cells = [c for c in row.children
                     if not isinstance(c, str) and c.tag in ("td", "th") and c.removed is None]
            grid_cells.append(cells)
            cells_seen.extend(cells)
        layout = node.attr("role").lower() in ("presentation", "none") \
            or len(cells_seen) <= 1 or _laid_out(cells_seen)
        out: list[Block] = []
        if caption is not None:
            out.extend(self.blocks(caption))
        if layout:
            if cells_seen:
                self.counts.layout_tables += 1
            for cell in cells_seen:
                out.extend(self.blocks(cell))
            return out
        grid = self._grid(grid_cells)
        if len(grid) == 1 and len(grid[0]) == 1:  # one non-empty cell: not a table
            for cell in cells_seen:
                out.extend(self.blocks(cell))
            return out
        if not grid:
            self.counts.broken_tables += 1
            return out
        out.append(Table(grid, node))
        return out

    def _cell(self, cell: Node) -> str:
        buf = InlineBuf()
        self.in_cell = True
        try:
            self._inline_children(cell, buf, 0)
        finally:
            self.in_cell = False
        return squeeze(buf.text(" ").replace("\n", " ")).strip()

    def _grid(self, rows: list[list[Node]]) -> list[list[str]]:
        grid: dict[tuple[int, int], str] = {}
        width = 0
        height = min(len(rows), MAX_GRID_ROWS)
        for r in range(height):
            c = 0
            for cell in rows[r]:
                while (r, c) in grid:
                    c += 1
                if c >= MAX_GRID_COLS:
                    self.counts.broken_tables += 1
                    break
                text = self._cell(cell)
                colspan = max(1, min(_int(cell.attrs.get("colspan")) or 1, MAX_GRID_COLS - c))
                rowspan = max(1, min(_int(cell.attrs.get("rowspan")) or 1, height - r))
                for dr in range(rowspan):
                    for dc in range(colspan):
                        grid[(r + dr, c + dc)] = text
                c += colspan
                width = max(width, c)
        if width == 0 or not any(grid.values()):
            return []
        table = [[grid.get((r, c), "") for c in range(width)] for r in range(height)]
        return [row for row in table if any(row)] or []


_BLANKS: Final = str.maketrans("", "", " \t\n\r")  # deletes the four


def _blank(text: str) -> bool:
    """Nothing but spaces, tabs and line breaks, or nothing: ``not text.strip(" \t\n\r")``.

    WHY not that strip: it looks each character up in its argument with a C call, and
    the indentation between tags, a few dozen such characters, is most text nodes. For
    ASCII text ``translate`` looks each distinct character up once.
    """
    if not text.isspace():
        return not text  # (a character that is no whitespace at all is none of the four)
    return not text.translate(_BLANKS)


def _collapsed(pieces: list[str]) -> str:
    """``" ".join("".join(pieces).split())``: a paragraph's plain text, whitespace collapsed.

    The pieces are collapsed already (``Converter._text``), so the paragraph mostly is too
    but for its ends: printable (a space is the only whitespace then) with no double
    space, it only needs stripping, at a fraction of splitting it into words.
    """
    text = "".join(pieces)
    if "  " in text or not _escape.printable(text):
        return " ".join(text.split())
    return text.strip(" ")


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    value = value.strip()
    if (value[:1] in "+-" and value[1:].isdigit()) or value.isdigit():
        return int(value[:12])
    return None


def _clamp(number: int | None) -> int:
    if number is None:
        return 1
    return max(0, min(number, 999_999_999))
