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

import hashlib
import json
from binascii import hexlify
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from pressmark.cite._cut import cut
from pressmark.cite._jsonbytes import json_text, json_texts, json_words

if TYPE_CHECKING:
    from pressmark.markdown import MarkdownResult
    from pressmark.markdown._blockmap import BlockMap

ID_VERSION: Final = "pressmark-chunk/1"
DEFAULT_MAX_CHARS: Final = 2000
MIN_MAX_CHARS: Final = 64


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
_ID_HEAD: Final = f'["{ID_VERSION}",['.encode()
ID_DIGITS: Final = 32  # hex digits of the digest an id keeps


def chunk_id(text: str, heading_path: Sequence[str]) -> str:
    """The id of a chunk holding ``text`` under ``heading_path`` (see the module doc)."""
    return _digest(text, 0, len(text), json_texts(heading_path)).decode("ascii")


def _digest(markdown: str, start: int, end: int, quoted_path: bytes) -> bytes:
    """The id of the chunk ``markdown[start:end]`` under the heading path ``quoted_path``
    (its JSON array's inside), as ASCII bytes: the id's JSON array is written in parts,
    byte for byte what ``json.dumps`` gives, its text straight from the Markdown (WHY: an
    id is made for every chunk of every page; see :mod:`pressmark.cite._jsonbytes`; a test
    checks the bytes against ``json.dumps``)."""
    payload = b"".join((_ID_HEAD, quoted_path, b"],", json_words(markdown, start, end), b"]"))
    return hexlify(hashlib.sha256(payload).digest()[:ID_DIGITS // 2])


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
    """:func:`chunk` on Markdown and its block map (a crawl's files, a page replayed);
    ValueError when the map does not fit the Markdown (a block ends past its end)."""
    _check(max_chars, overlap)
    out: list[Chunk] = []
    for start, end, path, paths in cut(markdown, block_map, max_chars, overlap):
        out.append(Chunk(chunk_id=_digest(markdown, start, end, json_texts(path)).decode(),
                         index=len(out), text=markdown[start:end], heading_path=path,
                         markdown_span=(start, end), dom_paths=paths,
                         source_ref=source_ref, url=url))
    return out


def chunk_lines(result: MarkdownResult, *, max_chars: int = DEFAULT_MAX_CHARS,
                overlap: int = 0) -> str:
    """The chunks of :func:`chunk` as JSON lines: each line byte for byte
    ``json.dumps(c.to_dict(), ensure_ascii=False, separators=(",", ":"))``."""
    return chunk_lines_utf8(result, max_chars=max_chars, overlap=overlap).decode(
        "utf-8", "surrogatepass")


def chunk_lines_utf8(result: MarkdownResult, *, max_chars: int = DEFAULT_MAX_CHARS,
                     overlap: int = 0) -> bytes:
    """:func:`chunk_lines` as UTF-8, what ``md --batch --chunks`` writes.

    WHY not ``json.dumps``: no ``Chunk`` record, no dict, no encoder walk, not even a copy
    of each chunk's text; each string is written as UTF-8 JSON straight from the Markdown
    (:mod:`pressmark.cite._jsonbytes`; a test checks the bytes)."""
    _check(max_chars, overlap)
    markdown = result.markdown
    evidence = result.evidence
    common = b'"source_ref":null,"url":%b,"heading_path":[' % _JSON.encode(
        evidence.url_final).encode("utf-8", "surrogatepass")
    lines: list[bytes] = []
    quoted = b""
    last_path: tuple[str, ...] | None = None
    for start, end, path, paths in cut(markdown, evidence.block_map, max_chars, overlap):
        if path is not last_path:  # a section's chunks share their heading path
            quoted, last_path = json_texts(path), path
        lines.append(b'{"chunk_id":"%b","index":%d,%b%b],"markdown_span":[%d,%d],'
                     b'"dom_paths":[%b],"text":%b}\n'
                     % (_digest(markdown, start, end, quoted), len(lines), common, quoted,
                        start, end, json_texts(paths), json_text(markdown, start, end)))
    return b"".join(lines)


def _check(max_chars: int, overlap: int) -> None:
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) \
            or max_chars < MIN_MAX_CHARS:
        raise ValueError(f"max_chars must be an integer of at least {MIN_MAX_CHARS}")
    if isinstance(overlap, bool) or not isinstance(overlap, int) \
            or not 0 <= overlap < max_chars:
        raise ValueError("overlap must be an integer from 0 to max_chars - 1")
