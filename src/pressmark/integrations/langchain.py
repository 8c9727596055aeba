"""LangChain: :class:`PressmarkLoader`, a ``BaseLoader`` giving one document per chunk.

    >>> from pressmark.integrations.langchain import PressmarkLoader
    >>> docs = PressmarkLoader("https://example.org/report", out_dir="crawl").load()
    >>> docs[0].metadata["chunk_id"], docs[0].metadata["source_ref"]

Needs ``langchain-core`` (``pip install 'pressmark[langchain]'``). ``docs/citations.md``
lists every argument and metadata field; :mod:`pressmark.integrations._source` says how
a seed is checked before anything is fetched.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

try:
    from langchain_core.document_loaders import BaseLoader
    from langchain_core.documents import Document
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError("pressmark.integrations.langchain needs langchain-core: "
                      "pip install 'pressmark[langchain]'") from exc

from pressmark.cite._chunks import DEFAULT_MAX_CHARS
from pressmark.integrations._source import ChunkSource, Record

if TYPE_CHECKING:
    from pressmark.crawl import CrawlPolicy
    from pressmark.egress import Resolver

__all__ = ["PressmarkLoader"]


class PressmarkLoader(BaseLoader):
    """Chunks of pages crawled through pressmark's egress guard, or of an existing crawl.

    ``urls``: seed URLs (one string or several); with ``max_depth=0`` (the default) only
    they are fetched, otherwise links are followed (same host) up to ``max_depth`` and
    ``max_pages`` (100 unless given). ``crawl_dir``: read that crawl output directory
    instead, fetching nothing. ``out_dir``: where the crawl writes (its store keeps the
    snapshots that the ``source_ref`` of each document names); without it, a temporary
    directory removed after loading. ``policy`` replaces the crawl policy built from the
    other arguments; ``resolver`` the system's DNS (``StaticResolver`` in tests).
    """

    def __init__(self, urls: str | Sequence[str] | None = None, *,
                 crawl_dir: str | Path | None = None, out_dir: str | Path | None = None,
                 max_chars: int = DEFAULT_MAX_CHARS, overlap: int = 0,
                 max_pages: int | None = None, max_depth: int = 0, render: str = "never",
                 allow_loopback: Sequence[str] = (), policy: CrawlPolicy | None = None,
                 resolver: Resolver | None = None) -> None:
        self.source = ChunkSource.of(urls, crawl_dir, out_dir, max_chars=max_chars,
                                     overlap=overlap, max_pages=max_pages, max_depth=max_depth,
                                     render=render, allow_loopback=tuple(allow_loopback),
                                     policy=policy, resolver=resolver)

    def lazy_load(self) -> Iterator[Document]:
        """One document per chunk, crawling first when seeded."""
        for record in self.source.records():
            yield _document(record)

    async def alazy_load(self) -> AsyncIterator[Document]:
        """:meth:`lazy_load` with the crawl on the running event loop."""
        async for record in self.source.arecords():
            yield _document(record)


def _document(record: Record) -> Document:
    return Document(page_content=record.text, metadata=record.metadata, id=record.doc_id)
