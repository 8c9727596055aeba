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
from pressmark.store._open import open_store, store_format
from pressmark.store._protocol import SnapshotRef, SnapshotStore
from pressmark.store._segments import SegmentStore
from pressmark.store._warc import export_warc, import_warc

__all__ = [
    "FilesystemSnapshotStore",
    "MemorySnapshotStore",
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
    "export_warc",
    "import_warc",
    "open_store",
    "store_format",
]
