"""Agent views: the versions of a page a site serves to agents rather than to people.

Sites answer ``Accept: text/markdown`` with Markdown, point at a Markdown twin with
``<link rel="alternate" type="text/markdown">`` and describe themselves in ``/llms.txt``;
agents are asked to prefer these. What an agent is shown can differ from what a reader
sees, so a capture that is evidence keeps both. For one fetched HTML page,
:func:`fetch_agent_views` requests:

- ``accept-markdown``: the page's own URL with ``Accept: text/markdown``;
- ``alternate``: the first ``rel="alternate" type="text/markdown"`` link of its ``<head>``;
- ``llms-txt``: its origin's ``/llms.txt``, once per origin (:class:`SiteViews`).

Every request is an ordinary :func:`~pressmark.fetch.fetch_source` call with the caller's
options: the egress guard on every hop, robots.txt, the host's pacing, byte and time
limits, never a browser, never a validator. Each answer is an :class:`AgentView` with a
typed ``outcome``: ``captured`` (a text answer: its snapshot is returned to be stored),
``not-offered`` (the server answered with HTML: it ignores the request, nothing kept),
``absent`` (404 or 410), ``denied`` (robots.txt or the egress policy; nothing sent) or
``error`` (the fetch failed: its kind and message). The Markdown request's snapshot gets
its own source id (:func:`agent_source_id`): it is not a capture of the HTML page, and
must not become the newest one of its history.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

from pressmark.fetch._config import FetchOptions, SourceConfig
from pressmark.fetch._fetch import fetch_source

if TYPE_CHECKING:
    from pressmark.fetch._config import FetchFailure, FetchResult
    from pressmark.snapshot import Snapshot

AgentViewKind = Literal["accept-markdown", "alternate", "llms-txt"]
AGENT_VIEW_KINDS: tuple[str, ...] = get_args(AgentViewKind)
AgentOutcome = Literal["captured", "not-offered", "absent", "denied", "error"]
AGENT_OUTCOMES: tuple[str, ...] = get_args(AgentOutcome)

MARKDOWN_ACCEPT: Final = "text/markdown, text/x-markdown;q=0.9, text/plain;q=0.5"
"""The Accept header of every agent-view request."""
TEXT_TYPES: Final = frozenset({"text/markdown", "text/x-markdown", "text/plain"})
"""Media types an agent view is captured in; an HTML answer is ``not-offered``."""
HEAD_SCAN_BYTES: Final = 256 * 1024
"""Bytes of the page read for its ``<link>`` elements (they belong in ``<head>``)."""
ABSENT_STATUSES: Final = frozenset({404, 410})
ERROR_STATUS: Final = 400
"""From this status on, a page is the server's error page: it has no agent views."""
_DENIALS: Final = frozenset({"robots-denied", "egress-denied"})
_HEAD_END = re.compile(rb"</head\s*>|<body[\s>]", re.IGNORECASE)


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentView:
    """One agent-facing version of a page, as requested (see the module doc)."""

    kind: AgentViewKind
    url: str
    outcome: AgentOutcome
    status: int | None = None
    content_type: str | None = None
    """The answer's media type (``text/markdown``), parameters dropped."""
    source_ref: str | None = None
    snapshot_sha256: str | None = None
    bytes: int = 0
    error: dict[str, Any] | None = None
    """``{"kind", "message"}`` of an ``error`` or ``denied`` outcome."""
    divergence: dict[str, Any] | None = None
    """:class:`~pressmark.cite._divergence.Divergence` of a captured page version against
    the page's Markdown (``None`` for ``llms-txt``, a site's index, not a page version)."""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "url": self.url, "outcome": self.outcome,
                "status": self.status, "content_type": self.content_type,
                "source_ref": self.source_ref, "snapshot_sha256": self.snapshot_sha256,
                "bytes": self.bytes, "error": self.error, "divergence": self.divergence}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgentView:
        return cls(kind=data["kind"], url=data["url"], outcome=data["outcome"],
                   status=data.get("status"), content_type=data.get("content_type"),
                   source_ref=data.get("source_ref"),
                   snapshot_sha256=data.get("snapshot_sha256"),
                   bytes=int(data.get("bytes") or 0), error=data.get("error"),
                   divergence=data.get("divergence"))


def agent_source_id(url: str) -> str:
    """The source id of ``url``'s ``Accept: text/markdown`` answers (not the page's)."""
    from pressmark.snapshot import source_id_for_url  # noqa: PLC0415  # light, on first use

    return source_id_for_url("accept=text/markdown " + url)


def alternate_markdown_links(body: bytes, base_url: str) -> tuple[str, ...]:
    """Absolute URLs of the ``<link rel="alternate" type="text/markdown" href>`` elements of
    a page's head (the first :data:`HEAD_SCAN_BYTES` at most), resolved against its
    ``<base href>`` or ``base_url``, in document order, duplicates dropped."""
    from selectolax.lexbor import LexborHTMLParser  # noqa: PLC0415  # the converter's parser

    from pressmark.egress import EgressDenied, join_url, parse_url  # noqa: PLC0415

    head = body[:HEAD_SCAN_BYTES]
    end = _HEAD_END.search(head)
    if end is not None:
        head = head[:end.start()]
    tree = LexborHTMLParser(head.decode("utf-8", "replace"))
    try:
        base = parse_url(base_url)
        for node in tree.css("base[href]"):
            base = parse_url(join_url(base, node.attributes.get("href") or ""))
            break
    except EgressDenied:
        return ()
    found: dict[str, None] = {}
    for node in tree.css("link[href]"):
        attrs = node.attributes
        rel = (attrs.get("rel") or "").lower().split()
        media = (attrs.get("type") or "").lower().partition(";")[0].strip()
        if "alternate" not in rel or media not in ("text/markdown", "text/x-markdown"):
            continue
        try:
            found[parse_url(join_url(base, attrs.get("href") or "")).url] = None
        except EgressDenied:
            continue
    return tuple(found)


def _media_type(snapshot: Snapshot) -> str | None:
    value = snapshot.header("content-type")
    return None if value is None else value.partition(";")[0].strip().lower() or None


def _view(kind: AgentViewKind, url: str, result: FetchResult,
          ) -> tuple[AgentView, Snapshot | None]:
    """The view of one agent-view request, and its snapshot when it is kept."""
    snap = result.snapshot
    if result.error is not None or snap is None:
        failure: FetchFailure | None = result.error
        kind_ = failure.kind if failure is not None else "error"
        status = failure.status if failure is not None else None
        error = {"kind": kind_, "message": failure.message if failure is not None
                 else "no snapshot"}
        outcome: AgentOutcome = ("denied" if kind_ in _DENIALS else
                                 "absent" if status in ABSENT_STATUSES else "error")
        return AgentView(kind=kind, url=url, outcome=outcome, status=status,
                         error=error), None
    media = _media_type(snap)
    if media not in TEXT_TYPES or snap.content_type not in ("text", "json", "xml"):
        return AgentView(kind=kind, url=url, outcome="not-offered", status=snap.status,
                         content_type=media, bytes=len(snap.bytes)), None
    return AgentView(kind=kind, url=url, outcome="captured", status=snap.status,
                     content_type=media, source_ref=result.source_ref,
                     snapshot_sha256=snap.snapshot_sha256, bytes=len(snap.bytes)), snap


class SiteViews:
    """Which origins' ``/llms.txt`` a crawl already asked for (one request per origin,
    however many pages of it are fetched at once)."""

    def __init__(self) -> None:
        self._asked: set[str] = set()

    def first(self, origin: str) -> bool:
        """True the first time ``origin`` is seen (its page then asks for ``/llms.txt``)."""
        if origin in self._asked:
            return False
        self._asked.add(origin)
        return True


async def fetch_agent_views(page: Snapshot, source: SourceConfig, options: FetchOptions, *,
                            sites: SiteViews | None = None,
                            ) -> list[tuple[AgentView, Snapshot | None]]:
    """Request the agent views of ``page`` (a fetched HTML snapshot) as ``source`` fetched
    it (its robots, user agent, limits) through ``options`` (the egress, robots cache and
    pacing of the page's fetch); see the module doc. Nothing is stored here: the caller
    puts the returned snapshots (as for the page's). ``sites``: the origins already asked
    for ``/llms.txt`` (``None``: ask)."""
    from pressmark.egress import EgressDenied, parse_url  # noqa: PLC0415  # on first use

    if page.content_type != "html" or page.status >= ERROR_STATUS:
        return []  # an error page has no versions
    options = dataclasses.replace(options, store=None, keep_snapshots=False, renderer=None,
                                  shell_check=None)
    wanted: list[tuple[AgentViewKind, str, str | None]] = [
        ("accept-markdown", page.requested_url, agent_source_id(page.requested_url))]
    alternates = alternate_markdown_links(page.bytes, page.url or page.requested_url)
    if alternates:
        wanted.append(("alternate", alternates[0], None))
    try:
        origin = parse_url(page.requested_url).origin
    except EgressDenied:
        origin = None
    if origin is not None and (sites is None or sites.first(origin)):
        wanted.append(("llms-txt", origin + "/llms.txt", None))
    out: list[tuple[AgentView, Snapshot | None]] = []
    for kind, url, source_id in wanted:
        config = dataclasses.replace(
            source, url=url, source_id=source_id, headers={"accept": MARKDOWN_ACCEPT},
            render_policy="never", render=None, revalidate=False)
        result = await fetch_source(config, options)
        out.append(_view(kind, url, result))
    return out
