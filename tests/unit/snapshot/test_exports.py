"""Store contract basics; the public names are pinned in tests/unit/test_exported_members.py."""

from __future__ import annotations

import pressmark.snapshot


def test_both_stores_satisfy_the_protocol(tmp_path: object) -> None:
    from pressmark.store import FilesystemSnapshotStore, MemorySnapshotStore, SnapshotStore

    assert isinstance(MemorySnapshotStore(), SnapshotStore)
    assert isinstance(FilesystemSnapshotStore(str(tmp_path)), SnapshotStore)


def test_error_codes() -> None:
    from pressmark.store import (
        SnapshotCorrupt,
        SnapshotHistoryFull,
        SnapshotNotFound,
        SnapshotStoreError,
        StoreBusy,
    )

    codes = {cls.code for cls in (SnapshotCorrupt, SnapshotHistoryFull, SnapshotNotFound,
                                  SnapshotStoreError, StoreBusy)}
    assert codes == {"snapshot-corrupt", "history-full", "not-found", "snapshot-store-error",
                     "store-busy"}
    assert pressmark.snapshot.InvalidSourceRef.code == "invalid-ref"
