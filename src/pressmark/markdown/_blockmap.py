"""Full provenance: every block of the Markdown, its character span and the element it came from.

``to_markdown`` hands the blocks it wrote (each top-level block with its span, as
``_render.render`` placed it) to a :class:`BlockMap` and does nothing more: the map is
worked out the first time someone reads it (``entries``, ``to_dict``, the evidence JSON),
so a conversion whose evidence nobody reads pays nothing for it. What it needs stays
reachable: the blocks (their text is already made) and, through each block's ``source``
element, the chain of its ancestors (``Document.release`` cuts the links down the tree,
not up, so the tree is no reference cycle and the path is still there).

The map lists, in document order, every heading, paragraph, list, list item, code block,
quote, table, definition list and rule, nested blocks too (the paragraphs of a list item,
the blocks of a quote), each with ``[start, end)`` in the Markdown and the element it was
converted from, written as a CSS path (``body > main:nth-of-type(1) > p:nth-of-type(3)``,
``nth-of-type`` among the element's visible siblings of its tag, as the page's parsed tree
holds them). The evidence JSON keeps it compact: each element once, by its parent, and
each block as one line of text (see :meth:`BlockMap.to_dict`, ``docs/citations.md``).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence

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
from pressmark.markdown._lazy_re import LazyPattern
from pressmark.markdown._render import render_block
from pressmark.markdown._tree import Node

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Any, Final

FORMAT: Final = "pressmark-blocks/1"
KINDS: Final = ("heading", "paragraph", "list", "item", "code", "quote", "table", "deflist",
                "rule")

_PLAIN_TAG: Final = LazyPattern(r"[a-z][a-z0-9-]*\Z")


def css_name(tag: str) -> str:
    """A tag name as a CSS type selector: a character CSS gives a meaning (``o:p`` from a
    word processor, ``x.y``) escaped, so that the path still selects the element."""
    out: list[str] = []
    for char in tag:
        if char.isalnum() or char in "-_" or ord(char) > 0x7F:
            out.append(char)
        elif char.isprintable() and not char.isspace():
            out.append("\\" + char)
        else:
            out.append(f"\\{ord(char):x} ")
    return "".join(out)


# (parent index or -1, tag, nth-of-type or 0 for <body>)
DomNode = tuple[int, str, int]
# (kind, start, end, DOM node index or -1 when the block has no element)
Span = tuple[str, int, int, int]


class BlockEntry:
    """One block: its kind, ``[start, end)`` in the Markdown, and its element's CSS path
    (``""`` when the block was made from no element). Immutable, equal by value.

    WHY not a frozen dataclass: compiled, its ``__init__`` still ran as Python (through
    ``object.__setattr__``), some 6,000 instructions an entry, and chunking a page makes
    hundreds; here it is native code (``Final`` attributes are read-only once compiled)."""

    __slots__ = ("dom_path", "end", "kind", "start")

    def __init__(self, kind: str, start: int, end: int, dom_path: str) -> None:
        self.kind: Final = kind
        self.start: Final = start
        self.end: Final = end
        self.dom_path: Final = dom_path

    def contains(self, start: int, end: int) -> bool:
        return self.start <= start and end <= self.end

    def _key(self) -> tuple[str, int, int, str]:
        return (self.kind, self.start, self.end, self.dom_path)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BlockEntry):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"BlockEntry(kind={self.kind!r}, start={self.start!r}, end={self.end!r}, "
                f"dom_path={self.dom_path!r})")


class BlockMap:
    """Every block's span and element, worked out when first read (see the module doc).

    Equal maps are equal whichever way they were made (from blocks or from the evidence
    JSON); a pickled map is the worked-out one.
    """

    __slots__ = ("_blocks", "_entries", "_markdown", "_nodes", "_placed")

    def __init__(self, placed: Sequence[tuple[Block, int, int]] = (), *,
                 markdown: str | None = None, nodes: Sequence[DomNode] | None = None,
                 blocks: Sequence[Span] | None = None) -> None:
        self._placed: Sequence[tuple[Block, int, int]] | None = placed if placed else None
        # the Markdown the blocks were placed in: their text, not rendered a second time
        self._markdown = markdown
        self._nodes: tuple[DomNode, ...] | None = None if nodes is None else tuple(nodes)
        self._blocks: tuple[Span, ...] | None = None if blocks is None else tuple(blocks)
        if self._placed is None and self._blocks is None:
            self._nodes, self._blocks = (), ()
        self._entries: tuple[BlockEntry, ...] | None = None

    # -- reading ---------------------------------------------------------------------------

    def _worked_out(self) -> tuple[tuple[DomNode, ...], tuple[Span, ...]]:
        if self._blocks is None or self._nodes is None:
            placed = self._placed or ()
            self._nodes, self._blocks = _work_out(placed, self._markdown)
            self._placed = self._markdown = None  # the blocks and their elements may go now
        return self._nodes, self._blocks

    @property
    def nodes(self) -> tuple[DomNode, ...]:
        return self._worked_out()[0]

    @property
    def spans(self) -> tuple[Span, ...]:
        return self._worked_out()[1]

    def dom_path(self, node: int) -> str:
        """The CSS path of DOM node ``node`` (an index into ``nodes``); ``""`` for -1."""
        nodes = self.nodes
        parts: list[str] = []
        seen = 0
        while 0 <= node < len(nodes) and seen <= len(nodes):
            parent, tag, nth = nodes[node]
            name = tag if _PLAIN_TAG.get().match(tag) else css_name(tag)
            parts.append(f"{name}:nth-of-type({nth})" if nth else name)
            node = parent if parent < node else -1  # parents come first: no loop
            seen += 1
        return " > ".join(reversed(parts))

    def entries(self) -> tuple[BlockEntry, ...]:
        """Every block in document order (a container before what it holds); made once.
        Each element's path is its parent's and one step (parents come first), not a walk
        to the root per element: chunking reads every path of a page."""
        if self._entries is None:
            nodes, spans = self._worked_out()
            paths = _paths(nodes)
            self._entries = tuple(
                BlockEntry(kind, start, end, paths[node] if 0 <= node < len(paths) else "")
                for kind, start, end, node in spans)
        return self._entries

    def nested(self, index: int) -> tuple[BlockEntry, ...]:
        """Top-level block ``index`` (of :meth:`top_level`) and every block it holds, in
        document order: worked out for that block alone while the map is not (a chunk
        that cuts into one long list needs that list's items, not the whole page's)."""
        if self._placed is None:
            entries = self.entries()
            starts: list[int] = []
            reach = -1
            for position, entry in enumerate(entries):
                if entry.start >= reach:
                    starts.append(position)
                    reach = entry.end
            stop = starts[index + 1] if index + 1 < len(starts) else len(entries)
            return entries[starts[index]:stop]
        block, start, end = self._placed[index]
        dom = _Dom()
        spans: list[Span] = []
        text = self._markdown[start:end] if self._markdown is not None else render_block(block)
        _visit(block, text, _Shift(start), dom, spans, length=end - start)
        paths = _paths(dom.nodes)
        return tuple(BlockEntry(kind, s, e, paths[node] if node >= 0 else "")
                     for kind, s, e, node in spans)

    def top_level(self) -> tuple[tuple[BlockEntry, bool], ...]:
        """The top-level blocks (the Markdown is a sequence of them), each with whether a
        block it holds has its very span (a list of one item). WHY: a chunk made of whole
        blocks names only these, and before the map is worked out they cost no second
        rendering of the page; ``md --batch --chunks`` pays for the rest only on a page
        where a chunk cuts into a block."""
        if self._placed is None:
            out: list[tuple[BlockEntry, bool]] = []
            entries = self.entries()
            reach = -1
            for index, entry in enumerate(entries):
                if entry.start >= reach:
                    shared = any(other.start == entry.start and other.end == entry.end
                                 for other in entries[index + 1:index + 2])
                    out.append((entry, shared))
                    reach = entry.end
            return tuple(out)
        dom = _Dom()
        placed = [(block, start, end, dom.of(block.source)) for block, start, end in self._placed]
        paths = _paths(dom.nodes)
        return tuple((BlockEntry(_kind(block), start, end, paths[node] if node >= 0 else ""),
                      isinstance(block, ListBlock) and _items_written(block, dom) < 2)
                     for block, start, end, node in placed)

    def __iter__(self) -> Iterator[BlockEntry]:
        return iter(self.entries())

    def __len__(self) -> int:
        return len(self.spans)

    # -- JSON ------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """``{"format", "dom", "blocks"}``: ``dom[i]`` is ``"PARENT TAG NTH"`` (PARENT an
        index into ``dom``, -1 for the root; NTH 0 for ``body``), ``blocks[j]`` is
        ``"KIND START END DOM"`` (DOM -1: no element). One short string per line of JSON."""
        nodes, spans = self._worked_out()
        return {
            "format": FORMAT,
            "dom": [f"{parent} {tag} {nth}" for parent, tag, nth in nodes],
            "blocks": [f"{kind} {start} {end} {node}" for kind, start, end, node in spans],
        }

    @classmethod
    def from_dict(cls, data: Any) -> BlockMap:
        """The map an evidence packet's ``block_map`` holds; ValueError when malformed."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} block map")
        dom, blocks = data.get("dom"), data.get("blocks")
        if not isinstance(dom, list) or not isinstance(blocks, list):
            raise ValueError("block map without dom and blocks lists")
        nodes: list[DomNode] = []
        for index, entry in enumerate(dom):
            parent, tag, nth = _fields(entry, 3)
            if not -1 <= int(parent) < index:
                raise ValueError("block map: a DOM node names no earlier parent")
            nodes.append((int(parent), tag, int(nth)))
        spans: list[Span] = []
        for entry in blocks:
            kind, start, end, node = _fields(entry, 4)
            if kind not in KINDS or not 0 <= int(start) <= int(end) \
                    or not -1 <= int(node) < len(nodes):
                raise ValueError("block map: malformed block entry")
            spans.append((kind, int(start), int(end), int(node)))
        return cls(nodes=nodes, blocks=spans)

    # -- value semantics -------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BlockMap):
            return NotImplemented
        return self._worked_out() == other._worked_out()

    __hash__ = None  # type: ignore[assignment]  # mutable until worked out

    def __reduce__(self) -> tuple[Any, ...]:
        nodes, spans = self._worked_out()
        return (_rebuild, (nodes, spans))

    def __repr__(self) -> str:
        return f"BlockMap({len(self)} blocks)"


def _paths(nodes: Sequence[DomNode]) -> list[str]:
    """Every DOM node's CSS path, each its parent's and one step (parents come first).
    Each tag's selector is worked out once (a page has a few dozen tags and hundreds of
    elements: the regular expression was most of the cost)."""
    paths: list[str] = []
    names: dict[str, str] = {}
    for index, (parent, tag, nth) in enumerate(nodes):
        name = names.get(tag)
        if name is None:
            name = names[tag] = tag if _PLAIN_TAG.get().match(tag) else css_name(tag)
        step = f"{name}:nth-of-type({nth})" if nth else name
        paths.append(f"{paths[parent]} > {step}" if 0 <= parent < index else step)
    return paths


def _items_written(block: ListBlock, dom: _Dom) -> int:
    """How many of a list's items have any Markdown, counted up to two."""
    count = 0
    for item in block.items:
        if _written(item.blocks, dom):
            count += 1
            if count == 2:
                break
    return count


def _written(blocks: list[Block], dom: _Dom) -> bool:
    """Whether any of ``blocks`` has Markdown. A function of its own: mypyc makes a list of
    a generator nested in a comprehension (every block rendered), not of this one."""
    return any(dom.text(block) for block in blocks)


def _rebuild(nodes: tuple[DomNode, ...], spans: tuple[Span, ...]) -> BlockMap:
    return BlockMap(nodes=nodes, blocks=spans)


def _fields(entry: Any, count: int) -> list[str]:
    if not isinstance(entry, str):
        raise ValueError("block map entries are strings")
    parts = entry.split(" ")
    if len(parts) != count:
        raise ValueError(f"block map entry {entry[:40]!r} has not {count} fields")
    return parts


# -- working it out ------------------------------------------------------------------------


class _Dom:
    """The DOM node table: each element once, parents first, found by walking up; and
    each nested block's Markdown, rendered once (a list item's blocks are read twice)."""

    __slots__ = ("index", "nodes", "rendered")

    def __init__(self) -> None:
        self.nodes: list[DomNode] = []
        # Node -> index: keyed by the element itself (hashed by identity), not by id(),
        # which boxed an int for every step of every walk up the tree
        self.index: dict[Node, int] = {}
        self.rendered: dict[int, str] = {}  # id(Block) -> its Markdown (alive meanwhile)

    def text(self, block: Block) -> str:
        key = id(block)
        text = self.rendered.get(key)
        if text is None:
            text = self.rendered[key] = render_block(block)
        return text

    def of(self, node: Node | None) -> int:
        if node is None:
            return -1
        chain: list[Node] = []
        walk: Node | None = node
        parent = -1
        while walk is not None:
            known = self.index.get(walk)
            if known is not None:
                parent = known
                break
            chain.append(walk)
            walk = walk.parent
        for item in reversed(chain):
            self.index[item] = len(self.nodes)
            self.nodes.append((parent, item.tag, item.nth))
            parent = len(self.nodes) - 1
        return parent


def _kind(block: Block) -> str:
    if isinstance(block, Para):
        return "paragraph"
    if isinstance(block, Heading):
        return "heading"
    if isinstance(block, ListBlock):
        return "list"
    if isinstance(block, Code):
        return "code"
    if isinstance(block, Quote):
        return "quote"
    if isinstance(block, Table):
        return "table"
    if isinstance(block, DefList):
        return "deflist"
    if isinstance(block, Rule):
        return "rule"
    raise TypeError(f"not a block: {block!r}")  # pragma: no cover - exhaustive above


class _Layout:
    """Offsets in a container's body text -> offsets in the Markdown.

    A list item's body is written with its marker before the first line and ``pad``
    before every other non-empty line; a quote's with ``"> "`` before every non-empty
    line and ``">"`` on an empty one. ``base`` maps the container's own text.
    """

    __slots__ = ("added", "line_starts", "parent")

    def __init__(self, body: str, first: int, other: int, empty: int,
                 parent: _Where) -> None:
        self.parent = parent
        starts = [0]
        added = [first]
        total = first
        at = body.find("\n")
        while at >= 0:
            starts.append(at + 1)
            nxt = body.find("\n", at + 1)
            line_empty = (nxt if nxt >= 0 else len(body)) == at + 1
            total += empty if line_empty else other
            added.append(total)
            at = nxt
        self.line_starts = starts
        # prefix chars written before each line, and before it: through line i
        self.added = added

    def at(self, offset: int) -> int:
        line = bisect.bisect_right(self.line_starts, offset) - 1
        return self.parent.at(offset + self.added[line])


class _Shift:
    __slots__ = ("base",)

    def __init__(self, base: int) -> None:
        self.base = base

    def at(self, offset: int) -> int:
        return self.base + offset


def _work_out(placed: Sequence[tuple[Block, int, int]], markdown: str | None,
              ) -> tuple[tuple[DomNode, ...], tuple[Span, ...]]:
    dom = _Dom()
    spans: list[Span] = []
    for block, start, end in placed:
        text = markdown[start:end] if markdown is not None else render_block(block)
        _visit(block, text, _Shift(start), dom, spans, length=end - start)
    return tuple(dom.nodes), tuple(spans)


def _visit(block: Block, text: str, where: _Where, dom: _Dom, spans: list[Span], *,
           length: int) -> None:
    """Add ``block`` (written as ``text``, whose offset 0 ``where`` maps) and what it holds."""
    start = where.at(0)
    end = where.at(length - 1) + 1 if length else start
    spans.append((_kind(block), start, end, dom.of(block.source)))
    if isinstance(block, ListBlock):
        _list_items(block, text, where, dom, spans)
    elif isinstance(block, Quote):
        body = "\n".join(line[2:] if line.startswith("> ") else "" for line in text.split("\n"))
        _children(block.blocks, body, _Layout(body, 2, 2, 1, where), dom, spans)


def _children(blocks: list[Block], body: str, where: _Where, dom: _Dom,
              spans: list[Span]) -> None:
    """Each block of ``blocks`` found in order in ``body`` (their join); a block not found
    (the layout is not what this module reads) ends the walk: no span is ever guessed."""
    at = 0
    for child in blocks:
        text = dom.text(child)
        if not text:
            continue
        found = body.find(text, at)
        if found < 0:
            return
        _visit(child, text, _Offset(found, where), dom, spans, length=len(text))
        at = found + len(text)


class _Offset:
    """``where`` seen from ``delta`` characters into the body."""

    __slots__ = ("delta", "where")

    def __init__(self, delta: int, where: _Where) -> None:
        self.delta = delta
        self.where = where

    def at(self, offset: int) -> int:
        return self.where.at(self.delta + offset)


_Where = _Shift | _Layout | _Offset


def _list_items(block: ListBlock, text: str, where: _Where, dom: _Dom,
                spans: list[Span]) -> None:
    """The list's items: each starts on a line of the list's text that is not indented."""
    lines = text.split("\n")
    starts: list[int] = []
    offset = 0
    for line in lines:
        if line and not line[0].isspace():
            starts.append(offset)
        offset += len(line) + 1
    items = [item for item in block.items if _written(item.blocks, dom)]
    if len(items) != len(starts):
        return
    list_node = block.source
    for index, item in enumerate(items):
        begin = starts[index]
        stop = starts[index + 1] if index + 1 < len(starts) else len(text)
        item_text = text[begin:stop].rstrip("\n")
        marker = f"{item.number}." if block.ordered else "-"
        if not item_text.startswith(marker + " "):
            return
        pad = len(marker) + 1
        item_where = _Offset(begin, where)
        source = _item_element(item.blocks, list_node)
        spans.append(("item", item_where.at(0), item_where.at(len(item_text) - 1) + 1,
                      dom.of(source)))
        body_lines = item_text.split("\n")
        body = "\n".join([body_lines[0][pad:], *(line[pad:] for line in body_lines[1:])])
        _children(item.blocks, body, _Layout(body, pad, pad, 0, item_where), dom, spans)


def _item_element(blocks: list[Block], list_node: Node | None) -> Node | None:
    """The element an item came from: the child of the list's element (the ``<li>``) that
    holds its blocks; the list's element when they lie in several (text between items
    joins the item before it); the first block's element when the list has none."""
    found: Node | None = None
    for block in blocks:
        walk = block.source
        while walk is not None and list_node is not None and walk.parent is not list_node:
            walk = walk.parent
        if walk is None:
            continue
        if found is not None and walk is not found:
            return list_node
        found = walk
    if found is None:
        return next((b.source for b in blocks if b.source is not None), None)
    return found
