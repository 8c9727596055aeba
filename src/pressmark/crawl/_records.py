"""Page records built from a fetch and its page work (pure functions)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pressmark.crawl._manifest import Outcome, PageFailure, PageRecord, Validation

if TYPE_CHECKING:
    from pressmark.crawl._fetcher import Fetched
    from pressmark.crawl._frontier import FrontierItem
    from pressmark.crawl._process import PageWork
    from pressmark.crawl._workers import PageTimeout, WorkerDied


def unfetched_record(item: FrontierItem, fetched: Fetched) -> PageRecord:
    """A page the fetch gave no snapshot for (its error, or a plain "no snapshot")."""
    return PageRecord(url=item.url, final_url=None, depth=item.depth,
                      status=fetched.status, outcome="error",
                      error=fetched.error or PageFailure(kind="error", message="no snapshot"),
                      warnings=fetched.warnings, render_reason=fetched.render_reason)


def timed_out_record(item: FrontierItem, fetched: Fetched, exc: PageTimeout | WorkerDied,
                     ) -> PageRecord:
    """A page whose work passed its deadline or lost its parser process."""
    snap = fetched.snapshot
    return PageRecord(url=item.url, final_url=None if snap is None else snap.url or item.url,
                      depth=item.depth, status=fetched.status, outcome="error",
                      error=PageFailure(kind=exc.kind, message=str(exc)),
                      warnings=fetched.warnings, render_reason=fetched.render_reason)


def finished_record(item: FrontierItem, fetched: Fetched, work: PageWork | None,
                    source_ref: str | None, kept: PageRecord | None) -> PageRecord:
    """The record of a fetched page once its work is done: the work's store failure, or
    the page with the work's warnings (and the kept Markdown and evidence of a 304, or of
    the earlier page whose body this one repeats: then ``duplicate_of`` names it)."""
    if work is not None and work.store_error is not None:
        return store_failed(item, fetched, work.store_error)
    if work is not None:
        source_ref = work.source_ref or source_ref
    warnings = list(fetched.warnings)
    if work is not None:  # the shell check may have named the same parse caps
        warnings.extend(w for w in work.warnings if w not in warnings)
    if work is not None and work.error is not None:
        warnings.append(f"markdown-failed: {work.error}")
    if work is not None and not work.parsed:
        work = None
    record = page_record(item, fetched, work, source_ref, warnings)
    if kept is None:
        return record
    return dataclasses.replace(record, title=kept.title, markdown_path=kept.markdown_path,
                               evidence_path=kept.evidence_path, validation=kept.validation,
                               hidden_text=kept.hidden_text,
                               instruction_text=kept.instruction_text,
                               duplicate_of=kept.url if kept.url != item.url else None)


def store_failed(item: FrontierItem, fetched: Fetched, message: str) -> PageRecord:
    """A page whose snapshot could not be stored: recorded as this page's error."""
    return PageRecord(url=item.url, final_url=None, depth=item.depth, status=fetched.status,
                      outcome="error", error=PageFailure(kind="store-error", message=message),
                      warnings=fetched.warnings)


def page_record(item: FrontierItem, fetched: Fetched, work: PageWork | None,
                source_ref: str | None, warnings: list[str]) -> PageRecord:
    """The record of a fetched page (an HTTP status >= 400 is this page's error)."""
    snap = fetched.snapshot
    assert snap is not None
    final_url = snap.url or item.url
    error = fetched.error
    if error is None and snap.status >= 400:
        error = PageFailure(kind="http-error", message=f"HTTP {snap.status}")
    outcome: Outcome = "error" if error is not None else (
        "not-modified" if fetched.not_modified else "ok")
    validation = None
    if work is not None and work.validation is not None:
        validation = Validation(passed=work.validation[0], reasons=work.validation[1])
    return PageRecord(
        url=item.url, final_url=final_url, depth=item.depth,
        status=fetched.status if fetched.status is not None else snap.status,
        outcome=outcome, source_id=snap.source_id, source_ref=source_ref,
        snapshot_sha256=snap.snapshot_sha256, body_hash=snap.body_hash,
        fetched_at=snap.fetched_at, rendered=bool(snap.rendered),
        render_reason=fetched.render_reason, title=None if work is None else work.title,
        warnings=tuple(warnings), error=error,
        markdown_path=None if work is None else work.markdown_path,
        evidence_path=None if work is None else work.evidence_path,
        validation=validation, bytes=len(snap.bytes),
        readiness_ms=None if fetched.readiness is None else fetched.readiness[2],
        hidden_text=0 if work is None else work.hidden_text,
        instruction_text=0 if work is None else work.instruction_text,
    )


def kept_record(page: PageRecord | None, fetched: Fetched, present: Callable[[str], bool],
                ) -> PageRecord | None:
    """The earlier crawl's record of this URL whose Markdown and evidence a 304 lets the
    page keep (same snapshot, files still in the directory: ``present(relative_path)``),
    or ``None`` to convert the page again."""
    if page is None or not fetched.not_modified or fetched.snapshot is None:
        return None
    if page.snapshot_sha256 != fetched.snapshot.snapshot_sha256:
        return None
    paths = [page.markdown_path, page.evidence_path]
    if not all(present(path) for path in paths if path is not None):
        return None
    return page


class PresentFiles:
    """Which Markdown and evidence files (or bundles) a crawl directory holds, listed once
    (a few directory reads instead of two ``stat`` calls per kept page)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._names: set[str] | None = None

    def __call__(self, path: str) -> bool:
        if self._names is None:
            self._names = set()
            for folder in ("markdown", "evidence", "bundles"):
                self._names.update(_listed(self.root, folder))
        if path.startswith("bundles/"):  # a bundle reference: its file must be there
            path = path.partition(":")[0]
        return path in self._names


def _listed(root: Path, folder: str) -> list[str]:
    """Files of ``folder`` and of its shard directories, as relative paths."""
    found: list[str] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(root / folder):
            if entry.is_file(follow_symlinks=False):
                found.append(f"{folder}/{entry.name}")  # the flat layout of earlier crawls
            elif entry.is_dir(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    found.extend(f"{folder}/{entry.name}/{inner.name}"
                                 for inner in os.scandir(entry.path)
                                 if inner.is_file(follow_symlinks=False))
    return found
