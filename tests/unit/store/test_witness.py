"""Verified source-head witnesses."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pressmark.snapshot import build_source_ref
from pressmark.store import FilesystemSnapshotStore, SnapshotNotFound, SnapshotStoreError

from ._helpers import snap, source_dir


@pytest.fixture
def store(tmp_path: Path) -> FilesystemSnapshotStore:
    s = FilesystemSnapshotStore(tmp_path / "store")
    for n in range(3):
        s.put(snap(n))
    return s


def test_witness_names_the_exact_head_and_matches_while_unchanged(
    store: FilesystemSnapshotStore, tmp_path: Path
) -> None:
    witness = store.read_verified_head("src")
    assert witness.source_ref == build_source_ref(snap(2))
    assert witness.snapshot_sha256 == snap(2).snapshot_sha256
    assert witness.token.startswith("pressmark.source-head-witness/v1.")
    assert store.compare_head_witness(witness) == "matches"
    restarted = FilesystemSnapshotStore(tmp_path / "store")
    assert restarted.compare_head_witness(witness.token) == "matches"
    assert restarted.read_verified_head("src").token == witness.token


def test_changes_are_reported(store: FilesystemSnapshotStore) -> None:
    witness = store.read_verified_head("src")
    store.put(snap(0, body=b"older but new"))
    assert store.compare_head_witness(witness) == "changed"
    witness = store.read_verified_head("src")
    store.prune("src", keep_last=1)
    assert store.compare_head_witness(witness) == "changed"


def test_missing_corrupt_unsupported(store: FilesystemSnapshotStore, tmp_path: Path) -> None:
    witness = store.read_verified_head("src")
    assert store.compare_head_witness("garbage") == "unsupported"
    assert store.compare_head_witness(witness.token[:-4] + "!!!!") == "unsupported"
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path / "store", copy, symlinks=True)
    assert FilesystemSnapshotStore(copy).compare_head_witness(witness) == "unsupported"
    directory = source_dir(tmp_path / "store", "src")
    entry = next(p for p in directory.iterdir() if p.name.startswith("id."))
    entry.unlink()
    os.symlink("garbage", entry)
    assert store.compare_head_witness(witness) == "corrupt"
    shutil.rmtree(directory)
    assert store.compare_head_witness(witness) == "missing"


def test_unsettled_state_is_refused(store: FilesystemSnapshotStore, tmp_path: Path) -> None:
    directory = source_dir(tmp_path / "store", "src")
    (directory / "slot.00009").write_text("")
    with pytest.raises(SnapshotStoreError):
        store.read_verified_head("src")
    store.prune("src", keep_last=10)
    store.read_verified_head("src")
    (directory / "tmp.x").write_text("")
    with pytest.raises(SnapshotStoreError):
        store.read_verified_head("src")


def test_limits_can_only_be_lowered_and_refuse_explicitly(store: FilesystemSnapshotStore) -> None:
    with pytest.raises(SnapshotStoreError):
        store.read_verified_head("src", max_verified_body_bytes=10)
    with pytest.raises(SnapshotStoreError):
        store.read_verified_head("src", max_index_bytes=100)
    with pytest.raises(ValueError, match="lowered"):
        store.read_verified_head("src", max_entries=10_001)
    with pytest.raises(SnapshotNotFound):
        store.read_verified_head("nothing")
