"""What an archive needs from a response besides its bytes, as ``new_snapshot`` keywords.

Who answered (the final hop's address), each redirect hop with its own URL, address
and time, and the request headers sent (credentials redacted: a secret never
leaves the crawl in an archive). The page fetch and the robots.txt download both
record them, so every WARC record names the address that served it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pressmark.snapshot import RedirectRecord
from pressmark.snapshot._time import format_timestamp

if TYPE_CHECKING:
    from pressmark.egress import RedirectHop

_SECRET_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})


def archive_fields(peer_ip: str | None, hops: Iterable[RedirectHop],
                   request_headers: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """``peer_ip``, ``redirects`` and ``request_headers`` keywords for ``new_snapshot``."""
    return {
        "peer_ip": peer_ip,
        "redirects": tuple(
            RedirectRecord(h.status, h.location, h.ip, h.url,
                           format_timestamp(datetime.fromtimestamp(h.at, UTC)) if h.at else None)
            for h in hops),
        "request_headers": tuple((k, "[redacted]" if k.lower() in _SECRET_HEADERS else v)
                                 for k, v in request_headers),
    }
