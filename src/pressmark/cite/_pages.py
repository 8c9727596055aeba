"""A cited page: the Markdown re-derived from one snapshot, with what a citation needs.

The Markdown of a snapshot is a pure function of its bytes and the conversion policy
(``pressmark-md/<version>``): :func:`page_of` reads the snapshot as the crawl did
(its body decoded by the snapshot's own charset decision, links resolved against its
final URL) and converts it with the default policy, which is the crawl's too (a seed's
expected heading or language only changes validation, never the Markdown). A text
snapshot that is not HTML (plain text, JSON, XML) is cited in its own text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pressmark._errors import PressmarkError
from pressmark.markdown._blockmap import BlockMap

if TYPE_CHECKING:
    from pressmark.cite._views import Chain
    from pressmark.markdown import MarkdownResult
    from pressmark.snapshot import Snapshot

TEXT_KINDS = frozenset({"html", "xml", "json", "text"})


class CitationError(PressmarkError):
    """A citation that cannot be checked: its sourceRef does not resolve (``invalid-ref``,
    ``not-found``, ``snapshot-corrupt``, ``snapshot-store-error``), the snapshot holds no
    text (``unsupported-content``) or the quote is empty (``empty-quote``)."""

    code = "citation-error"


@dataclass(slots=True, kw_only=True)
class CitedPage:
    """One snapshot's Markdown and what citing it needs (views made on first use)."""

    source_ref: str
    source_id: str
    url: str
    fetched_at: str
    snapshot_sha256: str
    title: str | None
    markdown: str
    block_map: BlockMap
    policy_version: str | None
    validation: dict[str, Any] | None
    status: int | None = None
    """The capture's HTTP status (a 404 page's Markdown is the server's error page)."""
    _views: Chain | None = field(default=None, repr=False)

    def views(self) -> Chain:
        """The Markdown's reading text, normalised, mapped back to the Markdown."""
        if self._views is None:
            from pressmark.cite._views import (  # noqa: PLC0415  # only when asked
                Chain,
                normalised_view,
                reading_view,
            )

            reading = reading_view(self.markdown)
            self._views = Chain(reading, normalised_view(reading.text))
        return self._views


def page_of(snapshot: Snapshot, source_ref: str) -> CitedPage:
    """The snapshot's page as pressmark converts it (see the module doc)."""
    if snapshot.content_type not in TEXT_KINDS:
        raise CitationError(f"a {snapshot.content_type} snapshot holds no text to cite",
                            code="unsupported-content")
    base: dict[str, Any] = {"source_ref": source_ref, "source_id": snapshot.source_id,
                            "url": snapshot.url or snapshot.requested_url,
                            "fetched_at": snapshot.fetched_at,
                            "snapshot_sha256": snapshot.snapshot_sha256,
                            "status": snapshot.status}
    if snapshot.content_type != "html":
        return CitedPage(**base, title=None, markdown=snapshot.body, block_map=BlockMap(),
                         policy_version=None, validation=None)
    from pressmark.markdown import to_markdown  # noqa: PLC0415  # the converter, when used

    result = to_markdown(snapshot.body, url=base["url"], requested_url=snapshot.requested_url)
    return cited_page(snapshot, source_ref, result)


def convert_snapshot(snapshot: Snapshot) -> MarkdownResult:
    """``to_markdown`` of an HTML snapshot exactly as :func:`page_of` (and a crawl) runs it."""
    from pressmark.markdown import to_markdown  # noqa: PLC0415  # the converter, when used

    return to_markdown(snapshot.body, url=snapshot.url or snapshot.requested_url,
                       requested_url=snapshot.requested_url)


def cited_page(snapshot: Snapshot, source_ref: str, result: MarkdownResult) -> CitedPage:
    """The page of an HTML snapshot whose conversion the caller already has
    (:func:`convert_snapshot`'s): the workbench converts once for its views and the diff."""
    base: dict[str, Any] = {"source_ref": source_ref, "source_id": snapshot.source_id,
                            "url": snapshot.url or snapshot.requested_url,
                            "fetched_at": snapshot.fetched_at,
                            "snapshot_sha256": snapshot.snapshot_sha256,
                            "status": snapshot.status}
    return CitedPage(**base, title=result.title, markdown=result.markdown,
                     block_map=result.evidence.block_map,
                     policy_version=result.policy_version,
                     validation={"passed": result.validation.passed,
                                 "reasons": list(result.validation.reasons)})
