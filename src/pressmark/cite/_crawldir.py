"""The pages of a crawl output directory, as chunking and the loaders read them.

Each page of ``pages.jsonl`` that has Markdown (``ok`` or ``not-modified``) is read with
its evidence: the Markdown file as the crawl wrote it, the block map from the evidence
packet. A crawl written before block maps were kept has none: its pages are then
re-derived from the crawl's store, when there is one and the Markdown it gives is the
same; otherwise the page is chunked without elements (``dom_paths`` empty).

Paths in ``pages.jsonl`` are relative to the directory and must stay inside it: a record
that names a file elsewhere (``../``, an absolute path, a symlink out) is skipped, never
followed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pressmark.markdown._blockmap import BlockMap

MAX_SIDE_FILE = 64 * 1024 * 1024  # a Markdown or evidence file larger than this is skipped
_WITH_MARKDOWN = frozenset({"ok", "not-modified"})


@dataclass(frozen=True, slots=True, kw_only=True)
class CrawlPage:
    """One page of a crawl with its Markdown, block map and record fields."""

    url: str
    final_url: str | None
    source_ref: str | None
    fetched_at: str | None
    title: str | None
    validation: dict[str, Any] | None
    markdown: str
    block_map: BlockMap | None

    def metadata(self) -> dict[str, Any]:
        return {"url": self.final_url or self.url, "source_ref": self.source_ref,
                "fetched_at": self.fetched_at, "title": self.title,
                "validation": self.validation}


class CrawlDirError(ValueError):
    """The directory is not a crawl output directory (no ``pages.jsonl``)."""


def crawl_pages(out_dir: str | os.PathLike[str]) -> Iterator[CrawlPage]:
    """The pages of the crawl in ``out_dir`` that have Markdown, in ``pages.jsonl`` order
    (the last record of a URL wins: a resumed crawl may have written it twice)."""
    root = Path(out_dir)
    pages = root / "pages.jsonl"
    if not pages.is_file():
        raise CrawlDirError(f"{out_dir}: no pages.jsonl here (not a crawl output directory)")
    records: dict[str, dict[str, Any]] = {}
    with pages.open("rb") as fh:
        for line in fh:
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a torn last line of an interrupted crawl
            if isinstance(record, dict) and isinstance(record.get("url"), str):
                records.pop(record["url"], None)
                records[record["url"]] = record
    store = None
    for record in records.values():
        if record.get("outcome") not in _WITH_MARKDOWN:
            continue
        markdown = _side_text(root, record.get("markdown_path"), "markdown")
        if markdown is None:
            continue
        block_map = _block_map(_side_text(root, record.get("evidence_path"), "evidence"))
        if block_map is not None and not _fits(block_map, markdown):
            block_map = None  # the Markdown file was changed after the crawl wrote it
        if block_map is None and isinstance(record.get("source_ref"), str):
            if store is None:
                store = _store(root)
            block_map = _rederived(store, record["source_ref"], markdown)
        yield CrawlPage(
            url=record["url"], final_url=_str(record.get("final_url")),
            source_ref=_str(record.get("source_ref")), fetched_at=_str(record.get("fetched_at")),
            title=_str(record.get("title")),
            validation=record.get("validation") if isinstance(record.get("validation"), dict)
            else None,
            markdown=markdown, block_map=block_map)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _side_text(root: Path, relative: Any, kind: Literal["markdown", "evidence"],
               ) -> str | None:
    """A Markdown or evidence file of the crawl, or ``None`` (missing, outside, too big)."""
    if not isinstance(relative, str) or not relative:
        return None
    if ":" in relative and relative.startswith("bundles/"):
        return _bundle_text(root, relative, kind)
    base = root.resolve()
    try:
        target = (base / relative).resolve()
    except (OSError, RuntimeError):
        return None
    if not target.is_relative_to(base) or target == base:
        return None
    try:
        with target.open("rb") as fh:
            data = fh.read(MAX_SIDE_FILE + 1)
    except OSError:
        return None
    if len(data) > MAX_SIDE_FILE:
        return None
    return data.decode("utf-8", "replace")


def _bundle_text(root: Path, reference: str, kind: Literal["markdown", "evidence"],
                 ) -> str | None:
    """A page's Markdown or evidence inside a bundle (``--output bundles``: both fields of
    a page name the same member), read by the crawl layer's own reader."""
    try:
        from pressmark.crawl import _bundles  # noqa: PLC0415
    except ImportError:
        return None
    try:
        value = _bundles.read_bundle(root, reference, kind)
    except (OSError, ValueError):
        return None
    if isinstance(value, dict):
        return json.dumps(value)
    return value if isinstance(value, str) else None


def _block_map(evidence: str | None) -> BlockMap | None:
    if evidence is None:
        return None
    try:
        packet = json.loads(evidence)
        return BlockMap.from_dict(packet.get("block_map")) if isinstance(packet, dict) \
            else None
    except ValueError:
        return None


def _fits(block_map: BlockMap, markdown: str) -> bool:
    return all(entry.end <= len(markdown) for entry in block_map.entries())


def _store(root: Path) -> Any:
    """The crawl's snapshot store, or ``False`` when it has none that opens."""
    from pressmark.cite._stores import open_any_store  # noqa: PLC0415

    try:
        return open_any_store(root / "store")
    except Exception:
        return False


def _rederived(store: Any, source_ref: str, markdown: str) -> BlockMap | None:
    if store is False:
        return None
    from pressmark.cite._verify import Verifier  # noqa: PLC0415

    try:
        page = Verifier(store, cache_pages=0).page(source_ref)
    except Exception:
        return None
    return page.block_map if page.markdown == markdown else None
