"""prune() and verify() of the filesystem store.

Both walk a whole source, so they live apart from the hot read/write path.
``prune`` holds the source's write lock; since no write is in flight while it
does, it first removes everything an interrupted write can leave (temporary
files, slots and identity entries naming no record, a dead lock-breaker marker)
and gives retained records back a missing slot or identity entry. Then it
applies the retention rule, points HEAD at the newest record that remains and
each body entry at the newest remaining record with that body (dropping entries
of bodies no record has any more, and repairing missing or dangling ones).
``verify`` reads every record in full and reports, never repairs: damage (corrupt,
missing or contradictory data) as problems, the debris of interrupted writes as
notes. ``repair`` is prune's clean-up with nothing removed, in every source.
While a live writer holds a source's lock, what its write has reserved so far
(a slot, identity or body entry without its record yet, HEAD ahead of the
records) is not reported; the same state left by a crashed writer is. Every
problem a concurrent put or prune could fake is re-checked before it is reported.

Maintenance runs on a pinned source (:meth:`FilesystemSnapshotStore.pinned`): the
directory is opened once, never through a symlink, and every entry is read, created
or deleted through it, so what it removes is always inside the store, and every file
is opened as a regular file only (a planted FIFO is damage, never a hang).
"""

# Raw os calls on str paths, as in _filesystem.
# ruff: noqa: PTH108, PTH211

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from pressmark.store._errors import SnapshotCorrupt, SnapshotHistoryFull, SnapshotStoreError
from pressmark.store._fsio import TEMP_PREFIX, read_symlink, set_symlink
from pressmark.store._lock import LOCK_NAME, STALE_AFTER, judge, remove_dead_breaker
from pressmark.store._protocol import (
    DEBRIS_CODES,
    MAX_HISTORY_FILES,
    PruneReport,
    RepairReport,
    VerifyProblem,
    VerifyReport,
    keep_digests,
    select_kept,
)
from pressmark.store._records import parse_record_name, read_record

if TYPE_CHECKING:
    from pressmark.store._filesystem import FilesystemSnapshotStore
    from pressmark.store._sourcedir import SourceState

_SLOT_PREFIX = "slot."
_ID_PREFIX = "id."
_BODY_PREFIX = "body."
_KNOWN_FILES = frozenset({"source.json", "HEAD", "source.lock", "source.lock.breaker"})


def _sha(name: str) -> str:
    parsed = parse_record_name(name)
    assert parsed is not None
    return parsed[1]


def _slot_number(entry: str, capacity: int) -> int | None:
    digits = entry[len(_SLOT_PREFIX) :]
    if entry.startswith(_SLOT_PREFIX) and len(digits) == 5 and digits.isascii() and (
        digits.isdigit()
    ):
        number = int(digits)
        return number if number < capacity else None
    return None


def prune_source(
    store: FilesystemSnapshotStore, source_id: str, keep_last: int, keep: Sequence[str]
) -> PruneReport:
    digests = keep_digests(source_id, keep)
    if keep_last < 0:
        raise ValueError("keep_last must be >= 0")
    cached = store.source_state(source_id, create=False)
    if cached is None:
        return PruneReport(source_id=source_id, kept=(), removed=())
    with store.pinned(cached) as state, state.mutex, store.lock(state) as lock:
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
            # After the removals, never before: until then the old entries still cover them.
            cleaned += _sync_body_index(store, state, names, history, kept_ix)
            store.sync_dir(state.dir)
        except OSError as exc:
            raise SnapshotStoreError("could not prune the source") from exc
        finally:
            cached.used = None  # slots taken through the pinned copy: count them again
    return PruneReport(
        source_id=source_id,
        kept=tuple(history[i][0] for i in kept_ix),
        removed=tuple(history[i][0] for i in removed_ix),
        cleaned=cleaned,
    )


def repair_store(store: FilesystemSnapshotStore) -> RepairReport:
    """Remove debris and restore missing index entries in every source; history is untouched.

    Each source is repaired under its write lock by the same clean-up prune does
    first, with nothing removed: a retention rule that keeps every record.
    """
    fixed = sources = 0
    per_source: list[tuple[str, int]] = []
    for key in store.source_keys():
        state = store.state_for_key(key)  # malformed metadata: SnapshotCorrupt, not guessed
        if state is None:
            continue
        sources += 1
        report = prune_source(store, state.source_id, MAX_HISTORY_FILES, ())
        assert not report.removed  # nothing can be beyond MAX_HISTORY_FILES
        fixed += report.cleaned
        if report.cleaned:
            per_source.append((state.source_id, report.cleaned))
    return RepairReport(sources=sources, fixed=fixed, per_source=tuple(per_source))


def _sync_body_index(
    store: FilesystemSnapshotStore,
    state: SourceState,
    names: list[str],
    history: list[tuple[str, str]],
    kept: list[int],
) -> int:
    """Point every body entry at the newest kept record with that body; drop the others.

    Returns how many entries were wrong *before* the removals (leftovers of
    interrupted writes, or damage), not the moves the removals themselves require.
    """
    newest_all: dict[str, str] = {}
    for name, (_, body_hash) in zip(names, history, strict=True):
        newest_all.setdefault(body_hash, name)  # names are newest first
    newest_kept: dict[str, str] = {}
    for index in kept:
        newest_kept.setdefault(history[index][1], names[index])
    existing = {
        entry[len(_BODY_PREFIX) :]: read_symlink(state.file(entry)) or ""  # "": not a link
        for entry in store.entries(state)
        if entry.startswith(_BODY_PREFIX)
    }
    repaired = sum(
        1 for body in existing.keys() | newest_all.keys()
        if existing.get(body) != newest_all.get(body)
    )
    for body in sorted(existing.keys() | newest_kept.keys()):
        want = newest_kept.get(body)
        if existing.get(body) == want:
            continue
        if want is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(state.file(_BODY_PREFIX + body))
        else:
            set_symlink(state.dir, _BODY_PREFIX + body, want, replace=body in existing)
    return repaired


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


_IN_FLIGHT = DEBRIS_CODES | {"bad-head"}  # what a live put shows between its steps


def _live_lock(path: str) -> bool:
    stale, st, _ = judge(path, STALE_AFTER)
    return st is not None and not stale


def verify_store(store: FilesystemSnapshotStore) -> VerifyReport:
    """Read every record in full and check slots, identity entries and HEAD.

    Damage goes to ``problems``, leftovers of interrupted writes to ``notes``.
    """
    problems: list[VerifyProblem] = []
    notes: list[VerifyProblem] = []
    sources = records = 0
    for key in store.source_keys():
        try:
            state = store.state_for_key(key)
        except SnapshotCorrupt as exc:
            problems.append(VerifyProblem(code="bad-source", source_id=None,
                                          detail=f"source {key[:16]}: {exc.message}"))
            continue
        except SnapshotStoreError as exc:
            problems.append(VerifyProblem(code="snapshot-store-error", source_id=None,
                                          detail=f"source {key[:16]}: {exc.message}"))
            continue
        if state is None:
            continue
        sources += 1
        try:
            with store.pinned(state) as pinned:
                records += _verify_source(store, pinned, problems, notes)
        except SnapshotCorrupt as exc:
            problems.append(VerifyProblem(code="bad-source", source_id=state.source_id,
                                          detail=f"source {key[:16]}: {exc.message}"))
        except (OSError, SnapshotStoreError):
            problems.append(VerifyProblem(code="snapshot-store-error", source_id=state.source_id,
                                          detail="source could not be read"))
    return VerifyReport(problems=tuple(problems), notes=tuple(notes), sources=sources,
                        records=records)


def _verify_source(
    store: FilesystemSnapshotStore,
    state: SourceState,
    problems: list[VerifyProblem],
    notes: list[VerifyProblem],
) -> int:
    """Check one source; safe to run while other processes write and prune it.

    A directory listing is not a snapshot: entries come and go while it is read and
    while records are read. So every problem a concurrent put or prune could fake is
    re-checked against the directory as it is *now* before it is reported (a crash
    leftover or real damage stays put; a race does not), and what a live writer
    has reserved so far is never reported.
    """
    lock = state.file(LOCK_NAME)
    writing = _live_lock(lock)
    entries = sorted(store.entries(state))
    candidates: list[tuple[VerifyProblem, Callable[[], bool] | None]] = []

    def report(code: str, detail: str, still: Callable[[], bool] | None = None) -> None:
        problem = VerifyProblem(code=code, source_id=state.source_id, detail=detail)
        candidates.append((problem, still))

    newest_with: dict[str, str] = {}  # body_hash -> newest authenticated record name
    body_of: dict[str, str] = {}
    names: list[str] = []
    for name in (e for e in entries if parse_record_name(e) is not None):
        try:
            body_hash = read_record(state.file(name), name, state.source_id).body_hash
        except FileNotFoundError:
            continue  # pruned while we looked: it is not part of the history any more
        except SnapshotCorrupt as exc:
            report("snapshot-corrupt", f"record {name}: {exc.message}")
        else:
            body_of[name] = body_hash
            newest_with[body_hash] = max(name, newest_with.get(body_hash, name))
        names.append(name)
    present = set(names)
    slots: dict[str, list[str]] = {}
    for entry in entries:
        if entry.startswith(_SLOT_PREFIX):
            named = store.read_slot(state, entry)
            if _slot_number(entry, state.max) is None or named not in present:
                report("orphan-slot", f"{entry} names no record",
                       partial(_slot_still_orphan, store, state, entry))
            else:
                assert named is not None
                slots.setdefault(named, []).append(entry)
        elif entry.startswith(_ID_PREFIX):
            target = read_symlink(state.file(entry)) or ""
            slot, _, named = target.partition("|")
            if named not in present:
                report("orphan-index", f"identity entry {entry[3:19]} names no record",
                       partial(_present_without, state, entry, named or "-"))
            elif _sha(named) != entry[3:] or store.read_slot(state, slot) != named:
                report("bad-index", f"identity entry of record {named} is wrong",
                       partial(_index_still_bad, store, state, entry, target))
        elif entry.startswith(_BODY_PREFIX):
            _check_body_entry(state, entry, newest_with=newest_with, body_of=body_of,
                              present=present, report=report)
        elif entry.startswith(TEMP_PREFIX):
            report("temp-file", "a temporary file of an interrupted write remains",
                   partial(_present_without, state, entry, None))
        elif entry not in present and entry not in _KNOWN_FILES:
            report("unknown-entry", "the source directory holds an unknown file",
                   partial(_present_without, state, entry, None))
    ids = {e[len(_ID_PREFIX) :] for e in entries if e.startswith(_ID_PREFIX)}
    bodies = {e[len(_BODY_PREFIX) :] for e in entries if e.startswith(_BODY_PREFIX)}
    for name in names:
        # A record is published after its slot and entries, and pruned before them:
        # if it is still there, what the listing missed is really missing.
        if name not in slots:
            report("missing-slot", f"record {name} holds no capacity slot",
                   partial(_present_without, state, name, None))
        elif len(slots[name]) > 1:
            report("duplicate-slot", f"record {name} holds {len(slots[name])} slots")
        if _sha(name) not in ids:
            report("missing-index", f"record {name} has no identity index entry",
                   partial(_present_without, state, name, _ID_PREFIX + _sha(name)))
    for body_hash, name in sorted(newest_with.items()):
        if body_hash not in bodies:
            report("missing-body-index", f"record {name} has no body index entry",
                   partial(_present_without, state, name, _BODY_PREFIX + body_hash))
    if len(names) > state.max:
        report("over-capacity", f"{len(names)} records exceed the capacity of {state.max}")

    def head_is_stale() -> bool:
        # A put publishes its record, then moves HEAD: between the two a live writer
        # legitimately shows a newer record than HEAD. Only the same lag seen on a few
        # short looks, with no live writer, is a crash leftover: a lag that moves (a
        # writer putting one record after another can be caught between its steps on
        # every look) is progress.
        lag: tuple[str | None, str] | None = None
        for attempt in range(3):
            now = [e for e in store.entries(state) if parse_record_name(e) is not None]
            head_now = read_symlink(state.file("HEAD"))
            if not now or head_now == max(now):
                return False
            if lag is not None and lag != (head_now, max(now)):
                return False
            lag = (head_now, max(now))
            if attempt < 2:
                time.sleep(0.02)
        return not _live_lock(lock)

    head = read_symlink(state.file("HEAD"))
    if names and head != names[-1]:
        if head is not None and parse_record_name(head) is not None and head > names[-1] and (
                not os.path.lexists(state.file(head))):
            # put moves HEAD before it publishes the record; its writer died in between
            report("stale-head", "HEAD names a record an interrupted write never published",
                   head_is_stale)
        else:
            report("bad-head", "HEAD does not name the newest record", head_is_stale)

    writing = writing or _live_lock(lock)
    confirmed = [problem for problem, still in candidates if still is None or still()]
    writing = writing or _live_lock(lock)
    for problem in confirmed:
        # A live writer's reservation is not yet a leftover: only crashed writes count.
        if not (writing and problem.code in _IN_FLIGHT):
            (notes if problem.is_debris else problems).append(problem)
    return len(names)


def _present_without(state: SourceState, name: str, missing: str | None) -> bool:
    """Re-check: ``name`` still exists and ``missing`` (if given) still does not."""
    return os.path.lexists(state.file(name)) and not (
        missing is not None and os.path.lexists(state.file(missing)))


def _index_still_bad(
    store: FilesystemSnapshotStore, state: SourceState, entry: str, target: str
) -> bool:
    slot, _, named = target.partition("|")
    return (read_symlink(state.file(entry)) == target and os.path.lexists(state.file(named))
            and (_sha(named) != entry[len(_ID_PREFIX) :] or store.read_slot(state, slot) != named))


def _still_malformed(state: SourceState, entry: str) -> bool:
    if not os.path.lexists(state.file(entry)):
        return False  # removed by a prune while we looked
    return parse_record_name(read_symlink(state.file(entry)) or "") is None


def _slot_still_orphan(store: FilesystemSnapshotStore, state: SourceState, slot: str) -> bool:
    named = store.read_slot(state, slot)
    return named is not None and (
        parse_record_name(named) is None or not os.path.lexists(state.file(named)))


def _check_body_entry(
    state: SourceState,
    entry: str,
    *,
    newest_with: dict[str, str],
    body_of: dict[str, str],
    present: set[str],
    report: Callable[[str, str, Callable[[], bool] | None], None],
) -> None:
    body_hash = entry[len(_BODY_PREFIX) :]
    target = read_symlink(state.file(entry))
    newest = newest_with.get(body_hash)
    label = f"body entry {body_hash[:16]}"

    def moved() -> bool:
        return read_symlink(state.file(entry)) != target

    def behind() -> bool:  # still older than a record with that body that still exists?
        now = read_symlink(state.file(entry)) or ""
        return any(body_of[name] == body_hash and name > now
                   and os.path.lexists(state.file(name)) for name in body_of)

    if target is None or parse_record_name(target) is None:
        report("bad-body-index", f"{label} is malformed", partial(_still_malformed, state, entry))
    elif newest is not None and target < newest:
        report("bad-body-index", f"{label} names an older record than {newest}", behind)
    elif target in present and target not in body_of:
        return  # the record itself is corrupt: reported as such
    elif target not in present:
        # ahead of every record with that body: a write (or prune) was interrupted
        report("orphan-body-index" if newest is None else "stale-body-index",
               f"{label} names no record",
               lambda: not moved() and not os.path.lexists(state.file(target)))
    elif target != newest:
        report("bad-body-index", f"{label} names a record with another body", None)
