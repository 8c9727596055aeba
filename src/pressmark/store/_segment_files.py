"""Segment files of a segment store: one appender per segment, readers by offset.

A segment is a WARC file, ``segments/<id>-<token>.warc.gz``, one gzip member per
record. Exclusivity is an ``flock`` on the segment itself: a writer appends only to a
segment it holds locked, so two writer processes never interleave bytes, and the kernel
drops the lock the instant its holder dies (SIGKILL included), with nothing stale to
break and no timeout to wait out. The lock is taken with the segment opened, never on a
shared lock file, so it serialises only writers of the same segment on one machine.

The index records, per segment, ``committed``: the end of the last record whose index
entry committed. Bytes beyond it are an interrupted write (the writer died between its
append and its commit): nobody ever served them and no reader reads them (readers only
follow index entries). The next writer to lock the segment cuts them off first, and
``repair`` does the same for segments nobody holds. A segment shorter than
``committed`` lost committed data (a power cut with ``durability="flush"``, or a hand):
it is never written again and ``verify`` reports it. A segment reaching the store's
``segment_bytes`` is sealed: marked in the index, made read-only (mode 0444), and never
opened for writing again.

Files are opened with ``O_NOFOLLOW | O_NONBLOCK`` below a ``segments`` directory that must
be a real directory, never a symlink, and must be regular files (a planted FIFO would
block an ``open`` or a ``read`` forever); index paths are checked against the one shape
we write.
"""

# Raw os calls on str paths: appends and reads run once per put and get.

from __future__ import annotations

import errno
import fcntl
import os
import re
import secrets
import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass

from pressmark.store._errors import SnapshotCorrupt, SnapshotStoreError
from pressmark.store._segment_index import Index
from pressmark.store._warc_records import gzip_member, warcinfo_record

SEGMENT_DIR = "segments"
SEGMENT_PATH = re.compile(r"(?:shards/[0-9]{1,4}/)?segments/[0-9]{6,12}-[0-9a-f]{8}\.warc\.gz\Z")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_SAFE = _NOFOLLOW | _CLOEXEC | getattr(os, "O_NONBLOCK", 0)
_MAX_OPEN = 128  # reader file descriptors kept open per store instance


def check_segment_path(path: str) -> str:
    """``path`` if it has the one shape a segment path has (the index may be tampered)."""
    if not SEGMENT_PATH.match(path):
        raise SnapshotCorrupt("the store index names a segment path that is not one of ours")
    return path


def real_directory(path: str) -> bool:
    """True when ``path`` is a directory itself, not a symlink to one."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def real_parents(root: str, relative: str) -> bool:
    """True when every directory between ``root`` and ``relative``'s file is a real
    directory (``O_NOFOLLOW`` guards only the last component of a path)."""
    parts = relative.split("/")[:-1]
    return all(real_directory("/".join([root, *parts[: n + 1]])) for n in range(len(parts)))


def open_regular(path: str, flags: int = os.O_RDONLY, mode: int = 0o644) -> int:
    """Open a store file that must be a regular file: never through a symlink, never
    blocking on a planted FIFO or device (``NotARegularFile``, an OSError, otherwise)."""
    fd = os.open(path, flags | _SAFE, mode)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotARegularFile(errno.EINVAL, "not a regular file")
    return fd


class NotARegularFile(OSError):
    """A store file that is a FIFO, a device or a directory: not followed, not read."""


def try_lock(fd: int) -> bool:
    """Take the exclusive append lock of a segment without waiting."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def held_by_a_writer(path: str) -> bool:
    """Is a live writer appending to the segment at ``path`` right now?"""
    try:
        fd = open_regular(path)
    except OSError:
        return False
    try:
        if try_lock(fd):
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False
        return True
    finally:
        os.close(fd)


def fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(slots=True)
class Appending:
    """The segment this store instance holds locked, and where its next record goes."""

    segment: int
    path: str
    fd: int
    end: int


class SegmentWriter:
    """Appends to one locked segment at a time; the caller serialises calls (a mutex)."""

    def __init__(self, root: str, index: Index, *, fsync: bool, segment_bytes: int,
                 level: int, clock: object) -> None:
        self.root = root
        self.index = index
        self.fsync = fsync
        self.segment_bytes = segment_bytes
        self.level = level
        self._clock = clock
        self.current: Appending | None = None
        self._pid = os.getpid()

    def acquire(self) -> Appending:
        """The locked segment to append to: an open one nobody holds, or a new one."""
        if os.getpid() != self._pid:  # a forked child holds no lock of its parent's
            self.current, self._pid = None, os.getpid()
        if self.current is not None:
            return self.current
        for _ in range(16):  # others may take each segment we find, or create, first
            for row in self.index.segments(self.index.conn(), open_only=True):
                taken = self._take(row.id, check_segment_path(row.path), row.committed)
                if taken is not None:
                    self.current = taken
                    return taken
            ident, path = self._create()
            taken = self._take(ident, path, 0)
            if taken is not None:
                self.current = taken
                return taken
        raise SnapshotStoreError("could not take a segment to write to")

    def _take(self, ident: int, path: str, committed: int) -> Appending | None:
        if not real_parents(self.root, path):
            return None  # a planted symlink on the way: verify reports it
        full = f"{self.root}/{path}"
        flags = os.O_RDWR | os.O_APPEND
        try:
            fd = open_regular(full, flags | (os.O_CREAT if committed == 0 else 0))
        except OSError:
            return None  # missing or unreadable: verify reports it
        try:
            if not try_lock(fd):
                os.close(fd)
                return None
            # The lock is ours: any byte past ``committed`` was written by a writer that
            # died before its index entry committed. Cut it (nobody ever served it).
            committed = self._committed(ident)
            size = os.fstat(fd).st_size
            if size < committed:
                os.close(fd)  # committed data is missing: never append after it
                return None
            if size > committed:
                os.ftruncate(fd, committed)
                if self.fsync:
                    os.fsync(fd)
            if committed >= self.segment_bytes:
                self._seal(ident, fd)
                os.close(fd)
                return None
            taken = Appending(ident, path, fd, committed)
            if committed == 0:
                self._start(taken)
            return taken
        except BaseException:
            os.close(fd)
            raise

    def _committed(self, ident: int) -> int:
        row = self.index.segment(self.index.conn(), ident)
        return 0 if row is None else row.committed

    def _create(self) -> tuple[int, str]:
        """A new segment's index row (its file is created by whoever takes it first)."""
        token = secrets.token_hex(4)
        if not real_directory(f"{self.root}/{SEGMENT_DIR}"):
            raise SnapshotStoreError("the store's segments directory is missing or a symlink")
        with self.index.write() as db:
            cursor = db.execute("INSERT INTO segments (path) VALUES (?)", (f"pending-{token}",))
            ident = int(cursor.lastrowid or 0)
            path = f"{SEGMENT_DIR}/{ident:06d}-{token}.warc.gz"
            db.execute("UPDATE segments SET path = ? WHERE id = ?", (path, ident))
        return ident, path

    def _start(self, taken: Appending) -> None:
        """Write the segment's warcinfo record and commit it (its first bytes)."""
        if self.fsync:  # the file may be new: its name must survive a power cut too
            fsync_dir(f"{self.root}/{taken.path.rpartition('/')[0]}")
        when = self._clock()  # type: ignore[operator]
        member = gzip_member(warcinfo_record(str(when), f"{taken.path}"), self.level)
        self.write(taken, member)
        with self.index.write() as db:
            db.execute("UPDATE segments SET committed = ? WHERE id = ?", (taken.end, taken.segment))

    def write(self, taken: Appending, data: bytes) -> int:
        """Append ``data`` (fsynced when durable); returns the offset it starts at."""
        start = taken.end
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(taken.fd, view) :]
            if self.fsync:
                os.fdatasync(taken.fd)
        except OSError as exc:
            self.drop()  # the next writer (maybe us) cuts what was half written
            raise SnapshotStoreError("could not append to a segment") from exc
        taken.end = start + len(data)
        return start

    def after_commit(self) -> None:
        """Seal the held segment once it reached its size."""
        taken = self.current
        if taken is not None and taken.end >= self.segment_bytes:
            self._seal(taken.segment, taken.fd)
            self.drop()

    def _seal(self, ident: int, fd: int) -> None:
        with self.index.write() as db:
            db.execute("UPDATE segments SET sealed = 1 WHERE id = ?", (ident,))
        os.fchmod(fd, 0o444)

    def drop(self) -> None:
        """Release the held segment (closing its descriptor drops the lock)."""
        taken, self.current = self.current, None
        if taken is not None and os.getpid() == self._pid:
            os.close(taken.fd)


class SegmentReader:
    """Reads byte ranges of segments through a small cache of open descriptors."""

    def __init__(self, root: str, index: Index) -> None:
        self.root = root
        self.index = index
        self._fds: OrderedDict[int, int] = OrderedDict()
        self._paths: dict[int, str] = {}
        self._mutex = threading.Lock()
        self._pid = os.getpid()

    def path(self, segment: int) -> str:
        known = self._paths.get(segment)
        if known is None:
            row = self.index.segment(self.index.conn(), segment)
            if row is None:
                raise SnapshotCorrupt("the store index names a segment it does not list")
            known = self._paths[segment] = check_segment_path(row.path)
        return known

    def _fd(self, segment: int) -> int:
        with self._mutex:
            if os.getpid() != self._pid:
                self._fds.clear()  # inherited descriptors share offsets: open our own
                self._pid = os.getpid()
            fd = self._fds.get(segment)
            if fd is not None:
                self._fds.move_to_end(segment)
                return fd
        relative = self.path(segment)
        if not real_parents(self.root, relative):
            raise SnapshotCorrupt("a segment's directory is not a directory of the store")
        path = f"{self.root}/{relative}"
        try:
            fd = open_regular(path)
        except FileNotFoundError:
            raise SnapshotCorrupt("a segment the index names is missing") from None
        except OSError as exc:
            if exc.errno == errno.ELOOP or isinstance(exc, NotARegularFile):
                raise SnapshotCorrupt("a segment is not a regular file") from None
            raise SnapshotStoreError("could not open a segment") from exc
        with self._mutex:
            self._fds[segment] = fd
            while len(self._fds) > _MAX_OPEN:
                os.close(self._fds.popitem(last=False)[1])
        return fd

    def read(self, segment: int, offset: int, length: int) -> bytes:
        """Exactly ``length`` bytes at ``offset``; a short read is corruption."""
        fd = self._fd(segment)
        try:
            data = os.pread(fd, length, offset)
        except OSError as exc:
            raise SnapshotStoreError("could not read a segment") from exc
        if len(data) != length:
            raise SnapshotCorrupt("a record ends beyond its segment's end")
        return data

    def close(self) -> None:
        with self._mutex:
            if os.getpid() == self._pid:
                for fd in self._fds.values():
                    os.close(fd)
            self._fds.clear()

    def reset(self) -> None:
        """Forget every segment (the index was rebuilt: its ids name other files)."""
        self.close()
        self._paths.clear()
