"""``make_snapshot``: a valid wire snapshot in one line, for tests."""

from __future__ import annotations

from collections.abc import Mapping

from pressmark.snapshot import Snapshot, new_snapshot

TYPE_CHECKING = False  # mypy reads it
if TYPE_CHECKING:
    from pressmark.snapshot._kind import ContentKind

_MIME: dict[str, str] = {
    "html": "text/html; charset=utf-8",
    "xml": "application/xml",
    "json": "application/json",
    "text": "text/plain; charset=utf-8",
    "binary": "application/octet-stream",
}


def make_snapshot(
    source_id: str,
    url: str,
    body: bytes,
    *,
    fetched_at: str | None = None,
    status: int = 200,
    content_type: ContentKind = "html",
    headers: Mapping[str, str] | None = None,
) -> Snapshot:
    """A wire snapshot of ``url`` (fetched now when ``fetched_at`` is None).

    Without ``headers`` it gets a Content-Type matching ``content_type``.
    """
    wire = dict(headers) if headers is not None else {"content-type": _MIME[content_type]}
    return new_snapshot(
        source_id=source_id,
        requested_url=url,
        url=url,
        status=status,
        headers=wire,
        body=body,
        fetched_at=fetched_at,
        content_type=content_type,
    )
