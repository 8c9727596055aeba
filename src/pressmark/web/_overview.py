"""The overview page's context: figures, charts that link to their filter, the page table.

Every bar of a chart is a link to the table filtered by it (an outcome, an error kind, a
validation reason); the table's search reaches the Markdown through
:class:`~pressmark.web._search.MarkdownSearch`, which this page keeps filling.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from pressmark.web._data import CrawlDir, PageQuery
from pressmark.web._glossary import term
from pressmark.web._search import MarkdownSearch, snippet_markup

MAX_BARS = 12


def overview_context(crawl: CrawlDir, search: MarkdownSearch | None,
                     query: PageQuery) -> dict[str, Any]:
    """Everything ``overview.html`` shows for ``query``."""
    if search is not None:
        search.start()  # new pages of a running crawl become searchable too
    listing = crawl.index.search(query)
    manifest = crawl.manifest()
    facets = crawl.index.facets()
    raw_summary = manifest.get("summary")
    summary: dict[str, Any] = raw_summary if isinstance(raw_summary, dict) else {}
    by_outcome = summary.get("by_outcome") or dict(facets["outcome"])
    errors_by_kind = summary.get("errors_by_kind") or dict(facets["error_kind"])

    def link(**changes: Any) -> str:
        params = query.params(**changes)
        return "/?" + urlencode(params) if params else "/"

    def chart(counts: Any, field: str) -> list[dict[str, Any]]:
        """Rows of a bar chart; each bar links to the table filtered by its label."""
        return [{**bar, "href": link(**{field: bar["label"]}, page=1)}
                for bar in bars(counts)]

    indexed = crawl.index.count()
    return {
        "manifest": manifest,
        "summary": summary,
        "outcome_bars": chart(by_outcome, "outcome"),
        "error_bars": chart(errors_by_kind, "error_kind"),
        "reason_bars": chart(summary.get("failure_reasons") or {}, "reason"),
        "listing": listing,
        "query": query,
        "facets": facets,
        "link": link,
        "indexed": indexed,
        "skipped_lines": crawl.index.skipped_lines,
        "term": term,
        "snippet": snippet_markup,
        "search_pending": None if search is None or not query.q or search.indexed >= indexed
        else (search.indexed, indexed),
    }


def bars(counts: Any) -> list[dict[str, Any]]:
    """Rows of a horizontal bar chart: label, count, width in percent of the largest."""
    if not isinstance(counts, dict):
        return []
    items = [(str(k), v) for k, v in counts.items() if isinstance(v, int | float) and v > 0]
    if not items:
        return []
    top = max(v for _, v in items)
    items.sort(key=lambda kv: (-kv[1], kv[0]))
    return [{"label": k, "count": v, "width": round(100 * v / top, 1)}
            for k, v in items[:MAX_BARS]]
