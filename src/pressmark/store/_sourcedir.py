"""A source directory of the filesystem store: its state, its metadata, and pinning.

A store may be shared, so its names may have been planted: a source directory is read
only when it is a plain directory (never through a symlink), ``source.json`` only when
it is a regular file (never a FIFO, whose ``open()`` would wait for a writer). Maintenance
goes further and pins the directory (:func:`pin_source`): it is opened once and every
entry is reached through that open directory, so a directory swapped for a symlink
meanwhile cannot send a delete outside the store.
"""

# Raw os calls on str paths, as in _filesystem.

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pressmark.store._errors import SnapshotCorrupt, SnapshotNotFound, SnapshotStoreError
from pressmark.store._fsio import NotDirectory, NotRegularFile, open_directory, read_regular
from pressmark.store._protocol import MAX_HISTORY_FILES

SOURCE_FORMAT = "pressmark-source/1"


@dataclass(slots=True, kw_only=True)
class SourceState:
    """What one store instance knows about one source directory."""

    source_id: str
    dir: str
    max: int
    mutex: threading.Lock = field(default_factory=threading.Lock)
    used: set[int] | None = None  # slot numbers known to be taken, or unknown
    cursor: int = 0  # next slot number to try

    def file(self, name: str) -> str:
        return f"{self.dir}/{name}"


def read_meta(directory: str) -> dict[str, Any] | None:
    """The source's metadata; the directory must be a plain one (not a symlink)."""
    try:
        fd = open_directory(directory)
    except FileNotFoundError:
        return None
    except NotDirectory:
        raise SnapshotCorrupt("source directory is not a directory of the store") from None
    except OSError as exc:
        raise SnapshotStoreError("could not read the source metadata") from exc
    try:
        return meta_at(fd)
    finally:
        os.close(fd)


def meta_at(directory_fd: int) -> dict[str, Any] | None:
    """``source.json`` of the open source directory, checked; ``None`` when missing."""
    try:
        meta = json.loads(read_regular("source.json", 16384, dir_fd=directory_fd))
    except FileNotFoundError:
        return None
    except NotRegularFile as exc:  # unreadable as a file, as a directory there would be
        raise SnapshotStoreError("source metadata is not a regular file") from exc
    except OSError as exc:
        raise SnapshotStoreError("could not read the source metadata") from exc
    except (ValueError, RecursionError) as exc:
        raise SnapshotCorrupt("source metadata is unreadable") from exc
    if (
        not isinstance(meta, dict)
        or meta.get("format") != SOURCE_FORMAT
        or not isinstance(meta.get("source_id"), str)
        or type(meta.get("max_history_files")) is not int
        or not 1 <= meta["max_history_files"] <= MAX_HISTORY_FILES
    ):
        raise SnapshotCorrupt("source metadata is malformed")
    return meta


@contextlib.contextmanager
def pin_source(sources_dir: str, state: SourceState) -> Iterator[SourceState]:
    """``state`` for maintenance: its directory opened once, never through a symlink,
    and every entry reached through that open directory.

    Paths go through ``/proc/self/fd/N``, which the kernel resolves to the directory
    that descriptor holds, whatever happens to the path meanwhile, so the slot, lock,
    symlink and record helpers work unchanged and stay inside it. Without ``/proc``
    the path is used, checked once here. The copy shares the cached state's mutex.
    """
    key = state.dir.rpartition("/")[2]
    try:
        parent = open_directory(sources_dir)
        try:
            fd = open_directory(key, dir_fd=parent)
        finally:
            os.close(parent)
    except NotDirectory:
        raise SnapshotCorrupt("source directory is not a directory of the store") from None
    except FileNotFoundError:
        raise SnapshotNotFound("no such source") from None
    except OSError as exc:
        raise SnapshotStoreError("could not open the source directory") from exc
    try:
        meta = meta_at(fd)
        if meta is None or meta["source_id"] != state.source_id:
            raise SnapshotCorrupt("source directory belongs to a different source")
        through = f"/proc/self/fd/{fd}"
        here = through if Path(through).is_dir() else state.dir
        yield SourceState(source_id=state.source_id, dir=here, max=meta["max_history_files"],
                          mutex=state.mutex)
    finally:
        os.close(fd)
