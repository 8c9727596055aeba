"""A shared store whose names were planted by someone else (red team #34 item 5).

* ``sources/<key>`` a symlink to a directory elsewhere holding a ``source.json``:
  ``store repair`` deleted that directory's ``tmp.*`` and ``slot.*`` files;
* FIFOs planted as a record, a slot, a ``source.json``: ``verify``, ``repair`` and the
  reads of a recrawl hung in ``open()``.

Maintenance must open and delete only inside the store and never block. The FIFO
cases run in a child process with a timeout, so a regression fails instead of hanging
the suite; the child's work itself takes milliseconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pressmark.store import FilesystemSnapshotStore, SnapshotCorrupt, SnapshotStoreError

from ._helpers import record_path, snap, source_dir

VICTIM = "victim-source"
FUTURE_RECORD = "2999-01-01T00:00:00.000Z_" + "f" * 64 + ".rec"


def _outside_source(where: Path) -> list[Path]:
    """A directory outside the store that looks like a source with debris in it."""
    where.mkdir()
    (where / "source.json").write_text(json.dumps(
        {"format": "pressmark-source/1", "source_id": VICTIM, "max_history_files": 10_000}))
    bait = [where / "tmp.precious", where / "slot.00001", where / "slot.00002",
            where / "id.0000", where / "body.0000"]
    for path in bait:
        path.write_text("not the store's")
    return bait


def test_repair_never_deletes_through_a_planted_source_symlink(tmp_path: Path) -> None:
    root = tmp_path / "store"
    FilesystemSnapshotStore(root).put(snap(1))
    bait = _outside_source(tmp_path / "elsewhere")
    planted = root / "sources" / hashlib.sha256(VICTIM.encode()).hexdigest()
    planted.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    store = FilesystemSnapshotStore(root)
    with pytest.raises(SnapshotCorrupt, match="not a directory of the store"):
        store.repair()
    with pytest.raises(SnapshotCorrupt):
        store.prune(VICTIM, keep_last=0)
    with pytest.raises(SnapshotCorrupt):  # nor is anything written there
        store.put(snap(2, source=VICTIM))
    report = store.verify()
    assert [p.code for p in report.problems] == ["bad-source"]
    assert all(path.exists() for path in bait)
    assert sorted(p.name for p in (tmp_path / "elsewhere").iterdir()) == sorted(
        ["source.json", *(p.name for p in bait)])
    assert store.latest("src") is not None  # the real source is untouched


def test_a_source_swapped_for_a_symlink_during_maintenance_is_not_followed(
        tmp_path: Path) -> None:
    """Maintenance reaches entries through the directory it opened, not the path: a
    directory renamed away and replaced by a symlink meanwhile changes nothing."""
    root = tmp_path / "store"
    store = FilesystemSnapshotStore(root)
    store.put(snap(1))
    real = source_dir(root, "src")
    (real / "tmp.debris").write_text("left by a crash")
    bait = _outside_source(tmp_path / "elsewhere")
    state = store.source_state("src", create=False)
    assert state is not None
    with store.pinned(state) as pinned:
        moved = real.with_name("moved-away")
        real.rename(moved)
        real.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
        os.unlink(pinned.file("tmp.debris"))
        os.unlink(pinned.file("slot.00000"))
        assert os.path.lexists(pinned.file("source.json"))
    assert not (moved / "tmp.debris").exists() and not (moved / "slot.00000").exists()
    assert all(path.exists() for path in bait)


CHILD = textwrap.dedent("""
    import json, sys
    from pressmark.store import FilesystemSnapshotStore, StoreError
    store = FilesystemSnapshotStore(sys.argv[1])
    out = {}
    report = store.verify()
    out["verify"] = sorted({p.code for p in report.problems})
    for name, call in [("repair", store.repair),
                       ("latest", lambda: store.latest("src")),
                       ("list", lambda: store.list("src")),
                       ("other", lambda: store.latest("other"))]:
        try:
            result = call()
            out[name] = ["ok", repr(result)[:300]]
        except StoreError as exc:
            out[name] = [exc.code, exc.message]
    print(json.dumps(out))
""")


def test_planted_fifos_never_block_maintenance_or_reads(tmp_path: Path) -> None:
    root = tmp_path / "store"
    store = FilesystemSnapshotStore(root)
    first = snap(1)
    store.put(first)
    store.put(snap(1, source="other"))
    here = source_dir(root, "src")
    os.mkfifo(here / FUTURE_RECORD)          # a "record", newer than every real one
    os.unlink(here / "HEAD")
    os.symlink(FUTURE_RECORD, here / "HEAD")  # and the head
    os.mkfifo(here / "slot.00007")           # a slot
    other = source_dir(root, "other")
    (other / "source.json").unlink()
    os.mkfifo(other / "source.json")         # another source's metadata
    # The timeout is only a safety net for the old hang.
    done = subprocess.run([sys.executable, "-c", CHILD, str(root)], capture_output=True,
                          text=True, timeout=120, check=True)
    out = json.loads(done.stdout)
    # the FIFO record is corrupt (and so holds no slot); the FIFO source.json unreadable
    assert {"snapshot-corrupt", "snapshot-store-error"} <= set(out["verify"])
    # damage repair does not guess about: a typed error, at once
    assert out["repair"][0] in ("snapshot-corrupt", "snapshot-store-error")
    assert out["latest"][0] == "snapshot-corrupt"
    assert out["list"][0] == "snapshot-corrupt"
    assert out["other"][0] == "snapshot-store-error"
    assert record_path(root, first).exists()


def test_a_non_regular_record_is_corrupt_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "store"
    store = FilesystemSnapshotStore(root)
    first = snap(1)
    store.put(first)
    path = record_path(root, first)
    path.unlink()
    path.mkdir()  # a directory where the record belongs
    with pytest.raises(SnapshotCorrupt, match="not a regular file"):
        FilesystemSnapshotStore(root).get("src", first.snapshot_sha256)


def test_a_symlinked_sources_directory_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "store"
    FilesystemSnapshotStore(root).put(snap(1))
    (root / "sources").rename(tmp_path / "real-sources")
    (root / "sources").symlink_to(tmp_path / "real-sources", target_is_directory=True)
    with pytest.raises(SnapshotStoreError, match="symlink"):
        FilesystemSnapshotStore(root)
