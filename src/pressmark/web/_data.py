"""Read a crawl output directory without loading it into memory.

``pages.jsonl`` can hold 100,000 pages and may still be growing while a crawl
runs. :class:`PageIndex` scans it incrementally (only the bytes appended since
the last scan, complete lines only) into an in-memory SQLite table holding the
few columns the overview filters, sorts and searches on, plus each line's byte
offset. A page's full record is read back from the file by offset when a view
needs it, so memory stays proportional to the index, not to the records, and
the browser only ever receives one page of rows.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pressmark.web._security import contained_path

SORT_COLUMNS: dict[str, str] = {
    "row": "row",
    "url": "url",
    "title": "title",
    "status": "status",
    "outcome": "outcome",
    "fetched": "fetched_at",
    "bytes": "bytes",
    "depth": "depth",
}
MAX_PER_PAGE = 500
_MAX_SIDE_FILE = 32 * 1024 * 1024  # Markdown / evidence files larger than this are not shown
_STATUS_CLASSES = {"1xx": 100, "2xx": 200, "3xx": 300, "4xx": 400, "5xx": 500}

_SCHEMA = """
CREATE TABLE pages (
    row INTEGER PRIMARY KEY, offset INTEGER NOT NULL, length INTEGER NOT NULL,
    url TEXT NOT NULL, final_url TEXT, title TEXT, status INTEGER, outcome TEXT,
    rendered INTEGER NOT NULL, vpass INTEGER, nwarn INTEGER NOT NULL, error_kind TEXT,
    fetched_at TEXT, bytes INTEGER, depth INTEGER, source_id TEXT
);
"""
# Created after the first bulk load (cheaper than maintaining them row by row).
_INDEXES = """
CREATE INDEX IF NOT EXISTS pages_url ON pages(url, row);
CREATE INDEX IF NOT EXISTS pages_title ON pages(title, row);
CREATE INDEX IF NOT EXISTS pages_status ON pages(status, row);
CREATE INDEX IF NOT EXISTS pages_outcome ON pages(outcome, row);
CREATE INDEX IF NOT EXISTS pages_fetched ON pages(fetched_at, row);
CREATE INDEX IF NOT EXISTS pages_bytes ON pages(bytes, row);
CREATE INDEX IF NOT EXISTS pages_depth ON pages(depth, row);
CREATE INDEX IF NOT EXISTS pages_source ON pages(source_id);
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class PageQuery:
    """One overview request: filters, search, sort and the page of rows wanted."""

    q: str = ""
    status: str = ""  # "2xx".."5xx", "none", or an exact code
    outcome: str = ""
    rendered: Literal["", "yes", "no"] = ""
    validation: Literal["", "passed", "failed", "none"] = ""
    warnings: Literal["", "yes", "no"] = ""
    error_kind: str = ""
    sort: str = "row"
    order: Literal["asc", "desc"] = "asc"
    page: int = 1
    per_page: int = 50

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> PageQuery:
        """Build a query from URL parameters, dropping values that are not allowed."""

        def pick(name: str, allowed: tuple[str, ...]) -> Any:
            value = params.get(name, "")
            return value if value in allowed else ""

        def number(name: str, default: int, low: int, high: int) -> int:
            try:
                return min(max(int(params.get(name, default)), low), high)
            except ValueError:
                return default

        sort = params.get("sort", "row")
        return cls(
            q=params.get("q", "")[:500],
            status=params.get("status", "")[:8],
            outcome=params.get("outcome", "")[:100],
            rendered=pick("rendered", ("yes", "no")),
            validation=pick("validation", ("passed", "failed", "none")),
            warnings=pick("warnings", ("yes", "no")),
            error_kind=params.get("error_kind", "")[:100],
            sort=sort if sort in SORT_COLUMNS else "row",
            order="desc" if params.get("order") == "desc" else "asc",
            page=number("page", 1, 1, 10**9),
            per_page=number("per_page", 50, 1, MAX_PER_PAGE),
        )

    def params(self, **changes: Any) -> dict[str, str]:
        """URL parameters for this query with ``changes`` applied, defaults left out."""
        query = replace(self, **changes)
        default = PageQuery()
        out: dict[str, str] = {}
        for name in PageQuery.__dataclass_fields__:
            value = getattr(query, name)
            if value != getattr(default, name):
                out[name] = str(value)
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class PageRow:
    """The indexed columns of one page, enough for a table row."""

    row: int
    url: str
    final_url: str | None
    title: str | None
    status: int | None
    outcome: str | None
    rendered: bool
    validation_passed: bool | None
    warnings: int
    error_kind: str | None
    fetched_at: str | None
    bytes: int | None
    depth: int | None
    source_id: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class PageList:
    rows: list[PageRow]
    total: int
    page: int
    pages: int
    query: PageQuery


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class PageIndex:
    """Incremental, thread-safe index over ``pages.jsonl`` (rows numbered from 1)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.executescript(_SCHEMA)
        self._offset = 0
        self._rows = 0
        self.skipped_lines = 0
        self._indexed = False
        self._identity: tuple[int, int] | None = None
        self._facets: tuple[int, dict[str, list[tuple[str, int]]]] | None = None

    def refresh(self) -> None:
        """Index lines appended since the last call; start over if the file shrank or
        was replaced (a resumed crawl may rewrite it)."""
        with self._lock:
            try:
                stat = self.path.stat()
            except OSError:
                return
            size, identity = stat.st_size, (stat.st_dev, stat.st_ino)
            if size < self._offset or identity != self._identity:  # rewritten or replaced
                self._db.execute("DELETE FROM pages")  # indexes stay; they are emptied too
                self._offset = self._rows = self.skipped_lines = 0
                self._identity = identity
                self._facets = None
            if size == self._offset:
                return
            with self.path.open("rb") as handle:
                handle.seek(self._offset)
                batch: list[tuple[Any, ...]] = []
                for line in handle:
                    if not line.endswith(b"\n"):
                        break  # the crawler is still writing this line
                    offset = self._offset
                    self._offset += len(line)
                    values = self._columns(line)
                    if values is None:
                        if line.strip():
                            self.skipped_lines += 1
                        continue
                    self._rows += 1
                    batch.append((self._rows, offset, len(line), *values))
                self._db.executemany(
                    "INSERT INTO pages VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", batch
                )
                if not self._indexed:
                    self._db.executescript(_INDEXES)
                    self._indexed = True
                self._db.commit()

    @staticmethod
    def _columns(line: bytes) -> tuple[Any, ...] | None:
        try:
            record = json.loads(line)
        except ValueError:
            return None
        if not isinstance(record, dict) or not isinstance(record.get("url"), str):
            return None
        validation = record.get("validation")
        vpass = None
        if isinstance(validation, dict) and isinstance(validation.get("passed"), bool):
            vpass = int(validation["passed"])
        error = record.get("error")
        error_kind = _str_or_none(error.get("kind")) if isinstance(error, dict) else None
        warnings = record.get("warnings")
        return (
            record["url"],
            _str_or_none(record.get("final_url")),
            _str_or_none(record.get("title")),
            _int_or_none(record.get("status")),
            _str_or_none(record.get("outcome")),
            int(record.get("rendered") is True),
            vpass,
            len(warnings) if isinstance(warnings, list) else 0,
            error_kind,
            _str_or_none(record.get("fetched_at")),
            _int_or_none(record.get("bytes")),
            _int_or_none(record.get("depth")),
            _str_or_none(record.get("source_id")),
        )

    def search(self, query: PageQuery) -> PageList:
        self.refresh()
        where, args = _where(query)
        order = "DESC" if query.order == "desc" else "ASC"
        column = SORT_COLUMNS[query.sort]
        with self._lock:
            (total,) = self._db.execute(f"SELECT COUNT(*) FROM pages {where}", args).fetchone()
            pages = max(1, -(-total // query.per_page))
            page = min(query.page, pages)
            cursor = self._db.execute(
                "SELECT row, url, final_url, title, status, outcome, rendered, vpass, nwarn,"
                " error_kind, fetched_at, bytes, depth, source_id FROM pages"
                f" {where} ORDER BY {column} {order}, row {order}"
                " LIMIT ? OFFSET ?",
                [*args, query.per_page, (page - 1) * query.per_page],
            )
            rows = [_row(values) for values in cursor.fetchall()]
        return PageList(rows=rows, total=total, page=page, pages=pages, query=query)

    def facets(self) -> dict[str, list[tuple[str, int]]]:
        """Distinct outcomes and error kinds with their counts, for filter menus."""
        self.refresh()
        out: dict[str, list[tuple[str, int]]] = {}
        with self._lock:
            if self._facets is not None and self._facets[0] == self._rows:
                return self._facets[1]
            for name, column in (("outcome", "outcome"), ("error_kind", "error_kind")):
                cursor = self._db.execute(
                    f"SELECT {column}, COUNT(*) FROM pages WHERE {column} IS NOT NULL"
                    f" GROUP BY {column} ORDER BY {column}"
                )
                out[name] = [(str(value), int(count)) for value, count in cursor.fetchall()]
            self._facets = (self._rows, out)
        return out

    def count(self) -> int:
        self.refresh()
        with self._lock:
            (total,) = self._db.execute("SELECT COUNT(*) FROM pages").fetchone()
        return int(total)

    def record(self, row: int) -> dict[str, Any] | None:
        """The full JSON record of one row, read back from ``pages.jsonl``."""
        self.refresh()
        with self._lock:
            found = self._db.execute(
                "SELECT offset, length FROM pages WHERE row = ?", (row,)
            ).fetchone()
        if found is None:
            return None
        offset, length = found
        with self.path.open("rb") as handle:
            handle.seek(offset)
            data = handle.read(length)
        record = json.loads(data)
        assert isinstance(record, dict)
        return record

    def rows_for_source(self, source_id: str) -> list[PageRow]:
        self.refresh()
        with self._lock:
            cursor = self._db.execute(
                "SELECT row, url, final_url, title, status, outcome, rendered, vpass, nwarn,"
                " error_kind, fetched_at, bytes, depth, source_id FROM pages"
                " WHERE source_id = ? ORDER BY row",
                (source_id,),
            )
            return [_row(values) for values in cursor.fetchall()]

    def has_source(self, source_id: str) -> bool:
        self.refresh()
        with self._lock:
            found = self._db.execute(
                "SELECT 1 FROM pages WHERE source_id = ? LIMIT 1", (source_id,)
            ).fetchone()
        return found is not None


def _row(values: tuple[Any, ...]) -> PageRow:
    return PageRow(
        row=values[0],
        url=values[1],
        final_url=values[2],
        title=values[3],
        status=values[4],
        outcome=values[5],
        rendered=bool(values[6]),
        validation_passed=None if values[7] is None else bool(values[7]),
        warnings=values[8],
        error_kind=values[9],
        fetched_at=values[10],
        bytes=values[11],
        depth=values[12],
        source_id=values[13],
    )


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _where(query: PageQuery) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    args: list[Any] = []
    if query.q:
        clauses.append(
            "(url LIKE ? ESCAPE '\\' OR title LIKE ? ESCAPE '\\' OR final_url LIKE ? ESCAPE '\\')"
        )
        args += [_like(query.q)] * 3
    if query.status in _STATUS_CLASSES:
        low = _STATUS_CLASSES[query.status]
        clauses.append("status >= ? AND status < ?")
        args += [low, low + 100]
    elif query.status == "none":
        clauses.append("status IS NULL")
    elif query.status.isdigit():
        clauses.append("status = ?")
        args.append(int(query.status))
    if query.outcome:
        clauses.append("outcome = ?")
        args.append(query.outcome)
    if query.rendered:
        clauses.append("rendered = ?")
        args.append(int(query.rendered == "yes"))
    if query.validation == "none":
        clauses.append("vpass IS NULL")
    elif query.validation:
        clauses.append("vpass = ?")
        args.append(int(query.validation == "passed"))
    if query.warnings:
        clauses.append("nwarn > 0" if query.warnings == "yes" else "nwarn = 0")
    if query.error_kind:
        clauses.append("error_kind = ?")
        args.append(query.error_kind)
    return ("WHERE " + " AND ".join(clauses)) if clauses else "", args


class CrawlDir:
    """One crawl output directory (``pressmark-crawl/1``), read-only."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.index = PageIndex(self.root / "pages.jsonl")

    def manifest(self) -> dict[str, Any]:
        """The manifest, or ``{}`` while a crawl has not written one yet."""
        try:
            data = json.loads((self.root / "manifest.json").read_bytes())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _side_file(self, subdir: str, relative: Any) -> bytes | None:
        if not isinstance(relative, str):
            return None
        target = contained_path(self.root, relative)
        if target is None or not target.is_relative_to(self.root / subdir):
            return None
        if target.stat().st_size > _MAX_SIDE_FILE:
            return None
        return target.read_bytes()

    def markdown(self, record: Mapping[str, Any]) -> str | None:
        data = self._side_file("markdown", record.get("markdown_path"))
        return None if data is None else data.decode("utf-8", errors="replace")

    def evidence(self, record: Mapping[str, Any]) -> dict[str, Any] | None:
        data = self._side_file("evidence", record.get("evidence_path"))
        if data is None:
            return None
        try:
            packet = json.loads(data)
        except ValueError:
            return None
        return packet if isinstance(packet, dict) else None
