"""A segment store's WARC export (a copy), its head witnesses, and the merge of shards.

``export_segments`` writes a warcinfo record and then, per snapshot, the bytes of its
records as they lie in the segments (each gzip member copied, not re-encoded), after
authenticating the snapshot. A revisit whose body record has not been written earlier
in the same export (its original was pruned, lies in a later segment, or belongs to a
source not exported) is written again as a full response, so the export stands alone.

``read_verified_head`` reads a source's index entries and authenticates the head record
inside one read transaction (so nothing can move in between), and returns a token: the
store's id and a digest of those entries. ``compare_head_witness`` re-reads only the
entries. A copy of the store into another directory keeps its id (the same records, the
same answers); a rebuilt index gets a new one, which makes earlier tokens
``unsupported``.

``merge_shard`` folds a shard's store (``root/shards/<k>``, written by one Ray shard
alone, so no lock is ever shared across machines) into the main index: its segment rows
under their path from the main root (sealed there: the main store never appends to
them), its snapshot and body rows with segment ids mapped. The shard's segments stay
where they are and the shard keeps its own index (a resumed crawl goes on writing it);
merging again adds only what is new.
"""

# ruff: noqa: PTH110

from __future__ import annotations

import base64
import hashlib
import json
import os
import sqlite3
import zlib
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING

from pressmark.snapshot import build_source_ref
from pressmark.store._errors import (
    SnapshotCorrupt,
    SnapshotNotFound,
    SnapshotStoreError,
    StoreError,
)
from pressmark.store._segment_index import INDEX_NAME, Index, Row
from pressmark.store._warc_records import gzip_member, snapshot_group, warcinfo_record
from pressmark.store._witness import HeadWitness, WitnessStatus

if TYPE_CHECKING:
    from pressmark.store._segments import SegmentStore

WITNESS_PREFIX = "pressmark.segment-head-witness/v1."


def export_segments(store: SegmentStore, fh: IO[bytes], *, sources: Sequence[str] | None,
                    gzip: bool, when: str) -> int:
    """Copy every snapshot of ``sources`` (default: all) into ``fh``; returns the count."""
    db = store.index.conn()
    chosen = None
    if sources is not None:
        chosen = {row.id: row.source_id for row in
                  (Index.source(db, sid) for sid in sources) if row is not None}
    names = {int(r[0]): str(r[1]) for r in db.execute("SELECT id, source_id FROM sources")}
    _write(fh, gzip_member(warcinfo_record(when, f"export/{when}"), store.level), gzip)
    emitted: set[int] = set()
    count = 0
    rows = [Row.of(r) for r in db.execute(
        "SELECT id, source, sha, body, fetched_at, rendered, segment, start, offset, length, "
        '"end", pseg, poff, plen FROM snapshots ORDER BY segment, start')]
    for row in rows:
        if chosen is not None and row.source not in chosen:
            continue
        snapshot = store._load(row, names[row.source])  # authenticated before it is copied
        if row.payload is not None and row.body not in emitted:
            from pressmark.snapshot._model import envelope_json  # noqa: PLC0415

            group = snapshot_group(snapshot, envelope_json(snapshot))
            for record in group.records:
                _write(fh, gzip_member(record, store.level), gzip)
        else:
            data = store.reader.read(row.segment, row.start, row.end - row.start)
            if gzip:
                fh.write(data)
            else:
                _write_plain(fh, data)
        if not row.rendered:
            emitted.add(row.body)
        count += 1
    return count


def _write(fh: IO[bytes], member: bytes, gzip: bool) -> None:
    fh.write(member if gzip else zlib.decompress(member, 31))


def _write_plain(fh: IO[bytes], data: bytes) -> None:
    """Decompress concatenated gzip members into ``fh``."""
    while data:
        unpacker = zlib.decompressobj(31)
        fh.write(unpacker.decompress(data))
        data = unpacker.unused_data


# -- head witnesses --------------------------------------------------------------------


def _fingerprint(db: sqlite3.Connection, source: int) -> str:
    digest = hashlib.sha256()
    for row in db.execute(
            'SELECT sha, body, fetched_at, rendered, segment, offset, length, "end", pseg, '
            "poff FROM snapshots WHERE source = ? ORDER BY fetched_at, sha, id", (source,)):
        digest.update(repr(tuple(row)).encode())
    return digest.hexdigest()


def read_verified_head(store: SegmentStore, source_id: str) -> HeadWitness:
    with store.index.reading() as db:
        src = Index.source(db, source_id)
        if src is None or src.count == 0:
            raise SnapshotNotFound("no such source")
        fingerprint = _fingerprint(db, src.id)
        head = Index.newest(db, src.id, 1)[0]
        snapshot = store._load(head, source_id)
        store_id = Index.meta_in(db, "store_id")
    payload = {"s": store_id, "k": source_id, "f": fingerprint, "h": snapshot.snapshot_sha256}
    token = WITNESS_PREFIX + base64.urlsafe_b64encode(
        json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    ).decode("ascii").rstrip("=")
    return HeadWitness(source_id=source_id, source_ref=build_source_ref(snapshot),
                       snapshot_sha256=snapshot.snapshot_sha256,
                       fetched_at=snapshot.fetched_at, token=token)


def compare_head_witness(store: SegmentStore, witness: HeadWitness | str) -> WitnessStatus:
    token = witness.token if isinstance(witness, HeadWitness) else witness
    try:
        if not isinstance(token, str) or not token.startswith(WITNESS_PREFIX):
            return "unsupported"
        raw = token[len(WITNESS_PREFIX) :]
        payload = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
        store_id, source_id, fingerprint = str(payload["s"]), str(payload["k"]), str(
            payload["f"])
    except (ValueError, KeyError, TypeError, RecursionError):
        return "unsupported"
    try:
        with store.index.reading() as db:
            if Index.meta_in(db, "store_id") != store_id:
                return "unsupported"
            src = Index.source(db, source_id)
            if src is None or src.count == 0:
                return "missing"
            current = _fingerprint(db, src.id)
    except sqlite3.DatabaseError:
        return "corrupt"
    except (sqlite3.Error, OSError, StoreError):
        return "unavailable"
    return "matches" if current == fingerprint else "changed"


# -- shards ----------------------------------------------------------------------------


def merge_shard(store: SegmentStore, shard: str) -> int:
    """Fold the shard store at ``root/shards/<shard>`` into the main index; returns rows."""
    if not shard.isdigit() or len(shard) > 4:
        raise ValueError("a shard is named by its number")
    base = f"shards/{shard}"
    index_path = f"{store.root}/{base}/{INDEX_NAME}"
    if not os.path.exists(index_path):
        return 0
    try:
        other = sqlite3.connect(f"file:{index_path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise SnapshotStoreError("could not open a shard's index") from exc
    merged = 0
    try:
        segments = list(other.execute("SELECT id, path, committed FROM segments"))
        sources = {int(r[0]): str(r[1]) for r in other.execute("SELECT id, source_id FROM sources")}
        rows = [Row.of(r) for r in other.execute(
            "SELECT id, source, sha, body, fetched_at, rendered, segment, start, offset, length, "
            '"end", pseg, poff, plen FROM snapshots')]
        bodies = list(other.execute("SELECT body, segment, offset, length FROM bodies"))
    except sqlite3.Error as exc:
        raise SnapshotCorrupt("a shard's index cannot be read") from exc
    finally:
        other.close()
    with store.index.write() as db:
        ids: dict[int, int] = {}
        for ident, path, committed in segments:
            full = f"{base}/{path}"  # sealed: the main store never appends to a shard's
            db.execute("INSERT OR IGNORE INTO segments (path, committed, sealed) VALUES (?,?,1)",
                       (full, committed))
            db.execute("UPDATE segments SET committed = max(committed, ?) WHERE path = ?",
                       (committed, full))
            found = db.execute("SELECT id FROM segments WHERE path = ?", (full,)).fetchone()
            ids[int(ident)] = int(found[0])
        for row in rows:
            src = Index.add_source(db, sources[row.source], store._max)
            if db.execute("SELECT 1 FROM snapshots WHERE source = ? AND sha = ? AND segment = ?"
                          " AND offset = ?", (src.id, row.sha, ids[row.segment], row.offset)
                          ).fetchone():
                continue
            payload = None if row.payload is None else (ids[row.payload[0]], *row.payload[1:])
            Index.insert(db, src.id, row.sha, row.body, row.fetched_at, row.rendered,
                         (ids[row.segment], row.start, row.offset, row.length, row.end),
                         payload)
            merged += 1
        db.executemany("INSERT OR IGNORE INTO bodies VALUES (?, ?, ?, ?)",
                       [(b, ids[s], o, n) for b, s, o, n in bodies])
        db.execute("DELETE FROM snapshots WHERE id NOT IN "
                   "(SELECT min(id) FROM snapshots GROUP BY source, sha)")
        db.execute("UPDATE sources SET count = (SELECT count(*) FROM snapshots "
                   "WHERE source = sources.id)")
    return merged
