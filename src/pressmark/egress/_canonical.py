"""The canonical spelling of a parsed http(s) URL: one URL model for every layer.

:func:`parse_url` already spells scheme, host and port the one way egress dials
them; :func:`canonical_url` adds what makes two spellings of one resource equal,
so the crawler's frontier, fetch's source ids and a WARC import file a URL under
the same key (the crawl's own options, such as dropping tracking parameters, sit
on top of it in :mod:`pressmark.crawl._canonical`):

* percent-encoding in path and query is normalised: escapes of unreserved
  characters (``A-Z a-z 0-9 - . _ ~``) are decoded, other escapes get upper-case
  hex digits, a stray ``%`` becomes ``%25``, and characters that may not appear
  raw (spaces, non-ASCII, quotes, ...) are UTF-8 percent-encoded;
* an empty query (a bare ``?``) is dropped, and so is the fragment.
"""

from __future__ import annotations

import re
from typing import Final, Literal

from pressmark.egress._url import ParsedURL

_PATH_OK: Final = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/]*")
_QUERY_OK: Final = re.compile(r"[A-Za-z0-9\-._~!$&()*+,;=:@/?]*")
_UNRESERVED: Final = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PATH_SAFE: Final = _UNRESERVED | frozenset("!$&'()*+,;=:@/")
_QUERY_SAFE: Final = _UNRESERVED | frozenset("!$&()*+,;=:@/?")  # egress encodes ' in queries
_HEX: Final = frozenset("0123456789abcdefABCDEF")


def normalise_percent_encoding(text: str, part: Literal["path", "query"]) -> str:
    """``text`` (a path or a query) with its percent-encoding normalised (module rules)."""
    ok, safe = (_PATH_OK, _PATH_SAFE) if part == "path" else (_QUERY_OK, _QUERY_SAFE)
    if "%" not in text and ok.fullmatch(text):
        return text  # the common case: nothing to change
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


def canonical_url(parsed: ParsedURL) -> str:
    """The canonical URL of ``parsed`` (module rules); idempotent under :func:`parse_url`."""
    url = parsed.origin + normalise_percent_encoding(parsed.path, "path")
    query = normalise_percent_encoding(parsed.query, "query") if parsed.query else ""
    return f"{url}?{query}" if query else url
