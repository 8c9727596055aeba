"""Read a crawl output directory without loading it into memory.

``pages.jsonl`` can hold 100,000 pages and may still be growing while a crawl
runs. :class:`PageIndex` scans it incrementally (only the bytes appended since
the last scan, complete lines only) into an in-memory SQLite table holding the
few columns the overview filters, sorts and searches on, plus each line's byte
offset. A page's full record is read back from the file by offset when a view
needs it, so memory stays proportional to the index, not to the records, and
the browser only ever receives one page of rows. The Markdown's full text is searched
through :mod:`pressmark.web._search` (SQLite FTS5, attached to the same connection).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pressmark.web._search import fts_query, with_snippets
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
    "md_bytes": "md_bytes",
    "reason": "reasons",
}
MAX_PER_PAGE = 500
_MAX_SIDE_FILE = 32 * 1024 * 1024  # Markdown / evidence files larger than this are not shown
_STATUS_CLASSES = {"1xx": 100, "2xx": 200, "3xx": 300, "4xx": 400, "5xx": 500}

_SCHEMA = """
CREATE TABLE pages (
    row INTEGER PRIMARY KEY, offset INTEGER NOT NULL, length INTEGER NOT NULL,
    url TEXT NOT NULL, final_url TEXT, title TEXT, status INTEGER, outcome TEXT,
    rendered INTEGER NOT NULL, vpass INTEGER, nwarn INTEGER NOT NULL, error_kind TEXT,
    fetched_at TEXT, bytes INTEGER, depth INTEGER, source_id TEXT,
    md_bytes INTEGER, reasons TEXT
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
CREATE INDEX IF NOT EXISTS pages_md_bytes ON pages(md_bytes, row);
CREATE INDEX IF NOT EXISTS pages_reasons ON pages(reasons, row);
"""
_COLUMNS = ("row, url, final_url, title, status, outcome, rendered, vpass, nwarn, error_kind,"
            " fetched_at, bytes, depth, source_id, md_bytes, reasons")


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
    reason: str = ""  # a validation reason the page failed with
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
            reason=params.get("reason", "")[:100],
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
    md_bytes: int | None = None
    """Size of the page's Markdown (``None``: no Markdown file)."""
    reasons: tuple[str, ...] = ()
    """The validation reasons the page failed with."""
    snippet: str | None = None
    """For a text search: the matching passage, with ``\x01``/``\x02`` around each hit."""


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
        self._root = path.parent.resolve()
        self._searchable = False  # the full-text table is attached (see attach_search)
        self.generation = 0
        """Counts restarts (the file was rewritten): row numbers of an older one are void."""
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
                self.generation += 1
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
                    "INSERT INTO pages VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", batch
                )
                if not self._indexed:
                    self._db.executescript(_INDEXES)
                    self._indexed = True
                self._db.commit()

    def _columns(self, line: bytes) -> tuple[Any, ...] | None:
        try:
            record = json.loads(line)
        except ValueError:
            return None
        if not isinstance(record, dict) or not isinstance(record.get("url"), str):
            return None
        validation = record.get("validation")
        vpass = None
        reasons = None
        if isinstance(validation, dict) and isinstance(validation.get("passed"), bool):
            vpass = int(validation["passed"])
            listed = validation.get("reasons")
            if isinstance(listed, list) and listed:
                # one a line: a reason may hold spaces ("too-little-text: 43 < 500 chars")
                reasons = "\n".join(str(r).replace("\n", " ") for r in listed
                                     if isinstance(r, str)) or None
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
            self._markdown_size(record.get("markdown_path")),
            reasons,
        )

    def _markdown_size(self, relative: Any) -> int | None:
        """The Markdown file's size (a ``stat``, no read), or ``None`` without a file."""
        if not isinstance(relative, str):
            return None
        target = contained_path(self._root, relative)
        if target is None:
            return None
        try:
            return target.stat().st_size
        except OSError:
            return None

    def attach_search(self, path: Path) -> None:
        """Search the Markdown through the FTS5 database at ``path`` (``_search``)."""
        with self._lock:
            self._db.execute("ATTACH DATABASE ? AS search", (str(path),))
            self._searchable = True

    def rows_after(self, row: int, limit: int) -> tuple[int, list[int]]:
        """The generation and the row numbers after ``row``, in order (search indexer)."""
        self.refresh()
        with self._lock:
            cursor = self._db.execute("SELECT row FROM pages WHERE row > ? ORDER BY row LIMIT ?",
                                      (row, limit))
            return self.generation, [int(r) for (r,) in cursor.fetchall()]

    def search(self, query: PageQuery) -> PageList:
        self.refresh()
        order = "DESC" if query.order == "desc" else "ASC"
        column = SORT_COLUMNS[query.sort]
        with self._lock:
            where, args = _where(query, searchable=self._searchable)
            (total,) = self._db.execute(f"SELECT COUNT(*) FROM pages {where}", args).fetchone()
            pages = max(1, -(-total // query.per_page))
            page = min(query.page, pages)
            cursor = self._db.execute(
                f"SELECT {_COLUMNS} FROM pages"
                f" {where} ORDER BY {column} {order}, row {order}"
                " LIMIT ? OFFSET ?",
                [*args, query.per_page, (page - 1) * query.per_page],
            )
            rows = [_row(values) for values in cursor.fetchall()]
            if self._searchable and query.q and rows:
                rows = with_snippets(self._db, rows, query.q)
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
                f"SELECT {_COLUMNS} FROM pages WHERE source_id = ? ORDER BY row",
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
        md_bytes=values[14],
        reasons=tuple(values[15].split("\n")) if values[15] else (),
    )


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _where(query: PageQuery, *, searchable: bool = False) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    args: list[Any] = []
    if query.q:
        text = fts_query(query.q) if searchable else None
        either = ("url LIKE ? ESCAPE '\\' OR title LIKE ? ESCAPE '\\'"
                  " OR final_url LIKE ? ESCAPE '\\'")
        args += [_like(query.q)] * 3
        if text is not None:  # or the words are in the title or the Markdown
            either += " OR row IN (SELECT rowid FROM search.pages_text WHERE pages_text MATCH ?)"
            args.append(text)
        clauses.append(f"({either})")
    if query.reason:
        clauses.append("instr(char(10) || reasons || char(10), ?) > 0")
        args.append(f"\n{query.reason}\n")
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
        from pressmark.crawl._bundles import is_bundle_ref, read_bundle  # noqa: PLC0415

        path = record.get("markdown_path")
        if isinstance(path, str) and is_bundle_ref(path):  # --output bundles
            text = read_bundle(self.root, path, "markdown")
            return text if isinstance(text, str) else None
        data = self._side_file("markdown", path)
        return None if data is None else data.decode("utf-8", errors="replace")

    def evidence(self, record: Mapping[str, Any]) -> dict[str, Any] | None:
        from pressmark.crawl._bundles import is_bundle_ref, read_bundle  # noqa: PLC0415

        path = record.get("evidence_path")
        if isinstance(path, str) and is_bundle_ref(path):
            packet = read_bundle(self.root, path, "evidence")
            return packet if isinstance(packet, dict) else None
        data = self._side_file("evidence", path)
        if data is None:
            return None
        try:
            packet = json.loads(data)
        except ValueError:
            return None
        return packet if isinstance(packet, dict) else None
