"""The crawl directory as many shard processes (on many machines) share it.

Every shard appends its finished pages to the one ``pages.jsonl`` with a single
``write(2)`` on an ``O_APPEND`` descriptor, so lines from different processes never
interleave (atomic on local file systems and on POSIX shared ones such as CephFS or
Lustre; not on NFS, see ``docs/scaling.md``). Per-shard state lives under
``.state/ray/shard-<k>/``: ``frontier.jsonl`` (the resume journal of the in-process
crawler, one per shard) and ``started.log`` (URLs handed to a fetch, to retry a page lost
with a dead shard exactly once). Readers here never truncate: another shard may be in the
middle of a line.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pressmark.crawl import PageRecord
from pressmark.crawl.executor import (
    FrontierItem,
    OutputDir,
    ResumeJournal,
    dumps_line,
    item_line,
    write_atomic,
)
from pressmark.crawl.ray._sharding import shard_of


def complete_lines(path: Path) -> Iterator[bytes]:
    """The complete (newline-terminated) lines of ``path``; a torn tail is skipped."""
    if not path.exists():
        return
    raw = path.read_bytes()
    yield from (line for line in raw[: raw.rfind(b"\n") + 1].splitlines() if line.strip())


def read_records(path: Path) -> list[PageRecord]:
    return [PageRecord.from_dict(json.loads(line)) for line in complete_lines(path)]


def is_charged(record: PageRecord) -> bool:
    """Whether a record used a page slot (robots-denied URLs are never requested)."""
    return record.error is None or record.error.kind != "robots-denied"


def shard_dir(state_dir: Path, index: int) -> Path:
    return state_dir / "ray" / f"shard-{index}"


class SharedOutputDir(OutputDir):
    """``OutputDir`` whose ``pages.jsonl`` appends are single ``O_APPEND`` writes."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self._fd: int | None = None

    def open_pages(self) -> None:
        self._fd = os.open(self.pages_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append_page(self, record: PageRecord) -> None:
        assert self._fd is not None
        data = dumps_line(record.to_dict()).encode("utf-8")
        written = os.write(self._fd, data)
        if written != len(data):  # a short write to a regular file means the disk is full
            raise OSError(f"short write to {self.pages_path}: {written} of {len(data)} bytes")

    def close(self) -> None:
        super().close()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class StartedLog:
    """Append-only list of URLs a shard handed to a fetch (one line each, flushed)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def counts(self) -> Counter[str]:
        return Counter(line.decode("utf-8") for line in complete_lines(self.path))

    def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def record(self, url: str) -> None:
        if self._fd is not None:
            os.write(self._fd, url.encode("utf-8") + b"\n")

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


_item_line = item_line  # the shard journals share the in-process journal's line format


class JournalTail:
    """Reads a shard's ``frontier.jsonl`` as the shard appends to it: complete lines only,
    from an offset (the driver's ledger is fed from it)."""

    def __init__(self, state: Path) -> None:
        self.path = state / "frontier.jsonl"
        self.offset = 0

    def read(self) -> list[FrontierItem]:
        if not self.path.exists():
            return []
        with self.path.open("rb") as fh:
            fh.seek(self.offset)
            data = fh.read()
        end = data.rfind(b"\n") + 1
        self.offset += end
        return [ResumeJournal.parse_line(line) for line in data[:end].splitlines()
                if line.strip()]


def partition_state(state_dir: Path, shards: int) -> None:
    """Make ``.state/ray`` hold one journal per shard for ``shards`` shards.

    Called by the driver before any shard starts. When the layout differs (another shard
    count, or an in-process crawl being resumed on Ray), every admitted item is re-routed
    to its new owner; the page record stays the single source of what is done.
    """
    ray_dir = state_dir / "ray"
    layout_path = ray_dir / "layout.json"
    layout: dict[str, Any] = {"shards": shards}
    if layout_path.exists() and json.loads(layout_path.read_text(encoding="utf-8")) == layout:
        return
    items: list[FrontierItem] = []
    sources = [state_dir / "frontier.jsonl"]
    if ray_dir.exists():
        sources += sorted(ray_dir.glob("shard-*/frontier.jsonl"))
    for path in sources:
        items += ResumeJournal(path.parent).load() if path.exists() else []
    if ray_dir.exists():
        for old in ray_dir.glob("shard-*"):
            shutil.rmtree(old)
    lines: dict[int, list[str]] = {}
    for item in items:
        lines.setdefault(shard_of(item.host, shards), []).append(_item_line(item))
    for index in range(shards):
        directory = shard_dir(state_dir, index)
        directory.mkdir(parents=True, exist_ok=True)
        write_atomic(directory / "frontier.jsonl", "".join(lines.get(index, [])).encode("utf-8"),
                     durable=True)
    write_atomic(layout_path, json.dumps(layout).encode("utf-8"), durable=True)
