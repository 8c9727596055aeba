"""Full-text search over every page's title and Markdown (SQLite FTS5, standard library).

The workbench's search box matched URLs and titles only; the sentence a reviewer remembers
is in the Markdown. :class:`MarkdownSearch` keeps an FTS5 table (``pages_text``, rowid =
the page's row in :class:`~pressmark.web._data.PageIndex`) in a temporary database file,
filled by one background thread that reads each page's Markdown once (in batches, so a
search never waits long for it) and keeps up with a crawl that is still running. The
page index attaches the file and matches ``q`` against it beside URL and title
(:func:`fts_query`): every word must occur, in any order, accents and case folded.

The crawl directory is never written to: the index lives in a temporary directory that
is removed when the workbench stops. A 20,000-page crawl is indexed in seconds and
searched in milliseconds (``bench/workbench_search.py``).
"""

from __future__ import annotations

import dataclasses
import html
import re
import sqlite3
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

from markupsafe import Markup

if TYPE_CHECKING:
    from pressmark.web._data import CrawlDir

BATCH: Final = 200  # pages per transaction: a search waits for one batch at most
MAX_TEXT: Final = 2 * 1024 * 1024  # characters of one page's Markdown indexed
_WORD: Final = re.compile(r"\w+")
_SCHEMA: Final = """
CREATE VIRTUAL TABLE IF NOT EXISTS pages_text USING fts5(
    title, markdown, tokenize = 'unicode61 remove_diacritics 2'
);
"""
HIT_START: Final = "\x01"
HIT_END: Final = "\x02"

R = TypeVar("R")


def fts_query(text: str) -> str | None:
    """An FTS5 query for what a person typed: every word, quoted (no operator syntax leaks
    through), all required. ``None`` when the text has no word at all."""
    words = _WORD.findall(text)[:32]
    if not words:
        return None
    return " ".join('"' + word.replace('"', '""') + '"' for word in words)


def with_snippets(db: sqlite3.Connection, rows: Sequence[R], text: str) -> list[R]:
    """``rows`` with the matching passage of each page's Markdown (``snippet``), if any.

    The passage is page text: :func:`snippet_markup` escapes it for display.
    """
    query = fts_query(text)
    if query is None:
        return list(rows)
    wanted = [getattr(row, "row") for row in rows]  # noqa: B009  # rows are PageRow
    marks = ",".join("?" * len(wanted))
    cursor = db.execute(
        "SELECT rowid, snippet(pages_text, 1, ?, ?, '…', 16) FROM search.pages_text"
        f" WHERE pages_text MATCH ? AND rowid IN ({marks})",
        [HIT_START, HIT_END, query, *wanted])
    found = {int(rowid): str(snip) for rowid, snip in cursor.fetchall() if snip}
    return [dataclasses.replace(row, snippet=found.get(getattr(row, "row")))  # type: ignore[type-var]  # noqa: B009
            for row in rows]


def snippet_markup(snippet: str | None) -> Markup:
    """A snippet as safe HTML: the page's text escaped, each hit in ``<mark>``."""
    if not snippet:
        return Markup("")
    escaped = html.escape(snippet, quote=True)
    return Markup(escaped.replace(HIT_START, "<mark>").replace(HIT_END, "</mark>"))


class MarkdownSearch:
    """The FTS5 index of one crawl directory, filled in the background (module docstring)."""

    def __init__(self, crawl: CrawlDir) -> None:
        self._crawl = crawl
        self._dir = tempfile.TemporaryDirectory(prefix="pressmark-search-")
        self.path = Path(self._dir.name) / "search.sqlite"
        db = sqlite3.connect(self.path)
        try:
            db.execute("PRAGMA journal_mode=WAL")  # the page index reads while this writes
            db.executescript(_SCHEMA)
            db.commit()
        finally:
            db.close()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self.indexed_row = 0
        """The last row indexed: rows up to it are searchable."""
        self.indexed = 0
        """Pages indexed so far."""
        self.error: str | None = None
        self._generation = crawl.index.generation
        crawl.index.attach_search(self.path)

    def start(self) -> None:
        """Index what is not indexed yet, in the background (a no-op while it runs)."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._stop.clear()
                self._thread = threading.Thread(target=self._run, name="pressmark-search",
                                                daemon=True)
                self._thread.start()
            else:
                self._wake.set()

    def wait(self, timeout: float) -> bool:
        """Block until every page known now is indexed (tests, the bench); ``True`` if so."""
        self.start()
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return self.indexed_row >= self._crawl.index.count()

    @property
    def busy(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        thread = self._thread
        if thread is not None:
            thread.join(10)
        self._dir.cleanup()

    def _run(self) -> None:
        db = sqlite3.connect(self.path)
        try:
            while not self._stop.is_set():
                generation, rows = self._crawl.index.rows_after(self.indexed_row, BATCH)
                if generation != self._generation:  # pages.jsonl was rewritten: start over
                    with db:
                        db.execute("DELETE FROM pages_text")
                    self._generation, self.indexed_row, self.indexed = generation, 0, 0
                    continue
                if not rows:
                    return  # idle: the next request starts it again if the crawl grew
                batch = [(row, *self._texts(row)) for row in rows]
                with db:
                    db.executemany("INSERT OR REPLACE INTO pages_text(rowid, title, markdown)"
                                   " VALUES (?, ?, ?)", batch)
                self.indexed_row = rows[-1]
                self.indexed += len(rows)
        except (OSError, sqlite3.Error) as exc:  # search degrades to URL and title
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            db.close()

    def _texts(self, row: int) -> tuple[str, str]:
        record: dict[str, Any] | None = self._crawl.index.record(row)
        if record is None:
            return "", ""
        title = record.get("title")
        markdown = self._crawl.markdown(record) or ""
        return (title if isinstance(title, str) else "", markdown[:MAX_TEXT])
