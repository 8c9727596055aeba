"""Red-team findings against the filesystem store, each kept as a regression test."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pressmark.snapshot import InvalidSnapshot, InvalidSourceRef, resolve_source_ref
from pressmark.snapshot._time import is_canonical_timestamp
from pressmark.store import (
    FilesystemSnapshotStore,
    MemorySnapshotStore,
    SnapshotCorrupt,
    SnapshotHistoryFull,
    SnapshotNotFound,
    SnapshotStoreError,
    StoreBusy,
)
from pressmark.store._lock import _HEARTBEAT, SourceLock
from pressmark.testing import make_snapshot

from ._helpers import record_path, snap, source_dir


@pytest.mark.parametrize("bad", [True, 2.5, "3", 0, 10_001])
def test_max_history_files_must_be_an_int_in_range(tmp_path: Path, bad: object) -> None:
    with pytest.raises(ValueError, match="max_history_files"):
        FilesystemSnapshotStore(tmp_path / "s", bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_history_files"):
        MemorySnapshotStore(max_history_files=bad)  # type: ignore[arg-type]


def test_capacity_is_fixed_per_source_when_reopened_with_another_value(tmp_path: Path) -> None:
    FilesystemSnapshotStore(tmp_path, 2).put(snap(1, source="old"))
    reopened = FilesystemSnapshotStore(tmp_path, 1)
    reopened.put(snap(2, source="old"))  # "old" keeps its 2
    with pytest.raises(SnapshotHistoryFull):
        reopened.put(snap(3, source="old"))
    reopened.put(snap(1, source="new"))  # a new source takes this instance's value
    with pytest.raises(SnapshotHistoryFull):
        FilesystemSnapshotStore(tmp_path, 10).put(snap(2, source="new"))


@pytest.mark.parametrize(
    "stamp",
    [
        "2026-11-30T12:00:00Z",
        "2026-11-30T12:00:00.000+00:00",
        "2026-11-30T12:00:00.000z",
        "\u0662026-11-30T12:00:00.000Z",  # an Arabic-Indic digit: \d matched it, int() too
        "2026-11-30T12:00:00.\uff10\uff10\uff10Z",  # full-width digits
    ],
)
def test_non_canonical_fetched_at_is_refused_with_a_typed_error(
    tmp_path: Path, stamp: str
) -> None:
    assert not is_canonical_timestamp(stamp)
    good = make_snapshot("src", "http://a.test/", b"x", fetched_at="2026-11-30T12:00:00.000Z")
    with pytest.raises(InvalidSnapshot):
        FilesystemSnapshotStore(tmp_path).put(dataclasses.replace(good, fetched_at=stamp))
    with pytest.raises(InvalidSnapshot):
        make_snapshot("src", "http://a.test/", b"x", fetched_at=stamp)


def test_source_id_with_a_lone_surrogate_is_an_invalid_snapshot(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path)
    with pytest.raises(InvalidSnapshot):
        store.put(snap(1, source="a\udcffb"))
    assert store.sources() == []


def test_put_again_repairs_a_damaged_copy_of_the_same_record(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path)
    s = snap(1, body=b"<p>evidence</p>")
    ref = store.put(s)
    path = record_path(tmp_path, s)
    for damage in (lambda raw: raw[:-1] + b"!", lambda raw: raw[:10], lambda raw: b""):
        path.write_bytes(damage(path.read_bytes()))
        assert not resolve_source_ref(store, ref.source_ref).ok
        # A put that returns must leave a snapshot that reads back, never trust a bad copy.
        assert store.put(s) == ref
        assert resolve_source_ref(store, ref.source_ref).snapshot == s
    assert store.verify().ok
    assert len(list(source_dir(tmp_path, "src").glob("slot.*"))) == 1


def test_put_again_restores_a_deleted_identity_entry(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path)
    s = snap(1)
    ref = store.put(s)
    entry = source_dir(tmp_path, "src") / f"id.{s.snapshot_sha256}"
    entry.unlink()
    assert store.put(s) == ref
    assert store.get("src", s.snapshot_sha256) == s
    assert store.verify().ok  # the record kept its one slot
    entry.unlink()
    entry.write_text("not a symlink")
    assert store.put(s) == ref
    assert store.get("src", s.snapshot_sha256) == s
    assert store.verify().ok


def test_a_lock_name_taken_by_a_directory_is_a_typed_error(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path, lock_wait=0.2)
    store.put(snap(1))
    (source_dir(tmp_path, "src") / "source.lock").mkdir()
    with pytest.raises(SnapshotStoreError) as info:
        store.put(snap(2))
    assert str(tmp_path) not in info.value.message
    assert store.latest("src") == snap(1)


def test_unreadable_source_metadata_is_a_store_error_not_corruption(tmp_path: Path) -> None:
    FilesystemSnapshotStore(tmp_path).put(snap(1))
    meta = source_dir(tmp_path, "src") / "source.json"
    meta.unlink()
    meta.mkdir()  # reading it fails with an I/O error (EISDIR), not with bad contents
    with pytest.raises(SnapshotStoreError) as info:
        FilesystemSnapshotStore(tmp_path).latest("src")
    assert info.value.code == "snapshot-store-error"


# -- the lock's refresh thread and breaking rules, with short timings ---------------------


def _age(path: Path) -> float:
    return time.time() - path.lstat().st_mtime


def test_heartbeat_refreshes_a_held_lock(tmp_path: Path) -> None:
    lock_path = tmp_path / "source.lock"
    with SourceLock(str(tmp_path), refresh_every=0.05):
        old = time.time() - 30
        os.utime(lock_path, (old, old), follow_symlinks=False)
        deadline = time.monotonic() + 5
        while _age(lock_path) > 5 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _age(lock_path) < 5  # touched by the thread, not by us
    assert not lock_path.is_symlink()
    time.sleep(0.2)  # released: the thread must not recreate or touch anything
    assert not lock_path.exists() and not lock_path.is_symlink()


def test_heartbeat_keeps_a_long_critical_section_from_being_broken(tmp_path: Path) -> None:
    # Stale after 2 s, refreshed every 0.05 s: the heartbeat thread may be starved for
    # nearly 2 s on a loaded machine before the other writer could break the lock.
    holder = FilesystemSnapshotStore(tmp_path, lock_stale_after=2.0, lock_refresh_every=0.05)
    holder.put(snap(1))
    state = holder.source_state("src", create=False)
    assert state is not None
    # Judged by age alone, as a lock from another machine would be:
    other = FilesystemSnapshotStore(tmp_path, lock_stale_after=2.0, lock_wait=2.5)
    outcome: list[BaseException | None] = []

    def write() -> None:
        try:
            other.put(snap(2))
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    with holder.lock(state):
        thread = threading.Thread(target=write)
        thread.start()
        thread.join(30)
    assert len(outcome) == 1 and isinstance(outcome[0], StoreBusy)
    other.put(snap(2))  # released: goes through at once
    assert holder.latest("src") == snap(2)


def test_default_refresh_is_shorter_than_a_shortened_stale_after(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path, lock_stale_after=0.5, lock_wait=1.5)
    store.put(snap(1))
    state = store.source_state("src", create=False)
    assert state is not None
    lock_path = source_dir(tmp_path, "src") / "source.lock"
    with store.lock(state) as held:
        assert _HEARTBEAT._every[held._path] < 0.5  # refreshed sooner than it goes stale
        old = time.time() - 30  # and the thread does refresh it (an event, not a sleep)
        os.utime(lock_path, (old, old), follow_symlinks=False)
        deadline = time.monotonic() + 30
        while _age(lock_path) > 5 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _age(lock_path) < 5
    with pytest.raises(ValueError, match="lock_refresh_every"):
        FilesystemSnapshotStore(tmp_path, lock_refresh_every=0)
    for knobs in ({"lock_stale_after": 0}, {"lock_wait": -1}, {"lock_stale_after": float("nan")}):
        with pytest.raises(ValueError, match="lock_"):
            FilesystemSnapshotStore(tmp_path, **knobs)  # type: ignore[arg-type]


def test_unrefreshed_lock_is_broken_after_the_stale_knob(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path, lock_stale_after=0.4, lock_wait=60)
    store.put(snap(1))
    lock = source_dir(tmp_path, "src") / "source.lock"
    lock.write_text('{"host": "elsewhere", "pid": 1, "start": 1, "token": "x"}')
    started = time.monotonic()
    store.put(snap(2))
    assert 0.3 <= time.monotonic() - started < 30  # broken by age, not waited out (60 s)
    assert not lock.exists()


# -- the body index: get by body_hash is one lookup ---------------------------------------


def _garble_all_but(root: Path, keep: set[str]) -> None:
    for path in source_dir(root, "src").glob("*.rec"):
        if path.name not in keep:
            path.write_bytes(b"garbage: reading this would raise snapshot-corrupt")


def test_get_by_body_hash_reads_no_history(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path, durability="flush")
    shots = [snap(n, body=f"<p>body {n % 20}</p>".encode()) for n in range(60)]
    for s in shots:
        store.put(s)
    wanted = shots[45]  # bodies repeat: the newest with body 5 is n=45, not n=5 or 25
    _garble_all_but(tmp_path, {record_path(tmp_path, wanted).name})
    assert store.get("src", wanted.body_hash) == wanted
    with pytest.raises(SnapshotNotFound):  # a miss is decided by the index too
        store.get("src", "0" * 64)


def test_body_entry_left_ahead_by_a_crash_falls_back_and_prune_repairs_it(
    tmp_path: Path,
) -> None:
    store = FilesystemSnapshotStore(tmp_path)
    old, new = snap(1, body=b"same"), snap(2, body=b"other")
    store.put(old)
    store.put(new)
    entry = source_dir(tmp_path, "src") / f"body.{old.body_hash}"
    pending = snap(9, body=b"same")  # a writer died after moving the body entry forward
    entry.unlink()
    os.symlink(f"{pending.fetched_at}_{pending.snapshot_sha256}.rec", entry)
    assert store.get("src", old.body_hash) == old
    assert store.verify().ok
    assert [p.code for p in store.verify().notes] == ["stale-body-index"]
    assert store.prune("src", keep_last=10).cleaned == 1
    assert os.readlink(entry) == record_path(tmp_path, old).name
    assert store.verify().ok


def test_prune_moves_body_entries_back_and_drops_empty_ones(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path)
    a1, b1, a2, head = (snap(1, body=b"a"), snap(2, body=b"b"), snap(3, body=b"a"),
                        snap(4, body=b"h"))
    for s in (a1, b1, a2, head):
        store.put(s)
    report = store.prune("src", keep_last=1, keep=[a1.snapshot_sha256])
    assert set(report.removed) == {b1.snapshot_sha256, a2.snapshot_sha256}
    assert report.cleaned == 0
    assert store.get("src", a1.body_hash) == a1
    with pytest.raises(SnapshotNotFound):
        store.get("src", b1.body_hash)
    assert not (source_dir(tmp_path, "src") / f"body.{b1.body_hash}").exists()
    assert store.verify().ok


def test_deleted_or_forged_body_entry(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path)
    a, b = snap(1, body=b"a"), snap(2, body=b"b")
    store.put(a)
    store.put(b)
    directory = source_dir(tmp_path, "src")
    (directory / f"body.{a.body_hash}").unlink()
    assert [p.code for p in store.verify().problems] == ["missing-body-index"]
    store.put(a)  # a put that returns leaves its snapshot reachable by either digest
    assert store.get("src", a.body_hash) == a
    forged = directory / f"body.{a.body_hash}"
    forged.unlink()
    os.symlink(record_path(tmp_path, b).name, forged)  # names a record with another body
    with pytest.raises(SnapshotCorrupt):
        store.get("src", a.body_hash)
    assert "bad-body-index" in {p.code for p in store.verify().problems}
    store.prune("src", keep_last=10)
    assert store.get("src", a.body_hash) == a
    assert store.verify().ok


def test_witness_reports_unavailable_when_metadata_cannot_be_read(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path)
    store.put(snap(1))
    witness = store.read_verified_head("src")
    assert store.compare_head_witness(witness) == "matches"
    meta = source_dir(tmp_path, "src") / "source.json"
    saved = meta.read_bytes()
    meta.unlink()
    meta.mkdir()  # an I/O error (EISDIR), not malformed contents
    assert FilesystemSnapshotStore(tmp_path).compare_head_witness(witness) == "unavailable"
    meta.rmdir()
    meta.write_bytes(b"{")
    assert FilesystemSnapshotStore(tmp_path).compare_head_witness(witness) == "corrupt"
    meta.write_bytes(saved)
    assert FilesystemSnapshotStore(tmp_path).compare_head_witness(witness) == "matches"


@pytest.mark.parametrize(
    "plant",
    [
        lambda d: os.symlink("../../../../etc/passwd", d / "HEAD"),
        lambda d: os.symlink("garbage", d / "HEAD"),
        lambda d: (d / "HEAD").write_text("2026-11-30T12:00:00.001Z_" + "a" * 64 + ".rec"),
        lambda d: os.symlink("2026-11-30T12:00:09.000Z_" + "a" * 64 + ".rec", d / "HEAD"),
    ],
    ids=["traversal", "garbage", "regular-file", "dangling"],
)
def test_head_pointing_at_garbage_falls_back_to_the_names(
    tmp_path: Path, plant: object, request: pytest.FixtureRequest
) -> None:
    store = FilesystemSnapshotStore(tmp_path)
    store.put(snap(1))
    store.put(snap(2))
    directory = source_dir(tmp_path, "src")
    (directory / "HEAD").unlink()
    plant(directory)  # type: ignore[operator]
    assert store.latest("src") == snap(2)
    report = store.verify()
    if request.node.callspec.id == "dangling":  # what a put killed before publishing leaves
        assert report.ok
        assert [p.code for p in report.notes] == ["stale-head"]
    else:  # nothing a write does: damage
        assert [p.code for p in report.problems] == ["bad-head"]
    store.put(snap(3))  # a writer repairs HEAD as it moves it forward
    assert store.latest("src") == snap(3)
    store.prune("src", keep_last=10)
    assert store.verify().ok


def test_head_naming_a_corrupt_record_fails_closed(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path)
    store.put(snap(1))
    store.put(snap(2))
    record_path(tmp_path, snap(2)).write_bytes(b"PMSNAP1 1 1\n{}")
    with pytest.raises(SnapshotCorrupt):
        store.latest("src")  # never the older record as if it were the head


@pytest.mark.parametrize("source_id", ["\U0001f600" * 2048, "é" * 2048])
def test_ids_whose_reference_would_exceed_16_kib_are_refused_before_writing(
    tmp_path: Path, source_id: str
) -> None:
    store = FilesystemSnapshotStore(tmp_path)
    with pytest.raises(InvalidSourceRef):
        store.put(snap(1, source=source_id))
    assert store.sources() == []
    assert list((tmp_path / "sources").iterdir()) == []


def test_verify_reports_nothing_while_others_write_and_prune(tmp_path: Path) -> None:
    """A listing is not a snapshot: races must not show up as damage (they did)."""
    FilesystemSnapshotStore(tmp_path, durability="flush").put(snap(0))
    stop = threading.Event()
    failures: list[BaseException] = []

    def loop(step: object) -> None:
        try:
            while not stop.is_set():
                step()  # type: ignore[operator]
        except BaseException as exc:
            failures.append(exc)

    writer_store = FilesystemSnapshotStore(tmp_path, durability="flush")
    pruner_store = FilesystemSnapshotStore(tmp_path, durability="flush")
    counter = iter(range(1, 10**6))
    bodies = [b"a", b"b", b"c"]  # repeated bodies move body entries both ways

    def write() -> None:
        n = next(counter)
        writer_store.put(snap(n, body=bodies[n % 3] + str(n % 7).encode()))

    def prune() -> None:
        pruner_store.prune("src", keep_last=3)
        time.sleep(0.005)

    threads = [threading.Thread(target=loop, args=(write,)),
               threading.Thread(target=loop, args=(prune,))]
    for thread in threads:
        thread.start()
    checker = FilesystemSnapshotStore(tmp_path)
    seen: list[str] = []
    deadline = time.monotonic() + 2
    try:
        while time.monotonic() < deadline:
            seen.extend(f"{p.code}: {p.detail}" for p in checker.verify().problems)
    finally:
        stop.set()
        for thread in threads:
            thread.join(10)
    assert not failures, failures
    assert seen == []
    checker.prune("src", keep_last=3)
    assert checker.verify().ok


def test_lock_of_a_killed_but_unreaped_writer_is_broken_at_once(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path, lock_wait=30)
    store.put(snap(1))
    directory = source_dir(tmp_path, "src")
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\n"
         "from pressmark.store._lock import SourceLock\n"
         "SourceLock(sys.argv[1]).acquire()\n"
         "print('held', flush=True)\n"
         "time.sleep(60)\n", str(directory)],
        stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        holder.send_signal(signal.SIGKILL)
        time.sleep(0.2)  # not reaped: /proc still shows the pid, as a zombie
        started = time.monotonic()
        store.put(snap(2))  # the lock is fresh (< 60 s) but its owner is gone
        assert time.monotonic() - started < 20  # not waited out (30 s), nor its age (60 s)
    finally:
        holder.kill()
        holder.communicate()
    assert store.latest("src") == snap(2)


def test_deeply_nested_json_anywhere_is_a_typed_failure(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path, lock_wait=0.2)
    store.put(snap(1))
    directory = source_dir(tmp_path, "src")
    nested = b"[" * 100_000  # json.loads raises RecursionError, not ValueError
    header = nested
    name = f"2026-11-30T13:00:00.000Z_{hashlib.sha256(header).hexdigest()}.rec"
    (directory / name).write_bytes(b"PMSNAP1 %d 0\n" % len(header) + header)
    with pytest.raises(SnapshotCorrupt):
        store.list("src")
    assert "snapshot-corrupt" in {p.code for p in store.verify().problems}
    (directory / name).unlink()
    token = "pressmark.source-head-witness/v1." + base64.urlsafe_b64encode(nested).decode()
    assert store.compare_head_witness(token) == "unsupported"
    os.symlink("[" * 4000, directory / "source.lock")  # an identity nobody can parse
    with pytest.raises(StoreBusy):
        store.put(snap(2))
    (directory / "source.lock").unlink()
    (directory / "source.json").write_bytes(b"[" * 10_000)
    with pytest.raises(SnapshotCorrupt):
        FilesystemSnapshotStore(tmp_path).latest("src")
