"""Open a store by what its root holds, and migrate one store into another.

Both durable stores mark their root with ``pressmark-store.json``; its ``format`` says
which one it is (``pressmark-store/1``: the filesystem store, ``pressmark-segments/1``:
the segment store), so every reader (``pressmark store``, ``replay``, the workbench, the
MCP server) opens either without being told. A new store is a segment store unless
asked otherwise.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias

from pressmark.snapshot import Snapshot
from pressmark.store._errors import SnapshotStoreError
from pressmark.store._protocol import MAX_HISTORY_FILES, SnapshotStore

if TYPE_CHECKING:
    from pressmark.store._filesystem import FilesystemSnapshotStore
    from pressmark.store._segments import SegmentStore

StoreFormat = Literal["segments", "files"]
DurableStore: TypeAlias = "SegmentStore | FilesystemSnapshotStore"
FORMATS: dict[str, StoreFormat] = {"pressmark-segments/1": "segments",
                                   "pressmark-store/1": "files"}
_MIGRATE_BATCH = 256


def store_format(root: str | os.PathLike[str]) -> StoreFormat | None:
    """The format of the store at ``root``, or None when there is none."""
    from pressmark.store._segment_files import open_regular  # noqa: PLC0415

    try:
        fd = open_regular(os.fspath(Path(root, "pressmark-store.json")))
        try:
            info = json.loads(os.read(fd, 4096))
        finally:
            os.close(fd)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, RecursionError) as exc:
        raise SnapshotStoreError("store root marker is unreadable") from exc
    found = FORMATS.get(str(info.get("format"))) if isinstance(info, dict) else None
    if found is None:
        raise SnapshotStoreError("directory is not a pressmark snapshot store")
    return found


def open_store(
    root: str | os.PathLike[str],
    *,
    create: bool = False,
    format: StoreFormat | None = None,
    durability: Literal["fsync", "flush"] = "fsync",
    max_history_files: int = MAX_HISTORY_FILES,
) -> DurableStore:
    """The store at ``root`` in whichever format it is; with ``create``, a new one if none.

    ``format`` is the format a new store gets (default: segments); an existing store
    keeps its own (asking for the other one is an error, not a silent conversion:
    ``pressmark store migrate`` converts).
    """
    from pressmark.store._filesystem import FilesystemSnapshotStore  # noqa: PLC0415
    from pressmark.store._segments import SegmentStore  # noqa: PLC0415

    found = store_format(root)
    if found is None and not create:
        raise SnapshotStoreError("no snapshot store at this location")
    if found is not None and format is not None and found != format:
        raise SnapshotStoreError(f"the store here is in the {found!r} format, not {format!r} "
                                 "(pressmark store migrate converts one into the other)")
    chosen = found or format or "segments"
    if chosen == "files":
        return FilesystemSnapshotStore(root, max_history_files, durability=durability,
                                       create=create)
    return SegmentStore(root, max_history_files, durability=durability, create=create)


@dataclass(frozen=True, slots=True, kw_only=True)
class MigrateReport:
    """What a migration copied: every snapshot, under the same sourceRef."""

    sources: int
    snapshots: int
    already: int  # snapshots the destination held before


def migrate_store(source: SnapshotStore, target: SnapshotStore, *,
                  progress: Callable[[int], None] | None = None) -> MigrateReport:
    """Copy every snapshot of ``source`` into ``target``, oldest first per source.

    A snapshot is the same bytes and envelope in any store, so every sourceRef resolves
    in ``target`` exactly as in ``source``. Re-running is harmless (puts are idempotent).
    """
    from pressmark.store._segments import SegmentStore  # noqa: PLC0415

    copied = already = sources = 0
    batch: list[Snapshot] = []

    def flush() -> None:
        nonlocal copied
        if isinstance(target, SegmentStore):
            for result in target.put_many(batch):
                if isinstance(result, BaseException):
                    raise result
        else:
            for snapshot in batch:
                target.put(snapshot)
        copied += len(batch)
        batch.clear()
        if progress is not None:
            progress(copied + already)

    for source_id in source.sources():
        sources += 1
        present = {ref.snapshot_sha256 for ref in target.list(source_id)}
        for ref in reversed(source.list(source_id)):
            if ref.snapshot_sha256 in present:
                already += 1
                continue
            batch.append(source.get(source_id, ref.snapshot_sha256))
            if len(batch) >= _MIGRATE_BATCH:
                flush()
    flush()
    return MigrateReport(sources=sources, snapshots=copied, already=already)
