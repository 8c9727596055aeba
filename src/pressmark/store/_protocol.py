"""The SnapshotStore seam and the records it returns.

The API is synchronous because the work is file I/O; async callers wrap calls
in ``asyncio.to_thread``. Every implementation orders history the same way:
newest ``fetched_at`` first, ties broken by ``snapshot_sha256`` (descending), so
"the head" means the same snapshot everywhere.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from pressmark.snapshot import InvalidSourceRef, Snapshot, build_source_ref, parse_source_ref
from pressmark.snapshot._model import is_hex_digest
from pressmark.snapshot._source_ref import PREFIX

MAX_HISTORY_FILES = 10_000
MAX_BODY_BYTES = 64 * 1024 * 1024
MAX_RECORD_BYTES = 96 * 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotRef:
    """Where a stored snapshot can be found again."""

    source_id: str
    snapshot_sha256: str
    body_hash: str
    source_ref: str
    fetched_at: str
    url: str

    @classmethod
    def of(cls, snapshot: Snapshot) -> SnapshotRef:
        return cls(
            source_id=snapshot.source_id,
            snapshot_sha256=snapshot.snapshot_sha256,
            body_hash=snapshot.body_hash,
            source_ref=build_source_ref(snapshot),
            fetched_at=snapshot.fetched_at,
            url=snapshot.url,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class PruneReport:
    """What a prune kept, removed and cleaned up (digests are ``snapshot_sha256``)."""

    source_id: str
    kept: tuple[str, ...]
    removed: tuple[str, ...]
    cleaned: int = 0  # leftovers of interrupted writes removed or repaired


# What an interrupted write or prune can leave behind (see _filesystem's put order):
# no stored data is wrong or missing, every acknowledged put still resolves, and
# repair() (or prune) removes it. Everything else verify() reports is damage.
DEBRIS_CODES = frozenset({
    "temp-file", "orphan-slot", "orphan-index", "orphan-body-index", "stale-body-index",
    "stale-head",
    # the segment store's (_segment_maintenance.py)
    "uncommitted-tail", "missing-empty-segment", "orphan-segment",
})


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifyProblem:
    """One finding of ``verify()``; ``detail`` names records, never file paths."""

    code: str  # "snapshot-corrupt", "missing-index", ... or a DEBRIS_CODES member
    source_id: str | None
    detail: str

    @property
    def is_debris(self) -> bool:
        """A leftover of an interrupted write, not damage to stored data."""
        return self.code in DEBRIS_CODES


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifyReport:
    """The result of a full store check.

    ``problems`` is damage (corrupt, missing or contradictory data): the check
    fails. ``notes`` is debris of interrupted writes: the data is intact, the
    check passes, and ``repair()`` removes it. A user should never see a failed
    check on an undamaged store.
    """

    problems: tuple[VerifyProblem, ...]
    sources: int
    records: int
    notes: tuple[VerifyProblem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True, slots=True, kw_only=True)
class RepairReport:
    """What ``repair()`` fixed: debris removed plus index entries restored, per source."""

    sources: int
    fixed: int
    per_source: tuple[tuple[str, int], ...] = ()  # (source_id, fixes) where fixes > 0


@runtime_checkable
class SnapshotStore(Protocol):
    """Where snapshots live: MemorySnapshotStore, SegmentStore, FilesystemSnapshotStore."""

    def put(self, snapshot: Snapshot) -> SnapshotRef:
        """Store a snapshot (idempotent for an identical one) and return its reference."""
        ...

    def get(self, source_id: str, digest: str) -> Snapshot:
        """The snapshot with that ``snapshot_sha256``, or the newest with that ``body_hash``."""
        ...

    def list(self, source_id: str) -> builtins.list[SnapshotRef]:
        """The source's history, newest first."""
        ...

    def latest(self, source_id: str) -> Snapshot | None:
        """The head snapshot, or None when the source has none."""
        ...

    def sources(self) -> builtins.list[str]:
        """Every source id with at least one snapshot, sorted."""
        ...

    def prune(self, source_id: str, keep_last: int, keep: Sequence[str] = ()) -> PruneReport:
        """Keep the newest ``keep_last``, everything ``keep`` names, and the head; drop the rest."""
        ...

    def verify(self) -> VerifyReport:
        """Check every record and index; report problems instead of raising."""
        ...


def order_key(fetched_at: str, snapshot_sha256: str) -> tuple[str, str]:
    """Sort key of history; larger is newer."""
    return (fetched_at, snapshot_sha256)


def keep_digests(source_id: str, keep: Iterable[str]) -> set[str]:
    """The digests (snapshot or body) named by ``keep`` for this source.

    Entries are sourceRefs (those of other sources are ignored) or bare 64-hex
    digests; anything else raises InvalidSourceRef rather than keeping nothing.
    """
    digests: set[str] = set()
    for entry in keep:
        if isinstance(entry, str) and entry.startswith(PREFIX):
            ref = parse_source_ref(entry)
            if ref.source_id == source_id:
                digests.add(ref.snapshot_sha256)
        elif is_hex_digest(entry):
            digests.add(entry)
        else:
            raise InvalidSourceRef("keep entries must be sourceRefs or 64-hex digests")
    return digests


def select_kept(
    history: Sequence[tuple[str, str]], keep_last: int, digests: set[str]
) -> tuple[list[int], list[int]]:
    """Split newest-first (snapshot_sha256, body_hash) pairs into kept and removed indexes."""
    if keep_last < 0:
        raise ValueError("keep_last must be >= 0")
    kept: list[int] = []
    removed: list[int] = []
    for index, (sha, body_hash) in enumerate(history):
        if index == 0 or index < keep_last or sha in digests or body_hash in digests:
            kept.append(index)
        else:
            removed.append(index)
    return kept, removed
