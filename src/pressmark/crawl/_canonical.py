"""URL canonicalisation: the one spelling of a URL the frontier dedupes on.

The URL is parsed by the egress parser (:func:`pressmark.egress.parse_url`,
:func:`pressmark.egress.join_url`), so the host the crawler keys scope, dedupe,
politeness and source ids on is, by construction, the host egress dials. The
crawl's own rules come on top. In order (nothing else is changed; in
particular the query keeps its parameter order, because servers may depend on
it):

1. Browser parsing (egress rules): leading and trailing C0 controls and spaces
   are stripped, tabs and newlines removed; a relative reference is resolved
   against the base URL (``<base href>`` or the page URL) as WHATWG does (so
   ``///evil.example`` and ``/\\evil.example`` name the host ``evil.example``);
   only ``http`` and ``https`` are accepted; backslashes count as slashes.
2. The host as egress serialises it: UTS-46 non-transitional IDNA (``faß.de``
   is ``xn--fa-hia.de``), legacy IPv4 forms in dotted decimal (``127.1``,
   ``0x7f.1`` and ``2130706433`` are ``127.0.0.1``), compressed IPv6, one
   trailing dot removed. The default port is dropped.
3. A URL the egress parser refuses (user info, a bad host or port, another
   scheme) yields ``None``; :func:`canonical_or_refusal` names the egress code,
   which the crawl counts (``summary.urls_refused``). Port 0 is refused too
   (``INVALID_URL``): nothing can be fetched there.
4. Dot segments are removed (``%2e`` counts as a dot) and an empty path is ``/``.
5. Percent-encoding is normalised in path and query (this rule, the bare ``?`` and
   rule 7 are egress's :func:`pressmark.egress.canonical_url`, which WARC import
   uses too): escapes of unreserved characters (``A-Z a-z 0-9 - . _ ~``) are
   decoded, other escapes get upper-case hex digits, a stray ``%`` becomes ``%25``,
   and characters that may not appear raw (spaces, non-ASCII, quotes, ...) are
   UTF-8 percent-encoded.
6. An empty query (a bare ``?``) is dropped. With ``strip_tracking=True``,
   parameters named in :data:`TRACKING_PARAMS` or starting with ``utm_`` are
   removed; the others keep their order.
7. The fragment is removed.

The function is idempotent, and egress parses a canonical URL to the same
string: what the frontier holds is exactly what is requested.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Final, NamedTuple

from pressmark.egress import EgressDenied, join_url, parse_url
from pressmark.egress._canonical import normalise_percent_encoding

TRACKING_PARAMS = frozenset(
    {
        "gclid", "dclid", "fbclid", "msclkid", "yclid", "igshid", "mc_cid", "mc_eid",
        "_ga", "_gl", "ref_src", "spm",
    }
)

INVALID_URL: Final = "INVALID_URL"


class CanonicalURL(NamedTuple):
    url: str
    host: str
    """``host`` or ``host:port`` (non-default port; IPv6 bracketed): the politeness and
    scope key, the authority egress sends in the Host header."""


def canonicalize_url(
    url: str, base: str | None = None, *, strip_tracking: bool = False
) -> str | None:
    """Return the canonical form of ``url`` (see the module docstring), or ``None``."""
    result = canonical_parts(url, base, strip_tracking=strip_tracking)
    return None if result is None else result.url


def canonical_parts(
    url: str, base: str | None = None, *, strip_tracking: bool = False
) -> CanonicalURL | None:
    """Like :func:`canonicalize_url`, also returning the host key."""
    result = canonical_or_refusal(url, base, strip_tracking=strip_tracking)
    return result if isinstance(result, CanonicalURL) else None


def canonical_or_refusal(
    url: str, base: str | None = None, *, strip_tracking: bool = False
) -> CanonicalURL | str:
    """The canonical parts, or the egress code (``INVALID_HOST``, ...) that refused the URL."""
    if base is not None:
        # An unusable base leaves ``url`` as it is: only an absolute URL can still parse.
        with contextlib.suppress(EgressDenied):
            url = join_url(parse_url(base), url)
    return _absolute(url, strip_tracking)


@functools.lru_cache(maxsize=2048)
def _absolute(url: str, strip_tracking: bool) -> CanonicalURL | str:
    """Cached, small: redirect hops and seeds repeat; page links have their own memo in
    ``_links`` (a large cache here cost a 2,000-page crawl ~3 MiB of peak RSS)."""
    try:
        parsed = parse_url(url)
    except EgressDenied as exc:
        return exc.code
    if parsed.port == 0:
        return INVALID_URL
    # Rules 4-7 but tracking are egress's canonical_url; only the tracking rule is the crawl's.
    path = normalise_percent_encoding(parsed.path, "path")
    query = parsed.query
    if query:
        query = normalise_percent_encoding(query, "query")
        if strip_tracking:
            query = _strip_tracking(query)
    authority = parsed.authority
    canonical = f"{parsed.scheme}://{authority}{path}"
    if query:
        canonical = f"{canonical}?{query}"
    return CanonicalURL(canonical, authority)


def remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4, on whole segments (percent-decoded dots were decoded before)."""
    segments = path.split("/")
    if not any(s in (".", "..") for s in segments):
        return path
    out: list[str] = []
    for seg in segments[1:] if path.startswith("/") else segments:
        if seg == ".":
            continue
        if seg == "..":
            if out:
                out.pop()
            continue
        out.append(seg)
    if segments[-1] in (".", ".."):
        out.append("")
    return "/" + "/".join(out)


def _strip_tracking(query: str) -> str:
    kept = []
    for pair in query.split("&"):
        name = pair.split("=", 1)[0].lower()
        if name.startswith("utm_") or name in TRACKING_PARAMS:
            continue
        kept.append(pair)
    return "&".join(kept)


def hostname_of(url: str) -> str:
    """The fetch layer's pacing key of a URL: the host egress dials, without the port
    (``""`` for a URL egress refuses, which is never requested)."""
    try:
        return parse_url(url).host
    except EgressDenied:
        return ""
