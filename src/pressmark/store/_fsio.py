"""Small atomic file primitives for the filesystem store.

Metadata operations (create, link, rename, mkdir) dominate the cost of a put on
real disks, so each primitive uses as few as it can: a record is written to an
unnamed ``O_TMPFILE`` inode and published with one ``linkat``, which also never
replaces an existing name; where ``O_TMPFILE`` is unavailable we fall back to a
named temporary file and ``link`` + ``unlink``.
"""

# Raw os calls on str paths: these run several times per put.
# ruff: noqa: PTH105, PTH108, PTH115, PTH211, PTH214

from __future__ import annotations

import contextlib
import os
import secrets

_TMPFILE = getattr(os, "O_TMPFILE", 0)
TEMP_PREFIX = "tmp."


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
