"""Small atomic file primitives for the filesystem store.

Metadata operations (create, link, rename, mkdir) dominate the cost of a put on
real disks, so each primitive uses as few as it can: a record is written to an
unnamed ``O_TMPFILE`` inode and published with one ``linkat``, which also never
replaces an existing name; where ``O_TMPFILE`` is unavailable we fall back to a
named temporary file and ``link`` + ``unlink``.

A store directory may be shared, so what is read from it may have been planted:
:func:`open_regular` never follows a symlink, never blocks (a FIFO would hold
``open()`` until a writer comes, past any time budget) and opens regular files
only; :func:`open_directory` opens a directory of the store, never through a symlink.
"""

# Raw os calls on str paths: these run several times per put.
# ruff: noqa: PTH105, PTH108, PTH115, PTH211, PTH214

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat

_TMPFILE = getattr(os, "O_TMPFILE", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
TEMP_PREFIX = "tmp."


class NotRegularFile(OSError):
    """A name in the store that is not a regular file (a symlink, FIFO, socket, directory
    or device where a file of ours belongs)."""

    def __init__(self, path: str) -> None:
        super().__init__(errno.EINVAL, "not a regular file", path)


class NotDirectory(OSError):
    """A name in the store that is not a plain directory (a symlink or file where one of
    our directories belongs)."""

    def __init__(self, path: str) -> None:
        super().__init__(errno.ENOTDIR, "not a directory of the store", path)


def open_regular(path: str, *, dir_fd: int | None = None) -> int:
    """A read descriptor for the regular file ``path`` (see the module docstring)."""
    try:
        fd = os.open(path, _READ_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        # ELOOP: a symlink; ENXIO: a socket, or a FIFO with O_NONBLOCK on some systems
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
            raise NotRegularFile(path) from None
        raise
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except BaseException:
        os.close(fd)
        raise
    if not regular:
        os.close(fd)
        raise NotRegularFile(path)
    return fd


def read_regular(path: str, limit: int, *, dir_fd: int | None = None) -> bytes:
    """Up to ``limit`` bytes of the regular file ``path`` (see :func:`open_regular`)."""
    with os.fdopen(open_regular(path, dir_fd=dir_fd), "rb") as fh:
        return fh.read(limit)


def open_directory(path: str, *, dir_fd: int | None = None) -> int:
    """A descriptor for the directory ``path``, never reached through a symlink."""
    try:
        return os.open(path, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise NotDirectory(path) from None
        raise


class _Support:
    tmpfile = bool(_TMPFILE)  # turned off on the first failure (no O_TMPFILE, no /proc)


def _write_all(fd: int, parts: tuple[bytes, ...]) -> None:
    for part in parts:
        view = memoryview(part)
        while view:
            view = view[os.write(fd, view) :]


def publish(
    directory: str, name: str, parts: tuple[bytes, ...], *, fsync: bool, replace: bool = False
) -> bool:
    """Create ``directory/name`` with ``parts`` atomically; False if the name already exists.

    Readers never see a partial file. With ``fsync`` the data is on disk before
    the name appears (the caller fsyncs the directory to make the name durable).
    With ``replace`` an existing file of that name is atomically replaced (rename).
    """
    target = f"{directory}/{name}"
    if replace:
        tmp = _write_temp(directory, name, parts, fsync=fsync)
        try:
            os.replace(tmp, target)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        return True
    if _Support.tmpfile:
        try:
            fd = os.open(directory, _TMPFILE | os.O_WRONLY, 0o644)
        except OSError:
            _Support.tmpfile = False
        else:
            try:
                _write_all(fd, parts)
                if fsync:
                    os.fsync(fd)
                try:
                    os.link(f"/proc/self/fd/{fd}", target, follow_symlinks=True)
                except FileExistsError:
                    return False
                except OSError:
                    if os.path.lexists(target):
                        raise
                    _Support.tmpfile = False
                else:
                    return True
            finally:
                os.close(fd)
    tmp = _write_temp(directory, name, parts, fsync=fsync)
    try:
        os.link(tmp, target)
    except FileExistsError:
        return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return True


def _write_temp(directory: str, name: str, parts: tuple[bytes, ...], *, fsync: bool) -> str:
    tmp = f"{directory}/{TEMP_PREFIX}{name}.{os.getpid()}.{secrets.token_hex(4)}"
    fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    try:
        _write_all(fd, parts)
        if fsync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    os.close(fd)
    return tmp


def create_exclusive(path: str, data: bytes) -> bool:
    """``O_CREAT | O_EXCL`` a small file and write ``data``; False if it exists."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    try:
        _write_all(fd, (data,))
    finally:
        os.close(fd)
    return True


def set_symlink(directory: str, link: str, target: str, *, replace: bool) -> None:
    """Point ``directory/link`` at ``target`` (one symlink when new, symlink + rename else)."""
    path = f"{directory}/{link}"
    if not replace:
        try:
            os.symlink(target, path)
            return
        except FileExistsError:
            pass
    tmp = f"{directory}/{TEMP_PREFIX}ptr.{secrets.token_hex(8)}"
    os.symlink(target, tmp)
    os.replace(tmp, path)


def read_symlink(path: str) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
