"""Chunks of a page's Markdown with stable ids, spans and the elements they cover.

``chunk(result, max_chars=2000)`` cuts the Markdown at headings first (a chunk never runs
from one section into the next), then between blocks, then, for a block longer than
``max_chars``, between list items, quote paragraphs, table rows or code lines, then
between sentences, then words. A table row or a code line is never cut: one longer than
``max_chars`` is a chunk of its own, longer than asked. Every chunk is exactly a span of
the Markdown (``markdown[start:end] == chunk.text``).

Within a section, blocks are packed up to ``max_chars``; a chunk also ends after a block
once it holds half of ``max_chars`` if that block is a *boundary block*, chosen by its
first words (the CRC-32 of its first eight words is even). WHY: where chunks end then
depends on the text near the end, not on everything before it, so an edit inside a block
leaves the boundaries where they were, unless it moves a chunk across a size limit, and
then only up to the next boundary block: the chunks past that keep their ids (greedy
packing alone would shift every later boundary of the section when one paragraph grows
a word).

``chunk_id`` is the first 32 hex digits of SHA-256 over the UTF-8 of the compact JSON
array ``["pressmark-chunk/1", [heading, ...], text]``, where ``text`` is the chunk's text
with every run of whitespace made one space and none at either end, and each heading is
a heading line of the path without its ``#`` marks: the same text under the same headings
has the same id on any machine, in any crawl.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any, Final

from pressmark.markdown._blockmap import BlockEntry, BlockMap

if TYPE_CHECKING:
    from pressmark.markdown import MarkdownResult

ID_VERSION: Final = "pressmark-chunk/1"
DEFAULT_MAX_CHARS: Final = 2000
MIN_MAX_CHARS: Final = 64
BOUNDARY_SHARE: Final = 0.5  # a chunk may end at a boundary block once this full
_SEPARATOR: Final = 2        # the blank line between two blocks
_HEADING: Final = re.compile(r"#{1,6}[ \t]+")
# a sentence ends at . ! ? … (or their CJK forms), maybe closed by quotes or brackets,
# before whitespace; the next sentence starts after that whitespace
_SENTENCE: Final = re.compile(r"[.!?…。！？][\"'”’»)\]]*(?:[ \t]+|\\?\n[ \t]*)")
_WORD_GAP: Final = re.compile(r"\s+")


@dataclass(frozen=True, slots=True, kw_only=True)
class Chunk:
    """One chunk: its stable id, its text (a span of the page's Markdown) and where it is from."""

    chunk_id: str
    index: int
    text: str
    heading_path: tuple[str, ...]
    markdown_span: tuple[int, int]
    dom_paths: tuple[str, ...]
    source_ref: str | None = None
    url: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id, "index": self.index, "source_ref": self.source_ref,
            "url": self.url, "heading_path": list(self.heading_path),
            "markdown_span": list(self.markdown_span), "dom_paths": list(self.dom_paths),
            "text": self.text,
        }


_JSON: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def chunk_id(text: str, heading_path: Sequence[str]) -> str:
    """The id of a chunk holding ``text`` under ``heading_path`` (see the module doc).

    The JSON array is written in two parts, byte for byte what ``json.dumps`` gives
    (WHY: an id is made for every chunk of every page; one encoder made once, and the
    text encoded by the C string encoder directly, keep ``md --batch --chunks`` cheap)."""
    quoted = encode_basestring(" ".join(text.split()))
    payload = f"{_JSON.encode([ID_VERSION, list(heading_path)])[:-1]},{quoted}]"
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class _Unit:
    start: int
    end: int
    heading: int  # its level when the unit is a heading line, else 0
    whole: bool   # a table row or code line: never cut further


def chunk(result: MarkdownResult, *, max_chars: int = DEFAULT_MAX_CHARS, overlap: int = 0,
          source_ref: str | None = None, url: str | None = None) -> list[Chunk]:
    """The chunks of a converted page (see the module doc); ``source_ref`` and ``url`` are
    carried on each chunk (``url`` defaults to the page's final URL)."""
    return chunk_markdown(result.markdown, result.evidence.block_map, max_chars=max_chars,
                          overlap=overlap, source_ref=source_ref,
                          url=url if url is not None else result.evidence.url_final)


def chunk_markdown(markdown: str, block_map: BlockMap | None = None, *,
                   max_chars: int = DEFAULT_MAX_CHARS, overlap: int = 0,
                   source_ref: str | None = None, url: str | None = None) -> list[Chunk]:
    """:func:`chunk` on Markdown and its block map (a crawl's files, a page replayed)."""
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) \
            or max_chars < MIN_MAX_CHARS:
        raise ValueError(f"max_chars must be an integer of at least {MIN_MAX_CHARS}")
    if isinstance(overlap, bool) or not isinstance(overlap, int) \
            or not 0 <= overlap < max_chars:
        raise ValueError("overlap must be an integer from 0 to max_chars - 1")
    top = _TopLevel(block_map.top_level() if block_map is not None else ())
    units = _units(markdown, top.entries, max_chars)
    out: list[Chunk] = []
    for first, last, path in _pack(markdown, units, max_chars):
        start, end = units[first].start, units[last].end
        if overlap:
            start = _overlap_start(markdown, units, first, start, overlap)
        text = markdown[start:end]
        paths = top.paths(start, end)
        if paths is None and block_map is not None:  # it cuts into a block
            paths = top.cut_paths(block_map, start, end)
        out.append(Chunk(chunk_id=chunk_id(text, path), index=len(out), text=text,
                         heading_path=path, markdown_span=(start, end),
                         dom_paths=paths or (), source_ref=source_ref, url=url))
    return out


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
    for m in re.finditer(r"[^\n](?:.|\n(?!\n))*", markdown):
        text = m.group()
        kind = "heading" if _HEADING.match(text) else "code" if text.startswith("```") \
            else "table" if text.startswith("|") else "paragraph"
        blocks.append((m.start(), _trimmed_end(markdown, m.start(), m.end()), kind))
    return blocks


def _units(markdown: str, entries: Sequence[BlockEntry], max_chars: int) -> list[_Unit]:
    units: list[_Unit] = []
    for start, end, kind in _top_level(markdown, entries):
        if markdown.startswith("<!-- -->", start):
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
    cuts = [m.end() for m in _SENTENCE.finditer(markdown, start, end) if m.end() < end]
    bounds = [start, *cuts, end]
    out: list[tuple[int, int]] = []
    for first, last in itertools.pairwise(bounds):
        a, b = first, _trimmed_end(markdown, first, last)
        while b - a > max_chars:
            gaps = list(_WORD_GAP.finditer(markdown, a + 1, a + max_chars + 1))
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
    return zlib.crc32(head.encode("utf-8", "surrogatepass")) % 2 == 0


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
            for m in _SENTENCE.finditer(markdown, unit.start, unit.end):
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
