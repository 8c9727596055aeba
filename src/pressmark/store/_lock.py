"""The per-source write lock of the filesystem store.

``put()`` and ``prune()`` of one source hold ``source.lock`` in the source
directory for their critical section; readers never take it. The lock records
its owner's identity as JSON: the host name, on Linux the boot id and pid
namespace, the pid, the process start time (from ``/proc/<pid>/stat``) and a
random token. It is a symbolic link whose target is that JSON (the trick Emacs
lock files use): ``symlink(2)`` creates it exclusively *with* its contents in one
system call, so it never exists without an identity, and it costs one metadata
operation on the put() hot path. (A regular file with the same JSON is read the
same way.) While held, its mtime is refreshed every 10 seconds (``refresh_every``)
by a daemon thread of the owning process.

Another writer breaks the lock when

* it has not been refreshed for 60 seconds (``stale_after``), or
* the owner has the same machine identity (host, boot id, pid namespace) and its
  pid has exited or now belongs to a process that started at a different time.

A lock from another machine or pid namespace, or one whose identity cannot be
read, is judged by age alone. Breaking is serialised by an exclusive
``source.lock.breaker`` marker, and a breaker removes the lock only if it is
still the very file (inode and contents) it judged stale. A writer waits up to
90 seconds (``wait``), then fails with :class:`StoreBusy` (code ``store-busy``).

Limits, on purpose documented rather than hidden:

* Clock skew: age is ``now - mtime``; machines sharing a store over a network
  filesystem with clocks more than ``stale_after`` apart can break live locks.
* A blocked owner: the refresh thread keeps running while an event loop is
  blocked, but a process that is stopped (SIGSTOP, a debugger) for longer than
  ``stale_after`` loses its lock and must not assume it still holds it; it only
  removes the lock on release if the file still carries its own token.
* Readers take no lock: they rely on records being immutable and published by
  rename, so they see either the old or the new state, never a partial record.
* The breaker marker carries its owner's identity too and is judged by the same
  rules, so a breaker killed while holding it is cleared as soon as it is seen.
  Two processes clearing the same dead marker at once could let two breakers
  run together; each still re-checks the lock's inode and contents just before
  removing it, which leaves only a window of a few system calls.
* Every writer must take this lock: prune removes temporary files and slots that
  name no record, which an unlocked writer may still be using.
"""

# Raw os calls on str paths: the lock is on the put() hot path.
# ruff: noqa: PTH108, PTH115, PTH211

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import secrets
import socket
import threading
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import TracebackType

from pressmark.store._errors import SnapshotStoreError, StoreBusy

LOCK_NAME = "source.lock"
BREAKER_SUFFIX = ".breaker"
REFRESH_EVERY = 10.0
STALE_AFTER = 60.0
WAIT = 90.0


@dataclass(frozen=True, slots=True)
class MachineIdentity:
    host: str
    boot_id: str
    pid_namespace: str


@cache
def machine_identity() -> MachineIdentity:
    """This machine's identity (computed once per process, on first use)."""
    boot_id = ""
    with contextlib.suppress(OSError):
        boot_id = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    pidns = ""
    with contextlib.suppress(OSError):
        pidns = os.readlink("/proc/self/ns/pid")
    return MachineIdentity(socket.gethostname(), boot_id, pidns)


def process_start_time(pid: int) -> int | None:
    """The start time (clock ticks since boot) of a live pid, or None when there is none.

    A zombie (killed, not yet reaped by its parent) still has a ``/proc`` entry but
    holds nothing any more: it counts as gone, or a SIGKILLed writer whose parent
    has not called wait() would keep its lock for the full ``stale_after``.
    """
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    try:
        fields = raw[raw.rindex(b")") + 2 :].split()
        if fields[0] in (b"Z", b"X"):  # zombie, dead
            return None
        return int(fields[19])
    except (ValueError, IndexError):
        return None


@cache
def _own_start_time(pid: int) -> int | None:
    # keyed by pid, so a forked child computes its own
    return process_start_time(pid)


def _proc_available() -> bool:
    return Path("/proc/self/stat").exists()


class _Heartbeat:
    """One daemon thread per process that refreshes the mtime of every held lock.

    Each held lock has its own interval (``refresh_every``, 10 s by default; tests
    use a short one); the thread sleeps until the earliest one is due.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._every: dict[str, float] = {}  # held lock path -> refresh interval
        self._due: dict[str, float] = {}  # held lock path -> next refresh (monotonic)
        self._thread: threading.Thread | None = None
        # When the waiting thread will wake by itself; -inf while it is not waiting
        # (it then reads ``_due`` before it waits again, so it needs no wake-up).
        self._wake_at = -math.inf

    def add(self, path: str, every: float = REFRESH_EVERY) -> None:
        with self._cond:
            due = time.monotonic() + every
            self._every[path] = every
            self._due[path] = due
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="pressmark-lock-heartbeat", daemon=True
                )
                self._thread.start()
            if due < self._wake_at:
                # Wake the thread only when this lock is due before it would wake anyway:
                # a put() holds its lock for milliseconds, and waking a thread per put
                # costs a GIL hand-off on the store's hot path.
                self._cond.notify()

    def discard(self, path: str) -> None:
        with self._cond:
            self._every.pop(path, None)
            self._due.pop(path, None)

    def _run(self) -> None:
        while True:
            with self._cond:
                now = time.monotonic()
                due = [path for path, when in self._due.items() if when <= now]
                for path in due:
                    self._due[path] = now + self._every[path]
                wake = min(self._due.values(), default=now + REFRESH_EVERY)
            for path in due:
                with contextlib.suppress(OSError):
                    os.utime(path, follow_symlinks=False)
            with self._cond:
                # Locks added while we refreshed are in ``_due`` now: wait for the earliest.
                wake = min([wake, *self._due.values()])
                self._wake_at = wake
                try:
                    self._cond.wait(max(0.0, wake - time.monotonic()))
                finally:
                    self._wake_at = -math.inf

    def reset_after_fork(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._every = {}
        self._due = {}
        self._thread = None
        self._wake_at = -math.inf


_HEARTBEAT = _Heartbeat()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_HEARTBEAT.reset_after_fork)


class SourceLock:
    """An exclusive, breakable, cross-process lock on one source directory."""

    def __init__(
        self,
        directory: str,
        *,
        wait: float = WAIT,
        stale_after: float = STALE_AFTER,
        refresh_every: float | None = None,
    ) -> None:
        if refresh_every is None:  # 10 s, or sooner when a test shortens stale_after
            refresh_every = min(REFRESH_EVERY, stale_after / 3)
        if not refresh_every > 0:
            raise ValueError("refresh_every must be positive")
        self._dir = directory
        self._path = f"{directory}/{LOCK_NAME}"
        self._wait = wait
        self._stale_after = stale_after
        self._refresh_every = refresh_every
        self._token = ""

    def __enter__(self) -> SourceLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def acquire(self) -> None:
        deadline = time.monotonic() + self._wait
        delay = 0.0005
        while True:
            token = secrets.token_hex(8)
            try:
                # One symlink(2) creates the lock with its owner identity as the link's
                # target: a writer killed at any instant never leaves an anonymous lock
                # that only the 60 s age rule could break.
                created = _create(self._path, self._identity(token))
            except OSError as exc:
                raise SnapshotStoreError("could not create the source write lock") from exc
            if created:
                self._token = token
                _HEARTBEAT.add(self._path, self._refresh_every)
                return
            try:
                broke = self._break_if_stale()
            except OSError as exc:  # e.g. the lock name taken by a directory: not ours to fix
                raise SnapshotStoreError("could not inspect the source write lock") from exc
            if broke:
                continue
            if time.monotonic() >= deadline:
                raise StoreBusy("another writer holds this source's write lock")
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def release(self) -> None:
        if not self._token:
            return
        _HEARTBEAT.discard(self._path)
        token, self._token = self._token, ""
        try:
            owner = json.loads(read_lock(self._path))
        except (OSError, ValueError, RecursionError):
            return
        if isinstance(owner, dict) and owner.get("token") == token:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._path)

    def refresh(self) -> None:
        """Touch the lock now (long operations call this between steps)."""
        if self._token:
            with contextlib.suppress(OSError):
                os.utime(self._path, follow_symlinks=False)

    @staticmethod
    def _identity(token: str) -> bytes:
        me = machine_identity()
        pid = os.getpid()
        return json.dumps({
            "host": me.host, "boot_id": me.boot_id, "pid_namespace": me.pid_namespace,
            "pid": pid, "start": _own_start_time(pid), "token": token,
        }, sort_keys=True).encode()

    def _break_if_stale(self) -> bool:
        """Remove the lock if its owner is gone; True when the caller should retry at once."""
        stale, st, content = judge(self._path, self._stale_after)
        if st is None:
            return True  # released between our attempt and the look
        if not stale:
            return False
        marker = self._path + BREAKER_SUFFIX
        try:
            created = _create(marker, self._identity("breaker"))
        except OSError:
            return False
        if not created:
            remove_dead_breaker(self._dir, self._stale_after)  # its breaker may have died
            return False
        try:
            try:
                now = os.lstat(self._path)
                same = now.st_ino == st.st_ino and read_lock(self._path) == content
            except FileNotFoundError:
                return True
            if same:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self._path)
            return True
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(marker)


def _create(path: str, identity: bytes) -> bool:
    try:
        os.symlink(identity.decode("ascii"), path)
    except FileExistsError:
        return False
    return True


def read_lock(path: str) -> bytes:
    """The owner identity of a lock or marker (a symlink's target; a regular file's bytes)."""
    try:
        return os.readlink(path).encode("utf-8", "surrogateescape")
    except OSError as exc:
        if exc.errno != errno.EINVAL:  # EINVAL: not a symlink
            raise
    return Path(path).read_bytes()


def judge(path: str, stale_after: float) -> tuple[bool, os.stat_result | None, bytes]:
    """Is the lock (or breaker marker) at ``path`` stale? Also returns what was judged.

    Stale: older than ``stale_after``, or owned by a process of this machine
    identity that has exited or whose pid now names a process started later.
    """
    try:
        st = os.lstat(path)
        content = read_lock(path)
    except FileNotFoundError:
        return False, None, b""
    if time.time() - st.st_mtime > stale_after:
        return True, st, content
    try:
        owner = json.loads(content)
    except (ValueError, RecursionError):
        return False, st, content  # unreadable identity: judged by age alone
    if not isinstance(owner, dict) or not _proc_available():
        return False, st, content
    me = machine_identity()
    same_machine = (
        owner.get("host") == me.host
        and owner.get("boot_id") == me.boot_id and me.boot_id
        and owner.get("pid_namespace") == me.pid_namespace and me.pid_namespace
    )
    pid = owner.get("pid")
    if not same_machine or type(pid) is not int or pid <= 0:
        return False, st, content
    started = process_start_time(pid)
    return (started is None or started != owner.get("start")), st, content


def remove_dead_breaker(directory: str, stale_after: float = STALE_AFTER) -> bool:
    """Remove a lock-breaker marker whose breaker died; True when one was removed."""
    marker = f"{directory}/{LOCK_NAME}{BREAKER_SUFFIX}"
    stale, st, content = judge(marker, stale_after)
    if not stale or st is None:
        return False
    try:
        if os.lstat(marker).st_ino == st.st_ino and read_lock(marker) == content:
            os.unlink(marker)
            return True
    except OSError:
        pass
    return False
