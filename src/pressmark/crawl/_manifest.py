"""Crawl records: one :class:`PageRecord` per finished page, the running
:class:`CrawlSummary`, and the :class:`CrawlManifest` a crawl returns.

The JSON shapes are the ``pressmark-crawl/1`` output format described in
``docs/contracts.md``; ``to_dict`` keeps a stable key order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

FORMAT = "pressmark-crawl/1"

Outcome = Literal["ok", "not-modified", "denied", "error"]

# A URL the crawl was not allowed to request is not a failed page: robots.txt or the
# egress policy said no, which is the crawler working. Such records get the outcome
# "denied" so summaries, exit codes and the review app can tell the two apart.
DENIAL_KINDS = frozenset({"robots-denied", "egress-denied"})


@dataclass(frozen=True, slots=True, kw_only=True)
class PageFailure:
    kind: str
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Validation:
    passed: bool
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class PageRecord:
    """One finished page, as streamed to ``pages.jsonl``."""

    url: str
    final_url: str | None
    depth: int
    status: int | None
    outcome: Outcome
    source_id: str | None = None
    source_ref: str | None = None
    snapshot_sha256: str | None = None
    body_hash: str | None = None
    fetched_at: str | None = None
    rendered: bool = False
    render_reason: str | None = None
    title: str | None = None
    warnings: tuple[str, ...] = ()
    error: PageFailure | None = None
    markdown_path: str | None = None
    evidence_path: str | None = None
    validation: Validation | None = None
    bytes: int = 0
    readiness_ms: float | None = None
    duplicate_of: str | None = None
    """The URL of an earlier page of this crawl with the very same body (``/`` for
    ``/index.html``): this page shares its Markdown and evidence, no second file is written."""
    change: str | None = None
    """A recrawl's page against the earlier crawl's record of its URL: ``new``, ``changed``,
    ``not-modified``, ``unchanged-content`` or ``gone`` (``crawl._changes``)."""
    hidden_text: int = 0
    """Passages of text a reader would not see that the page's evidence lists
    (``hidden_text``): left out of its Markdown, or kept with ``keep_hidden_text``."""
    instruction_text: int = 0
    """Instruction-shaped matches ("ignore previous instructions") the page's evidence
    lists (``instruction_text``): flagged, never removed."""
    agent_views: tuple[dict[str, Any], ...] | None = None
    """The page's agent-facing versions (``AgentView.to_dict``) when the crawl asked for
    them (``CrawlPolicy.agent_views``), else ``None``."""

    def __post_init__(self) -> None:
        if self.outcome == "error" and self.error is not None \
                and self.error.kind in DENIAL_KINDS:
            object.__setattr__(self, "outcome", "denied")

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "final_url": self.final_url,
            "depth": self.depth,
            "status": self.status,
            "outcome": self.outcome,
            "source_id": self.source_id,
            "source_ref": self.source_ref,
            "snapshot_sha256": self.snapshot_sha256,
            "body_hash": self.body_hash,
            "fetched_at": self.fetched_at,
            "rendered": self.rendered,
            "render_reason": self.render_reason,
            "title": self.title,
            "warnings": list(self.warnings),
            "error": None if self.error is None
            else {"kind": self.error.kind, "message": self.error.message},
            "markdown_path": self.markdown_path,
            "evidence_path": self.evidence_path,
            "validation": None if self.validation is None
            else {"passed": self.validation.passed, "reasons": list(self.validation.reasons)},
            "bytes": self.bytes,
            "readiness_ms": self.readiness_ms,
            "duplicate_of": self.duplicate_of,
            "change": self.change,
            "hidden_text": self.hidden_text,
            "instruction_text": self.instruction_text,
            "agent_views": None if self.agent_views is None else list(self.agent_views),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PageRecord:
        err = data.get("error")
        val = data.get("validation")
        return cls(
            url=data["url"],
            final_url=data.get("final_url"),
            depth=int(data.get("depth", 0)),
            status=data.get("status"),
            outcome=data.get("outcome", "error"),
            source_id=data.get("source_id"),
            source_ref=data.get("source_ref"),
            snapshot_sha256=data.get("snapshot_sha256"),
            body_hash=data.get("body_hash"),
            fetched_at=data.get("fetched_at"),
            rendered=bool(data.get("rendered", False)),
            render_reason=data.get("render_reason"),
            title=data.get("title"),
            warnings=tuple(data.get("warnings") or ()),
            error=None if not err else PageFailure(kind=err["kind"], message=err["message"]),
            markdown_path=data.get("markdown_path"),
            evidence_path=data.get("evidence_path"),
            validation=None if not val
            else Validation(passed=bool(val["passed"]), reasons=tuple(val.get("reasons") or ())),
            bytes=int(data.get("bytes") or 0),
            readiness_ms=data.get("readiness_ms"),
            duplicate_of=data.get("duplicate_of"),
            change=data.get("change"),
            hidden_text=int(data.get("hidden_text") or 0),
            instruction_text=int(data.get("instruction_text") or 0),
            agent_views=None if data.get("agent_views") is None
            else tuple(data["agent_views"]),
        )


class CrawlSummary:
    """Running totals over finished pages; ``to_dict`` is the manifest's ``summary``."""

    def __init__(self) -> None:
        self.pages = 0
        self.by_outcome: Counter[str] = Counter()
        self.errors_by_kind: Counter[str] = Counter()
        self.rendered = 0
        self.bytes = 0
        self.validated = 0
        self.validation_passed = 0
        self.readiness_total_ms = 0.0
        self.readiness_count = 0
        self.failure_reasons: Counter[str] = Counter()
        self.urls_refused: Counter[str] = Counter()
        """Discovered URLs (links, sitemap entries) the egress URL parser refused, by code."""
        self.robots_denied_paths: Counter[str] = Counter()
        """robots.txt denials by the URL's first path segment (``/share/``): the "why" of a
        large denied count, which is the crawler obeying the site, not failing."""
        self.duplicates = 0
        """Pages whose body repeats an earlier page's (``duplicate_of``)."""
        self.hidden_text_pages = 0
        self.hidden_text_passages = 0
        """Pages whose evidence lists hidden text, and the passages listed."""
        self.instruction_text_pages = 0
        """Pages whose evidence lists instruction-shaped text."""
        self.render_fallbacks = 0
        """Pages that looked like JavaScript shells and were kept unrendered (no browser,
        or the render failed): the plain snapshot stands in."""

    def refuse(self, counts: tuple[tuple[str, int], ...]) -> None:
        for code, count in counts:
            self.urls_refused[code] += count

    def add(self, page: PageRecord) -> None:
        self.pages += 1
        self.by_outcome[page.outcome] += 1
        if page.error is not None:
            self.errors_by_kind[page.error.kind] += 1
            if page.error.kind == "robots-denied":
                self.robots_denied_paths[_first_segment(page.url)] += 1
        if page.duplicate_of is not None:
            self.duplicates += 1
        if page.hidden_text:
            self.hidden_text_pages += 1
            self.hidden_text_passages += page.hidden_text
        if page.instruction_text:
            self.instruction_text_pages += 1
        if any(w.startswith("render-fallback:") for w in page.warnings):
            self.render_fallbacks += 1
        if page.rendered and page.outcome != "not-modified":  # a 304 keeps a render, runs none
            self.rendered += 1
        self.bytes += page.bytes
        if page.validation is not None:
            self.validated += 1
            if page.validation.passed:
                self.validation_passed += 1
            else:
                self.failure_reasons.update(page.validation.reasons)
        if page.readiness_ms is not None:
            self.readiness_total_ms += page.readiness_ms
            self.readiness_count += 1

    @property
    def requested(self) -> int:
        """Pages actually asked for (denied URLs are recorded, never requested)."""
        return self.pages - self.by_outcome.get("denied", 0)

    @property
    def failed(self) -> int:
        return self.by_outcome.get("error", 0)

    def to_dict(self, duration_s: float) -> dict[str, Any]:
        return {
            "pages": self.pages,
            "by_outcome": dict(sorted(self.by_outcome.items())),
            "errors_by_kind": dict(sorted(self.errors_by_kind.items())),
            # renders this crawl ran (a 304 keeping an earlier render ran none)
            "rendered": self.rendered,
            # of the pages requested: denied URLs never had a chance to render
            "render_rate": round(self.rendered / self.requested, 4) if self.requested else 0.0,
            "robots_denied": self.errors_by_kind.get("robots-denied", 0),
            "egress_denied": self.errors_by_kind.get("egress-denied", 0),
            "bytes": self.bytes,
            "duration_s": round(duration_s, 3),
            "requested": self.requested,
            "pages_per_s": round(self.requested / duration_s, 2) if duration_s > 0 else 0.0,
            "validation_pass_rate": round(self.validation_passed / self.validated, 4)
            if self.validated else None,
            "mean_readiness_ms": round(self.readiness_total_ms / self.readiness_count, 1)
            if self.readiness_count else None,
            "validation_failed": self.validated - self.validation_passed,
            "failure_reasons": dict(sorted(self.failure_reasons.items())),
            "urls_refused": dict(sorted(self.urls_refused.items())),
            "robots_denied_paths": dict(sorted(self.robots_denied_paths.items())),
            "render_fallbacks": self.render_fallbacks,
            "duplicates": self.duplicates,
            "hidden_text_pages": self.hidden_text_pages,
            "hidden_text_passages": self.hidden_text_passages,
            "instruction_text_pages": self.instruction_text_pages,
        }


def _first_segment(url: str) -> str:
    """``/share/`` of ``http://host/share/x?y``; ``/`` for the root, ``/search`` for a leaf."""
    path = url.partition("://")[2].partition("/")[2].partition("?")[0].partition("#")[0]
    head, slash, _ = path.partition("/")
    return f"/{head}{slash}"


@dataclass(frozen=True, slots=True, kw_only=True)
class CrawlManifest:
    """What a crawl returns, and (without ``pages``) what ``manifest.json`` holds."""

    started_at: str
    finished_at: str
    seeds: tuple[str, ...]
    policy: dict[str, Any]
    summary: dict[str, Any]
    sitemap: dict[str, Any]
    complete: bool
    pages: Sequence[PageRecord] = field(default=())
    """Every page in the order it finished: a tuple, or for a crawl that wrote more than
    10,000 records into a directory the records of its ``pages.jsonl``, read when asked
    (:class:`~pressmark.crawl._output.PageFile`: a large crawl's records are not all kept
    in memory)."""
    stop_reason: str | None = None
    changes: dict[str, Any] | None = None
    """A recrawl's pages counted by ``change`` and the earlier pages it did not request
    (``crawl._changes``); ``None`` on a first crawl."""
    agent_views: dict[str, Any] | None = None
    """A crawl with ``agent_views``: pages with a captured view, views by kind and outcome,
    how many were compared and diverged, each site's ``/llms.txt`` (``crawl._agentviews``);
    ``None`` otherwise."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "seeds": list(self.seeds),
            "policy": self.policy,
            "summary": self.summary,
            "sitemap": self.sitemap,
            "complete": self.complete,
            "stop_reason": self.stop_reason,
            "changes": self.changes,
            "agent_views": self.agent_views,
        }
