"""What the LangChain and LlamaIndex loaders share: pages from a guarded crawl (or an
existing crawl output directory) cut into chunks, each with what a citation needs.

WHY one source for both: the frameworks differ only in their document class, and the
part that matters (no fetch before the egress guard said yes, the same chunks and ids
as ``pressmark chunks``) must not differ between them.

Every seed URL is checked the way every later hop will be (:func:`evaluate_url`:
parsed, its name resolved, every address checked) before the crawl starts: a seed that
names or resolves to a private, loopback or otherwise denied address raises
:class:`~pressmark.egress.EgressDenied` and nothing is fetched. Pages and redirects met
later are refused by the crawl's guard and recorded, not raised.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import json
import tempfile
from collections.abc import AsyncIterator, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pressmark.cite._chunks import DEFAULT_MAX_CHARS, chunk_markdown

if TYPE_CHECKING:
    from pressmark.crawl import CrawlPolicy
    from pressmark.egress import Resolver

DOC_ID_VERSION = "pressmark-doc/1"
DEFAULT_CRAWL_PAGES = 100  # max_pages when links are followed and none was given
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Record:
    """One chunk as a framework document: its text, metadata and document id."""

    text: str
    metadata: dict[str, Any]
    doc_id: str


def document_id(url: str, chunk_id: str, occurrence: int) -> str:
    """A document's id: stable across recrawls like the chunk id, and unique within a
    load (the same chunk on two pages, or twice on one page, is two documents):
    ``sha256(json(["pressmark-doc/1", url, chunk_id, occurrence]))[:32]``."""
    payload = json.dumps([DOC_ID_VERSION, url, chunk_id, occurrence], ensure_ascii=False,
                         separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass(frozen=True, slots=True, kw_only=True)
class ChunkSource:
    """Where the chunks come from (seed URLs or a crawl directory) and how they are cut."""

    urls: tuple[str, ...] = ()
    crawl_dir: Path | None = None
    out_dir: Path | None = None
    max_chars: int = DEFAULT_MAX_CHARS
    overlap: int = 0
    max_pages: int | None = None
    max_depth: int = 0
    render: str = "never"
    allow_loopback: tuple[str, ...] = ()
    policy: CrawlPolicy | None = None
    resolver: Resolver | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if bool(self.urls) == (self.crawl_dir is not None):
            raise ValueError("give seed URLs or crawl_dir (an existing crawl), one of them")
        if any(not isinstance(u, str) or not u for u in self.urls):
            raise ValueError("every URL must be a non-empty string")
        chunk_markdown("", max_chars=self.max_chars, overlap=self.overlap)  # checks both

    @classmethod
    def of(cls, urls: str | Sequence[str] | None, crawl_dir: str | Path | None,
           out_dir: str | Path | None, **options: Any) -> ChunkSource:
        seeds = (urls,) if isinstance(urls, str) else tuple(urls or ())
        return cls(urls=seeds, crawl_dir=None if crawl_dir is None else Path(crawl_dir),
                   out_dir=None if out_dir is None else Path(out_dir), **options)

    def records(self) -> Iterator[Record]:
        """The chunks, crawling first when seeded (in a thread of its own when this
        thread already runs an event loop)."""
        if self.crawl_dir is not None:
            yield from self._read(self.crawl_dir)
            return
        with self._output() as out:
            _run(self._acquire(out))
            yield from self._read(out)

    async def arecords(self) -> AsyncIterator[Record]:
        """:meth:`records` for an event loop: the crawl runs on it."""
        if self.crawl_dir is not None:
            for record in self._read(self.crawl_dir):
                yield record
            return
        with self._output() as out:
            await self._acquire(out)
            for record in self._read(out):
                yield record

    @contextlib.contextmanager
    def _output(self) -> Iterator[Path]:
        """``out_dir``, or a temporary directory removed once the chunks are read (its
        snapshots with it: pass ``out_dir`` to check quotes against them later)."""
        if self.out_dir is not None:
            yield self.out_dir
            return
        with tempfile.TemporaryDirectory(prefix="pressmark-load-") as tmp:
            yield Path(tmp) / "crawl"

    def crawl_policy(self) -> CrawlPolicy:
        from pressmark.crawl import CrawlPolicy  # noqa: PLC0415  # the crawler, when used
        from pressmark.egress import EgressPolicy  # noqa: PLC0415

        if self.policy is not None:
            return self.policy if self.policy.markdown else replace(self.policy, markdown=True)
        pages = self.max_pages if self.max_pages is not None else \
            len(self.urls) if self.max_depth == 0 else DEFAULT_CRAWL_PAGES
        return CrawlPolicy(max_pages=pages, max_depth=self.max_depth,
                           render=self.render,  # type: ignore[arg-type]  # validated
                           egress=EgressPolicy().allow_loopback(*self.allow_loopback),
                           markdown=True, workers=0)

    async def _acquire(self, out: Path) -> None:
        """The guarded crawl into ``out``; a denied seed raises before any fetch."""
        from pressmark.crawl import crawl  # noqa: PLC0415  # the crawler, when used
        from pressmark.egress import EgressPolicy, evaluate_url  # noqa: PLC0415

        policy = self.crawl_policy()
        policy.validate()
        for url in self.urls:
            await evaluate_url(url, policy=policy.egress or EgressPolicy(),
                               resolver=self.resolver)
        await crawl(list(self.urls), policy, out_dir=out, resolver=self.resolver)

    def _read(self, out: Path) -> Iterator[Record]:
        from pressmark.cite._crawldir import crawl_pages  # noqa: PLC0415

        for page in crawl_pages(out):
            base = page.metadata()
            seen: dict[str, int] = {}
            for piece in chunk_markdown(page.markdown, page.block_map, max_chars=self.max_chars,
                                        overlap=self.overlap, source_ref=page.source_ref,
                                        url=base["url"]):
                occurrence = seen.get(piece.chunk_id, 0)
                seen[piece.chunk_id] = occurrence + 1
                metadata = {**base, "chunk_id": piece.chunk_id, "index": piece.index,
                            "heading_path": list(piece.heading_path),
                            "markdown_span": list(piece.markdown_span),
                            "dom_paths": list(piece.dom_paths)}
                yield Record(piece.text, metadata,
                             document_id(base["url"], piece.chunk_id, occurrence))


def _run(work: Coroutine[Any, Any, _T]) -> _T:
    """``asyncio.run(work)``, on a thread of its own when this thread runs a loop already
    (a notebook, an async web handler calling the sync API)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="pressmark-load") as pool:
        return pool.submit(asyncio.run, work).result()
