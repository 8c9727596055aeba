"""The crawl output directory (``pressmark-crawl/1``): layout, names and writes.

``pages.jsonl`` is appended one line per finished page; lines are handed to
the kernel in small batches (after the frontier journal), so a SIGKILL loses
at most the last batch, whose pages a resumed crawl simply fetches again, and
a partial last line, which resume drops. A batch the kernel refuses (a full
disk, a quota, a file size limit) is cut off again (:func:`append_whole`): the
file never holds a torn line while the crawl runs. ``manifest.json`` is written
atomically (temp file, fsync, rename). Markdown and evidence are written by the
page work (:mod:`pressmark.crawl._bundles`): as files in 256 sharded directories,
each through a temp file and a rename so a reader never sees half a file, or
appended to compressed JSONL bundles (``--output bundles``).

WHY a reserve: when the disk fills up the crawl still has to say what it wrote
(its last page lines and the manifest). ``.state/reserve`` holds space for that
from the start; the crawl gives it back just before those last writes.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

from pressmark.crawl._manifest import PageRecord
from pressmark.crawl._policy import CrawlError

_SLUG_BAD = re.compile(r"[^a-z0-9]+")
MAX_SLUG = 60
FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
"""A full disk, a full quota, a file size limit (``RLIMIT_FSIZE``): no room to write."""
RESERVE_BYTES = 512 * 1024
"""Space held back for the last page lines and the manifest (plus the seeds' size)."""


def page_name(source_id: str, url: str) -> str:
    """``<first 16 hex of sha256(source_id)>-<slug of the URL path>`` (no extension)."""
    digest = hashlib.sha256(source_id.encode("utf-8")).hexdigest()[:16]
    path = url.split("://", 1)[-1].partition("/")[2].split("?", 1)[0]
    slug = _SLUG_BAD.sub("-", path.lower()).strip("-")[:MAX_SLUG].strip("-") or "index"
    return f"{digest}-{slug}"


def disk_full(exc: BaseException | None) -> bool:
    """Is ``exc`` (or what caused it) the kernel saying there is no room to write?"""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, OSError) and exc.errno in FULL_ERRNOS:
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def write_atomic(path: Path, data: bytes, *, durable: bool = False) -> None:
    """Write ``data`` to ``path`` through a sibling temp file and a rename.

    A write that fails (a full disk) leaves no temp file behind to hold the space."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        tmp.replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def open_append(path: Path) -> int:
    """A descriptor appending to ``path`` (created if missing), for :func:`append_whole`."""
    return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)


def append_whole(fd: int, data: bytes) -> None:
    """Append ``data`` whole or not at all: a short or failed write is cut off again.

    One writer per file (the crawl process), so the end before the write is ours to
    return to. The error (ENOSPC, EDQUOT, EFBIG, EIO) is raised for the caller to decide.
    """
    start = os.lseek(fd, 0, os.SEEK_END)
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except BaseException:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, start)
        raise


def dumps_line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"


class OutputDir:
    """Owns the layout of one crawl directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.store_dir = root / "store"
        self.markdown_dir = root / "markdown"
        self.evidence_dir = root / "evidence"
        self.state_dir = root / ".state"
        self.pages_path = root / "pages.jsonl"
        self.manifest_path = root / "manifest.json"
        self.links_path = root / ".cache" / "links.jsonl"
        """The links found in each snapshot (see :mod:`pressmark.crawl._linkmemo`)."""
        self.reserve_path = self.state_dir / "reserve"
        self.previous_path = self.state_dir / "previous.jsonl"
        """A recrawl's earlier page records, for its ``change`` after a resume."""
        self._pages: int | None = None
        self._buffer: list[tuple[str, PageRecord]] = []

    def prepare(self, *, resume: bool, replace: bool = False,
                output: str = "files") -> list[PageRecord]:
        """Create the layout; return the pages of the finished crawl this one replaces.

        A fresh crawl into a directory holding a finished crawl is a recrawl: the earlier
        page records and manifest are replaced, the store, Markdown and evidence stay (a
        page the server reports unchanged keeps them). An interrupted crawl is refused
        (resume it, or use a new directory) unless ``replace`` (a replay re-deriving a
        crawl in place from its own store).

        The earlier records move to ``.state/previous.jsonl``: a recrawl that is
        interrupted and resumed still compares its pages with them (their ``change``, the
        manifest's ``changes``), and still keeps the Markdown of a page found unchanged."""
        previous: list[PageRecord] = []
        if not resume and (self.pages_path.exists() or self.manifest_path.exists()):
            if not (replace or self._finished()):
                raise CrawlError(
                    f"{self.root} holds an interrupted crawl; continue it with resume=True "
                    "(--resume) or use a new directory")
            previous = self.read_pages()
            shutil.rmtree(self.state_dir, ignore_errors=True)  # frontier journals, identity
            self.state_dir.mkdir(parents=True, exist_ok=True)
            if self.pages_path.exists():
                self.pages_path.replace(self.previous_path)
            self.manifest_path.unlink(missing_ok=True)
        elif resume:
            previous = self.read_previous()
        side = (self.markdown_dir, self.evidence_dir) if output == "files" else ()
        for d in (self.root, self.store_dir, *side, self.state_dir):
            d.mkdir(parents=True, exist_ok=True)
        return previous

    def _finished(self) -> bool:
        try:
            return bool(json.loads(self.manifest_path.read_text(encoding="utf-8"))["complete"])
        except (OSError, ValueError, KeyError, TypeError):
            return False

    def read_pages(self) -> list[PageRecord]:
        """Finished pages of an earlier run; a torn last line is cut off the file."""
        return self._read(self.pages_path)

    def read_previous(self) -> list[PageRecord]:
        """A recrawl's earlier page records (``.state/previous.jsonl``; ``[]`` otherwise)."""
        return self._read(self.previous_path)

    def _read(self, path: Path) -> list[PageRecord]:
        if not path.exists():
            return []
        raw = path.read_bytes()
        good_end = raw.rfind(b"\n") + 1
        if good_end != len(raw):
            with path.open("r+b") as fh:
                fh.truncate(good_end)
        return [PageRecord.from_dict(json.loads(line)) for line in raw[:good_end].splitlines()
                if line.strip()]

    def iter_page_dicts(self) -> Iterator[dict[str, Any]]:
        if not self.pages_path.exists():
            return
        with self.pages_path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.endswith("\n"):
                    yield json.loads(line)

    def open_pages(self) -> None:
        self._pages = open_append(self.pages_path)  # closed in close()

    def reserve(self, extra: int = 0) -> None:
        """Hold back room for the last writes (see the module docstring); best effort:
        a disk too full for it already fails at the first write, as it would anyway."""
        size = RESERVE_BYTES + max(0, extra)
        try:
            fd = os.open(self.reserve_path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError:
            return
        try:
            os.posix_fallocate(fd, 0, size)
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
        finally:
            os.close(fd)

    def release_reserve(self) -> None:
        with contextlib.suppress(OSError):
            self.reserve_path.unlink()

    def append_page(self, record: PageRecord) -> None:
        """Queue one line; :meth:`flush_pages` hands queued lines to the kernel."""
        self._buffer.append((dumps_line(record.to_dict()), record))

    @property
    def buffered(self) -> int:
        return len(self._buffer)

    def flush_pages(self) -> None:
        """Append the queued lines, all of them or none; on an error they stay queued."""
        if self._buffer and self._pages is not None:
            append_whole(self._pages, "".join(line for line, _ in self._buffer).encode("utf-8"))
        self._buffer.clear()

    def drop_pages(self) -> list[PageRecord]:
        """Forget the queued lines that could not be written; return their records."""
        dropped = [record for _, record in self._buffer]
        self._buffer.clear()
        return dropped

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        data = json.dumps(manifest, ensure_ascii=False, indent=2).encode("utf-8") + b"\n"
        write_atomic(self.manifest_path, data, durable=True)

    def close(self) -> None:
        try:
            self.flush_pages()
        finally:
            if self._pages is not None:
                os.close(self._pages)
                self._pages = None
            self.release_reserve()


_TAIL = 4096


class PageFile(Sequence[PageRecord]):
    """A finished crawl's page records, read from its ``pages.jsonl`` when asked.

    WHY: a crawl that writes a directory returns this as ``CrawlManifest.pages`` past
    10,000 records (``_engine.KEPT_PAGES``) instead of keeping every record in memory
    (about a kilobyte each, with the robots.txt denials three records a page on a typical
    site: 600 MB at 200,000 pages). It holds
    the file's identity and length at the crawl's end: records appended or a file put
    in its place later (a recrawl of the same directory) are not this crawl's, and
    reading them is a :class:`CrawlError`. Iteration streams; indexing reads one line
    (the lines' offsets are found on first use, 8 bytes a record).
    """

    def __init__(self, path: Path, *, seal: bool = True) -> None:
        self.path = path
        self._ident: tuple[int, int, bytes] | None = None
        self._size = 0
        self._offsets: array[int] | None = None
        if seal:
            self.seal()

    def seal(self) -> None:
        """Take the file as it is now (the crawl's last lines written) as the records."""
        self._ident, self._size, self._offsets = None, 0, None
        try:
            fh = self.path.open("rb")
        except FileNotFoundError:
            return
        with fh:
            info = os.fstat(fh.fileno())
            self._size = info.st_size
            self._ident = (info.st_dev, info.st_ino, self._tail(fh))

    def _tail(self, fh: Any) -> bytes:
        """The digest of the last 4 KiB of the records (inode numbers are reused at once:
        a file put in this one's place is told apart by what it holds)."""
        fh.seek(max(0, self._size - _TAIL))
        return hashlib.sha256(fh.read(min(self._size, _TAIL))).digest()

    def _open(self) -> Any:
        fh = self.path.open("rb")
        info = os.fstat(fh.fileno())
        if (self._ident is None or (info.st_dev, info.st_ino) != self._ident[:2]
                or info.st_size < self._size or self._tail(fh) != self._ident[2]):
            fh.close()
            raise CrawlError(f"{self.path} was replaced since this crawl ended")
        fh.seek(0)
        return fh

    def _lines(self) -> Iterator[bytes]:
        if self._ident is None:
            return
        with self._open() as fh:
            left = self._size
            for line in fh:
                if left <= 0:
                    return
                left -= len(line)
                if line.endswith(b"\n"):
                    yield line

    def __iter__(self) -> Iterator[PageRecord]:
        for line in self._lines():
            yield PageRecord.from_dict(json.loads(line))

    def _index(self) -> array[int]:
        if self._offsets is None:
            offsets, at = array("q"), 0
            for line in self._lines():
                offsets.append(at)
                at += len(line)
            self._offsets = offsets
        return self._offsets

    def __len__(self) -> int:
        return len(self._index())

    @overload
    def __getitem__(self, index: int) -> PageRecord: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[PageRecord]: ...
    def __getitem__(self, index: int | slice) -> PageRecord | Sequence[PageRecord]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        offsets = self._index()
        at = offsets[index]  # IndexError as a tuple gives it
        with self._open() as fh:
            fh.seek(at)
            return PageRecord.from_dict(json.loads(fh.readline()))

    def __repr__(self) -> str:
        return f"PageFile({str(self.path)!r})"
