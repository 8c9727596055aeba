"""The crawl output directory (``pressmark-crawl/1``): layout, names and writes.

``pages.jsonl`` is appended one line per finished page; lines are handed to
the kernel in small batches (after the frontier journal), so a SIGKILL loses
at most the last batch, whose pages a resumed crawl simply fetches again, and
a partial last line, which resume drops. ``manifest.json`` is written
atomically (temp file, fsync, rename). Markdown and evidence files are written
by name into their own directories, through a temp file and a rename, so a
reader never sees half a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from pressmark.crawl._manifest import PageRecord
from pressmark.crawl._policy import CrawlError

_SLUG_BAD = re.compile(r"[^a-z0-9]+")
MAX_SLUG = 60


def page_name(source_id: str, url: str) -> str:
    """``<first 16 hex of sha256(source_id)>-<slug of the URL path>`` (no extension)."""
    digest = hashlib.sha256(source_id.encode("utf-8")).hexdigest()[:16]
    path = url.split("://", 1)[-1].partition("/")[2].split("?", 1)[0]
    slug = _SLUG_BAD.sub("-", path.lower()).strip("-")[:MAX_SLUG].strip("-") or "index"
    return f"{digest}-{slug}"


def write_atomic(path: Path, data: bytes, *, durable: bool = False) -> None:
    """Write ``data`` to ``path`` through a sibling temp file and a rename."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("wb") as fh:
        fh.write(data)
        if durable:
            fh.flush()
            os.fsync(fh.fileno())
    tmp.replace(path)


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
        self._pages: IO[str] | None = None
        self._buffer: list[str] = []

    def prepare(self, *, resume: bool, replace: bool = False) -> list[PageRecord]:
        """Create the layout; return the pages of the finished crawl this one replaces.

        A fresh crawl into a directory holding a finished crawl is a recrawl: the earlier
        page records and manifest are replaced, the store, Markdown and evidence stay (a
        page the server reports unchanged keeps them). An interrupted crawl is refused
        (resume it, or use a new directory) unless ``replace`` (a replay re-deriving a
        crawl in place from its own store)."""
        previous: list[PageRecord] = []
        if not resume and (self.pages_path.exists() or self.manifest_path.exists()):
            if not (replace or self._finished()):
                raise CrawlError(
                    f"{self.root} holds an interrupted crawl; continue it with resume=True "
                    "(--resume) or use a new directory")
            previous = self.read_pages()
            self.pages_path.unlink(missing_ok=True)
            self.manifest_path.unlink(missing_ok=True)
            shutil.rmtree(self.state_dir, ignore_errors=True)  # frontier journals, identity
        for d in (self.root, self.store_dir, self.markdown_dir, self.evidence_dir,
                  self.state_dir):
            d.mkdir(parents=True, exist_ok=True)
        return previous

    def _finished(self) -> bool:
        try:
            return bool(json.loads(self.manifest_path.read_text(encoding="utf-8"))["complete"])
        except (OSError, ValueError, KeyError, TypeError):
            return False

    def read_pages(self) -> list[PageRecord]:
        """Finished pages of an earlier run; a torn last line is cut off the file."""
        if not self.pages_path.exists():
            return []
        raw = self.pages_path.read_bytes()
        good_end = raw.rfind(b"\n") + 1
        if good_end != len(raw):
            with self.pages_path.open("r+b") as fh:
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
        self._pages = self.pages_path.open("a", encoding="utf-8")  # closed in close()

    def append_page(self, record: PageRecord) -> None:
        """Queue one line; :meth:`flush_pages` hands queued lines to the kernel."""
        self._buffer.append(dumps_line(record.to_dict()))

    @property
    def buffered(self) -> int:
        return len(self._buffer)

    def flush_pages(self) -> None:
        if self._buffer and self._pages is not None:
            self._pages.write("".join(self._buffer))
            self._pages.flush()
        self._buffer.clear()

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        data = json.dumps(manifest, ensure_ascii=False, indent=2).encode("utf-8") + b"\n"
        write_atomic(self.manifest_path, data, durable=True)

    def close(self) -> None:
        self.flush_pages()
        if self._pages is not None:
            self._pages.close()
            self._pages = None
