"""FilesystemSnapshotStore specifics: layout, fail-closed reads, interrupted writes, threads."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from pressmark.snapshot import resolve_source_ref
from pressmark.store import (
    FilesystemSnapshotStore,
    SnapshotCorrupt,
    SnapshotHistoryFull,
    SnapshotStoreError,
)

from ._helpers import record_path, snap, source_dir


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def store(root: Path) -> FilesystemSnapshotStore:
    return FilesystemSnapshotStore(root)


def test_layout_names_sources_by_hash_and_records_by_time(
    store: FilesystemSnapshotStore, root: Path
) -> None:
    s = snap(1, source="../../../etc/passwd")
    store.put(s)
    directory = source_dir(root, s.source_id)
    assert directory.parent == root / "sources"
    names = sorted(p.name for p in directory.iterdir())
    record = f"{s.fetched_at}_{s.snapshot_sha256}.rec"
    assert names == sorted(["HEAD", "source.json", "slot.00000", f"id.{s.snapshot_sha256}",
                            f"body.{s.body_hash}", record])
    assert os.readlink(directory / "HEAD") == record
    assert os.readlink(directory / f"body.{s.body_hash}") == record
    raw = (directory / record).read_bytes()
    assert raw.endswith(s.bytes)  # the body is stored raw, not encoded
    assert not (root.parent / "etc").exists()


def test_second_instance_sees_the_same_data_and_keeps_the_capacity(root: Path) -> None:
    first = FilesystemSnapshotStore(root, max_history_files=2)
    first.put(snap(1))
    second = FilesystemSnapshotStore(root, max_history_files=10)
    second.put(snap(2))
    assert second.latest("src") == snap(2)
    with pytest.raises(SnapshotHistoryFull):
        second.put(snap(3))


def test_refuses_a_directory_that_is_not_a_store(tmp_path: Path) -> None:
    (tmp_path / "pressmark-store.json").write_text('{"format": "something-else"}')
    with pytest.raises(SnapshotStoreError):
        FilesystemSnapshotStore(tmp_path)


def test_latest_reads_only_the_head(store: FilesystemSnapshotStore, root: Path) -> None:
    for n in range(5):
        store.put(snap(n))
    old = record_path(root, snap(1))
    old.write_bytes(b"garbage")
    assert store.latest("src") == snap(4)
    with pytest.raises(SnapshotCorrupt):
        store.list("src")


def _flip_last_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "damage",
    [
        _flip_last_byte,
        lambda p: p.write_bytes(p.read_bytes()[:-3]),
        lambda p: p.write_bytes(p.read_bytes() + b"x"),
        lambda p: p.write_bytes(p.read_bytes().replace(b'"status":200', b'"status":201')),
        lambda p: p.write_bytes(b"PMSNAP1 notanumber\n"),
        lambda p: p.write_bytes(b""),
    ],
    ids=["flip-body-byte", "truncate", "trailing", "edit-header", "bad-framing", "empty"],
)
def test_damaged_records_fail_closed(
    store: FilesystemSnapshotStore, root: Path, damage: object
) -> None:
    s = snap(1, body=b"<p>secret contents</p>")
    ref = store.put(s)
    path = record_path(root, s)
    damage(path)  # type: ignore[operator]
    for read in (lambda: store.get("src", s.snapshot_sha256), lambda: store.latest("src"),
                 lambda: store.list("src")):
        with pytest.raises(SnapshotCorrupt) as info:
            read()
        assert info.value.code == "snapshot-corrupt"
        assert str(root) not in info.value.message
        assert "secret" not in info.value.message
    result = resolve_source_ref(store, ref.source_ref)
    assert result.error is not None and result.error.code == "snapshot-corrupt"
    report = store.verify()
    assert not report.ok
    assert [p.code for p in report.problems] == ["snapshot-corrupt"]
    assert all(str(root) not in p.detail for p in report.problems)


def test_record_copied_into_another_source_is_corrupt(
    store: FilesystemSnapshotStore, root: Path
) -> None:
    a, b = snap(3, source="a"), snap(2, source="b")
    store.put(a)
    store.put(b)
    shutil.copy(record_path(root, a), source_dir(root, "b") / record_path(root, a).name)
    with pytest.raises(SnapshotCorrupt):
        store.list("b")
    with pytest.raises(SnapshotCorrupt):
        store.get("b", a.snapshot_sha256)
    # latest() reads HEAD and the head record only: a foreign file is verify's to find
    assert store.latest("b") == b
    codes = sorted(p.code for p in store.verify().problems)
    assert codes == ["bad-head", "missing-index", "missing-slot", "snapshot-corrupt"]


def test_records_swapped_between_sources_are_corrupt(
    store: FilesystemSnapshotStore, root: Path
) -> None:
    a, b = snap(1, source="a"), snap(2, source="b")
    store.put(a)
    store.put(b)
    path_a, path_b = record_path(root, a), record_path(root, b)
    path_a.rename(source_dir(root, "b") / path_a.name)
    path_b.rename(source_dir(root, "a") / path_b.name)
    for source, other in (("a", b), ("b", a)):
        with pytest.raises(SnapshotCorrupt):
            store.latest(source)
        with pytest.raises(SnapshotCorrupt):
            store.list(source)
        with pytest.raises(SnapshotCorrupt):
            store.get(source, other.snapshot_sha256)
    assert {p.code for p in store.verify().problems} >= {"snapshot-corrupt"}


def test_deleted_index_entry_is_reported_and_repaired_by_prune(
    store: FilesystemSnapshotStore, root: Path
) -> None:
    s = snap(1)
    store.put(s)
    store.put(snap(2))
    (source_dir(root, "src") / f"id.{s.snapshot_sha256}").unlink()
    with pytest.raises(SnapshotCorrupt):
        store.get("src", s.snapshot_sha256)
    assert [p.code for p in store.verify().problems] == ["missing-index"]
    report = store.prune("src", keep_last=10)
    assert report.cleaned == 1
    assert store.get("src", s.snapshot_sha256) == s
    assert store.verify().ok


def test_malformed_source_metadata_is_corrupt(store: FilesystemSnapshotStore, root: Path) -> None:
    store.put(snap(1))
    (source_dir(root, "src") / "source.json").write_text("{")
    fresh = FilesystemSnapshotStore(root)
    with pytest.raises(SnapshotCorrupt):
        fresh.latest("src")
    assert [p.code for p in fresh.verify().problems] == ["bad-source"]


def test_interrupted_writes_are_cleaned_by_prune_and_reuse_their_slot(root: Path) -> None:
    store = FilesystemSnapshotStore(root, max_history_files=3)
    store.put(snap(1))
    directory = source_dir(root, "src")
    pending = snap(5)
    pending_name = f"{pending.fetched_at}_{pending.snapshot_sha256}.rec"
    # What a writer killed after reserving, indexing and moving HEAD leaves behind:
    (directory / "slot.00001").write_text(pending_name)
    os.symlink(f"slot.00001|{pending_name}", directory / f"id.{pending.snapshot_sha256}")
    os.unlink(directory / "HEAD")
    os.symlink(pending_name, directory / "HEAD")
    # ...and a writer killed right after creating its slot, and a stray temp file:
    (directory / "slot.00002").write_text("")
    (directory / "tmp.leftover").write_bytes(b"partial")
    assert FilesystemSnapshotStore(root).latest("src") == snap(1)  # dangling HEAD: fall back
    report = store.verify()
    assert report.ok  # debris of interrupted writes is not damage: notes, not problems
    codes = sorted(p.code for p in report.notes)
    assert codes == ["orphan-index", "orphan-slot", "orphan-slot", "stale-head", "temp-file"]
    # a retry of the interrupted put completes it in the slot it reserved
    retry = FilesystemSnapshotStore(root)
    retry.put(pending)
    assert (directory / "slot.00001").read_text() == pending_name
    assert retry.latest("src") == pending
    report = retry.prune("src", keep_last=10)
    assert report.removed == ()
    assert report.cleaned == 2  # the empty slot and the temp file
    assert retry.verify().ok
    retry.put(snap(6))  # the freed slot is usable again: 3 records in 3 slots
    with pytest.raises(SnapshotHistoryFull):
        retry.put(snap(7))


def test_prune_restores_a_missing_slot(store: FilesystemSnapshotStore, root: Path) -> None:
    store.put(snap(1))
    (source_dir(root, "src") / "slot.00000").unlink()
    assert sorted(p.code for p in store.verify().problems) == ["bad-index", "missing-slot"]
    store.prune("src", keep_last=1)
    assert store.verify().ok


def test_unknown_files_are_reported(store: FilesystemSnapshotStore, root: Path) -> None:
    store.put(snap(1))
    (source_dir(root, "src") / "notes.txt").write_text("hi")
    assert [p.code for p in store.verify().problems] == ["unknown-entry"]


def test_threads_writing_one_source(root: Path) -> None:
    store = FilesystemSnapshotStore(root, durability="flush")
    shots = [snap(n, body=f"<p>{n}</p>".encode()) for n in range(80)]
    errors: list[BaseException] = []

    def work(part: list[object]) -> None:
        try:
            for s in part:
                store.put(s)  # type: ignore[arg-type]
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(shots[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(store.list("src")) == 80
    assert store.latest("src") == shots[-1]
    assert store.verify().ok
    slots = [p for p in source_dir(root, "src").iterdir() if p.name.startswith("slot.")]
    assert len(slots) == 80


def test_durability_flush_round_trips(root: Path) -> None:
    store = FilesystemSnapshotStore(root, durability="flush")
    store.put(snap(1))
    assert FilesystemSnapshotStore(root).latest("src") == snap(1)
    with pytest.raises(ValueError, match="durability"):
        FilesystemSnapshotStore(root, durability="never")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_history_files"):
        FilesystemSnapshotStore(root, max_history_files=10_001)


def test_a_planted_symlink_is_corrupt_not_followed(
    store: FilesystemSnapshotStore, root: Path, tmp_path: Path
) -> None:
    s = snap(1)
    store.put(s)
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    path = record_path(root, s)
    path.unlink()
    path.symlink_to(secret)
    with pytest.raises(SnapshotCorrupt) as info:
        store.get("src", s.snapshot_sha256)
    assert "secret" not in info.value.message


def test_verify_does_not_report_a_live_writers_reservation(
    store: FilesystemSnapshotStore, root: Path
) -> None:
    store.put(snap(1))
    directory = source_dir(root, "src")
    (directory / "slot.00007").write_text("2026-11-30T12:00:09.000Z_" + "a" * 64 + ".rec")
    state = store.source_state("src", create=False)
    assert state is not None
    with store.lock(state):  # a writer in the middle of a put
        assert store.verify().ok
    assert [p.code for p in store.verify().notes] == ["orphan-slot"]
