"""Snapshot stores: the SnapshotStore protocol, an in-memory store and two durable ones.

The segment store (the default) appends WARC records to a few large segment files found
through a SQLite index; the filesystem store keeps one immutable file per snapshot with
exclusive capacity slots and a per-source write lock. Both read fail-closed, export and
import WARC, and open by what their root holds (:func:`open_store`).
"""

from pressmark.store._errors import (
    SnapshotCorrupt,
    SnapshotHistoryFull,
    SnapshotNotFound,
    SnapshotStoreError,
    SnapshotTooLarge,
    StoreBusy,
    StoreError,
)
from pressmark.store._filesystem import FilesystemSnapshotStore
from pressmark.store._memory import MemorySnapshotStore
from pressmark.store._open import (
    MigrateReport,
    StoreFormat,
    migrate_store,
    open_store,
    store_format,
)
from pressmark.store._protocol import (
    DEBRIS_CODES,
    PruneReport,
    RepairReport,
    SnapshotRef,
    SnapshotStore,
    VerifyProblem,
    VerifyReport,
)
from pressmark.store._segments import SegmentStore
from pressmark.store._warc import WarcImportReport, export_warc, import_warc
from pressmark.store._witness import HeadWitness, WitnessStatus

__all__ = [
    "DEBRIS_CODES",
    "FilesystemSnapshotStore",
    "HeadWitness",
    "MemorySnapshotStore",
    "MigrateReport",
    "PruneReport",
    "RepairReport",
    "SegmentStore",
    "SnapshotCorrupt",
    "SnapshotHistoryFull",
    "SnapshotNotFound",
    "SnapshotRef",
    "SnapshotStore",
    "SnapshotStoreError",
    "SnapshotTooLarge",
    "StoreBusy",
    "StoreError",
    "StoreFormat",
    "VerifyProblem",
    "VerifyReport",
    "WarcImportReport",
    "WitnessStatus",
    "export_warc",
    "import_warc",
    "migrate_store",
    "open_store",
    "store_format",
]
