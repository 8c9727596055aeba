"""Errors of the snapshot stores.

::

    PressmarkError
    └── StoreError                  code "store-error"
        ├── SnapshotNotFound        code "not-found"
        ├── SnapshotCorrupt         code "snapshot-corrupt"      fail-closed reads
        ├── SnapshotStoreError      code "snapshot-store-error"  I/O and races
        │   └── StoreBusy           code "store-busy"            write lock not acquired
        ├── SnapshotHistoryFull     code "history-full"          no capacity slot left
        └── SnapshotTooLarge        code "snapshot-too-large"    body > 64 MiB, record > 96 MiB

Messages name the failure, never a file path or record contents: they end up in
logs and web pages that the store's owner may not want to expose.
"""

from __future__ import annotations

from pressmark._errors import PressmarkError


class StoreError(PressmarkError):
    """Base of the store subtree."""

    code = "store-error"


class SnapshotNotFound(StoreError):
    """No snapshot with that source id and digest."""

    code = "not-found"


class SnapshotCorrupt(StoreError):
    """A stored record is malformed, fails its digests, or belongs to another source."""

    code = "snapshot-corrupt"


class SnapshotStoreError(StoreError):
    """The store could not be read or written (I/O error, a race that cannot be resolved)."""

    code = "snapshot-store-error"


class StoreBusy(SnapshotStoreError):
    """Another writer held the source's write lock for longer than the wait limit."""

    code = "store-busy"


class SnapshotHistoryFull(StoreError):
    """The source already holds ``max_history_files`` snapshots; prune before adding more."""

    code = "history-full"


class SnapshotTooLarge(StoreError):
    """The body exceeds 64 MiB or the record 96 MiB."""

    code = "snapshot-too-large"
