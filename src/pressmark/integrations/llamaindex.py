"""LlamaIndex: :class:`PressmarkReader`, a ``BaseReader`` giving one document per chunk.

    >>> from pressmark.integrations.llamaindex import PressmarkReader
    >>> docs = PressmarkReader(out_dir="crawl").load_data("https://example.org/report")
    >>> docs[0].metadata["chunk_id"], docs[0].metadata["source_ref"]

Needs ``llama-index-core`` (``pip install 'pressmark[llamaindex]'``). LlamaIndex's vector
stores keep flat metadata only, so the structured fields (``heading_path``,
``markdown_span``, ``dom_paths``, ``validation``) are compact JSON text here; the ids and
the provenance fields are left out of what is embedded and shown to the model
(``excluded_embed_metadata_keys``, ``excluded_llm_metadata_keys``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

try:
    from llama_index.core.readers.base import BaseReader
    from llama_index.core.schema import Document
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError("pressmark.integrations.llamaindex needs llama-index-core: "
                      "pip install 'pressmark[llamaindex]'") from exc

from pressmark.cite._chunks import DEFAULT_MAX_CHARS
from pressmark.integrations._source import ChunkSource, Record

if TYPE_CHECKING:
    from pressmark.crawl import CrawlPolicy
    from pressmark.egress import Resolver

__all__ = ["PressmarkReader"]

# what the model and the embedding see besides the text: where it is from, not its ids
_SHOWN = frozenset({"title", "url", "heading_path"})


class PressmarkReader(BaseReader):
    """Chunks of pages crawled through pressmark's egress guard, or of an existing crawl.

    The arguments are :class:`pressmark.integrations.langchain.PressmarkLoader`'s; the
    seed URLs (or ``crawl_dir``) may be given to :meth:`load_data` instead of here.
    """

    def __init__(self, urls: str | Sequence[str] | None = None, *,
                 crawl_dir: str | Path | None = None, out_dir: str | Path | None = None,
                 max_chars: int = DEFAULT_MAX_CHARS, overlap: int = 0,
                 max_pages: int | None = None, max_depth: int = 0, render: str = "never",
                 allow_loopback: Sequence[str] = (), policy: CrawlPolicy | None = None,
                 resolver: Resolver | None = None) -> None:
        self.urls = urls
        self.crawl_dir = crawl_dir
        self.out_dir = out_dir
        self.options: dict[str, Any] = {
            "max_chars": max_chars, "overlap": overlap, "max_pages": max_pages,
            "max_depth": max_depth, "render": render, "allow_loopback": tuple(allow_loopback),
            "policy": policy, "resolver": resolver}
        if urls is not None or crawl_dir is not None:
            self._source(urls, crawl_dir)  # bad arguments fail here, not at the first load

    def _source(self, urls: str | Sequence[str] | None, crawl_dir: str | Path | None,
                ) -> ChunkSource:
        if urls is None and crawl_dir is None:
            urls, crawl_dir = self.urls, self.crawl_dir
        return ChunkSource.of(urls, crawl_dir, self.out_dir, **self.options)

    def lazy_load_data(self, urls: str | Sequence[str] | None = None, *,
                       crawl_dir: str | Path | None = None) -> Iterator[Document]:
        """One document per chunk, crawling first when seeded."""
        for record in self._source(urls, crawl_dir).records():
            yield _document(record)

    def load_data(self, urls: str | Sequence[str] | None = None, *,
                  crawl_dir: str | Path | None = None) -> list[Document]:
        return list(self.lazy_load_data(urls, crawl_dir=crawl_dir))

    async def alazy_load_data(self, urls: str | Sequence[str] | None = None, *,
                              crawl_dir: str | Path | None = None) -> Iterable[Document]:
        """The documents, the crawl run on the running event loop (BaseReader's contract:
        an awaitable giving an iterable)."""
        return [_document(r) async for r in self._source(urls, crawl_dir).arecords()]

    async def aload_data(self, urls: str | Sequence[str] | None = None, *,
                         crawl_dir: str | Path | None = None) -> list[Document]:
        return [_document(r) async for r in self._source(urls, crawl_dir).arecords()]


def _document(record: Record) -> Document:
    metadata = {key: json.dumps(value, ensure_ascii=False, separators=(",", ":"))
                if isinstance(value, (list, dict)) else value
                for key, value in record.metadata.items()}
    hidden = [key for key in metadata if key not in _SHOWN]
    return Document(text=record.text, id_=record.doc_id, metadata=metadata,
                    excluded_embed_metadata_keys=hidden, excluded_llm_metadata_keys=hidden)
