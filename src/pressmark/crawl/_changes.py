"""What a recrawl found changed: each page's ``change`` against the earlier crawl's record
of its URL, and the earlier pages this crawl did not reach.

A recrawl (a crawl into a directory holding a finished crawl) knows the earlier
``pages.jsonl``; each page it records is compared with the earlier record of the same
requested URL:

* ``new``: the earlier crawl did not capture the URL (not met, or met without a body);
* ``not-modified``: the server answered ``304`` to the conditional request;
* ``unchanged-content``: a full ``200`` whose body is byte for byte the earlier one
  (same ``body_hash``: a server without validators, or with validators that changed);
* ``changed``: a body that differs (``pressmark diff`` says which blocks);
* ``gone``: captured before, now ``404`` or ``410``.

Any other page (denied, a network error, a 5xx) has no ``change``: nothing to compare.
A first crawl has none either (there is no earlier crawl). Earlier pages with a body that
this crawl did not request at all (their links went, a ``max_pages`` budget, a narrower
scope) are listed as ``unvisited`` in the manifest's ``changes``: not reached is not gone.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, Final, Literal

from pressmark.crawl._manifest import PageRecord

Change = Literal["new", "changed", "not-modified", "unchanged-content", "gone"]
CHANGES: Final = ("new", "changed", "not-modified", "unchanged-content", "gone")
GONE_STATUSES: Final = frozenset({404, 410})
_CAPTURED: Final = frozenset({"ok", "not-modified"})


def classify(record: PageRecord, earlier: PageRecord | None) -> Change | None:
    """The page's change against the earlier record of its URL (see the module doc)."""
    if record.outcome == "denied":
        return None
    captured_before = earlier is not None and earlier.outcome in _CAPTURED \
        and earlier.body_hash is not None
    if record.outcome == "error":
        return "gone" if captured_before and record.status in GONE_STATUSES else None
    if not captured_before:
        return "new"
    assert earlier is not None
    if record.outcome == "not-modified":
        return "not-modified"
    return "unchanged-content" if record.body_hash == earlier.body_hash else "changed"


class Changes:
    """Marks each record of a recrawl with its ``change``; inert on a first crawl."""

    def __init__(self, previous: Sequence[PageRecord]) -> None:
        self._earlier = {page.url: page for page in previous}
        self._seen: set[str] = set()
        self._counts: Counter[str] = Counter()
        """This crawl's records by change, counted as they are recorded (a crawl into a
        directory keeps no records in memory to count them from at the end)."""

    @property
    def active(self) -> bool:
        return bool(self._earlier)

    def mark(self, record: PageRecord) -> PageRecord:
        if not self._earlier:
            return record
        self._seen.add(record.url)
        change = classify(record, self._earlier.get(record.url))
        if change is None:
            return record
        self._counts[change] += 1
        return dataclasses.replace(record, change=change)

    def seen(self, pages: Sequence[PageRecord]) -> None:
        """Pages recorded before this run (a resume): they were visited, and count."""
        self._seen.update(page.url for page in pages)
        self._counts.update(page.change for page in pages if page.change is not None)

    def recount(self, pages: Iterable[PageRecord]) -> None:
        """Count again from the records that were written (lines a full disk refused are
        not the crawl's)."""
        self._counts = Counter(page.change for page in pages if page.change is not None)

    def report(self) -> dict[str, Any] | None:
        """The manifest's ``changes``: pages counted by change, and the earlier pages with
        a body this crawl did not request (sorted); ``None`` on a first crawl."""
        if not self._earlier:
            return None
        counts = self._counts
        unvisited = sorted(url for url, page in self._earlier.items()
                           if url not in self._seen and page.outcome in _CAPTURED
                           and page.body_hash is not None)
        return {"counts": {name: counts.get(name, 0) for name in CHANGES},
                "unvisited": unvisited}
