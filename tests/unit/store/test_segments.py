"""The segment store beyond the shared contract: layout, WARC segments, crash leftovers,
damage, the index rebuild, export by copy, witnesses, shards and store formats."""

from __future__ import annotations

import io
import os
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from pressmark.snapshot import build_source_ref, new_snapshot, resolve_source_ref
from pressmark.store import (
    FilesystemSnapshotStore,
    MemorySnapshotStore,
    SegmentStore,
    SnapshotCorrupt,
    SnapshotHistoryFull,
    SnapshotStoreError,
    export_warc,
    import_warc,
    open_store,
    store_format,
)
from pressmark.store._open import migrate_store
from pressmark.testing import make_snapshot

from ._helpers import snap

T = "2026-11-30T12:00:00.000Z"


def _segments(root: Path) -> list[Path]:
    return sorted((root / "segments").iterdir())


def _warcio_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).parent / "warcio"), "check", str(path)],
                          capture_output=True, text=True, check=False)


def test_layout_is_a_few_files_and_segments_are_warc(tmp_path: Path) -> None:
    store = SegmentStore(tmp_path, durability="flush")
    refs = [store.put(snap(n, source=f"s{n}")).source_ref for n in range(50)]
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("index.sqlite3-")
                  ) == ["index.sqlite3", "pressmark-store.json", "segments"]
    [segment] = _segments(tmp_path)
    assert segment.name.endswith(".warc.gz")
    assert _warcio_check(segment).returncode == 0
    with segment.open("rb") as fh:
        types = [r.rec_type for r in ArchiveIterator(fh)]
    assert types[0] == "warcinfo" and types.count("response") == 50
    assert all(resolve_source_ref(store, ref).ok for ref in refs)


def test_the_same_body_is_stored_once(tmp_path: Path) -> None:
    store = SegmentStore(tmp_path, durability="flush")
    body = b"<p>" + os.urandom(20_000).hex().encode() + b"</p>"
    first = make_snapshot("a", "http://a.test/", body, fetched_at=T)
    store.put(first)
    size = _segments(tmp_path)[0].stat().st_size
    again = [make_snapshot(f"s{n}", f"http://a.test/{n}", body,
                           fetched_at=f"2026-11-30T12:00:0{n}.000Z") for n in range(1, 6)]
    for shot in again:
        store.put(shot)
    grown = _segments(tmp_path)[0].stat().st_size - size
    assert grown < 5 * 3_000  # five revisit records, not five more copies of 40 kB
    for shot in again:
        assert store.get(shot.source_id, shot.snapshot_sha256) == shot
    with _segments(tmp_path)[0].open("rb") as fh:
        types = [r.rec_type for r in ArchiveIterator(fh)]
    assert types.count("revisit") == 5
    assert store.verify().ok


def test_put_many_commits_a_batch_and_reports_each_refusal(tmp_path: Path) -> None:
    store = SegmentStore(tmp_path, 2, durability="flush")
    shots = [snap(n) for n in range(3)]
    results = store.put_many([*shots, shots[0]])
    assert [type(r).__name__ for r in results] == [
        "SnapshotRef", "SnapshotRef", "SnapshotHistoryFull", "SnapshotRef"]
    assert results[3] == results[0]
    assert isinstance(results[2], SnapshotHistoryFull)
    assert len(store.list("src")) == 2


def test_a_torn_tail_is_never_served_and_is_cut(tmp_path: Path) -> None:
    store = SegmentStore(tmp_path, durability="flush")
    kept = store.put(snap(1))
    store.close()
    [segment] = _segments(tmp_path)
    committed = segment.stat().st_size
    with segment.open("ab") as fh:  # a writer killed mid-append
        fh.write(b"\x1f\x8b\x08\x00 half a record")
    store = SegmentStore(tmp_path, durability="flush")
    report = store.verify()
    assert report.ok and [n.code for n in report.notes] == ["uncommitted-tail"]
    assert store.repair().fixed == 1
    assert segment.stat().st_size == committed
    clean = store.verify()
    assert clean.ok and clean.notes == ()
    assert resolve_source_ref(store, kept.source_ref).ok


def test_the_next_writer_cuts_a_tail_before_it_appends(tmp_path: Path) -> None:
    SegmentStore(tmp_path, durability="flush").put(snap(1))
    [segment] = _segments(tmp_path)
    with segment.open("ab") as fh:
        fh.write(b"garbage of an interrupted write")
    store = SegmentStore(tmp_path, durability="flush")
    store.put(snap(2))
    assert [len(store.list("src"))] == [2]
    assert _warcio_check(segment).returncode == 0
    report = store.verify()
    assert report.ok and report.notes == ()


def test_damaged_records_fail_closed_and_a_second_put_heals(tmp_path: Path) -> None:
    store = SegmentStore(tmp_path, durability="flush")
    shot = make_snapshot("src", "http://a.test/", b"<p>" + b"x" * 5000 + b"</p>", fetched_at=T)
    store.put(shot)
    store.close()
    [segment] = _segments(tmp_path)
    data = bytearray(segment.read_bytes())
    data[-500] ^= 0xFF  # inside the response record's deflate stream
    segment.write_bytes(bytes(data))
    store = SegmentStore(tmp_path, durability="flush")
    with pytest.raises(SnapshotCorrupt):
        store.get("src", shot.snapshot_sha256)
    report = store.verify()
    assert not report.ok
    assert {p.code for p in report.problems} <= {"segment-corrupt", "snapshot-corrupt",
                                                 "record-corrupt"}
    store.put(shot)  # the verified bytes we hold are exactly what belongs there
    assert store.get("src", shot.snapshot_sha256) == shot


def test_a_truncated_segment_is_damage(tmp_path: Path) -> None:
    store = SegmentStore(tmp_path, durability="flush")
    ref = store.put(snap(1)).source_ref
    store.close()
    [segment] = _segments(tmp_path)
    with sqlite3.connect(tmp_path / "index.sqlite3") as db:
        (offset,) = db.execute("SELECT offset FROM snapshots").fetchone()
    os.truncate(segment, offset + 20)  # into the record holding the snapshot
    store = SegmentStore(tmp_path, durability="flush")
    assert resolve_source_ref(store, ref).error.code == "snapshot-corrupt"  # type: ignore[union-attr]
    assert "segment-truncated" in {p.code for p in store.verify().problems}
    store.put(snap(2))  # never appended after missing committed data
    assert len(_segments(tmp_path)) == 2


def test_an_index_entry_moved_to_another_source_is_corrupt(tmp_path: Path) -> None:
    store = SegmentStore(tmp_path, durability="flush")
    a, b = snap(1, source="a"), snap(1, source="b", body=b"<p>b</p>")
    store.put(a)
    store.put(b)
    with sqlite3.connect(tmp_path / "index.sqlite3") as db:
        db.execute("UPDATE snapshots SET offset = (SELECT offset FROM snapshots WHERE id = 1), "
                   "length = (SELECT length FROM snapshots WHERE id = 1) WHERE id = 2")
    with pytest.raises(SnapshotCorrupt):
        store.latest("b")
    assert not store.verify().ok


def test_a_symlinked_segments_directory_is_refused(tmp_path: Path) -> None:
    SegmentStore(tmp_path / "s", durability="flush").put(snap(1))
    (tmp_path / "s" / "segments").rename(tmp_path / "elsewhere")
    (tmp_path / "s" / "segments").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(SnapshotStoreError):
        SegmentStore(tmp_path / "s")


def test_a_segment_path_in_the_index_is_checked(tmp_path: Path) -> None:
    store = SegmentStore(tmp_path, durability="flush")
    shot = snap(1)
    store.put(shot)
    with sqlite3.connect(tmp_path / "index.sqlite3") as db:
        db.execute("UPDATE segments SET path = '../../etc/passwd'")
    with pytest.raises(SnapshotCorrupt):
        SegmentStore(tmp_path).get("src", shot.snapshot_sha256)


def test_segments_are_sealed_read_only_at_their_size(tmp_path: Path) -> None:
    store = SegmentStore(tmp_path, durability="flush", segment_bytes=64 * 1024)
    shots = [make_snapshot(f"s{n}", f"http://a.test/{n}", os.urandom(9_000).hex().encode(),
                           fetched_at=T) for n in range(24)]
    for shot in shots:
        store.put(shot)
    segments = _segments(tmp_path)
    assert len(segments) >= 3
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o444 for p in segments[:-1])
    assert all(store.get(s.source_id, s.snapshot_sha256) == s for s in shots)
    assert all(_warcio_check(p).returncode == 0 for p in segments)


def test_rebuild_from_segments_alone(tmp_path: Path) -> None:
    store = SegmentStore(tmp_path, durability="flush")
    shots = [snap(n, source=f"s{n % 3}") for n in range(9)]
    shots.append(new_snapshot(source_id="r", requested_url="http://r.test/", url="http://r.test/",
                              status=200, headers={}, body=b"<p>dom</p>", rendered=True,
                              fetched_at=T))
    shots.append(make_snapshot("dup", "http://d.test/", shots[0].bytes, fetched_at=T))
    refs = [store.put(s).source_ref for s in shots]
    pruned = store.prune("s0", keep_last=1)
    again = store.put(snap(0, source="s0"))  # pruned, then put again: it must survive
    store.close()
    for name in ("index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    broken = SegmentStore(tmp_path)
    with pytest.raises(SnapshotStoreError, match="repair"):
        broken.latest("s1")
    assert broken.repair().fixed >= len(shots) - len(pruned.removed)
    for ref, shot in zip(refs, shots, strict=True):
        gone = shot.snapshot_sha256 in pruned.removed and shot.snapshot_sha256 != (
            again.snapshot_sha256)
        assert resolve_source_ref(broken, ref).ok is not gone
    assert resolve_source_ref(broken, again.source_ref).ok
    report = broken.verify()
    assert report.ok and report.notes == ()


def test_export_is_a_copy_that_imports_everywhere(tmp_path: Path) -> None:
    store = SegmentStore(tmp_path / "store", durability="flush")
    shared = b"<p>shared body</p>" * 100
    shots = [make_snapshot("a", "http://a.test/", shared, fetched_at=T),
             make_snapshot("b", "http://b.test/", shared, fetched_at=T),
             new_snapshot(source_id="a", requested_url="http://a.test/", url="http://a.test/",
                          status=200, headers={}, body=b"<p>dom</p>", rendered=True,
                          fetched_at="2026-11-30T12:00:01.000Z")]
    refs = [store.put(s).source_ref for s in shots]
    out = tmp_path / "out.warc.gz"
    assert export_warc(store, out) == 3
    assert _warcio_check(out).returncode == 0
    for target in (MemorySnapshotStore(), FilesystemSnapshotStore(tmp_path / "f"),
                   SegmentStore(tmp_path / "s")):
        report = import_warc(target, out)
        assert report.ok and report.imported == 3, report.errors
        assert all(resolve_source_ref(target, r).snapshot == s for r, s in
                   zip(refs, shots, strict=True))
    alone = io.BytesIO()  # b's body record is a's: exported alone, b gets a full response
    assert export_warc(store, alone, sources=["b"]) == 1
    kinds = [r.rec_type for r in ArchiveIterator(io.BytesIO(alone.getvalue()))]
    assert "revisit" not in kinds
    assert import_warc(MemorySnapshotStore(), io.BytesIO(alone.getvalue())).imported == 1


def test_witness(tmp_path: Path) -> None:
    store = SegmentStore(tmp_path, durability="flush")
    store.put(snap(1))
    witness = store.read_verified_head("src")
    assert witness.source_ref == build_source_ref(snap(1))
    assert store.compare_head_witness(witness) == "matches"
    assert SegmentStore(tmp_path).compare_head_witness(witness.token) == "matches"
    store.put(snap(2))
    assert store.compare_head_witness(witness) == "changed"
    assert store.compare_head_witness("nonsense") == "unsupported"
    other = SegmentStore(tmp_path / "other")
    other.put(snap(1))
    assert other.compare_head_witness(witness) == "unsupported"


def test_shards_write_alone_and_merge(tmp_path: Path) -> None:
    main = SegmentStore(tmp_path, durability="flush")
    refs = []
    for k in range(2):
        shard = main.shard(k)
        refs += [shard.put(snap(n, source=f"k{k}-{n}")).source_ref for n in range(3)]
        shard.close()
    assert main.sources() == []
    assert main.merge_shard(0) == 3 and main.merge_shard(1) == 3
    assert main.merge_shard(1) == 0  # merged already
    more = main.shard(1)  # a resumed shard goes on writing its own store
    refs.append(more.put(snap(7, source="k1-7")).source_ref)
    more.close()
    assert main.merge_shard(1) == 1
    assert all(resolve_source_ref(main, ref).ok for ref in refs)
    report = main.verify()
    assert report.ok and report.notes == ()
    main.put(snap(9))
    assert "shards/" not in main.reader.path(main.writer.acquire().segment)


def test_two_instances_in_threads_never_interleave(tmp_path: Path) -> None:
    stores = [SegmentStore(tmp_path, durability="flush") for _ in range(2)]

    def write(k: int) -> None:
        for n in range(40):
            stores[k].put(snap(n, source=f"t{k}-{n}"))

    threads = [threading.Thread(target=write, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(_segments(tmp_path)) == 2
    report = stores[0].verify()
    assert report.ok and report.notes == () and report.records == 80


def test_formats_open_by_their_marker_and_migrate_both_ways(tmp_path: Path) -> None:
    files = FilesystemSnapshotStore(tmp_path / "files", durability="flush")
    shots = [snap(n, source=f"s{n % 2}") for n in range(6)]
    refs = [files.put(s).source_ref for s in shots]
    assert store_format(tmp_path / "files") == "files"
    assert store_format(tmp_path / "nothing") is None
    assert isinstance(open_store(tmp_path / "new", create=True), SegmentStore)
    with pytest.raises(SnapshotStoreError, match="migrate"):
        open_store(tmp_path / "files", format="segments")
    segments = open_store(tmp_path / "seg", create=True, format="segments")
    report = migrate_store(files, segments)
    assert (report.sources, report.snapshots, report.already) == (2, 6, 0)
    assert migrate_store(files, segments).already == 6
    back = open_store(tmp_path / "back", create=True, format="files")
    migrate_store(segments, back)
    for target in (segments, back):
        assert all(resolve_source_ref(target, ref).ok for ref in refs)
        assert target.verify().ok


def test_planted_fifos_and_symlinks_are_refused_never_followed_or_waited_on(
        tmp_path: Path) -> None:
    """The filesystem store's discipline (red team #34 item 5): nothing planted in the
    store blocks a command or leads it outside the store."""
    root = tmp_path / "store"
    store = SegmentStore(root, durability="flush")
    shot = snap(1)
    store.put(shot)
    store.close()
    [segment] = _segments(root)
    segment.unlink()
    os.mkfifo(segment)  # a read would wait for a writer forever
    store = SegmentStore(root)
    with pytest.raises(SnapshotCorrupt):
        store.get("src", shot.snapshot_sha256)
    assert "segment-corrupt" in {p.code for p in store.verify().problems}
    store.put(snap(2))  # a writer skips it and takes a new segment
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "segments").mkdir(parents=True)
    (elsewhere / "segments" / "000001-abcdef01.warc.gz").write_bytes(b"not the store's")
    (root / "shards").mkdir()
    (root / "shards" / "0").symlink_to(elsewhere, target_is_directory=True)
    report = store.verify()  # the planted shard is not read
    assert not any("shards/0" in p.detail for p in (*report.problems, *report.notes))
    fifo_index = tmp_path / "fifo-index"
    SegmentStore(fifo_index).close()
    for name in ("index.sqlite3-wal", "index.sqlite3-shm"):
        (fifo_index / name).unlink(missing_ok=True)
    (fifo_index / "index.sqlite3").unlink()
    os.mkfifo(fifo_index / "index.sqlite3")
    with pytest.raises(SnapshotStoreError, match="regular"):
        SegmentStore(fifo_index)
