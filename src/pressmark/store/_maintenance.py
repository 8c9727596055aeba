"""prune() and verify() of the filesystem store.

Both walk a whole source, so they live apart from the hot read/write path.
``prune`` holds the source's write lock; since no write is in flight while it
does, it first removes everything an interrupted write can leave (temporary
files, slots and identity entries naming no record, a dead lock-breaker marker)
and gives retained records back a missing slot or identity entry. Then it
applies the retention rule and points HEAD at the newest record that remains.
``verify`` reads every record in full and reports problems; it never repairs.
While a live writer holds a source's lock, what its write has reserved so far
(a slot or identity entry without its record yet, HEAD ahead of the records) is
not reported; the same state left by a crashed writer is.
"""

# Raw os calls on str paths, as in _filesystem.
# ruff: noqa: PTH108, PTH211

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pressmark.store._errors import SnapshotCorrupt, SnapshotHistoryFull, SnapshotStoreError
from pressmark.store._fsio import TEMP_PREFIX, read_symlink, set_symlink
from pressmark.store._lock import LOCK_NAME, STALE_AFTER, judge, remove_dead_breaker
from pressmark.store._protocol import (
    PruneReport,
    VerifyProblem,
    VerifyReport,
    keep_digests,
    select_kept,
)
from pressmark.store._records import parse_record_name, read_record

if TYPE_CHECKING:
    from pressmark.store._filesystem import FilesystemSnapshotStore, SourceState

_SLOT_PREFIX = "slot."
_ID_PREFIX = "id."
_KNOWN_FILES = frozenset({"source.json", "HEAD", "source.lock", "source.lock.breaker"})


def _sha(name: str) -> str:
    parsed = parse_record_name(name)
    assert parsed is not None
    return parsed[1]


def _slot_number(entry: str, capacity: int) -> int | None:
    digits = entry[len(_SLOT_PREFIX) :]
    if entry.startswith(_SLOT_PREFIX) and len(digits) == 5 and digits.isdigit():
        number = int(digits)
        return number if number < capacity else None
    return None


def prune_source(
    store: FilesystemSnapshotStore, source_id: str, keep_last: int, keep: Sequence[str]
) -> PruneReport:
    digests = keep_digests(source_id, keep)
    if keep_last < 0:
        raise ValueError("keep_last must be >= 0")
    state = store.source_state(source_id, create=False)
    if state is None:
        return PruneReport(source_id=source_id, kept=(), removed=())
    with state.mutex, store.lock(state) as lock:
        try:
            cleaned, slot_of = _clean(store, state)
            lock.refresh()
            names = sorted(slot_of, reverse=True)
            history = []
            for count, name in enumerate(names):
                history.append((_sha(name), str(store.read_header(state, name)["body_hash"])))
                if count % 500 == 499:
                    lock.refresh()
            kept_ix, removed_ix = select_kept(history, keep_last, digests)
            for index in removed_ix:
                name = names[index]
                os.unlink(state.file(name))  # the record first: leftovers are then orphans
                for entry in (_ID_PREFIX + _sha(name), slot_of[name]):
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(state.file(entry))
            if names and read_symlink(state.file("HEAD")) != names[0]:
                set_symlink(state.dir, "HEAD", names[0], replace=True)
                cleaned += 1
            elif not names:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(state.file("HEAD"))
            store.sync_dir(state.dir)
        except OSError as exc:
            raise SnapshotStoreError("could not prune the source") from exc
        finally:
            state.used = None
    return PruneReport(
        source_id=source_id,
        kept=tuple(history[i][0] for i in kept_ix),
        removed=tuple(history[i][0] for i in removed_ix),
        cleaned=cleaned,
    )


def _clean(store: FilesystemSnapshotStore, state: SourceState) -> tuple[int, dict[str, str]]:
    """Remove leftovers of interrupted writes; restore missing slots and identity entries.

    Returns the number of fixes and ``record name -> slot`` for every record.
    """
    cleaned = int(remove_dead_breaker(state.dir))
    entries = sorted(store.entries(state))
    records = {e for e in entries if parse_record_name(e) is not None}
    slot_of: dict[str, str] = {}
    for entry in entries:
        if entry.startswith(TEMP_PREFIX):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(state.file(entry))
                cleaned += 1
        elif entry.startswith(_SLOT_PREFIX):
            named = store.read_slot(state, entry)
            number = _slot_number(entry, state.max)
            if named in records and named not in slot_of and number is not None:
                assert named is not None
                slot_of[named] = entry
                continue
            with contextlib.suppress(FileNotFoundError):
                os.unlink(state.file(entry))
                cleaned += 1
    state.used = None
    for name in sorted(records - set(slot_of)):
        try:
            slot_of[name] = store.allocate_slot(state, name)
        except SnapshotHistoryFull as exc:
            raise SnapshotCorrupt("source holds more records than its capacity") from exc
        cleaned += 1
    wanted = {_ID_PREFIX + _sha(name): f"{slot_of[name]}|{name}" for name in records}
    for entry in entries:
        if not entry.startswith(_ID_PREFIX):
            continue
        if wanted.get(entry) == read_symlink(state.file(entry)):
            del wanted[entry]
            continue
        os.unlink(state.file(entry))
        cleaned += 1
    for entry, target in wanted.items():
        os.symlink(target, state.file(entry))
        cleaned += 1
    return cleaned, slot_of


_IN_FLIGHT = frozenset({"orphan-slot", "orphan-index", "stale-head", "temp-file"})


def _live_lock(path: str) -> bool:
    stale, st, _ = judge(path, STALE_AFTER)
    return st is not None and not stale


def verify_store(store: FilesystemSnapshotStore) -> VerifyReport:
    """Read every record in full and check slots, identity entries and HEAD."""
    problems: list[VerifyProblem] = []
    sources = records = 0
    for key in store.source_keys():
        try:
            state = store.state_for_key(key)
        except SnapshotCorrupt:
            problems.append(VerifyProblem(code="bad-source", source_id=None,
                                          detail=f"source {key[:16]}: metadata is malformed"))
            continue
        if state is None:
            continue
        sources += 1
        try:
            records += _verify_source(store, state, problems)
        except (OSError, SnapshotStoreError):
            problems.append(VerifyProblem(code="snapshot-store-error", source_id=state.source_id,
                                          detail="source could not be read"))
    return VerifyReport(problems=tuple(problems), sources=sources, records=records)


def _verify_source(
    store: FilesystemSnapshotStore, state: SourceState, problems: list[VerifyProblem]
) -> int:
    lock = state.file(LOCK_NAME)
    writing = _live_lock(lock)
    entries = sorted(store.entries(state))
    names = [e for e in entries if parse_record_name(e) is not None]

    def report(code: str, detail: str) -> None:
        # A live writer's reservation is not yet a leftover: only crashed writes count.
        if not (writing and code in _IN_FLIGHT):
            problems.append(VerifyProblem(code=code, source_id=state.source_id, detail=detail))

    for name in names:
        try:
            read_record(state.file(name), name, state.source_id)
        except SnapshotCorrupt as exc:
            report("snapshot-corrupt", f"record {name}: {exc.message}")
    writing = writing or _live_lock(lock)
    present = set(names)
    slots: dict[str, list[str]] = {}
    for entry in entries:
        if entry.startswith(_SLOT_PREFIX):
            named = store.read_slot(state, entry)
            if _slot_number(entry, state.max) is None or named not in present:
                report("orphan-slot", f"{entry} names no record")
            else:
                assert named is not None
                slots.setdefault(named, []).append(entry)
        elif entry.startswith(_ID_PREFIX):
            target = read_symlink(state.file(entry)) or ""
            slot, _, named = target.partition("|")
            if named not in present:
                report("orphan-index", f"identity entry {entry[3:19]} names no record")
            elif _sha(named) != entry[3:] or store.read_slot(state, slot) != named:
                report("bad-index", f"identity entry of record {named} is wrong")
        elif entry.startswith(TEMP_PREFIX):
            report("temp-file", "a temporary file of an interrupted write remains")
        elif entry not in present and entry not in _KNOWN_FILES:
            report("unknown-entry", "the source directory holds an unknown file")
    ids = {e[len(_ID_PREFIX) :] for e in entries if e.startswith(_ID_PREFIX)}
    for name in names:
        if name not in slots:
            report("missing-slot", f"record {name} holds no capacity slot")
        elif len(slots[name]) > 1:
            report("duplicate-slot", f"record {name} holds {len(slots[name])} slots")
        if _sha(name) not in ids:
            report("missing-index", f"record {name} has no identity index entry")
    if len(names) > state.max:
        report("over-capacity", f"{len(names)} records exceed the capacity of {state.max}")
    if names and read_symlink(state.file("HEAD")) != names[-1]:
        report("stale-head", "HEAD does not name the newest record")
    return len(names)
