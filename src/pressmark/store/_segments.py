"""A snapshot store of append-only WARC segments and a SQLite index.

Layout (``root`` is what the user names; everything below is ours)::

    root/pressmark-store.json          format marker ("pressmark-segments/1")
    root/index.sqlite3 (-wal, -shm)    the index (_segment_index.py): derived, rebuildable
    root/segments/<id>-<token>.warc.gz WARC/1.1, one gzip member per record
    root/shards/<k>/                   a shard's own segment store (Ray), merged at the end

A crawl of a million pages is a few dozen files, not millions: records are appended to
a segment, each compressed on its own so it reads by offset; a segment is sealed and
made read-only once it reaches ``segment_bytes``; a body the store already holds is
written once and later captures are WARC ``revisit`` records pointing at it. pywb and
warcio read the segments as they are, and ``export_warc`` copies them.

``put`` (and ``put_many``, which the crawl's writer thread uses to commit many puts in
one transaction) appends the snapshot's records to the segment this instance holds
locked (_segment_files.py), fsyncs them (``durability="fsync"``), and only then commits
the index entries and the segment's new committed length in one transaction
(``synchronous=FULL``). So an acknowledged put survives SIGKILL and power loss; a write
interrupted before its commit leaves bytes past the committed length, which nobody
serves and the next writer or ``repair`` cuts off. Writers in any number of processes
never interleave bytes (one writer per segment, by ``flock``); readers take no lock
(WAL), and every read authenticates the record in full, as the filesystem store does:
the envelope against the digest, the body against its hash, the source id against the
request.
"""

# Raw os calls on str paths, as in the filesystem store.
# ruff: noqa: PTH103, PTH110

from __future__ import annotations

import builtins
import contextlib
import hashlib
import json
import os
import secrets
import sqlite3
import stat
import threading
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, Literal

from pressmark._errors import PressmarkError
from pressmark.snapshot import InvalidSnapshot, InvalidSourceRef, Snapshot
from pressmark.snapshot._model import (
    canonical_json,
    check_snapshot,
    is_hex_digest,
    mark_verified,
    snapshot_from_envelope,
)
from pressmark.snapshot._time import utc_now_iso
from pressmark.store._errors import (
    SnapshotCorrupt,
    SnapshotNotFound,
    SnapshotStoreError,
    StoreError,
)
from pressmark.store._fsio import publish
from pressmark.store._lock import WAIT
from pressmark.store._protocol import (
    MAX_HISTORY_FILES,
    MAX_RECORD_BYTES,
    PruneReport,
    RepairReport,
    SnapshotRef,
    VerifyReport,
    keep_digests,
    select_kept,
)
from pressmark.store._segment_files import (
    SEGMENT_DIR,
    SegmentReader,
    SegmentWriter,
    fsync_dir,
    open_regular,
    real_directory,
)
from pressmark.store._segment_index import INDEX_NAME, Index, Row, key63
from pressmark.store._segment_write import Pending, encode_envelope, write_batch
from pressmark.store._warc_records import (
    BODY_HEADER,
    ENVELOPE_JSON_HEADER,
    WarcRecord,
    gzip_member,
    http_payload,
    inflate_member,
    parse_record,
    tombstone_record,
)
from pressmark.store._witness import HeadWitness, WitnessStatus

Durability = Literal["fsync", "flush"]
SEGMENTS_FORMAT = "pressmark-segments/1"
MARKER = "pressmark-store.json"
SEGMENT_BYTES = 1024 * 1024 * 1024
MIN_SEGMENT_BYTES = 64 * 1024


class SegmentStore:
    """Snapshots as records in append-only WARC segments, found through a SQLite index.

    The same contract as :class:`~pressmark.store.FilesystemSnapshotStore` (and the
    same arguments): ``max_history_files`` (1..10,000) is fixed per source at its first
    write; ``durability="flush"`` skips the fsyncs (a process crash loses nothing, a power
    cut may lose recent writes); ``lock_wait`` is how long a writer waits for the index
    (then :class:`~pressmark.store.StoreBusy`); with ``create=False`` a missing store is an
    error. ``segment_bytes`` (default 1 GiB) is where a segment is sealed;
    ``compress_level`` is zlib's (6: as small as 9 on HTML, a fifth faster).
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        max_history_files: int = MAX_HISTORY_FILES,
        *,
        durability: Durability = "fsync",
        lock_wait: float = WAIT,
        create: bool = True,
        segment_bytes: int = SEGMENT_BYTES,
        compress_level: int = 6,
    ) -> None:
        if type(max_history_files) is not int or not 1 <= max_history_files <= MAX_HISTORY_FILES:
            raise ValueError("max_history_files must be between 1 and 10000")
        if durability not in ("fsync", "flush"):
            raise ValueError("durability must be 'fsync' or 'flush'")
        if not lock_wait >= 0:  # also refuses NaN
            raise ValueError("lock_wait must be >= 0")
        if type(segment_bytes) is not int or segment_bytes < MIN_SEGMENT_BYTES:
            raise ValueError("segment_bytes must be an int of at least 64 KiB")
        if compress_level not in range(1, 10):
            raise ValueError("compress_level must be 1..9")
        self.root = Path(root)
        self._root = os.fspath(root)
        self._max = max_history_files
        self.fsync = durability == "fsync"
        self.segment_bytes = segment_bytes
        self.level = compress_level
        self.index = Index(f"{self._root}/{INDEX_NAME}", fsync=self.fsync,
                           busy_timeout=lock_wait)
        self._init_root(create)
        self.reader = SegmentReader(self._root, self.index)
        self.writer = SegmentWriter(self._root, self.index, fsync=self.fsync,
                                    segment_bytes=segment_bytes, level=compress_level,
                                    clock=utc_now_iso)
        self._write_mutex = threading.Lock()
        # A store dropped without close() releases its segment (and its append lock) too.
        weakref.finalize(self, _release, self.writer, self.reader)

    def __repr__(self) -> str:
        return f"SegmentStore(max_history_files={self._max})"

    def close(self) -> None:
        """Release the held segment and this thread's index connection (reopens on use)."""
        with self._write_mutex:
            self.writer.drop()
        self.reader.close()
        self.index.close()

    def __enter__(self) -> SegmentStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def store_id(self) -> str:
        return self.index.meta("store_id") or ""

    # -- the SnapshotStore protocol -----------------------------------------------------

    def put(self, snapshot: Snapshot) -> SnapshotRef:
        result = self.put_many([snapshot])[0]
        if isinstance(result, BaseException):
            raise result
        return result

    def put_many(self, snapshots: Sequence[Snapshot]) -> list[SnapshotRef | PressmarkError]:
        """Put several snapshots with one append and one index commit (group commit).

        Each result is the snapshot's reference or the error that refused it alone
        (invalid, too large, history full); an I/O failure raises for the whole batch.
        """
        results: list[SnapshotRef | PressmarkError | None] = [None] * len(snapshots)
        pending: list[Pending] = []
        for slot, snapshot in enumerate(snapshots):
            try:
                check_snapshot(snapshot, verify_body=True)
                envelope, sha = encode_envelope(snapshot)
                ref = SnapshotRef.of(snapshot)  # may refuse (a sourceRef over 16 KiB)
            except (InvalidSnapshot, InvalidSourceRef, StoreError) as exc:
                results[slot] = exc
                continue
            pending.append(Pending(slot, snapshot, envelope, sha, ref))
        if pending:
            with self._write_mutex:
                write_batch(self, pending, results)
        out: list[SnapshotRef | PressmarkError] = []
        for result in results:
            assert result is not None
            out.append(result)
        return out

    def get(self, source_id: str, digest: str) -> Snapshot:
        db = self.index.conn()
        src = Index.source(db, source_id) if is_hex_digest(digest) else None
        if src is None:
            raise SnapshotNotFound("no snapshot with that digest for this source")
        key = key63(digest)
        for row in Index.by_sha(db, src.id, key):
            snapshot = self._load(row, source_id)
            if snapshot.snapshot_sha256 == digest:
                return snapshot
        for row in Index.by_body(db, src.id, key):  # newest first
            snapshot = self._load(row, source_id)
            if snapshot.body_hash == digest:
                return snapshot
        raise SnapshotNotFound("no snapshot with that digest for this source")

    def list(self, source_id: str) -> builtins.list[SnapshotRef]:
        db = self.index.conn()
        src = Index.source(db, source_id)
        if src is None:
            return []
        # every record is authenticated in full: a listed ref always resolves
        shots = [self._load(row, source_id) for row in Index.newest(db, src.id)]
        shots.sort(key=lambda s: (s.fetched_at, s.snapshot_sha256), reverse=True)
        return [SnapshotRef.of(s) for s in shots]

    def latest(self, source_id: str) -> Snapshot | None:
        db = self.index.conn()
        src = Index.source(db, source_id)
        if src is None:
            return None
        top = Index.newest(db, src.id, 2)
        if not top:
            return None
        if len(top) == 2 and (top[1].fetched_at, top[1].sha) == (top[0].fetched_at, top[0].sha):
            # equal in the index's 63 bits: the full digests decide
            both = [self._load(row, source_id) for row in top]
            return max(both, key=lambda s: s.snapshot_sha256)
        return self._load(top[0], source_id)

    def sources(self) -> builtins.list[str]:
        return sorted(row.source_id for row in Index.sources(self.index.conn()))

    def prune(self, source_id: str, keep_last: int, keep: Sequence[str] = ()) -> PruneReport:
        digests = keep_digests(source_id, keep)
        if keep_last < 0:
            raise ValueError("keep_last must be >= 0")
        with self._write_mutex:
            db = self.index.conn()
            src = Index.source(db, source_id)
            if src is None:
                return PruneReport(source_id=source_id, kept=(), removed=())
            loaded = [(row, self._load(row, source_id)) for row in Index.newest(db, src.id)]
            loaded.sort(key=lambda p: (p[1].fetched_at, p[1].snapshot_sha256), reverse=True)
            history = [(s.snapshot_sha256, s.body_hash) for _, s in loaded]
            kept, removed = select_kept(history, keep_last, digests)
            if removed:
                gone = [history[i][0] for i in removed]
                places = [[self.reader.path(loaded[i][0].segment), loaded[i][0].offset]
                          for i in removed]
                note = canonical_json({"places": places, "removed": gone,
                                       "source_id": source_id})
                taken = self.writer.acquire()
                member = gzip_member(tombstone_record(utc_now_iso(), secrets.token_hex(8), note),
                                     self.level)
                self.writer.write(taken, member)  # before the rows go: a rebuild honours it
                with self.index.write() as wdb:
                    wdb.executemany("DELETE FROM snapshots WHERE id = ?",
                                    [(loaded[i][0].id,) for i in removed])
                    recount(wdb, src.id)
                    wdb.execute("UPDATE segments SET committed = ? WHERE id = ?",
                                (taken.end, taken.segment))
                self.writer.after_commit()
        return PruneReport(source_id=source_id, kept=tuple(history[i][0] for i in kept),
                           removed=tuple(history[i][0] for i in removed))

    # -- beyond the protocol: witnesses, export, shards, rebuild --------------------------

    def read_verified_head(self, source_id: str) -> HeadWitness:
        """The head, authenticated, with a token to compare later (_segment_export.py)."""
        from pressmark.store._segment_export import read_verified_head  # noqa: PLC0415

        return read_verified_head(self, source_id)

    def compare_head_witness(self, witness: HeadWitness | str) -> WitnessStatus:
        """Compare a witness with the source now, reading index entries only."""
        from pressmark.store._segment_export import compare_head_witness  # noqa: PLC0415

        return compare_head_witness(self, witness)

    def export(self, fh: IO[bytes], *, sources: Sequence[str] | None = None,
               gzip: bool = True) -> int:
        """Copy the snapshots' records into ``fh`` as one WARC; returns the count."""
        from pressmark.store._segment_export import export_segments  # noqa: PLC0415

        return export_segments(self, fh, sources=sources, gzip=gzip, when=utc_now_iso())

    def merge_shard(self, shard: int) -> int:
        """Fold the shard store at ``root/shards/<shard>`` into this index; returns rows."""
        from pressmark.store._segment_export import merge_shard  # noqa: PLC0415

        with self._write_mutex:
            return merge_shard(self, str(shard))

    def shard(self, shard: int) -> SegmentStore:
        """The store one shard writes alone (``root/shards/<shard>``), created on first use."""
        if type(shard) is not int or not 0 <= shard < 10_000:
            raise ValueError("shard must be an int from 0 to 9999")
        return SegmentStore(self.root / "shards" / str(shard), self._max,
                            durability="fsync" if self.fsync else "flush",
                            lock_wait=self.index.busy_timeout, segment_bytes=self.segment_bytes,
                            compress_level=self.level)

    def checkpoint(self) -> None:
        """Fold the index's write-ahead log into its database file (another process, on
        another machine maybe, reads it next: a shard's index at the end of its crawl)."""
        with contextlib.suppress(sqlite3.Error):
            self.index.conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def rebuild_index(self) -> int:
        """Build the index again from the segments alone; returns the snapshots indexed."""
        from pressmark.store._segment_maintenance import rebuild_index  # noqa: PLC0415

        with self._write_mutex:
            return rebuild_index(self)

    def verify(self) -> VerifyReport:
        from pressmark.store._segment_maintenance import verify_store  # noqa: PLC0415

        return verify_store(self)

    def repair(self) -> RepairReport:
        """Cut interrupted writes off unheld segments; rebuild a missing or broken index."""
        from pressmark.store._segment_maintenance import repair_store  # noqa: PLC0415

        with self._write_mutex:
            return repair_store(self)

    # -- reading --------------------------------------------------------------------------

    def read_member(self, segment: int, offset: int, length: int) -> WarcRecord:
        """The WARC record in one gzip member of a segment."""
        if length > MAX_RECORD_BYTES + 1024 * 1024:
            raise SnapshotCorrupt("the index names a record larger than any we write")
        return parse_record(inflate_member(self.reader.read(segment, offset, length)))

    def _load(self, row: Row, source_id: str) -> Snapshot:
        """Read and fully verify the snapshot an index row names (fail closed)."""
        return self.authenticate(self.read_member(row.segment, row.offset, row.length), row,
                                 source_id)

    def authenticate(self, record: WarcRecord, row: Row, source_id: str) -> Snapshot:
        """The snapshot in ``record`` (what ``row`` names), fully verified (fail closed)."""
        raw = record.header(ENVELOPE_JSON_HEADER)
        if raw is None or not raw.isascii():
            raise SnapshotCorrupt("segment record holds no pressmark envelope")
        header = raw.encode("ascii")
        digest = hashlib.sha256(header).hexdigest()
        if key63(digest) != row.sha:
            raise SnapshotCorrupt("the index entry names another record")
        envelope = _envelope(header)
        if envelope.get("source_id") != source_id:
            raise SnapshotCorrupt("snapshot record belongs to a different source")
        if envelope.get("fetched_at") != row.fetched_at:
            raise SnapshotCorrupt("snapshot record timestamp does not match its index entry")
        body = self._body(record, row, envelope)
        if hashlib.sha256(body).hexdigest() != envelope.get("body_hash"):
            raise SnapshotCorrupt("snapshot body does not match its hash")
        try:
            snapshot = snapshot_from_envelope(envelope, body)
        except InvalidSnapshot as exc:
            raise SnapshotCorrupt("snapshot record envelope is invalid") from exc
        if canonical_json(envelope) != header:
            raise SnapshotCorrupt("snapshot record envelope is not canonical")
        object.__setattr__(snapshot, "_digest", digest)
        mark_verified(snapshot)  # identity, source, body hash and invariants checked above
        return snapshot

    def _body(self, record: WarcRecord, row: Row, envelope: dict[str, Any]) -> bytes:
        kind = record.type
        if envelope.get("rendered") is True:
            if kind != "conversion":
                raise SnapshotCorrupt("a rendered snapshot's record is not a conversion")
            return record.block
        if kind == "response" and row.payload is None:
            return http_payload(record.block)
        if kind == "revisit" and row.payload is not None:
            holder = self.read_member(*row.payload)
            if holder.type != "response" or holder.header(BODY_HEADER) != envelope.get(
                    "body_hash"):
                raise SnapshotCorrupt("a revisit's payload record holds another body")
            return http_payload(holder.block)
        raise SnapshotCorrupt("segment record type does not match its index entry")

    # -- the store root -------------------------------------------------------------------

    def _init_root(self, create: bool) -> None:
        root = self._root
        marker = f"{root}/{MARKER}"
        try:
            fd = open_regular(marker)
            try:
                info = json.loads(os.read(fd, 4096))
            finally:
                os.close(fd)
        except FileNotFoundError:
            info = None
        except (OSError, ValueError, RecursionError) as exc:
            raise SnapshotStoreError("store root marker is unreadable") from exc
        if info is None:
            if not create:
                raise SnapshotStoreError("no snapshot store at this location")
            try:
                os.makedirs(f"{root}/{SEGMENT_DIR}", exist_ok=True)
                self.index.create(secrets.token_hex(16))
                # The marker last: a store whose creation was interrupted is created again.
                publish(root, MARKER, (json.dumps({"format": SEGMENTS_FORMAT}).encode(),),
                        fsync=self.fsync)
                if self.fsync:
                    fsync_dir(root)
            except OSError as exc:
                raise SnapshotStoreError("could not create the store root") from exc
        elif not isinstance(info, dict) or info.get("format") != SEGMENTS_FORMAT:
            raise SnapshotStoreError("directory is not a pressmark segment store")
        elif not os.path.exists(self.index.path):
            from pressmark.store._segment_maintenance import segment_files  # noqa: PLC0415

            if segment_files(root):
                self.index.broken = ("the store index is missing; `pressmark store repair` "
                                     "rebuilds it from the segments")
            else:
                self.index.create(secrets.token_hex(16))
        if not real_directory(f"{root}/{SEGMENT_DIR}"):
            raise SnapshotStoreError("the store's segments directory is missing or a symlink")
        for name in (INDEX_NAME, f"{INDEX_NAME}-wal", f"{INDEX_NAME}-shm"):
            try:  # SQLite would open a planted FIFO or follow a planted symlink
                info_ = os.lstat(f"{root}/{name}")
            except FileNotFoundError:
                continue
            if not stat.S_ISREG(info_.st_mode):
                raise SnapshotStoreError("the store index is not a regular file")


def _release(writer: SegmentWriter, reader: SegmentReader) -> None:
    writer.drop()
    reader.close()


def recount(db: Any, source: int) -> None:
    """Set a source's count from its rows (exact whatever ran concurrently)."""
    db.execute("UPDATE sources SET count = (SELECT count(*) FROM snapshots WHERE source = ?) "
               "WHERE id = ?", (source, source))


def _envelope(header: bytes) -> dict[str, Any]:
    try:
        envelope = json.loads(header)
    except (ValueError, RecursionError) as exc:
        raise SnapshotCorrupt("snapshot record envelope is not valid JSON") from exc
    if not isinstance(envelope, dict):
        raise SnapshotCorrupt("snapshot record envelope is not an object")
    return envelope
