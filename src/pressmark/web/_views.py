"""Request handlers: overview, page, raw snapshot, history, diff, verify.

Handlers are synchronous (Starlette runs them in its thread pool): they read
files and SQLite, and a slow disk should not stall the event loop.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.templating import Jinja2Templates

from pressmark.snapshot import Snapshot
from pressmark.web._archive import Archive
from pressmark.web._data import CrawlDir, PageQuery
from pressmark.web._evidence import markdown_markup, provenance, summary
from pressmark.web._history import MAX_BLOCK_CHANGES, Comparison, compare
from pressmark.web._inert import capture_title, capture_tree, shell_html
from pressmark.web._overview import overview_context
from pressmark.web._rendered import line_of, render_markdown
from pressmark.web._search import MarkdownSearch
from pressmark.web._security import IFRAME_SANDBOX, SNAPSHOT_CSP, is_digest

_TEXT_TYPES = {"html": "text/html", "xml": "text/plain", "json": "text/plain", "text": "text/plain"}


MAX_ROW = 2**63 - 1
"""The largest row number the page index (SQLite INTEGER) can hold."""

DIFF_CACHE = 8
"""Comparisons kept, by pair of captures."""


class _Recent:
    """The last few comparisons, by the pair of snapshot digests (thread-safe)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[tuple[str, str], Comparison] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> Comparison | None:
        with self.lock:
            found = self.items.get(key)
            if found is not None:
                self.items.move_to_end(key)
            return found

    def put(self, key: tuple[str, str], value: Comparison) -> None:
        with self.lock:
            self.items[key] = value
            while len(self.items) > self.size:
                self.items.popitem(last=False)


def _cross_site_subresource(request: Request) -> bool:
    """A request another site's page made for an image, script or fetch (Fetch Metadata);
    a navigation (a link the reviewer followed) is not one."""
    site = request.headers.get("sec-fetch-site", "")
    return site in ("cross-site", "same-site") and (
        request.headers.get("sec-fetch-mode", "") != "navigate")


class Views:
    def __init__(self, crawl: CrawlDir, archive: Archive, templates: Jinja2Templates,
                 search: MarkdownSearch | None = None) -> None:
        self.crawl = crawl
        self.archive = archive
        self.templates = templates
        self.search = search
        self._diffs = _Recent(DIFF_CACHE)
        self._diffing = threading.Semaphore(1)

    def _render(self, request: Request, name: str, context: dict[str, Any],
                status_code: int = 200) -> Response:
        started = time.perf_counter()
        response = self.templates.TemplateResponse(
            request, name, {"sandbox": IFRAME_SANDBOX, **context}, status_code=status_code
        )
        elapsed = (time.perf_counter() - started) * 1000
        response.headers["server-timing"] = f"render;dur={elapsed:.1f}"
        response.headers["cache-control"] = "no-store"
        return response

    def _record(self, request: Request) -> tuple[int, dict[str, Any]]:
        row = int(request.path_params["row"])
        # A row number SQLite cannot hold (OverflowError) names no page either.
        record = self.crawl.index.record(row) if 0 <= row <= MAX_ROW else None
        if record is None:
            raise HTTPException(404, "no such page")
        return row, record

    def overview(self, request: Request) -> Response:
        query = PageQuery.from_params(request.query_params)
        return self._render(request, "overview.html",
                            overview_context(self.crawl, self.search, query))

    def page(self, request: Request) -> Response:
        row, record = self._record(request)
        markdown = self.crawl.markdown(record)
        evidence = self.crawl.evidence(record)
        spans = provenance(evidence, markdown)
        snapshot = None
        source_id = record.get("source_id")
        digest = record.get("snapshot_sha256")
        if isinstance(source_id, str) and isinstance(digest, str):
            snapshot = self.archive.snapshot(source_id, digest)
        siblings = self.crawl.index.rows_for_source(source_id) if isinstance(source_id, str) else []
        return self._render(
            request,
            "page.html",
            {
                "row": row,
                "record": record,
                "markdown": markdown,
                "markdown_html": markdown_markup(markdown, spans) if markdown is not None else None,
                "span_lines": {
                    s.index: line_of(markdown, s.start)
                    for s in spans
                    if markdown is not None and s.start is not None
                },
                "evidence": evidence,
                "facts": summary(evidence),
                "spans": spans,
                "snapshot": snapshot,
                "raw_url": f"/raw/{row}/{digest}" if snapshot is not None else None,
                "captures_in_crawl": len(siblings),
            },
        )

    def rendered(self, request: Request) -> Response:
        """The page's Markdown rendered to HTML, a fragment the page view loads on demand."""
        _, record = self._record(request)
        markdown = self.crawl.markdown(record)
        if markdown is None:
            raise HTTPException(404, "no Markdown for this page")
        return HTMLResponse(str(render_markdown(markdown)), headers={"cache-control": "no-store"})

    def _snapshot(self, request: Request) -> Snapshot:
        """The capture ``digest`` of the row's own source, or 404."""
        _, record = self._record(request)
        digest = request.path_params["digest"]
        source_id = record.get("source_id")
        if not isinstance(source_id, str) or not is_digest(digest):
            raise HTTPException(404, "no such snapshot")
        snapshot = self.archive.snapshot(source_id, digest)
        if snapshot is None or snapshot.source_id != source_id:
            raise HTTPException(404, "no such snapshot")
        return snapshot

    def raw(self, request: Request) -> Response:
        """One capture as an inert document (see ``_security`` and ``_inert``): an HTML
        capture is an empty shell the page view builds the captured tree into."""
        snapshot = self._snapshot(request)
        headers = {
            "content-security-policy": SNAPSHOT_CSP,
            "x-frame-options": "SAMEORIGIN",
            "cache-control": "no-store",
        }
        if snapshot.content_type == "binary":
            body = f"binary capture, {len(snapshot.bytes)} bytes (not displayed)".encode()
            return Response(body, media_type="text/plain; charset=utf-8", headers=headers)
        media = _TEXT_TYPES.get(snapshot.content_type, "text/plain")
        if media == "text/html":
            tree = f"/raw/{request.path_params['row']}/{snapshot.snapshot_sha256}/tree"
            text = shell_html(capture_title(snapshot.body), tree)
        else:
            text = snapshot.body
        return Response(text.encode("utf-8", "replace"), media_type=f"{media}; charset=utf-8",
                        headers=headers)

    def raw_tree(self, request: Request) -> Response:
        """The captured DOM of an HTML capture as data, made inert (``_inert``)."""
        snapshot = self._snapshot(request)
        if snapshot.content_type != "html":
            raise HTTPException(404, "not an HTML capture")
        # ASCII JSON: a lone surrogate in the text stays an escape, never a broken byte.
        body = json.dumps(capture_tree(snapshot.body), ensure_ascii=True, separators=(",", ":"))
        return Response(body.encode("ascii"), media_type="application/json",
                        headers={"cache-control": "no-store"})

    def raw_bytes(self, request: Request) -> Response:
        """The exact captured bytes, as a download that the browser never renders."""
        snapshot = self._snapshot(request)
        headers = {
            "content-security-policy": SNAPSHOT_CSP,
            "content-disposition": f'attachment; filename="{snapshot.body_hash[:16]}.bin"',
            "cache-control": "no-store",
        }
        return Response(snapshot.bytes, media_type="application/octet-stream", headers=headers)

    def history(self, request: Request) -> Response:
        row, record = self._record(request)
        source_id = record.get("source_id")
        if not isinstance(source_id, str):
            raise HTTPException(404, "page has no source")
        captures, total = self.archive.history(source_id)
        return self._render(
            request,
            "history.html",
            {
                "row": row,
                "record": record,
                "captures": captures,
                "total": total,
                "rows": self.crawl.index.rows_for_source(source_id),
            },
        )

    def diff(self, request: Request) -> Response:
        """Two captures' Markdown diff: bounded work (``_history``), computed once per
        pair (a small cache), one at a time, and never for another site's subresource
        (an ``<img>`` on a page the reviewer visits must not make the workbench work)."""
        if _cross_site_subresource(request):
            raise HTTPException(403, "a diff is opened from the workbench, not embedded")
        row, record = self._record(request)
        source_id = record.get("source_id")
        old_digest = request.query_params.get("a", "")
        new_digest = request.query_params.get("b", "")
        if not isinstance(source_id, str):
            raise HTTPException(404, "page has no source")
        old = self.archive.snapshot(source_id, old_digest)
        new = self.archive.snapshot(source_id, new_digest)
        if old is None or new is None:
            raise HTTPException(404, "no such capture")
        key = (old.snapshot_sha256, new.snapshot_sha256)
        comparison = self._diffs.get(key)
        if comparison is None:
            if not self._diffing.acquire(blocking=False):
                raise HTTPException(503, "another diff is being computed; try again shortly",
                                    headers={"retry-after": "2"})
            try:
                comparison = compare(old, new)
            finally:
                self._diffing.release()
            self._diffs.put(key, comparison)
        return self._render(
            request,
            "diff.html",
            {"row": row, "record": record, "old": old, "new": new, "cmp": comparison,
             "max_blocks": MAX_BLOCK_CHANGES},
        )

    def api_verify(self, request: Request) -> Response:
        ref = request.query_params.get("ref", "")
        if not ref:
            return JSONResponse({"status": "error", "code": "missing-ref",
                                 "message": "pass ?ref=<sourceRef>"}, status_code=400)
        result = self.archive.verify(ref)
        return JSONResponse(result.to_dict(), headers={"cache-control": "no-store"})

    def verify_page(self, request: Request) -> Response:
        ref = request.query_params.get("ref", "")
        result = self.archive.verify(ref) if ref else None
        return self._render(request, "verify.html", {"ref": ref, "result": result})
