"""Snapshots, history and citation checks, all through the crawl's snapshot store.

The store lives at ``DIR/store/`` (a segment or filesystem store root, opened by its
marker). Everything here is read-only; the store is opened lazily on first use.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pressmark._errors import PressmarkError
from pressmark.snapshot import Snapshot, resolve_source_ref
from pressmark.store import SnapshotStore
from pressmark.web._security import is_digest

MAX_HISTORY = 500  # captures listed per source; older ones are counted, not shown
DETAILED_HISTORY = 50  # the newest ones are read in full (status, size); the rest by reference
_LOOKUP_ERRORS = (PressmarkError, LookupError, OSError, ValueError)


@dataclass(frozen=True, slots=True, kw_only=True)
class Capture:
    """One stored capture of a source, newest first in a history."""

    snapshot_sha256: str
    body_hash: str
    source_ref: str
    fetched_at: str
    status: int | None = None
    rendered: bool | None = None
    size: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Verification:
    """The result of resolving a sourceRef and re-checking its digests."""

    ok: bool
    code: str  # "verified" or the typed error code
    message: str
    source_id: str | None = None
    url: str | None = None
    fetched_at: str | None = None
    snapshot_sha256: str | None = None
    body_hash: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": "verified" if self.ok else "error",
            "code": self.code,
            "message": self.message,
            "source_id": self.source_id,
            "url": self.url,
            "fetched_at": self.fetched_at,
            "snapshot_sha256": self.snapshot_sha256,
            "body_hash": self.body_hash,
        }


class Archive:
    """Read access to the crawl's snapshot store (``DIR/store`` unless one is injected)."""

    def __init__(self, root: Path, store: SnapshotStore | None = None) -> None:
        self.root = root
        self._store = store
        self._lock = threading.Lock()

    def store(self) -> SnapshotStore | None:
        with self._lock:
            if self._store is None and self.root.is_dir():
                # Imported on first use: the store is only needed once a request asks
                # for a snapshot. A directory holding no store is no store (never created).
                from pressmark.store import StoreError, open_store  # noqa: PLC0415

                try:
                    self._store = open_store(self.root)
                except StoreError:
                    return None
            return self._store

    def snapshot(self, source_id: str, digest: str) -> Snapshot | None:
        store = self.store()
        if store is None or not is_digest(digest):
            return None
        try:
            return store.get(source_id, digest)
        except _LOOKUP_ERRORS:
            return None

    def history(self, source_id: str) -> tuple[list[Capture], int]:
        """Up to :data:`MAX_HISTORY` newest captures, and how many exist in all."""
        store = self.store()
        if store is None:
            return [], 0
        try:
            refs = store.list(source_id)
        except _LOOKUP_ERRORS:
            return [], 0
        captures: list[Capture] = []
        for number, ref in enumerate(refs[:MAX_HISTORY]):
            detailed = number < DETAILED_HISTORY
            snap = self.snapshot(source_id, ref.snapshot_sha256) if detailed else None
            captures.append(
                Capture(
                    snapshot_sha256=ref.snapshot_sha256,
                    body_hash=ref.body_hash,
                    source_ref=ref.source_ref,
                    fetched_at=ref.fetched_at,
                    status=snap.status if snap else None,
                    rendered=snap.rendered if snap else None,
                    size=len(snap.bytes) if snap else None,
                )
            )
        return captures, len(refs)

    def verify(self, ref: str) -> Verification:
        """Resolve ``ref`` through the store; :func:`resolve_source_ref` re-checks the
        envelope digest, the body hash and every field the reference names."""
        store = self.store()
        if store is None:
            return Verification(ok=False, code="store-missing", message="this crawl has no store")
        result = resolve_source_ref(store, ref)
        snap = result.snapshot
        if not result.ok or snap is None:
            error = result.error
            return Verification(
                ok=False,
                code=error.code if error else "not-found",
                message=error.message if error else "the reference did not resolve",
            )
        return Verification(
            ok=True, code="verified", message="envelope digest and body hash match",
            source_id=snap.source_id, url=snap.url, fetched_at=snap.fetched_at,
            snapshot_sha256=snap.snapshot_sha256, body_hash=snap.body_hash,
        )
