"""Evidence an agent or a RAG pipeline can cite and check: chunks with stable ids, quotes
verified against the captured snapshot.

    >>> from pressmark.cite import chunk, verify_quote
    >>> chunks = chunk(result, max_chars=1500, source_ref=ref)  # result: to_markdown's
    >>> chunks[0].chunk_id, chunks[0].heading_path, chunks[0].markdown_span
    >>> check = verify_quote(ref, "a sentence the agent attributes to the page", store)
    >>> check.verdict   # "exact" | "normalised" | "not-found"

Chunks are spans of the page's Markdown, cut at headings, then blocks, then sentences
(:mod:`pressmark.cite._chunks` defines the id exactly); a quote is checked offline against
the Markdown re-derived from the snapshot its sourceRef names. ``docs/citations.md`` is
the user's guide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pressmark._lazy import lazy_exports
from pressmark.cite._chunks import chunk, chunk_id, chunk_markdown

if TYPE_CHECKING:
    from pressmark.cite._diff import diff_captures, diff_pages
    from pressmark.cite._divergence import divergence
    from pressmark.cite._pages import CitationError
    from pressmark.cite._verify import QuoteCheck, Verifier, citation, verify_quote

_LAZY: dict[str, str] = {
    **dict.fromkeys(("diff_captures", "diff_pages"), "pressmark.cite._diff"),
    "divergence": "pressmark.cite._divergence",
    "CitationError": "pressmark.cite._pages",
    **dict.fromkeys(("QuoteCheck", "Verifier", "citation", "verify_quote"),
                    "pressmark.cite._verify"),
}

__all__ = [
    "CitationError",
    "QuoteCheck",
    "Verifier",
    "chunk",
    "chunk_id",
    "chunk_markdown",
    "citation",
    "diff_captures",
    "diff_pages",
    "divergence",
    "verify_quote",
]

__getattr__ = lazy_exports(__name__, _LAZY, globals())
