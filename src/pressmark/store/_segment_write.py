"""The segment store's write path: a batch of puts, appended then committed at once.

Per batch: each snapshot is checked and encoded, looked up (an intact copy already
stored is acknowledged as it is; a damaged one is written again and its entry moved),
its history capacity checked, its body looked up store-wide (a body already held makes
the final record a revisit naming the record that holds it), and its records compressed.
Then one append (and, with ``durability="fsync"``, one ``fdatasync``) of the whole batch,
and one index transaction that re-checks what a concurrent writer may have done meanwhile
(the same snapshot put by another process, a history filled up) and records the
segment's new committed length. A record whose commit was refused stays in the segment,
unindexed and harmless.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pressmark._errors import PressmarkError
from pressmark.snapshot import InvalidSnapshot, Snapshot
from pressmark.snapshot._model import envelope_json
from pressmark.store._errors import (
    SnapshotCorrupt,
    SnapshotHistoryFull,
    SnapshotStoreError,
    SnapshotTooLarge,
)
from pressmark.store._protocol import MAX_BODY_BYTES, MAX_RECORD_BYTES, SnapshotRef
from pressmark.store._segment_index import Index, Row, SourceRow, key63
from pressmark.store._warc_records import (
    BODY_HEADER,
    Original,
    ascii_uri,
    gzip_member,
    http_payload,
    original_of,
    record_id,
    snapshot_group,
)

if TYPE_CHECKING:
    from pressmark.store._segments import SegmentStore


@dataclass(slots=True)
class Pending:
    """One snapshot of a put_many call, checked and encoded, on its way to a segment."""

    slot: int
    snapshot: Snapshot
    envelope: bytes
    sha: str
    ref: SnapshotRef
    place: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    payload: tuple[int, int, int] | None = None
    replace: Row | None = None
    holds_body: bool = False


def encode_envelope(snapshot: Snapshot) -> tuple[bytes, str]:
    """(canonical envelope JSON, snapshot_sha256), within the store's size caps."""
    if len(snapshot.bytes) > MAX_BODY_BYTES:
        raise SnapshotTooLarge("snapshot body exceeds 64 MiB")
    envelope = envelope_json(snapshot)
    digest = hashlib.sha256(envelope).hexdigest()
    cached = snapshot._digest
    if not cached:  # spare snapshot_sha256 a rerun
        object.__setattr__(snapshot, "_digest", digest)
    elif cached != digest:  # only object.__setattr__ from outside could do this
        raise InvalidSnapshot("snapshot digest cache disagrees with its envelope")
    if len(envelope) + len(snapshot.bytes) > MAX_RECORD_BYTES:
        raise SnapshotTooLarge("snapshot record exceeds 96 MiB")
    return envelope, digest


def write_batch(store: SegmentStore, pending: list[Pending],
                results: list[SnapshotRef | PressmarkError | None]) -> None:
    """Append a batch's records, fsync them, then commit their index entries at once."""
    db = store.index.conn()
    try:
        taken = store.writer.acquire()
    except OSError as exc:
        raise SnapshotStoreError("could not open a segment for writing") from exc
    position = taken.end
    chunks: list[bytes] = []
    planned: list[Pending] = []
    batch_bodies: dict[int, tuple[tuple[int, int, int], Original]] = {}
    batch_plain: dict[str, list[tuple[str, tuple[str, str, str]]]] = {}
    in_batch: dict[tuple[str, str], SnapshotRef] = {}
    for item in pending:
        snap = item.snapshot
        twin = in_batch.get((snap.source_id, item.sha))
        if twin is not None:
            results[item.slot] = twin
            continue
        src = Index.source(db, snap.source_id)
        if src is not None:
            found, intact = _stored(store, db, src, item.sha, snap.source_id)
            if found is not None and intact:
                results[item.slot] = item.ref
                continue
            item.replace = found  # a damaged copy: written again, its entry moved
            if found is None and src.count >= src.capacity:
                results[item.slot] = SnapshotHistoryFull(
                    "source history is full; prune it first")
                continue
        original = None
        body_key = key63(snap.body_hash)
        if not snap.rendered:
            local = batch_bodies.get(body_key)
            if local is not None:
                item.payload, original = local
            else:
                place = Index.body_place(db, body_key)
                original = _original(store, place, snap.body_hash) if place else None
                item.payload = place if original is not None else None
        refers = _refers(store, db, src, snap, batch_plain) if snap.rendered else None
        group = snapshot_group(snap, item.envelope, original=original, refers=refers,
                               source_ref=item.ref.source_ref)
        members = [gzip_member(record, store.level) for record in group.records]
        main = position + sum(len(m) for m in members[: group.main])
        end = position + sum(len(m) for m in members)
        item.place = (taken.segment, position, main, len(members[group.main]), end)
        item.holds_body = original is None and not snap.rendered
        if item.holds_body:
            here = Original(record_id=record_id(item.sha, "final"),
                            target_uri=ascii_uri(snap.url), date=snap.fetched_at,
                            source_ref=item.ref.source_ref)
            batch_bodies[body_key] = ((taken.segment, main, len(members[group.main])), here)
        if not snap.rendered:
            batch_plain.setdefault(snap.source_id, []).append(
                (snap.fetched_at, (record_id(item.sha, "final"), ascii_uri(snap.url),
                                   snap.fetched_at)))
        position = end
        chunks.extend(members)
        planned.append(item)
        in_batch[(snap.source_id, item.sha)] = item.ref
    if not planned:
        return
    store.writer.write(taken, b"".join(chunks))  # fsynced before the index commits
    with store.index.write() as wdb:
        for item in planned:
            results[item.slot] = _commit(store, wdb, item)
        wdb.execute("UPDATE segments SET committed = ? WHERE id = ?",
                    (taken.end, taken.segment))
    store.writer.after_commit()

def _commit(store: SegmentStore, db: Any, item: Pending) -> SnapshotRef | PressmarkError:
    snap = item.snapshot
    src = Index.add_source(db, snap.source_id, store._max)
    key = key63(item.sha)
    if item.replace is not None:
        db.execute(
            'UPDATE snapshots SET segment = ?, start = ?, offset = ?, length = ?, "end" = ?, '
            "pseg = ?, poff = ?, plen = ? WHERE id = ?",
            (*item.place, *(item.payload or (None, None, None)), item.replace.id))
    else:
        for row in Index.by_sha(db, src.id, key):  # another process put it meanwhile?
            if same_snapshot(store, row, item.sha, snap.source_id):
                return item.ref
        if src.count >= src.capacity:
            return SnapshotHistoryFull("source history is full; prune it first")
        Index.insert(db, src.id, key, key63(snap.body_hash), snap.fetched_at, snap.rendered,
                     item.place, item.payload)
    if item.holds_body:
        _, _, main, length, _ = item.place
        db.execute("INSERT OR REPLACE INTO bodies VALUES (?, ?, ?, ?)"
                   if item.replace is not None else
                   "INSERT OR IGNORE INTO bodies VALUES (?, ?, ?, ?)",
                   (key63(snap.body_hash), item.place[0], main, length))
    return item.ref

def same_snapshot(store: SegmentStore, row: Row, sha: str, source_id: str) -> bool:
    """Does ``row`` hold the snapshot ``sha`` (an intact record of it)?"""
    try:
        return store._load(row, source_id).snapshot_sha256 == sha
    except SnapshotCorrupt:
        return False

def _stored(store: SegmentStore, db: Any, src: SourceRow, sha: str,
            source_id: str) -> tuple[Row | None, bool]:
    """(the row holding this snapshot, whether its record is intact), or (None, False)."""
    damaged: Row | None = None
    for row in Index.by_sha(db, src.id, key63(sha)):
        try:
            if store._load(row, source_id).snapshot_sha256 == sha:
                return row, True
        except SnapshotCorrupt:
            damaged = row
    return damaged, False

def _original(store: SegmentStore, place: tuple[int, int, int], body_hash: str) -> Original | None:
    """The record holding ``body_hash`` at ``place``, if it is intact and really holds it."""
    try:
        record = store.read_member(*place)
        if record.type != "response" or record.header(BODY_HEADER) != body_hash:
            return None
        if hashlib.sha256(http_payload(record.block)).hexdigest() != body_hash:
            return None
        return original_of(record)
    except (SnapshotCorrupt, SnapshotStoreError):
        return None  # the body is written again in full

def _refers(store: SegmentStore, db: Any, src: SourceRow | None, snap: Snapshot,
            batch: dict[str, list[tuple[str, tuple[str, str, str]]]],
            ) -> tuple[str, str, str] | None:
    """The newest plain response of the source at or before a rendered snapshot."""
    best: tuple[str, tuple[str, str, str]] | None = None
    for when, refers in batch.get(snap.source_id, []):
        if when <= snap.fetched_at and (best is None or when >= best[0]):
            best = (when, refers)
    if src is not None:
        for row in Index.newest(db, src.id, 1, plain_until=snap.fetched_at):
            if best is None or row.fetched_at > best[0]:
                try:
                    record = store.read_member(row.segment, row.offset, row.length)
                except (SnapshotCorrupt, SnapshotStoreError):
                    break
                ident = record.header("WARC-Record-ID")
                uri = record.header("WARC-Target-URI")
                if ident and uri:
                    best = (row.fetched_at, (ident, uri, row.fetched_at))
    return None if best is None else best[1]
