"""The public names of pressmark.snapshot and pressmark.store do not drift."""

from __future__ import annotations

import pressmark.snapshot
import pressmark.store

SNAPSHOT = {
    "CharsetSource", "ContentKind", "DecodedText", "HashBasis", "InvalidSnapshot",
    "InvalidSourceRef", "RedirectRecord", "ReplayError", "ReplayResult", "Snapshot",
    "SnapshotError", "SourceRef", "build_source_ref", "canonical_json",
    "charset_from_content_type", "classify_content_type", "decode_text_body",
    "is_canonical_timestamp", "lookup_encoding", "new_snapshot", "parse_source_ref",
    "resolve_source_ref", "snapshot_envelope", "snapshot_from_envelope", "sniff_meta_charset",
    "source_id_for_url", "utc_now_iso",
}
STORE = {
    "FilesystemSnapshotStore", "HeadWitness", "MemorySnapshotStore", "PruneReport",
    "SnapshotCorrupt", "SnapshotHistoryFull", "SnapshotNotFound", "SnapshotRef",
    "SnapshotStore", "SnapshotStoreError", "SnapshotTooLarge", "StoreBusy", "StoreError",
    "VerifyProblem", "VerifyReport", "WitnessStatus", "export_warc", "import_warc",
    "WarcImportReport",
}


def test_snapshot_exports() -> None:
    assert set(pressmark.snapshot.__all__) == SNAPSHOT
    for name in SNAPSHOT:
        assert getattr(pressmark.snapshot, name) is not None


def test_store_exports() -> None:
    assert set(pressmark.store.__all__) == STORE
    for name in STORE:
        assert getattr(pressmark.store, name) is not None


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
