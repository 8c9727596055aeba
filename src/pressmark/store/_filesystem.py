"""A durable snapshot store on a local filesystem.

Layout (``root`` is what the user names; everything below is ours)::

    root/pressmark-store.json                  format marker
    root/sources/<sha256(source_id)>/          one flat directory per source, named by
        source.json                            hash, so no source id can traverse paths
        <fetched_at>_<snapshot_sha256>.rec     immutable records (framing: _records.py)
        slot.<00000..09999>                    capacity slots, created O_CREAT|O_EXCL
        id.<snapshot_sha256>                   identity index: symlink -> "<slot>|<record>"
        body.<body_hash>                       body index: symlink -> the newest record name
                                               with that body (or a newer one in flight)
        HEAD                                   symlink -> the head record's name
        source.lock                            write lock (_lock.py)
        tmp.*                                  temporary files (only without O_TMPFILE)

``put()`` holds the source's write lock and: reserves a slot (exclusive create,
so writers in any number of processes can never take the same one, and history
can never exceed ``max_history_files``), links the identity entry, moves HEAD
and the body entry forward, then publishes the record in one ``linkat`` of a fully written (and,
by default, fsynced) unnamed inode, and fsyncs the directory. The record is
published last: a record that exists always has its slot and identity entry,
so a successful write never makes a later read fail. A write interrupted
earlier leaves a slot or identity entry naming no record; a retry of the same
snapshot reuses them and ``prune()`` removes them. A HEAD naming a missing record
(its writer died before publishing) makes ``latest()`` fall back to the names.

Record names start with the canonical ``fetched_at``, so string order is time
order; ``latest()`` reads HEAD and one record, whatever the history length.
HEAD and each body entry keep one invariant: they name a record at least as new
as every published record they cover (they move before the record appears, and
prune moves them back only after removing records). So ``get`` by ``body_hash``
is one lookup too: a body entry naming a present record names the newest with
that body; no entry means no record has that body; only an entry left dangling by
an interrupted write or prune makes ``get`` read the older records' headers.
(Entries deleted or re-pointed by hand break that invariant: ``verify`` reports
it, ``prune`` and a repeated ``put`` of the snapshot repair it.)
Reads take no lock and fail closed: a record is served only after its framing,
envelope digest, source id and body hash check out. The directory is flat
because on real disks every mkdir, create and rename costs a journal update,
and a crawl creates one source per page.

A store may be shared, so its names may have been planted: every file of ours is
opened as a regular file only, never through a symlink and never blocking (a FIFO);
``sources`` and each source directory must be plain directories. Maintenance
(``verify``, ``repair``, ``prune``) goes further: it opens each source directory once
(:meth:`FilesystemSnapshotStore.pinned`) and reaches every entry through that open
directory, so a directory swapped for a symlink meanwhile cannot send a delete outside
the store.
"""

# Raw os calls on str paths: put() is on the crawler's hot path (hundreds per second).
# ruff: noqa: PTH103, PTH108, PTH110, PTH208, PTH211

from __future__ import annotations

import builtins
import contextlib
import hashlib
import json
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pressmark.snapshot import InvalidSnapshot, Snapshot
from pressmark.snapshot._model import check_snapshot, is_hex_digest
from pressmark.store._errors import (
    SnapshotCorrupt,
    SnapshotHistoryFull,
    SnapshotNotFound,
    SnapshotStoreError,
)
from pressmark.store._fsio import (
    NotDirectory,
    NotRegularFile,
    create_exclusive,
    fsync_dir,
    open_directory,
    publish,
    read_regular,
    read_symlink,
    set_symlink,
)
from pressmark.store._lock import STALE_AFTER, WAIT, SourceLock
from pressmark.store._maintenance import prune_source, repair_store, verify_store
from pressmark.store._protocol import (
    MAX_HISTORY_FILES,
    MAX_RECORD_BYTES,
    PruneReport,
    RepairReport,
    SnapshotRef,
    VerifyReport,
)
from pressmark.store._records import (
    encode_record,
    parse_record_name,
    read_record,
    read_record_header,
    record_name,
)
from pressmark.store._sourcedir import SOURCE_FORMAT, SourceState, pin_source, read_meta
from pressmark.store._witness import (
    MAX_INDEX_BYTES,
    HeadWitness,
    WitnessStatus,
    compare_head_witness,
    read_verified_head,
)

Durability = Literal["fsync", "flush"]
STORE_FORMAT = "pressmark-store/1"
SLOT_PREFIX = "slot."
ID_PREFIX = "id."
BODY_PREFIX = "body."
SLOT_NAME = re.compile(r"slot\.([0-9]{5})\Z")


class FilesystemSnapshotStore:
    """Snapshots as immutable files under ``root``; safe for many processes at once.

    ``max_history_files`` (1..10,000) is fixed per source when the source is first
    written; later instances use the stored value. With ``create=False`` a missing
    store is an error instead of being created. ``durability="flush"`` skips
    fsync: much faster on real disks; a power failure can lose recent writes, a
    process crash cannot. ``lock_wait``, ``lock_stale_after`` and
    ``lock_refresh_every`` (90, 60 and 10 s, or a third of a shorter
    ``lock_stale_after``) are the write lock's timings (:mod:`pressmark.store._lock`);
    tests shorten them.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        max_history_files: int = MAX_HISTORY_FILES,
        *,
        durability: Durability = "fsync",
        lock_wait: float = WAIT,
        lock_stale_after: float = STALE_AFTER,
        lock_refresh_every: float | None = None,
        create: bool = True,
    ) -> None:
        if type(max_history_files) is not int or not 1 <= max_history_files <= MAX_HISTORY_FILES:
            raise ValueError("max_history_files must be between 1 and 10000")
        if durability not in ("fsync", "flush"):
            raise ValueError("durability must be 'fsync' or 'flush'")
        self.root = Path(root)
        self._sources_dir = os.fspath(self.root) + "/sources"
        self._max = max_history_files
        self.fsync = durability == "fsync"
        self._lock_wait = lock_wait
        self._lock_stale_after = lock_stale_after
        if not (lock_wait >= 0 and lock_stale_after > 0):  # also refuses NaN
            raise ValueError("lock_wait must be >= 0 and lock_stale_after positive")
        if lock_refresh_every is not None and not lock_refresh_every > 0:
            raise ValueError("lock_refresh_every must be positive")
        self._lock_refresh_every = lock_refresh_every
        self._mutex = threading.Lock()
        self._states: dict[str, SourceState] = {}
        self._init_root(create)

    def __repr__(self) -> str:
        return f"FilesystemSnapshotStore(max_history_files={self._max})"

    # -- the SnapshotStore protocol -----------------------------------------------------

    def put(self, snapshot: Snapshot) -> SnapshotRef:
        check_snapshot(snapshot, verify_body=True)
        head, body, sha = encode_record(snapshot)
        ref = SnapshotRef.of(snapshot)  # builds the sourceRef first: it may refuse (16 KiB)
        state = self.source_state(snapshot.source_id, create=True)
        assert state is not None
        name = record_name(snapshot.fetched_at, sha)
        if self._stored_intact(state, name, sha, snapshot.body_hash):
            return ref
        with state.mutex, self.lock(state):
            if self._stored_intact(state, name, sha, snapshot.body_hash):
                return ref
            try:
                self._reserve(state, name, sha)
                self._advance_head(state, name)
                self._advance_body(state, snapshot.body_hash, name)
                if not publish(state.dir, name, (head, body), fsync=self.fsync) and (
                    not self._authentic(state, name)
                ):
                    # A damaged copy of this very record (bit rot, a torn write after a
                    # power cut): the name commits to the envelope, the envelope to the
                    # body, so the verified bytes we hold are exactly what belongs there.
                    publish(state.dir, name, (head, body), fsync=self.fsync, replace=True)
                self.sync_dir(state.dir)
            except OSError as exc:
                raise SnapshotStoreError("could not write the snapshot record") from exc
        return ref

    def get(self, source_id: str, digest: str) -> Snapshot:
        state = self.source_state(source_id, create=False)
        if state is None or not is_hex_digest(digest):
            raise SnapshotNotFound("no snapshot with that digest for this source")
        target = read_symlink(state.file(ID_PREFIX + digest))
        if target is not None:
            name = target.rpartition("|")[2]
            parsed = parse_record_name(name)
            if parsed is None or parsed[1] != digest:
                raise SnapshotCorrupt("identity index entry names another record")
            try:
                return read_record(state.file(name), name, source_id)
            except FileNotFoundError:
                raise SnapshotNotFound("no snapshot with that digest for this source") from None
        # Not a snapshot digest: the newest snapshot with that body, from the body index.
        indexed = read_symlink(state.file(BODY_PREFIX + digest))
        if indexed is not None:
            if parse_record_name(indexed) is None:
                raise SnapshotCorrupt("body index entry is malformed")
            try:
                found = read_record(state.file(indexed), indexed, source_id)
            except FileNotFoundError:
                pass  # dangling: a write in flight or interrupted, or an interrupted prune
            else:
                if found.body_hash != digest:
                    raise SnapshotCorrupt("body index entry names a record with another body")
                return found
        names = sorted(self.record_names(state), reverse=True)
        if any(n.endswith(f"_{digest}.rec") for n in names):
            raise SnapshotCorrupt("a record has no identity index entry; prune repairs it")
        if indexed is None:
            raise SnapshotNotFound("no snapshot with that digest for this source")
        # The entry dangles but still names something at least as new as every record
        # with that body: read headers below it, newest first.
        for name in names:
            if name >= indexed:
                continue
            try:
                if self.read_header(state, name)["body_hash"] == digest:
                    return read_record(state.file(name), name, source_id)
            except FileNotFoundError:
                continue
        raise SnapshotNotFound("no snapshot with that digest for this source")

    def list(self, source_id: str) -> builtins.list[SnapshotRef]:
        state = self.source_state(source_id, create=False)
        if state is None:
            return []
        refs: builtins.list[SnapshotRef] = []
        for name in sorted(self.record_names(state), reverse=True):
            try:  # every record is authenticated in full: a listed ref always resolves
                snapshot = read_record(state.file(name), name, source_id)
            except FileNotFoundError:
                continue  # pruned while we listed
            refs.append(SnapshotRef.of(snapshot))
        return refs

    def latest(self, source_id: str) -> Snapshot | None:
        state = self.source_state(source_id, create=False)
        if state is None:
            return None
        name = read_symlink(state.file("HEAD"))
        if name is not None and parse_record_name(name) is not None:
            try:
                return read_record(state.file(name), name, source_id)
            except FileNotFoundError:
                pass  # a write in flight, or interrupted: fall back to the names
        for _ in range(3):
            names = self.record_names(state)
            if not names:
                return None
            newest = max(names)
            try:
                return read_record(state.file(newest), newest, source_id)
            except FileNotFoundError:
                continue
        raise SnapshotStoreError("the source changed too often while reading its head")

    def sources(self) -> builtins.list[str]:
        found: builtins.list[str] = []
        for key in self.source_keys():
            state = self.state_for_key(key)
            if state is not None and self.record_names(state):
                found.append(state.source_id)
        return sorted(found)

    def prune(self, source_id: str, keep_last: int, keep: Sequence[str] = ()) -> PruneReport:
        return prune_source(self, source_id, keep_last, keep)

    def verify(self) -> VerifyReport:
        return verify_store(self)

    def repair(self) -> RepairReport:
        """Remove what interrupted writes left and restore missing index entries.

        Runs per source under its write lock; records and history are never touched.
        """
        return repair_store(self)

    # -- verified head witnesses (filesystem only) ----------------------------------------

    def read_verified_head(
        self,
        source_id: str,
        *,
        max_entries: int = MAX_HISTORY_FILES,
        max_index_bytes: int = MAX_INDEX_BYTES,
        max_verified_body_bytes: int = MAX_RECORD_BYTES,
    ) -> HeadWitness:
        """Fenced, authenticated read of the head; see :mod:`pressmark.store._witness`."""
        return read_verified_head(
            self, source_id, max_entries=max_entries, max_index_bytes=max_index_bytes,
            max_verified_body_bytes=max_verified_body_bytes,
        )

    def compare_head_witness(self, witness: HeadWitness | str) -> WitnessStatus:
        """Compare a witness with the source now, reading metadata only."""
        return compare_head_witness(self, witness)

    # -- helpers shared with _maintenance and _witness -------------------------------------

    def lock(self, state: SourceState) -> SourceLock:
        return SourceLock(state.dir, wait=self._lock_wait, stale_after=self._lock_stale_after,
                          refresh_every=self._lock_refresh_every)

    def sync_dir(self, path: str) -> None:
        if self.fsync:
            fsync_dir(path)

    def source_keys(self) -> builtins.list[str]:
        try:
            fd = open_directory(self._sources_dir)
        except FileNotFoundError:
            return []
        except NotDirectory:
            raise SnapshotCorrupt("the store's sources directory is not a directory") from None
        except OSError as exc:
            raise SnapshotStoreError("could not list sources") from exc
        try:
            entries = os.listdir(fd)
        except OSError as exc:
            raise SnapshotStoreError("could not list sources") from exc
        finally:
            os.close(fd)
        return sorted(e for e in entries if is_hex_digest(e))

    def pinned(self, state: SourceState) -> contextlib.AbstractContextManager[SourceState]:
        """``state`` for maintenance, its directory pinned (see :func:`pin_source`)."""
        return pin_source(self._sources_dir, state)

    def state_for_key(self, key: str) -> SourceState | None:
        meta = read_meta(f"{self._sources_dir}/{key}")
        return None if meta is None else self.source_state(meta["source_id"], create=False)

    @staticmethod
    def entries(state: SourceState) -> builtins.list[str]:
        try:
            return os.listdir(state.dir)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise SnapshotStoreError("could not list a source") from exc

    @classmethod
    def record_names(cls, state: SourceState) -> builtins.list[str]:
        return [n for n in cls.entries(state) if parse_record_name(n) is not None]

    @staticmethod
    def read_header(state: SourceState, name: str) -> dict[str, Any]:
        return read_record_header(state.file(name), name, state.source_id)

    @staticmethod
    def read_slot(state: SourceState, slot: str) -> str | None:
        """The record a slot names; ``""`` for a slot that is not a regular file."""
        try:
            return read_regular(state.file(slot), 200).decode("ascii", "replace")
        except FileNotFoundError:
            return None
        except NotRegularFile:
            return ""

    def allocate_slot(self, state: SourceState, name: str) -> str:
        """Exclusively create a free slot naming ``name``; SnapshotHistoryFull if none is left."""
        for attempt in range(2):
            if state.used is None or attempt:
                state.used = {
                    int(m.group(1)) for m in map(SLOT_NAME.match, self.entries(state)) if m
                }
                state.cursor = 0
            while state.cursor < state.max:
                number = state.cursor
                state.cursor += 1
                if number in state.used:
                    continue
                slot = f"{SLOT_PREFIX}{number:05d}"
                if create_exclusive(state.file(slot), name.encode("ascii")):
                    state.used.add(number)
                    return slot
        raise SnapshotHistoryFull("source history is full; prune it first")

    def source_state(self, source_id: str, *, create: bool) -> SourceState | None:
        cached = self._states.get(source_id)
        if cached is not None:
            return cached
        try:
            key = hashlib.sha256(source_id.encode("utf-8")).hexdigest()
        except UnicodeEncodeError:
            raise InvalidSnapshot("source id is not valid UTF-8") from None
        directory = f"{self._sources_dir}/{key}"
        meta = read_meta(directory)
        if meta is None:
            if not create:
                return None
            meta = self._create_source(directory, source_id)
        if meta["source_id"] != source_id:
            raise SnapshotCorrupt("source directory belongs to a different source")
        state = SourceState(source_id=source_id, dir=directory, max=meta["max_history_files"])
        with self._mutex:
            return self._states.setdefault(source_id, state)

    # -- private -------------------------------------------------------------------------

    def _stored_intact(self, state: SourceState, name: str, sha: str, body_hash: str) -> bool:
        """Is this record already stored, readable and indexed? (One stat when it is new.)

        A put that returns must leave a snapshot that reads back, so an existing copy
        is only trusted after it authenticates and its identity entry and slot agree.
        """
        if not os.path.lexists(state.file(name)) or not self._authentic(state, name):
            return False
        try:
            slot, _, named = (read_symlink(state.file(ID_PREFIX + sha)) or "").partition("|")
            by_body = read_symlink(state.file(BODY_PREFIX + body_hash))
            return named == name and SLOT_NAME.match(slot) is not None and (
                self.read_slot(state, slot) == name) and (
                by_body is not None and parse_record_name(by_body) is not None
                and by_body >= name)
        except OSError as exc:
            raise SnapshotStoreError("could not read the snapshot record") from exc

    @staticmethod
    def _authentic(state: SourceState, name: str) -> bool:
        try:
            read_record(state.file(name), name, state.source_id)
        except (FileNotFoundError, SnapshotCorrupt):
            return False
        return True

    def _reserve(self, state: SourceState, name: str, sha: str) -> None:
        entry = state.file(ID_PREFIX + sha)
        target = read_symlink(entry)
        if target is not None:
            slot, _, named = target.partition("|")
            if named == name and SLOT_NAME.match(slot) and self.read_slot(state, slot) == name:
                return  # an interrupted put of this very snapshot: complete it
        if target is not None or os.path.lexists(entry):  # wrong, or not even a symlink
            os.unlink(entry)
        held = self._slot_naming(state, name) if os.path.lexists(state.file(name)) else None
        os.symlink(f"{held or self.allocate_slot(state, name)}|{name}", entry)

    def _slot_naming(self, state: SourceState, name: str) -> str | None:
        """The slot a stored record already holds (repair path only: reads every slot)."""
        for entry in sorted(self.entries(state)):
            if SLOT_NAME.match(entry) and self.read_slot(state, entry) == name:
                return entry
        return None

    def _advance_body(self, state: SourceState, body_hash: str, name: str) -> None:
        # Same invariant as HEAD, for the records with this body. A dangling entry that
        # is newer than ``name`` still covers every published record: keep it.
        current = read_symlink(state.file(BODY_PREFIX + body_hash))
        if current is not None and parse_record_name(current) is not None and current >= name:
            return
        exists = current is not None or os.path.lexists(state.file(BODY_PREFIX + body_hash))
        set_symlink(state.dir, BODY_PREFIX + body_hash, name, replace=exists)

    def _advance_head(self, state: SourceState, name: str) -> None:
        # Invariant: HEAD >= every record name. Only a missing, malformed or dangling
        # HEAD (a writer died before publishing) needs the names to be read.
        current = read_symlink(state.file("HEAD"))
        valid = current is not None and parse_record_name(current) is not None
        if valid and current is not None and current >= name:
            if os.path.exists(state.file(current)):
                return
            name = max([name, *self.record_names(state)])
        elif not valid:
            name = max([name, *self.record_names(state)])
        set_symlink(state.dir, "HEAD", name, replace=current is not None)

    def _create_source(self, directory: str, source_id: str) -> dict[str, Any]:
        meta = {"format": SOURCE_FORMAT, "source_id": source_id, "max_history_files": self._max}
        try:
            os.makedirs(directory, exist_ok=True)
            publish(directory, "source.json", (json.dumps(meta, sort_keys=True).encode(),),
                    fsync=self.fsync)
            self.sync_dir(self._sources_dir)  # the put that follows syncs ``directory``
        except OSError as exc:
            raise SnapshotStoreError("could not create the source directory") from exc
        created = read_meta(directory)
        if created is None:
            raise SnapshotStoreError("source directory vanished while being created")
        return created

    def _init_root(self, create: bool) -> None:
        root = os.fspath(self.root)
        marker = root + "/pressmark-store.json"
        try:
            info = json.loads(read_regular(marker, 4096))
        except FileNotFoundError:
            info = None
        except (OSError, ValueError, RecursionError) as exc:  # deep nesting: RecursionError
            raise SnapshotStoreError("store root marker is unreadable") from exc
        if info is None:
            if not create:
                raise SnapshotStoreError("no snapshot store at this location")
            try:
                os.makedirs(self._sources_dir, exist_ok=True)
                publish(root, "pressmark-store.json",
                        (json.dumps({"format": STORE_FORMAT}).encode(),), fsync=self.fsync)
                self.sync_dir(root)
            except OSError as exc:
                raise SnapshotStoreError("could not create the store root") from exc
        elif not isinstance(info, dict) or info.get("format") != STORE_FORMAT:
            raise SnapshotStoreError("directory is not a pressmark snapshot store")
        if Path(self._sources_dir).is_symlink():  # every source would live elsewhere
            raise SnapshotStoreError("the store's sources directory is a symlink")


