"""A page converted for an MCP result, the conversion job a parser process runs, and the
caps every result string gets.

Kept apart from the tools: the job is imported by name in a parser process, which then
loads this module and the converter, not the tools' own dependencies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pressmark.mcp._options import MARKDOWN_PAGE_BYTES, UNTRUSTED_NOTICE
from pressmark.mcp._paging import cut

if TYPE_CHECKING:
    from pressmark.snapshot import Snapshot

MAX_FIELD_CHARS = 2048
"""Characters of any one string in a result (a title, a URL, a message, a warning); the
page text itself comes in pieces of ``MARKDOWN_PAGE_BYTES``. A page's megabyte title made
a 3.8 MB fetch_page result and an 8.8 MB crawl_site one."""
# page text, capped by ``cut`` or the chunk cap (and the caller's own quote), not here
_PAGED = frozenset({"markdown", "body", "text", "quote"})


@dataclass(frozen=True, slots=True)
class Page:
    """A converted page: its Markdown, title, validation verdict and block map."""

    markdown: str
    title: str | None
    passed: bool
    reasons: tuple[str, ...]
    block_map: Any = None

    def head(self, source_ref: str) -> dict[str, Any]:
        from pressmark.cite import chunk_markdown  # noqa: PLC0415  # lazy

        ids = [c.chunk_id for c in chunk_markdown(self.markdown, self.block_map)]
        return {"title": self.title, "source_ref": source_ref,
                "validation": {"passed": self.passed, "reasons": list(self.reasons)},
                "chunk_ids": ids}

    def piece(self, offset: int) -> dict[str, Any]:
        piece = cut(self.markdown, offset, MARKDOWN_PAGE_BYTES)
        return {"markdown": piece.text, "offset": piece.offset, "truncated": piece.truncated,
                "next_offset": piece.next_offset, "total_chars": piece.total_chars,
                "untrusted_content": True, "notice": UNTRUSTED_NOTICE}


@dataclass(frozen=True, slots=True)
class _Readiness:
    passed: bool
    reason: str
    elapsed_ms: float


def convert_page(job: tuple[Snapshot, tuple[bool, str, float] | None],
                 ) -> Page | tuple[str, str]:
    """A parser process's job: the page converted, or a conversion error's (code, message)
    (its type would not survive the trip back; the code does)."""
    from pressmark.markdown import MarkdownError, to_markdown  # noqa: PLC0415  # the worker

    snapshot, facts = job
    readiness = None if facts is None else _Readiness(*facts)
    try:
        result = to_markdown(snapshot.body, url=snapshot.url,
                             requested_url=snapshot.requested_url, readiness=readiness)
    except MarkdownError as exc:  # a conversion budget (conversion-limit:*): no Markdown
        return exc.code, exc.message
    return Page(result.markdown, result.title, result.validation.passed,
                 tuple(result.validation.reasons), result.evidence.block_map)


def clip(text: str | None, limit: int = MAX_FIELD_CHARS) -> str | None:
    """``text`` cut to ``limit`` characters, saying how many it had."""
    if text is None or len(text) <= limit:
        return text
    return f"{text[:limit]}... [{len(text):,} characters, cut]"


def capped(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with every string cut to :data:`MAX_FIELD_CHARS` (page text apart: it comes
    in pieces), in nested dicts and lists too."""
    return {key: value if key in _PAGED else _capped(value) for key, value in data.items()}


def _capped(value: Any) -> Any:
    if isinstance(value, str):
        return clip(value)
    if isinstance(value, dict):
        return capped(value)
    if isinstance(value, list | tuple):
        return [_capped(item) for item in value]
    return value
