"""The per-source write lock: owner identity, breaking rules, store-busy."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from pressmark.store import FilesystemSnapshotStore, SnapshotStoreError, StoreBusy
from pressmark.store._lock import SourceLock, machine_identity, process_start_time, read_lock

from ._helpers import snap, source_dir


def _owner(pid: int, start: int | None, **overrides: object) -> str:
    me = machine_identity()
    owner: dict[str, object] = {"host": me.host, "boot_id": me.boot_id,
                                "pid_namespace": me.pid_namespace, "pid": pid, "start": start,
                                "token": "someone-else"}
    owner.update(overrides)
    return json.dumps(owner)


@pytest.fixture
def setup(tmp_path: Path) -> tuple[FilesystemSnapshotStore, Path]:
    store = FilesystemSnapshotStore(tmp_path, lock_wait=0.3)
    store.put(snap(1))
    return store, source_dir(tmp_path, "src") / "source.lock"


def test_lock_records_owner_identity_and_is_released(tmp_path: Path) -> None:
    lock = SourceLock(str(tmp_path))
    with lock:
        assert (tmp_path / "source.lock").is_symlink()  # created with its contents at once
        owner = json.loads(read_lock(str(tmp_path / "source.lock")))
        assert owner["pid"] == os.getpid()
        assert owner["start"] == process_start_time(os.getpid())
        assert owner["host"] == machine_identity().host
        assert {"boot_id", "pid_namespace", "token"} <= set(owner)
    assert not (tmp_path / "source.lock").is_symlink()


def test_live_owner_makes_writers_wait_then_fail_busy(
    setup: tuple[FilesystemSnapshotStore, Path],
) -> None:
    store, lock = setup
    lock.write_text(_owner(os.getpid(), process_start_time(os.getpid())))
    started = time.monotonic()
    with pytest.raises(StoreBusy) as info:
        store.put(snap(2))
    assert info.value.code == "store-busy"
    assert isinstance(info.value, SnapshotStoreError)
    assert time.monotonic() - started >= 0.3
    with pytest.raises(StoreBusy):
        store.prune("src", keep_last=0)
    assert lock.exists()


def test_dead_owner_on_this_machine_is_broken(
    setup: tuple[FilesystemSnapshotStore, Path],
) -> None:
    store, lock = setup
    lock.write_text(_owner(2**22 + 12345, 1))  # no such pid
    store.put(snap(2))
    assert store.latest("src") == snap(2)
    assert not lock.exists()


def test_reused_pid_is_broken(setup: tuple[FilesystemSnapshotStore, Path]) -> None:
    store, lock = setup
    start = process_start_time(os.getpid())
    assert start is not None
    lock.write_text(_owner(os.getpid(), start + 1))  # same pid, another process start
    store.put(snap(2))


def test_owner_on_another_machine_is_judged_by_age(
    setup: tuple[FilesystemSnapshotStore, Path],
) -> None:
    store, lock = setup
    lock.write_text(_owner(1, 1, host="elsewhere", boot_id="other"))
    with pytest.raises(StoreBusy):
        store.put(snap(2))
    old = time.time() - 61
    os.utime(lock, (old, old))
    store.put(snap(2))


def test_unreadable_lock_is_judged_by_age(setup: tuple[FilesystemSnapshotStore, Path]) -> None:
    store, lock = setup
    lock.write_text("")  # a writer between create and write, or garbage
    with pytest.raises(StoreBusy):
        store.put(snap(2))
    old = time.time() - 120
    os.utime(lock, (old, old))
    store.put(snap(2))


def test_dead_breaker_marker_is_removed(setup: tuple[FilesystemSnapshotStore, Path]) -> None:
    store, lock = setup
    lock.write_text(_owner(1, 1, host="elsewhere"))
    marker = lock.with_name("source.lock.breaker")
    marker.write_text("")
    old = time.time() - 120
    os.utime(lock, (old, old))
    os.utime(marker, (old, old))
    store.put(snap(2))
    assert not marker.exists()


def test_release_leaves_a_lock_it_no_longer_owns(tmp_path: Path) -> None:
    lock = SourceLock(str(tmp_path))
    lock.acquire()
    (tmp_path / "source.lock").unlink()  # broken by someone, then re-taken:
    (tmp_path / "source.lock").write_text(_owner(1, 1, token="the-new-owner"))
    lock.release()
    assert (tmp_path / "source.lock").exists()


def test_refresh_touches_the_lock(tmp_path: Path) -> None:
    with SourceLock(str(tmp_path)) as lock:
        old = time.time() - 30
        os.utime(tmp_path / "source.lock", (old, old), follow_symlinks=False)
        lock.refresh()
        assert time.time() - (tmp_path / "source.lock").lstat().st_mtime < 5


def test_marker_of_a_dead_breaker_is_cleared_at_once(
    setup: tuple[FilesystemSnapshotStore, Path],
) -> None:
    store, lock = setup
    lock.write_text(_owner(2**22 + 12345, 1))
    marker = lock.with_name("source.lock.breaker")
    marker.write_text(_owner(2**22 + 12346, 1))  # the breaker was killed mid-break
    store.put(snap(2))
    assert not marker.exists() and not lock.exists()
