"""verify(), repair() and the index rebuild of the segment store.

``verify`` reads every segment once, front to back: every gzip member must decompress
and frame a WARC record, every record's block and payload digests must match, and every
index entry must name the start of a record that authenticates in full (envelope digest,
source, time, body hash) and whose body (its own, or a revisit's) is there. It reports,
never repairs: damage (corrupt, missing or contradictory data) as problems, the leftovers
of interrupted writes as notes:

* ``uncommitted-tail``: bytes past a segment's committed length that no live writer is
  appending (a writer died between its append and its commit);
* ``missing-empty-segment``: an index row of a segment whose file was never created;
* ``orphan-segment``: an empty file in ``segments/`` that no index row names.

``repair`` cuts those tails off (taking each segment's append lock, so never under a live
writer), drops those rows and files, corrects per-source counts, and rebuilds the index
from the segments when it is missing or unreadable (:func:`rebuild_index`); records and
history are never touched. The rebuild keeps every record a prune's tombstone does not
name, with the history capacity of the store instance.
"""

# Raw os calls on str paths, as in the other store modules.
# ruff: noqa: PTH108, PTH110, PTH208

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import secrets
import sqlite3
import stat
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pressmark.store._errors import SnapshotCorrupt, SnapshotStoreError
from pressmark.store._protocol import RepairReport, VerifyProblem, VerifyReport
from pressmark.store._segment_files import (
    SEGMENT_DIR,
    SEGMENT_PATH,
    check_segment_path,
    held_by_a_writer,
    open_regular,
    real_directory,
    real_parents,
    try_lock,
)
from pressmark.store._segment_index import INDEX_NAME, Index, Row, key63
from pressmark.store._warc_records import (
    ENVELOPE_JSON_HEADER,
    TOMBSTONE_HEADER,
    WarcRecord,
    http_payload,
    parse_record,
    sha256_label,
)

if TYPE_CHECKING:
    from pressmark.store._segments import SegmentStore

_CHUNK = 1024 * 1024
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def members(fd: int, end: int) -> Iterator[tuple[int, int, bytes]]:
    """(offset, length, content) of each gzip member in ``[0, end)`` of a segment.

    Raises :class:`SnapshotCorrupt` at the first byte that does not continue a member
    (the walk cannot find record boundaries past it).
    """
    offset = 0
    while offset < end:
        unpacker = zlib.decompressobj(31)
        parts: list[bytes] = []
        position = offset
        while not unpacker.eof:
            if position >= end:
                raise SnapshotCorrupt(f"a record at byte {offset} is cut short")
            chunk = os.pread(fd, min(_CHUNK, end - position), position)
            if not chunk:
                raise SnapshotCorrupt(f"a record at byte {offset} is cut short")
            try:
                parts.append(unpacker.decompress(chunk))
            except zlib.error as exc:
                raise SnapshotCorrupt(f"the record at byte {offset} does not decompress") from exc
            position += len(chunk)
        length = position - len(unpacker.unused_data) - offset
        yield offset, length, b"".join(parts)
        offset += length


def check_digests(record: WarcRecord) -> str | None:
    """Why the record's WARC digests do not match its block, or None when they do."""
    block_digest = record.header("WARC-Block-Digest")
    if block_digest and block_digest.startswith("sha256:") and block_digest != sha256_label(
            hashlib.sha256(record.block).hexdigest()):
        return "block digest mismatch"
    payload_digest = record.header("WARC-Payload-Digest")
    if payload_digest and payload_digest.startswith("sha256:") and record.type in (
            "response", "conversion"):
        payload = http_payload(record.block) if record.type == "response" else record.block
        if payload_digest != sha256_label(hashlib.sha256(payload).hexdigest()):
            return "payload digest mismatch"
    return None


def verify_store(store: SegmentStore) -> VerifyReport:
    problems: list[VerifyProblem] = []
    notes: list[VerifyProblem] = []

    def problem(code: str, detail: str, source_id: str | None = None) -> None:
        finding = VerifyProblem(code=code, source_id=source_id, detail=detail)
        (notes if finding.is_debris else problems).append(finding)

    try:
        with store.index.reading() as db:
            check = db.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                problem("index-corrupt", "the index database fails its own check")
            segments = Index.segments(db)
            names = {row.id: row.source_id for row in _all_sources(db)}
            rows = [Row.of(r) for r in db.execute(
                "SELECT id, source, sha, body, fetched_at, rendered, segment, start, offset, "
                'length, "end", pseg, poff, plen FROM snapshots ORDER BY segment, offset')]
            counts = dict(db.execute("SELECT source, count(*) FROM snapshots GROUP BY source"))
            stated = dict(db.execute("SELECT id, count FROM sources"))
    except sqlite3.Error:
        problem("index-corrupt", "the index database cannot be read")
        return VerifyReport(problems=tuple(problems), notes=tuple(notes), sources=0, records=0)
    for source, count in stated.items():
        if counts.get(source, 0) != count:
            problem("bad-count", "the index's snapshot count disagrees with its rows",
                    names.get(source))
    by_segment: dict[int, list[Row]] = {}
    for row in rows:
        by_segment.setdefault(row.segment, []).append(row)
    known = {row.id for row in segments}
    for missing in sorted(set(by_segment) - known):
        problem("bad-index", f"{len(by_segment[missing])} index entries name a segment that "
                "does not exist")
    records = 0
    for segment in segments:
        records += _verify_segment(store, segment.id, segment.path, segment.committed,
                                   by_segment.get(segment.id, []), names, problem)
    _orphans(store, {row.path for row in segments}, problem)
    sources = sum(1 for count in counts.values() if count)
    return VerifyReport(problems=tuple(problems), notes=tuple(notes), sources=sources,
                        records=records)


def _all_sources(db: sqlite3.Connection) -> list[Any]:
    from pressmark.store._segment_index import SourceRow  # noqa: PLC0415

    return [SourceRow(*r) for r in db.execute("SELECT id, source_id, capacity, count FROM sources")]


def _verify_segment(store: SegmentStore, ident: int, path: str, committed: int,  # noqa: PLR0917
                    rows: list[Row], names: dict[int, str], problem: Callable[..., None],
                    ) -> int:
    try:
        check_segment_path(path)
    except SnapshotCorrupt:
        problem("bad-segment-path", f"segment {ident} has a path that is not one of ours")
        return 0
    full = f"{store.root}/{path}"
    if not real_parents(str(store.root), path):
        problem("segment-corrupt", f"segment {path}: a directory on its way is a symlink")
        return 0
    try:
        info = os.lstat(full)
    except FileNotFoundError:
        if committed == 0 and not rows:
            problem("missing-empty-segment", f"segment {path} was never created")
        else:
            problem("segment-missing", f"segment {path} is missing")
        return 0
    if not stat.S_ISREG(info.st_mode):
        problem("segment-corrupt", f"segment {path} is not a regular file")
        return 0
    if info.st_size < committed:
        problem("segment-truncated", f"segment {path} ends before its committed length")
    elif info.st_size > committed and not held_by_a_writer(full):
        now = Index.segment(store.index.conn(), ident)  # it may have committed meanwhile
        if now is not None and os.lstat(full).st_size > now.committed and not held_by_a_writer(
                full):
            problem("uncommitted-tail", f"segment {path} has bytes of an interrupted write")
    by_offset: dict[int, list[Row]] = {}
    for row in rows:
        by_offset.setdefault(row.offset, []).append(row)
    seen: set[int] = set()
    verified = 0
    walked = 0  # where the walk of whole members got to
    try:
        fd = open_regular(full)
    except OSError:
        problem("segment-corrupt", f"segment {path} is not a regular file")
        return 0
    try:
        for offset, length, raw in members(fd, min(committed, info.st_size)):
            walked = offset + length
            try:
                record = parse_record(raw)
            except SnapshotCorrupt as exc:
                problem("record-corrupt", f"segment {path} byte {offset}: {exc.message}")
                continue
            why = check_digests(record)
            if why is not None:
                problem("record-corrupt", f"segment {path} byte {offset}: {why}")
            for row in by_offset.get(offset, ()):
                seen.add(row.id)
                verified += 1
                source_id = names.get(row.source, "")
                if row.length != length:
                    problem("bad-index", f"an index entry's length at {path} byte {offset} "
                            "is wrong", source_id)
                    continue
                try:
                    store.authenticate(record, row, source_id)
                except (SnapshotCorrupt, SnapshotStoreError) as exc:
                    problem("snapshot-corrupt", f"segment {path} byte {offset}: {exc.message}",
                            source_id)
    except SnapshotCorrupt as exc:
        problem("segment-corrupt", f"segment {path}: {exc.message}")
    except OSError:
        problem("snapshot-store-error", f"segment {path} could not be read")
    finally:
        os.close(fd)
    for row in rows:
        if row.id in seen:
            continue
        verified += 1
        owner = names.get(row.source, "")
        if row.offset < walked:
            problem("bad-index", f"an index entry names no record start in {path}", owner)
            continue
        try:  # past a damaged member: each record is its own member, read it by offset
            store.authenticate(store.read_member(row.segment, row.offset, row.length), row,
                               owner)
        except (SnapshotCorrupt, SnapshotStoreError) as exc:
            problem("snapshot-corrupt", f"segment {path} byte {row.offset}: {exc.message}",
                    owner)
    return verified


def _orphans(store: SegmentStore, listed: set[str], problem: Callable[..., None]) -> None:
    for path in segment_files(str(store.root)):
        if path in listed:
            continue
        if os.lstat(f"{store.root}/{path}").st_size == 0:
            problem("orphan-segment", f"{path} is an empty segment no index entry names")
        else:
            problem("unindexed-segment", f"{path} holds records the index does not know "
                    "(`pressmark store repair --rebuild-index` reads them)")


def segment_files(root: str) -> list[str]:
    """Relative paths of every segment file (``segments/`` and each shard's)."""
    found: list[str] = []
    bases = [SEGMENT_DIR]
    if real_directory(f"{root}/shards"):
        with contextlib.suppress(OSError):
            bases += [f"shards/{k}/{SEGMENT_DIR}" for k in sorted(os.listdir(f"{root}/shards"))]
    for base in bases:
        if not real_parents(root, f"{base}/x"):
            continue  # a planted symlink: never followed
        with contextlib.suppress(OSError):
            for name in sorted(os.listdir(f"{root}/{base}")):
                if SEGMENT_PATH.match(f"{base}/{name}"):
                    found.append(f"{base}/{name}")
    return found


def repair_store(store: SegmentStore, *, rebuild: bool = False) -> RepairReport:
    """Cut interrupted writes, drop leftovers, fix counts; rebuild a broken index."""
    fixed = 0
    if rebuild or not _index_readable(store):
        fixed += rebuild_index(store)
    db = store.index.conn()
    segments = Index.segments(db)
    for segment in segments:
        full = f"{store.root}/{check_segment_path(segment.path)}"
        if not os.path.lexists(full):
            if segment.committed == 0:
                with store.index.write() as wdb:
                    wdb.execute("DELETE FROM segments WHERE id = ? AND committed = 0",
                                (segment.id,))
                fixed += 1
            continue
        if segment.sealed:
            continue
        fixed += _cut_tail(store, segment.id, full)
    for path in segment_files(str(store.root)):
        if path not in {row.path for row in segments} and os.lstat(
                f"{store.root}/{path}").st_size == 0:
            os.unlink(f"{store.root}/{path}")
            fixed += 1
    with store.index.write() as wdb:
        wrong = [source for source, count, actual in wdb.execute(
            "SELECT s.id, s.count, (SELECT count(*) FROM snapshots WHERE source = s.id) "
            "FROM sources s") if count != actual]
        for source in wrong:
            wdb.execute("UPDATE sources SET count = (SELECT count(*) FROM snapshots "
                        "WHERE source = ?) WHERE id = ?", (source, source))
    fixed += len(wrong)
    sources = len(Index.sources(db))
    return RepairReport(sources=sources, fixed=fixed)


def _cut_tail(store: SegmentStore, ident: int, full: str) -> int:
    """Truncate an unheld segment to its committed length; 1 when there was a tail."""
    try:
        fd = open_regular(full, os.O_RDWR)
    except OSError:
        return 0
    try:
        if not try_lock(fd):
            return 0  # a live writer: what follows its commit is in flight, not debris
        row = Index.segment(store.index.conn(), ident)
        if row is None or os.fstat(fd).st_size <= row.committed:
            return 0
        os.ftruncate(fd, row.committed)
        if store.fsync:
            os.fsync(fd)
        return 1
    finally:
        os.close(fd)


def _index_readable(store: SegmentStore) -> bool:
    if not os.path.exists(f"{store.root}/{INDEX_NAME}"):
        return False
    try:
        return store.index.meta("store_id") is not None
    except (sqlite3.Error, SnapshotStoreError):
        return False


def rebuild_index(store: SegmentStore) -> int:
    """Build the index again from the segments alone; returns the snapshots indexed.

    A missing or unreadable index is moved aside (``index.sqlite3.broken-<time>``)
    first. Every record holding a pressmark envelope is indexed unless a prune's
    tombstone names its place; a segment's committed length is the end of its last
    whole record (what follows is cut by the next writer or repair).
    """
    root = str(store.root)
    store.writer.drop()
    store.reader.reset()
    store.index.close()
    stamp = time.strftime("%Y%m%dT%H%M%S")
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.rename(f"{root}/{INDEX_NAME}{suffix}",  # noqa: PTH104
                      f"{root}/{INDEX_NAME}.broken-{stamp}{suffix}")
    store.index.create(secrets.token_hex(16))
    holders: dict[int, tuple[int, int, int]] = {}
    dead: set[tuple[str, int]] = set()
    revisits: list[_Found] = []
    with store.index.write() as db:

        def add(found: _Found, payload: tuple[int, int, int] | None) -> None:
            src = Index.add_source(db, found.source_id, store._max)
            Index.insert(db, src.id, key63(found.sha), key63(found.body), found.fetched_at,
                         found.rendered, found.place, payload)

        def seen(found: _Found) -> None:
            if found.revisit:
                revisits.append(found)
            else:
                add(found, None)

        for path in segment_files(root):
            ident = int(db.execute("INSERT INTO segments (path) VALUES (?)", (path,)).lastrowid
                        or 0)
            end = _scan(f"{root}/{path}", ident, seen, holders, dead)
            db.execute("UPDATE segments SET committed = ? WHERE id = ?", (end, ident))
        for found in revisits:
            payload = holders.get(key63(found.body))
            if payload is not None:  # else its body's record is gone: nothing to serve
                add(found, payload)
        ids = {str(path): int(ident) for ident, path in db.execute("SELECT id, path FROM segments")}
        db.executemany("DELETE FROM snapshots WHERE segment = ? AND offset = ?",
                       [(ids.get(path, -1), offset) for path, offset in dead])
        db.execute("DELETE FROM snapshots WHERE id NOT IN "
                   "(SELECT min(id) FROM snapshots GROUP BY source, sha)")
        db.executemany("INSERT OR IGNORE INTO bodies VALUES (?, ?, ?, ?)",
                       [(body, *place) for body, place in holders.items()])
        db.execute("UPDATE sources SET count = (SELECT count(*) FROM snapshots "
                   "WHERE source = sources.id)")
        db.execute("UPDATE sources SET capacity = max(capacity, count)")
        return int(db.execute("SELECT count(*) FROM snapshots").fetchone()[0])


@dataclass(frozen=True, slots=True)
class _Found:
    """A record holding a snapshot, as a rebuild finds it."""

    source_id: str
    sha: str
    body: str
    fetched_at: str
    rendered: bool
    place: tuple[int, int, int, int, int]
    revisit: bool


def _scan(full: str, ident: int, seen: Callable[[_Found], None],
          holders: dict[int, tuple[int, int, int]], dead: set[tuple[str, int]]) -> int:
    """Report one segment's snapshots to ``seen``; returns the end of its last whole record.

    A snapshot's group (its hops and requests before it, the request or metadata record
    concurrent to it right after) spans from the end of the previous group to the end of
    its last record.
    """
    try:
        fd = open_regular(full)
    except OSError:
        return 0
    good = group_start = 0
    last: _Found | None = None
    try:
        for offset, length, raw in members(fd, os.fstat(fd).st_size):
            try:
                record = parse_record(raw)
            except SnapshotCorrupt:
                break
            good = offset + length
            if record.header(TOMBSTONE_HEADER):
                _tombstone(record, dead)
            envelope_raw = record.header(ENVELOPE_JSON_HEADER)
            if envelope_raw is None:
                if last is not None and last.place[4] == offset and record.header(
                        "WARC-Concurrent-To") is not None:
                    last = dataclasses.replace(last, place=(*last.place[:4], good))
                    group_start = good
                elif record.type == "warcinfo" or record.header(TOMBSTONE_HEADER):
                    group_start = good
                continue
            if last is not None:
                seen(last)
            last = _found(record, envelope_raw, (ident, group_start, offset, length, good))
            if last is not None and record.type == "response":
                holders.setdefault(key63(last.body), (ident, offset, length))
            group_start = good
    except SnapshotCorrupt:
        pass  # a torn tail: the good end is where it starts
    finally:
        os.close(fd)
        if last is not None:
            seen(last)
    return good


def _found(record: WarcRecord, envelope_raw: str,
           place: tuple[int, int, int, int, int]) -> _Found | None:
    try:
        envelope = json.loads(envelope_raw)
        return _Found(source_id=str(envelope["source_id"]),
                      sha=hashlib.sha256(envelope_raw.encode("ascii")).hexdigest(),
                      body=str(envelope["body_hash"]), fetched_at=str(envelope["fetched_at"]),
                      rendered=envelope["rendered"] is True, place=place,
                      revisit=record.type == "revisit")
    except (ValueError, KeyError, TypeError, RecursionError, UnicodeEncodeError):
        return None


def _tombstone(record: WarcRecord, dead: set[tuple[str, int]]) -> None:
    with contextlib.suppress(ValueError, TypeError, IndexError, RecursionError):
        note = json.loads(record.block)
        for entry in note.get("places", []):
            dead.add((str(entry[0]), int(entry[1])))
