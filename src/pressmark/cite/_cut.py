"""The cutting of a page's Markdown into chunk spans, and the elements each span covers.

:mod:`pressmark.cite._chunks` is the public side (the ``Chunk`` record, ids, argument
checks) and documents the rules; this module is the work, compiled with mypyc (pyproject
lists it). WHY apart: a compiled function checks its argument types itself (a TypeError
before ``chunk``'s ValueError could say what is wrong), and ``md --batch --chunks`` spends
its time in these loops (units, packing, the block map's top level, DOM paths), which
mypyc runs several times faster than the interpreter, with the same results.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from typing import Final
from zlib import crc32

from pressmark.markdown._blockmap import BlockEntry, BlockMap

BOUNDARY_SHARE: Final = 0.5  # a chunk may end at a boundary block once this full
# The expressions are compiled where used, each time: ``re.compile`` answers from its own
# cache after the first. WHY not at import: compiling all four costs as much as cutting a
# dozen pages (~5 M instructions), and most batches need one or none of them.
_HEADING: Final = r"#{1,6}[ \t]+"
# a sentence ends at . ! ? … (or their CJK forms), maybe closed by quotes or brackets,
# before whitespace; the next sentence starts after that whitespace
_SENTENCE: Final = r"[.!?…。！？][\"'”’»)\]]*(?:[ \t]+|\\?\n[ \t]*)"
_WORD_GAP: Final = r"\s+"
_PARAGRAPH: Final = r"[^\n](?:.|\n(?!\n))*"  # a run of lines without a blank one

# (start, end, heading path, DOM paths) of each chunk
Span = tuple[int, int, tuple[str, ...], tuple[str, ...]]


def cut(markdown: str, block_map: BlockMap | None, max_chars: int, overlap: int) -> list[Span]:
    """The chunks' spans, heading paths and elements (see :mod:`pressmark.cite._chunks`)."""
    top = _TopLevel(block_map.top_level() if block_map is not None else ())
    if top.entries and top.entries[-1].end > len(markdown):
        raise ValueError("the block map does not fit the Markdown (a block ends past its end)")
    units = _units(markdown, top.entries, max_chars)
    out: list[Span] = []
    for first, last, path in _pack(markdown, units, max_chars):
        start, end = units[first].start, units[last].end
        if overlap:
            start = _overlap_start(markdown, units, first, start, overlap)
        paths = top.paths(start, end)
        if paths is None:  # it cuts into a block
            paths = top.cut_paths(block_map, start, end) if block_map is not None else ()
        out.append((start, end, path, paths))
    return out


class _Unit:
    """A piece packing never cuts further apart than this: a heading line, a block, a list
    item, a table row, a code line or a sentence."""

    __slots__ = ("end", "heading", "start", "whole")

    def __init__(self, start: int, end: int, heading: int, *, whole: bool) -> None:
        self.start = start
        self.end = end
        self.heading = heading  # its level when the unit is a heading line, else 0
        self.whole = whole      # a table row or code line: never cut further


# -- units ----------------------------------------------------------------------------------


def _top_level(markdown: str, entries: Sequence[BlockEntry]) -> list[tuple[int, int, str]]:
    """The top-level blocks: from the block map, or (without one) the blank-line runs."""
    if entries:
        out: list[tuple[int, int, str]] = []
        reach = -1
        for entry in entries:
            if entry.start >= reach:
                out.append((entry.start, entry.end, entry.kind))
                reach = entry.end
        return out
    blocks = []
    for m in re.compile(_PARAGRAPH).finditer(markdown):
        text = m.group()
        kind = "heading" if re.match(_HEADING, text) else "code" if text.startswith("```") \
            else "table" if text.startswith("|") else "paragraph"
        blocks.append((m.start(), _trimmed_end(markdown, m.start(), m.end()), kind))
    return blocks


def _units(markdown: str, entries: Sequence[BlockEntry], max_chars: int) -> list[_Unit]:
    units: list[_Unit] = []
    for start, end, kind in _top_level(markdown, entries):
        if markdown[start:start + 1] == "<" and markdown.startswith("<!-- -->", start):
            continue  # the comment that keeps two lists apart is no content
        if kind == "heading":
            level = len(markdown[start:end]) - len(markdown[start:end].lstrip("#"))
            units.append(_Unit(start, end, max(1, level), whole=True))
        elif end - start <= max_chars:
            units.append(_Unit(start, end, 0, whole=False))
        else:
            units.extend(_split(markdown, start, end, kind, max_chars))
    return units


def _lines(markdown: str, start: int, end: int) -> list[tuple[int, int]]:
    out = []
    at = start
    while at < end:
        stop = markdown.find("\n", at, end)
        stop = end if stop < 0 else stop
        if stop > at:
            out.append((at, stop))
        at = stop + 1
    return out


def _groups(lines: list[tuple[int, int]], markdown: str, kind: str) -> list[tuple[int, int]]:
    """Lines grouped into what may not be cut apart: a list item (a line that is not
    indented starts one), a quote paragraph (a bare ``>`` line ends one), a table's header
    with its separator row, a code fence with its first or last line."""
    groups: list[list[tuple[int, int]]] = []
    for index, (s, e) in enumerate(lines):
        line = markdown[s:e]
        if kind == "list":
            new = not line[:1].isspace() or not groups
        elif kind == "quote":
            if line.strip() == ">":
                groups.append([])
                continue
            new = not groups or not groups[-1]
        elif kind == "table":
            new = index != 1
        elif kind == "code":
            new = 0 < index < len(lines) - 1 or not groups
        else:
            new = True
        if new or not groups:
            groups.append([(s, e)])
        else:
            groups[-1].append((s, e))
    return [(g[0][0], g[-1][1]) for g in groups if g]


def _split(markdown: str, start: int, end: int, kind: str, max_chars: int) -> list[_Unit]:
    """A block longer than ``max_chars`` as smaller units (see the module doc)."""
    if kind in ("table", "code"):
        return [_Unit(s, e, 0, whole=True) for s, e in
                _groups(_lines(markdown, start, end), markdown, kind)]
    out: list[_Unit] = []
    if kind in ("list", "quote", "deflist"):
        pieces = _groups(_lines(markdown, start, end), markdown, kind)
    else:
        pieces = [(start, end)]
    for s, e in pieces:
        if e - s <= max_chars:
            out.append(_Unit(s, e, 0, whole=False))
        else:
            out.extend(_Unit(a, b, 0, whole=False)
                       for a, b in _sentences(markdown, s, e, max_chars))
    return out


def _sentences(markdown: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """``[start, end)`` cut after sentence ends, then between words, then anywhere, into
    pieces of at most ``max_chars`` (consecutive short sentences stay apart: packing joins
    them again)."""
    sentence = re.compile(_SENTENCE)
    cuts = [m.end() for m in sentence.finditer(markdown, start, end) if m.end() < end]
    bounds = [start, *cuts, end]
    out: list[tuple[int, int]] = []
    for first, last in itertools.pairwise(bounds):
        a, b = first, _trimmed_end(markdown, first, last)
        while b - a > max_chars:
            gaps = list(re.compile(_WORD_GAP).finditer(markdown, a + 1, a + max_chars + 1))
            if gaps:
                out.append((a, _trimmed_end(markdown, a, gaps[-1].start())))
                a = gaps[-1].end()
            else:
                out.append((a, a + max_chars))
                a += max_chars
        if b > a:
            out.append((a, b))
    return out


def _trimmed_end(markdown: str, start: int, end: int) -> int:
    while end > start and markdown[end - 1].isspace():
        end -= 1
    return end


# -- packing --------------------------------------------------------------------------------


BOUNDARY_WORDS: Final = 8  # the words of a block that decide whether it is a boundary block


_HEAD_CHARS: Final = 256  # enough text for the first words of nearly every block


def _boundary(markdown: str, start: int, end: int) -> bool:
    """A boundary block: the CRC-32 of its first words is even. Its first words only, so
    that an edit further into the block leaves the boundaries where they were."""
    words = markdown[start:min(end, start + _HEAD_CHARS)].split(None, BOUNDARY_WORDS)
    if len(words) <= BOUNDARY_WORDS and end > start + _HEAD_CHARS:
        words = markdown[start:end].split(None, BOUNDARY_WORDS)  # long words: all of it
    head = " ".join(words[:BOUNDARY_WORDS])
    return crc32(head.encode("utf-8", "surrogatepass")) % 2 == 0


def _pack(markdown: str, units: list[_Unit], max_chars: int,
          ) -> list[tuple[int, int, tuple[str, ...]]]:
    """``(first unit, last unit, heading path)`` of each chunk."""
    out: list[tuple[int, int, tuple[str, ...]]] = []
    stack: list[tuple[int, str]] = []
    first = -1
    content = False  # the open chunk holds more than headings
    path: tuple[str, ...] = ()
    min_fill = int(max_chars * BOUNDARY_SHARE)

    def close(last: int) -> None:
        nonlocal first, content
        if first >= 0:
            out.append((first, last, path if content else _path(stack)))
        first, content = -1, False

    for index, unit in enumerate(units):
        if unit.heading:
            if content:
                close(index - 1)
            while stack and stack[-1][0] >= unit.heading:
                stack.pop()
            stack.append((unit.heading, markdown[unit.start:unit.end].lstrip("#").strip()))
            if first < 0:
                first = index
            continue
        if content and unit.end - units[first].start > max_chars:
            close(index - 1)
        if first < 0:
            first = index
        if not content:
            path = _path(stack)
            content = True
        if unit.end - units[first].start >= min_fill \
                and _boundary(markdown, unit.start, unit.end):
            close(index)
    close(len(units) - 1)
    return out


def _path(stack: list[tuple[int, str]]) -> tuple[str, ...]:
    return tuple(text for _, text in stack)


def _overlap_start(markdown: str, units: list[_Unit], first: int, start: int,
                   overlap: int) -> int:
    """Where a chunk starts with ``overlap``: earlier, at a unit or sentence start of its own
    section, at most ``overlap`` characters before ``start``."""
    best = start
    index = first - 1
    while index >= 0:
        unit = units[index]
        if unit.heading:
            break
        if start - unit.start <= overlap:
            best = unit.start
            index -= 1
            continue
        if not unit.whole:  # a sentence start inside it, near enough
            for m in re.compile(_SENTENCE).finditer(markdown, unit.start, unit.end):
                if start - m.end() <= overlap and m.end() < unit.end:
                    best = min(best, m.end())
                    break
        break
    return best


class _TopLevel:
    """The page's top-level blocks: a chunk of whole ones names their elements alone."""

    __slots__ = ("entries", "nested", "shared", "starts")

    def __init__(self, top: Sequence[tuple[BlockEntry, bool]]) -> None:
        self.nested: dict[int, _Blocks] = {}
        self.entries = [entry for entry, _ in top]
        self.shared = [shared for _, shared in top]
        self.starts = [entry.start for entry in self.entries]

    def paths(self, start: int, end: int) -> tuple[str, ...] | None:
        """The elements of the blocks ``[start, end)`` holds whole, or ``None`` when it
        cuts into one, or holds one whose inner block has its span (ask every block)."""
        entries = self.entries
        lo = bisect.bisect_left(self.starts, start)
        hi = bisect.bisect_left(self.starts, end, lo)
        if lo > 0 and entries[lo - 1].end > start:
            return None
        paths: dict[str, None] = {}  # in order, each once
        for index in range(lo, hi):
            entry = entries[index]
            if entry.end > end or self.shared[index]:
                return None
            if entry.end > start and entry.dom_path:
                paths[entry.dom_path] = None
        return tuple(paths)


    def cut_paths(self, block_map: BlockMap, start: int, end: int) -> tuple[str, ...]:
        """The elements of ``[start, end)`` when it cuts into a block: a top-level block it
        holds whole by its own element, one it cuts into (or whose inner block has its
        span) by :func:`_dom_paths` over that block's own blocks, each worked out alone
        and kept (blocks of different top-level blocks never hold one another)."""
        entries = self.entries
        first = bisect.bisect_left(self.starts, start)
        if first > 0 and entries[first - 1].end > start:
            first -= 1
        last = bisect.bisect_left(self.starts, end, first)
        paths: dict[str, None] = {}  # in order, each once
        for index in range(first, last):
            entry = entries[index]
            if entry.end <= start:
                continue
            if start <= entry.start and entry.end <= end and not self.shared[index]:
                found: tuple[str, ...] = (entry.dom_path,) if entry.dom_path else ()
            else:
                blocks = self.nested.get(index)
                if blocks is None:
                    blocks = self.nested[index] = _Blocks(block_map.nested(index))
                found = _dom_paths(blocks, start, end)
            paths.update(dict.fromkeys(found))
        return tuple(paths)


class _Blocks:
    """The block map's entries with what finding a span's elements fast needs: their
    starts (ascending: a container comes before what it holds) and each one's innermost
    container. WHY: a page has hundreds of blocks and tens of chunks; looking at every
    block for every chunk cost as much as cutting the page."""

    __slots__ = ("entries", "parent", "starts")

    def __init__(self, entries: Sequence[BlockEntry]) -> None:
        self.entries = entries
        self.starts = [e.start for e in entries]
        self.parent: list[int] = []
        stack: list[int] = []
        for entry in entries:
            while stack and not entries[stack[-1]].contains(entry.start, entry.end):
                stack.pop()
            self.parent.append(stack[-1] if stack else -1)
            stack.append(len(self.parent) - 1)

    def touched(self, start: int, end: int) -> list[int]:
        """The blocks ``[start, end)`` overlaps, in order: those that hold ``start`` (the
        containers of the last block starting before it), then those starting inside."""
        entries = self.entries
        lo = bisect.bisect_left(self.starts, start)
        hi = bisect.bisect_left(self.starts, end, lo)
        holding: list[int] = []
        at = lo - 1
        while at >= 0:
            if entries[at].end > start:
                holding.append(at)
            at = self.parent[at]
        holding.reverse()
        return holding + [i for i in range(lo, hi) if entries[i].end > start]


def _dom_paths(blocks: _Blocks, start: int, end: int) -> tuple[str, ...]:
    """The elements of the blocks a span covers: a block inside the span by its own element
    (not those of what it holds), a block the span only cuts into by the blocks inside it
    that the span touches, or its own element when none."""
    entries, parent = blocks.entries, blocks.parent
    touched = blocks.touched(start, end)
    paths: dict[str, None] = {}  # in order, each once
    for place, index in enumerate(touched):
        entry = entries[index]
        span = (entry.start, entry.end)
        if start <= entry.start and entry.end <= end:
            up = parent[index]
            held = False
            while up >= 0 and start <= entries[up].start and entries[up].end <= end:
                if (entries[up].start, entries[up].end) != span:
                    held = True  # a block within a block the span holds whole
                    break
                up = parent[up]
            if held:
                continue
        elif any(entry.start <= entries[o].start and entries[o].end <= entry.end
                 and (entries[o].start, entries[o].end) != span
                 for o in itertools.islice(touched, place + 1, None)):
            continue  # cut into: the blocks inside it stand for it
        if entry.dom_path:
            paths[entry.dom_path] = None
    return tuple(paths)
