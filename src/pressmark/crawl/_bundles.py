"""Where a page's Markdown and evidence go: sharded files, or compressed JSONL bundles.

``files`` (the default): ``markdown/<ab>/<name>.md`` and ``evidence/<ab>/<name>.json``,
where ``<ab>`` is the first two hex digits of the name (itself a digest of the source
id): 256 directories, so a million-page crawl keeps under ~4,000 entries in each.

``bundles`` (``--output bundles``): each process doing page work appends one gzip member
per page to its own ``bundles/<pid>-<token>-<n>.jsonl.gz`` (a JSON line
``{"evidence": {...}, "markdown": "...", "name": ..., "url": ...}``), rolled at 256 MiB.
The page record's ``markdown_path`` and ``evidence_path`` are then the same reference,
``bundles/<file>:<offset>:<length>``: one read and one decompression of one member. A
million pages are a handful of files instead of two million. A process never appends to
a file another process made, so nothing interleaves; a process killed mid-append leaves
a torn last member that no page record names (records are written after their work).
The file is a valid ``.jsonl.gz`` up to a torn tail (``zcat`` reads every line).
"""

# Raw os calls on str paths: one append per page.
# ruff: noqa: PTH103

from __future__ import annotations

import json
import os
import re
import secrets
import threading
import zlib
from pathlib import Path
from typing import Any, Literal

Output = Literal["files", "bundles"]
BUNDLE_DIR = "bundles"
BUNDLE_BYTES = 256 * 1024 * 1024
MAX_MEMBER = 64 * 1024 * 1024  # a bundle member (one page) larger than this is not ours
_REF = re.compile(r"bundles/([0-9]{1,10}-[0-9a-f]{8}-[0-9]{1,6}\.jsonl\.gz):([0-9]{1,15}):"
                  r"([0-9]{1,10})\Z")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def side_paths(name: str) -> tuple[str, str]:
    """The relative Markdown and evidence paths of a page in the ``files`` layout."""
    return f"markdown/{name[:2]}/{name}.md", f"evidence/{name[:2]}/{name}.json"


def is_bundle_ref(path: str) -> bool:
    return path.startswith(f"{BUNDLE_DIR}/") and _REF.match(path) is not None


def bundle_line(name: str, url: str, markdown: str, evidence_json: str | None) -> bytes:
    """One page's JSON line (the evidence packet embedded as the JSON it already is)."""
    evidence = "null" if evidence_json is None else evidence_json
    return (f'{{"evidence":{evidence},"markdown":{json.dumps(markdown, ensure_ascii=False)},'
            f'"name":{json.dumps(name)},"url":{json.dumps(url, ensure_ascii=False)}}}\n'
            ).encode()


class BundleWriter:
    """Appends page members to this process's bundle files under one crawl root."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._mutex = threading.Lock()
        self._fd: int | None = None
        self._name = ""
        self._end = 0
        self._serial = 0
        self._token = secrets.token_hex(4)

    def append(self, line: bytes) -> str:
        """Write one page's line as its own gzip member; returns its reference."""
        from pressmark.store._warc_records import gzip_member  # noqa: PLC0415  # on first use

        member = gzip_member(line)
        with self._mutex:
            if self._fd is None or self._end >= BUNDLE_BYTES:
                self._open()
            assert self._fd is not None
            start = self._end
            view = memoryview(member)
            while view:
                view = view[os.write(self._fd, view) :]
            self._end += len(member)
            return f"{BUNDLE_DIR}/{self._name}:{start}:{len(member)}"

    def _open(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
        os.makedirs(f"{self.root}/{BUNDLE_DIR}", exist_ok=True)
        self._serial += 1
        self._name = f"{os.getpid()}-{self._token}-{self._serial}.jsonl.gz"
        self._fd = os.open(f"{self.root}/{BUNDLE_DIR}/{self._name}",
                           os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | _NOFOLLOW
                           | _CLOEXEC, 0o644)
        self._end = 0

    def close(self) -> None:
        with self._mutex:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


_WRITERS: dict[str, BundleWriter] = {}  # one per process and crawl root (a handle)
_WRITERS_PID = [os.getpid()]


def bundle_writer(root: str) -> BundleWriter:
    if _WRITERS_PID[0] != os.getpid():  # a forked child never shares its parent's files
        _WRITERS.clear()
        _WRITERS_PID[0] = os.getpid()
    writer = _WRITERS.get(root)
    if writer is None:
        writer = _WRITERS[root] = BundleWriter(root)
    return writer


def write_side_outputs(root: str, name: str, url: str, *, markdown: str, evidence: Any,
                       output: Output) -> tuple[str, str | None]:
    """Write a page's Markdown and evidence; returns their relative paths (or reference)."""
    evidence_json = None
    if evidence is not None:
        data = evidence.to_json()
        evidence_json = data if isinstance(data, str) else bytes(data).decode("utf-8")
    if output == "bundles":
        ref = bundle_writer(root).append(bundle_line(name, url, markdown, evidence_json))
        return ref, (ref if evidence_json is not None else None)
    md_path, ev_path = side_paths(name)
    _write_file(root, md_path, markdown.encode("utf-8"))
    if evidence_json is None:
        return md_path, None
    _write_file(root, ev_path, evidence_json.encode("utf-8"))
    return md_path, ev_path


_MADE: set[str] = set()  # shard directories this process made (one mkdir each, not per page)


def _write_file(root: str, relative: str, data: bytes) -> None:
    """Write through a temp file and a rename, so a reader never sees half a file."""
    from pressmark.crawl._output import write_atomic  # noqa: PLC0415  # no cycle at import

    directory = f"{root}/{relative.rpartition('/')[0]}"
    if directory not in _MADE:
        os.makedirs(directory, exist_ok=True)
        _MADE.add(directory)
    write_atomic(Path(root) / relative, data)


def read_bundle(root: Path, ref: str, key: Literal["markdown", "evidence"]) -> Any:
    """The ``key`` field of the page a bundle reference names, or None when it cannot be
    read (a malformed reference, a missing file, a damaged member)."""
    match = _REF.match(ref)
    if match is None:
        return None
    name, offset, length = match.group(1), int(match.group(2)), int(match.group(3))
    if length > MAX_MEMBER:
        return None
    from pressmark.store._segment_files import (  # noqa: PLC0415  # on first use
        open_regular,
        real_directory,
    )

    if not real_directory(os.fspath(root / BUNDLE_DIR)):
        return None
    try:  # never through a symlink, never blocking on a planted FIFO
        fd = open_regular(os.fspath(root / BUNDLE_DIR / name))
    except OSError:
        return None
    try:
        data = os.pread(fd, length, offset)
    except OSError:
        return None
    finally:
        os.close(fd)
    unpacker = zlib.decompressobj(31)
    try:
        raw = unpacker.decompress(data, MAX_MEMBER * 4)
        page = json.loads(raw)
    except (zlib.error, ValueError, RecursionError):
        return None
    if not unpacker.eof or not isinstance(page, dict):
        return None
    return page.get(key)
