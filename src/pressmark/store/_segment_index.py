"""The index of a segment store: SQLite (standard library) in WAL mode.

WHY SQLite: it is in every Python, its WAL mode lets readers run while one writer
commits (readers never block writers, nor writers readers), a commit is atomic and, with
``synchronous=FULL``, durable; several processes on one machine share it safely. Its
file is *derived* data: every row can be rebuilt from the segments
(:func:`pressmark.store._segment_maintenance.rebuild_index`).

Tables::

    meta(key, value)                           store id, schema version
    segments(id, path, committed, sealed)      committed: bytes of whole, indexed records
    sources(id, source_id, capacity, count)    capacity fixed at the first write
    snapshots(id, source, sha, body, fetched_at, rendered,
              segment, start, offset, length, end, pseg, poff, plen)
    bodies(body, segment, offset, length)      the first record holding each body

``sha`` and ``body`` are the first 63 bits of ``snapshot_sha256`` and ``body_hash``
(an integer, eight bytes instead of 32 in the table and each of three indexes). A
prefix only finds candidates: every read authenticates the record against the full
digest, so a collision costs one extra read and can never return another snapshot.
``offset``/``length`` locate the gzip member holding the snapshot (its envelope),
``start``/``end`` its whole group of records (hops, requests, metadata), and
``pseg``/``poff``/``plen`` the member holding the body when it is another (a revisit).

One connection per thread and process (a forked child opens its own); statements are
autocommit except :meth:`Index.write`, a ``BEGIN IMMEDIATE`` transaction that waits up
to ``busy_timeout`` for another writer, then raises :class:`StoreBusy`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from pressmark.store._errors import SnapshotStoreError, StoreBusy

INDEX_NAME = "index.sqlite3"
SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS segments (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE,
    committed INTEGER NOT NULL DEFAULT 0, sealed INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS sources (
    id INTEGER PRIMARY KEY, source_id TEXT NOT NULL UNIQUE,
    capacity INTEGER NOT NULL, count INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS snapshots (
    id INTEGER PRIMARY KEY, source INTEGER NOT NULL, sha INTEGER NOT NULL,
    body INTEGER NOT NULL, fetched_at TEXT NOT NULL, rendered INTEGER NOT NULL,
    segment INTEGER NOT NULL, start INTEGER NOT NULL, offset INTEGER NOT NULL,
    length INTEGER NOT NULL, "end" INTEGER NOT NULL,
    pseg INTEGER, poff INTEGER, plen INTEGER);
CREATE INDEX IF NOT EXISTS snapshots_sha ON snapshots (source, sha);
CREATE INDEX IF NOT EXISTS snapshots_time ON snapshots (source, fetched_at, sha);
CREATE INDEX IF NOT EXISTS snapshots_body ON snapshots (source, body);
CREATE INDEX IF NOT EXISTS snapshots_place ON snapshots (segment, offset);
CREATE TABLE IF NOT EXISTS bodies (
    body INTEGER PRIMARY KEY, segment INTEGER NOT NULL, offset INTEGER NOT NULL,
    length INTEGER NOT NULL);
"""
_ROW = ('id, source, sha, body, fetched_at, rendered, segment, start, offset, length, "end", '
        "pseg, poff, plen")


_SQLITE_FULL = 13  # "database or disk is full"


def _cause(exc: sqlite3.Error) -> BaseException:
    """The error to chain: a full disk as the OSError it is (callers test errno)."""
    if getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL:
        return OSError(errno.ENOSPC, "no space left for the store index")
    return exc


def key63(hexdigest: str) -> int:
    """The first 63 bits of a hex digest: an index key, ordered as the digests are."""
    return int(hexdigest[:16], 16) >> 1


@dataclass(frozen=True, slots=True)
class Row:
    """One snapshot's index entry."""

    id: int
    source: int
    sha: int
    body: int
    fetched_at: str
    rendered: bool
    segment: int
    start: int
    offset: int
    length: int
    end: int
    payload: tuple[int, int, int] | None  # (segment, offset, length) of a revisit's body

    @classmethod
    def of(cls, values: tuple[object, ...]) -> Row:
        (ident, source, sha, body, fetched_at, rendered, segment, start, offset, length, end,
         pseg, poff, plen) = values
        payload = None
        if pseg is not None:
            payload = (int(pseg), int(poff), int(plen))  # type: ignore[call-overload]
        return cls(int(ident), int(source), int(sha), int(body),  # type: ignore[call-overload]
                   str(fetched_at), bool(rendered), int(segment),  # type: ignore[call-overload]
                   int(start), int(offset), int(length), int(end),  # type: ignore[call-overload]
                   payload)


@dataclass(frozen=True, slots=True)
class SourceRow:
    id: int
    source_id: str
    capacity: int
    count: int


@dataclass(frozen=True, slots=True)
class SegmentRow:
    id: int
    path: str
    committed: int
    sealed: bool


class Index:
    """Connections to one store's index database (see the module docstring)."""

    def __init__(self, path: str, *, fsync: bool, busy_timeout: float) -> None:
        self.path = path
        self.fsync = fsync
        self.busy_timeout = busy_timeout
        self._local = threading.local()
        self._pid = os.getpid()
        self.broken: str | None = None
        """Why the index cannot be used (missing with segments present): repair rebuilds."""

    def create(self, store_id: str) -> None:
        """Create the schema (idempotent) and record the store id once."""
        self.broken = None
        conn = self.conn()
        try:
            conn.execute("PRAGMA journal_mode=WAL")  # persistent: set once, kept in the file
            conn.executescript(_SCHEMA)  # each statement idempotent (IF NOT EXISTS)
            with self.write() as db:
                db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
                db.execute("INSERT OR IGNORE INTO meta VALUES ('store_id', ?)", (store_id,))
        except sqlite3.Error as exc:
            raise SnapshotStoreError("could not create the store index") from exc

    def conn(self) -> sqlite3.Connection:
        """This thread's connection (a forked child opens its own)."""
        if self.broken is not None:
            raise SnapshotStoreError(self.broken)
        if os.getpid() != self._pid:  # never use a connection inherited through fork
            self._local = threading.local()
            self._pid = os.getpid()
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(self.path, timeout=self.busy_timeout,
                                       isolation_level=None, check_same_thread=True)
                conn.execute(f"PRAGMA synchronous={'FULL' if self.fsync else 'NORMAL'}")
                conn.execute("PRAGMA cache_size=-4096")  # 4 MiB per connection
            except sqlite3.Error as exc:
                raise SnapshotStoreError("could not open the store index") from exc
            self._local.conn = conn
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None and os.getpid() == self._pid:
            conn.close()
        self._local = threading.local()

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction; committed on success, rolled back on error."""
        conn = self.conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreBusy("another writer held the store index for too long") from exc
            raise SnapshotStoreError("could not write the store index") from _cause(exc)
        try:
            yield conn
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise SnapshotStoreError("could not write the store index") from _cause(exc)
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise SnapshotStoreError("could not commit the store index") from _cause(exc)

    @contextlib.contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: every statement inside sees the same committed state."""
        conn = self.conn()
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("COMMIT")

    # -- queries (``db`` is a connection, inside a transaction or not) ---------------------

    def meta(self, key: str) -> str | None:
        return self.meta_in(self.conn(), key)

    @staticmethod
    def meta_in(db: sqlite3.Connection, key: str) -> str | None:
        found = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if found is None else str(found[0])

    @staticmethod
    def source(db: sqlite3.Connection, source_id: str) -> SourceRow | None:
        found = db.execute("SELECT id, source_id, capacity, count FROM sources "
                           "WHERE source_id = ?", (source_id,)).fetchone()
        return None if found is None else SourceRow(*found)

    @staticmethod
    def add_source(db: sqlite3.Connection, source_id: str, capacity: int) -> SourceRow:
        db.execute("INSERT OR IGNORE INTO sources (source_id, capacity) VALUES (?, ?)",
                   (source_id, capacity))
        found = Index.source(db, source_id)
        assert found is not None
        return found

    @staticmethod
    def by_sha(db: sqlite3.Connection, source: int, sha: int) -> list[Row]:
        return [Row.of(r) for r in db.execute(
            f"SELECT {_ROW} FROM snapshots WHERE source = ? AND sha = ?", (source, sha))]

    @staticmethod
    def by_body(db: sqlite3.Connection, source: int, body: int) -> list[Row]:
        """Rows of that body prefix, newest first."""
        return [Row.of(r) for r in db.execute(
            f"SELECT {_ROW} FROM snapshots WHERE source = ? AND body = ? "
            "ORDER BY fetched_at DESC, sha DESC", (source, body))]

    @staticmethod
    def newest(db: sqlite3.Connection, source: int, limit: int | None = None,
               *, plain_until: str | None = None) -> list[Row]:
        """Rows of a source, newest first (``plain_until``: wire ones at or before then)."""
        where = "source = ?"
        args: list[object] = [source]
        if plain_until is not None:
            where += " AND rendered = 0 AND fetched_at <= ?"
            args.append(plain_until)
        sql = f"SELECT {_ROW} FROM snapshots WHERE {where} ORDER BY fetched_at DESC, sha DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [Row.of(r) for r in db.execute(sql, args)]

    @staticmethod
    def body_place(db: sqlite3.Connection, body: int) -> tuple[int, int, int] | None:
        found = db.execute("SELECT segment, offset, length FROM bodies WHERE body = ?",
                           (body,)).fetchone()
        return None if found is None else (int(found[0]), int(found[1]), int(found[2]))

    @staticmethod
    def segment(db: sqlite3.Connection, ident: int) -> SegmentRow | None:
        found = db.execute("SELECT id, path, committed, sealed FROM segments WHERE id = ?",
                           (ident,)).fetchone()
        return None if found is None else SegmentRow(found[0], found[1], found[2],
                                                     bool(found[3]))

    @staticmethod
    def segments(db: sqlite3.Connection, *, open_only: bool = False) -> list[SegmentRow]:
        sql = "SELECT id, path, committed, sealed FROM segments"
        if open_only:
            sql += " WHERE sealed = 0"
        return [SegmentRow(r[0], r[1], r[2], bool(r[3]))
                for r in db.execute(sql + " ORDER BY id")]

    @staticmethod
    def sources(db: sqlite3.Connection) -> list[SourceRow]:
        return [SourceRow(*r) for r in db.execute(
            "SELECT id, source_id, capacity, count FROM sources WHERE count > 0")]

    @staticmethod
    def rows_in(db: sqlite3.Connection, segment: int) -> list[Row]:
        return [Row.of(r) for r in db.execute(
            f"SELECT {_ROW} FROM snapshots WHERE segment = ? ORDER BY offset", (segment,))]

    @staticmethod
    def insert(db: sqlite3.Connection, source: int, sha: int, body: int, fetched_at: str,  # noqa: PLR0917  # one row's columns
               rendered: bool, place: tuple[int, int, int, int, int],
               payload: tuple[int, int, int] | None) -> None:
        segment, start, offset, length, end = place
        pseg, poff, plen = payload if payload is not None else (None, None, None)
        db.execute(
            "INSERT INTO snapshots (source, sha, body, fetched_at, rendered, segment, start, "
            'offset, length, "end", pseg, poff, plen) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)',
            (source, sha, body, fetched_at, int(rendered), segment, start, offset, length, end,
             pseg, poff, plen))
        db.execute("UPDATE sources SET count = count + 1 WHERE id = ?", (source,))
