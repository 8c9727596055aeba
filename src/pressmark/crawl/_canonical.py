"""URL canonicalisation: the one spelling of a URL the frontier dedupes on.

Rules, applied in this order (nothing else is changed; in particular the query
keeps its parameter order, because servers may depend on it):

1. Leading and trailing C0 controls and spaces are stripped; tabs and newlines
   inside the URL are removed (as browsers do).
2. A relative reference is resolved against the base URL (``<base href>`` or the
   page URL).
3. Only ``http`` and ``https`` are accepted; anything else yields ``None``.
   The scheme is lower-cased.
4. The host is lower-cased, a trailing dot is dropped and an internationalised
   name is converted to its IDNA (punycode) form. A URL without a host, or with
   a port that is not a number in 1-65535, yields ``None``. User info is kept
   (the egress layer refuses it; it is not ours to hide).
5. The default port (80 for http, 443 for https) is removed.
6. Before the query, ``\\`` becomes ``/`` (as browsers do for http), dot
   segments are removed (RFC 3986 5.2.4) and an empty path becomes ``/``.
7. Percent-encoding is normalised in path and query: escapes of unreserved
   characters (``A-Z a-z 0-9 - . _ ~``) are decoded, other escapes get
   upper-case hex digits, a stray ``%`` becomes ``%25``, and characters that may
   not appear raw (spaces, non-ASCII, ...) are UTF-8 percent-encoded.
8. An empty query (a bare ``?``) is dropped. With ``strip_tracking=True``,
   parameters named in :data:`TRACKING_PARAMS` or starting with ``utm_`` are
   removed; the others keep their order.
9. The fragment is removed.

The function is idempotent: canonicalising a canonical URL returns it unchanged.
"""

from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import urljoin, urlsplit

TRACKING_PARAMS = frozenset(
    {
        "gclid", "dclid", "fbclid", "msclkid", "yclid", "igshid", "mc_cid", "mc_eid",
        "_ga", "_gl", "ref_src", "spm",
    }
)

_STRIP = "".join(chr(c) for c in range(0x21))
_TAB_NL = re.compile(r"[\t\n\r]")
_PATH_OK = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/]*")
_QUERY_OK = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PATH_SAFE = _UNRESERVED | frozenset("!$&'()*+,;=:@/")
_QUERY_SAFE = _PATH_SAFE | frozenset("?")
_HEX = frozenset("0123456789abcdefABCDEF")
_HOST_OK = re.compile(r"[a-z0-9\-._~]+|\[[0-9a-f:.]+\]")
_DEFAULT_PORT = {"http": 80, "https": 443}


class CanonicalURL(NamedTuple):
    url: str
    host: str
    """``hostname`` or ``hostname:port`` (non-default port): the politeness and scope key."""


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
    url = url.strip(_STRIP)
    if "\t" in url or "\n" in url or "\r" in url:
        url = _TAB_NL.sub("", url)
    if "\\" in url:
        cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
        url = url[:cut].replace("\\", "/") + url[cut:]
    if base is not None:
        try:
            url = urljoin(base, url)
        except ValueError:
            return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORT:
        return None
    netloc = parts.netloc
    userinfo, at, hostport = netloc.rpartition("@")
    host, port = _split_host_port(hostport)
    if host is None:
        return None
    host = _normalise_host(host)
    if host is None:
        return None
    if port is not None:
        if not port.isdigit() or not 0 < int(port) < 65536:
            return None
        port_num = int(port)
        if port_num != _DEFAULT_PORT[scheme]:
            host = f"{host}:{port_num}"
    path = parts.path
    if not _PATH_OK.fullmatch(path) or "%" in path:
        path = _normalise_pct(path, _PATH_SAFE)
    path = remove_dot_segments(path) if "." in path else path
    if not path.startswith("/"):
        path = "/" + path
    query = parts.query
    if query:
        if not _QUERY_OK.fullmatch(query) or "%" in query:
            query = _normalise_pct(query, _QUERY_SAFE)
        if strip_tracking:
            query = _strip_tracking(query)
    authority = f"{userinfo}@{host}" if at else host
    canonical = f"{scheme}://{authority}{path}"
    if query:
        canonical = f"{canonical}?{query}"
    return CanonicalURL(canonical, host)


def _split_host_port(hostport: str) -> tuple[str | None, str | None]:
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            return None, None
        host, rest = hostport[: end + 1], hostport[end + 1 :]
        if not rest:
            return host, None
        if not rest.startswith(":"):
            return None, None
        return host, rest[1:] or None
    host, colon, port = hostport.partition(":")
    if ":" in port:
        return None, None
    return host, (port or None) if colon else None


def _normalise_host(host: str) -> str | None:
    host = host.lower()
    if "%" in host:
        return None
    if host.endswith(".") and not host.startswith("["):
        host = host[:-1]
    if not host:
        return None
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    if not _HOST_OK.fullmatch(host) or ".." in host or host.startswith("."):
        return None
    return host


def _normalise_pct(text: str, safe: frozenset[str]) -> str:
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "%":
            if i + 2 < n and text[i + 1] in _HEX and text[i + 2] in _HEX:
                decoded = chr(int(text[i + 1 : i + 3], 16))
                if decoded in _UNRESERVED:
                    out.append(decoded)
                else:
                    out.append("%" + text[i + 1 : i + 3].upper())
                i += 3
                continue
            out.append("%25")
        elif ch in safe:
            out.append(ch)
        else:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass"))
        i += 1
    return "".join(out)


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
