"""resolve_source_ref: the exact snapshot or a typed error, never a near match."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pressmark._errors import PressmarkError
from pressmark.snapshot import Snapshot, build_source_ref, resolve_source_ref
from pressmark.snapshot._source_ref import SourceRef
from pressmark.store import (
    FilesystemSnapshotStore,
    MemorySnapshotStore,
    SnapshotCorrupt,
    SnapshotStoreError,
    StoreBusy,
)
from pressmark.testing import make_snapshot

SNAP = make_snapshot("src", "http://a.test/", b"<p>hello</p>",
                     fetched_at="2026-11-30T12:00:00.000Z")
REF = build_source_ref(SNAP)


class _Raising:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def get(self, source_id: str, digest: str) -> Snapshot:
        raise self.exc


class _Returning:
    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot

    def get(self, source_id: str, digest: str) -> Snapshot:
        return self.snapshot


def test_resolves_exactly() -> None:
    store = MemorySnapshotStore()
    store.put(SNAP)
    result = resolve_source_ref(store, REF)
    assert result.ok
    assert result.snapshot == SNAP
    assert result.ref is not None and result.ref.snapshot_sha256 == SNAP.snapshot_sha256


@pytest.mark.parametrize(
    ("store", "code"),
    [
        (MemorySnapshotStore(), "not-found"),
        (_Raising(SnapshotCorrupt("bad record")), "snapshot-corrupt"),
        (_Raising(SnapshotStoreError("io")), "snapshot-store-error"),
        (_Raising(StoreBusy("busy")), "snapshot-store-error"),
        (_Raising(PressmarkError("other")), "snapshot-store-error"),
        (_Raising(OSError("disk on fire at /secret/path")), "snapshot-store-error"),
        (_Returning(make_snapshot("src", "http://a.test/", b"<p>other</p>",
                                  fetched_at="2026-11-30T12:00:00.000Z")), "snapshot-corrupt"),
        (_Returning(dataclasses.replace(SNAP, bytes=b"<p>tampered</p>")), "snapshot-corrupt"),
    ],
)
def test_typed_errors(store: object, code: str) -> None:
    result = resolve_source_ref(store, REF)  # type: ignore[arg-type]
    assert not result.ok
    assert result.snapshot is None
    assert result.error is not None and result.error.code == code
    assert "/secret/path" not in result.error.message


def test_invalid_reference() -> None:
    result = resolve_source_ref(MemorySnapshotStore(), "https://example.com/")
    assert result.error is not None and result.error.code == "invalid-ref"
    assert result.ref is None


@pytest.mark.parametrize("kind", ["memory", "filesystem"])
def test_snapshot_digest_equal_to_a_stored_body_hash_is_not_found(
    kind: str, tmp_path: Path
) -> None:
    store = (MemorySnapshotStore() if kind == "memory"
             else FilesystemSnapshotStore(tmp_path / "s"))
    store.put(SNAP)
    crafted = build_source_ref(SourceRef(
        source_id=SNAP.source_id, url=SNAP.url, fetched_at=SNAP.fetched_at,
        body_hash=SNAP.body_hash, snapshot_sha256=SNAP.body_hash))
    result = resolve_source_ref(store, crafted)
    assert result.error is not None and result.error.code == "not-found"
