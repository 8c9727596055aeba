"""Snapshot stores: the SnapshotStore protocol, an in-memory and a filesystem store.

The filesystem store is the durable one: immutable records, exclusive capacity
slots, a per-source write lock, fail-closed reads and WARC export/import.
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
from pressmark.store._protocol import (
    DEBRIS_CODES,
    PruneReport,
    RepairReport,
    SnapshotRef,
    SnapshotStore,
    VerifyProblem,
    VerifyReport,
)
from pressmark.store._warc import WarcImportReport, export_warc, import_warc
from pressmark.store._witness import HeadWitness, WitnessStatus

__all__ = [
    "DEBRIS_CODES",
    "FilesystemSnapshotStore",
    "HeadWitness",
    "MemorySnapshotStore",
    "PruneReport",
    "RepairReport",
    "SnapshotCorrupt",
    "SnapshotHistoryFull",
    "SnapshotNotFound",
    "SnapshotRef",
    "SnapshotStore",
    "SnapshotStoreError",
    "SnapshotTooLarge",
    "StoreBusy",
    "StoreError",
    "VerifyProblem",
    "VerifyReport",
    "WarcImportReport",
    "WitnessStatus",
    "export_warc",
    "import_warc",
]
