"""An in-process store with the same contract as the filesystem one.

Useful for tests and short-lived runs. It applies the same validation, history
ceiling, ordering and prune rule, so code tested against it behaves the same on
disk. Thread-safe; nothing survives the process.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Sequence

from pressmark.snapshot import InvalidSnapshot, Snapshot
from pressmark.snapshot._model import check_snapshot, envelope_digest, snapshot_envelope
from pressmark.store._errors import (
    SnapshotCorrupt,
    SnapshotHistoryFull,
    SnapshotNotFound,
)
from pressmark.store._protocol import (
    MAX_HISTORY_FILES,
    PruneReport,
    RepairReport,
    SnapshotRef,
    VerifyProblem,
    VerifyReport,
    keep_digests,
    order_key,
    select_kept,
)
from pressmark.store._records import encode_record


class MemorySnapshotStore:
    """Snapshots in a dict, keyed by source id and ``snapshot_sha256``."""

    def __init__(self, *, max_history_files: int = MAX_HISTORY_FILES) -> None:
        if type(max_history_files) is not int or not 1 <= max_history_files <= MAX_HISTORY_FILES:
            raise ValueError("max_history_files must be between 1 and 10000")
        self._max = max_history_files
        self._lock = threading.Lock()
        self._data: dict[str, dict[str, Snapshot]] = {}

    def put(self, snapshot: Snapshot) -> SnapshotRef:
        check_snapshot(snapshot, verify_body=True)
        # The same 64 MiB body / 96 MiB record caps as on disk; the envelope digest it
        # computes is the snapshot's (encode_record caches it on the snapshot).
        sha = encode_record(snapshot)[2]
        with self._lock:
            history = self._data.setdefault(snapshot.source_id, {})
            if sha not in history:
                if len(history) >= self._max:
                    raise SnapshotHistoryFull("source history is full; prune it first")
                history[sha] = snapshot
        return SnapshotRef.of(snapshot)

    def get(self, source_id: str, digest: str) -> Snapshot:
        with self._lock:
            history = dict(self._data.get(source_id, {}))
        found = history.get(digest)
        if found is None:
            same_body = [s for s in history.values() if s.body_hash == digest]
            if same_body:
                found = max(same_body, key=lambda s: order_key(s.fetched_at, s.snapshot_sha256))
        if found is None:
            raise SnapshotNotFound("no snapshot with that digest for this source")
        return found

    def list(self, source_id: str) -> builtins.list[SnapshotRef]:
        return [SnapshotRef.of(s) for s in self._ordered(source_id)]

    def latest(self, source_id: str) -> Snapshot | None:
        ordered = self._ordered(source_id)
        return ordered[0] if ordered else None

    def sources(self) -> builtins.list[str]:
        with self._lock:
            return sorted(sid for sid, history in self._data.items() if history)

    def prune(self, source_id: str, keep_last: int, keep: Sequence[str] = ()) -> PruneReport:
        digests = keep_digests(source_id, keep)
        with self._lock:
            history = self._data.get(source_id, {})
            ordered = sorted(
                history.values(),
                key=lambda s: order_key(s.fetched_at, s.snapshot_sha256),
                reverse=True,
            )
            kept, removed = select_kept(
                [(s.snapshot_sha256, s.body_hash) for s in ordered], keep_last, digests
            )
            for index in removed:
                del history[ordered[index].snapshot_sha256]
        return PruneReport(
            source_id=source_id,
            kept=tuple(ordered[i].snapshot_sha256 for i in kept),
            removed=tuple(ordered[i].snapshot_sha256 for i in removed),
        )

    def verify(self) -> VerifyReport:
        problems: builtins.list[VerifyProblem] = []
        with self._lock:
            items = [(sid, dict(h)) for sid, h in self._data.items()]
        records = 0
        for source_id, history in items:
            for sha, snapshot in history.items():
                records += 1
                try:
                    check_snapshot(snapshot, verify_body=True)
                    if envelope_digest(snapshot_envelope(snapshot)) != sha:
                        raise SnapshotCorrupt("envelope digest mismatch")
                except (InvalidSnapshot, SnapshotCorrupt):
                    problems.append(VerifyProblem(
                        code="snapshot-corrupt", source_id=source_id, detail=f"record {sha}"
                    ))
        return VerifyReport(problems=tuple(problems), sources=len(items), records=records)

    def repair(self) -> RepairReport:
        """Nothing to repair: a write to memory is never left half done."""
        with self._lock:
            return RepairReport(sources=len(self._data), fixed=0)

    def _ordered(self, source_id: str) -> builtins.list[Snapshot]:
        with self._lock:
            history = builtins.list(self._data.get(source_id, {}).values())
        return sorted(
            history, key=lambda s: order_key(s.fetched_at, s.snapshot_sha256), reverse=True
        )
