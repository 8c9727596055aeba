"""sourceRef: the citable, versioned, URL-safe name of one exact snapshot.

Grammar (version 1)::

    pressmark:snapshot:v1?source_id=S&url=U&fetched_at=T&body_hash=H&snapshot_sha256=E

``S``, ``U`` and ``T`` are percent-encoded with every byte outside the RFC 3986
unreserved set escaped (upper-case hex); ``H`` and ``E`` are 64 lower-case hex
digits. The reference commits separately to the body (``body_hash``) and to the
whole replay envelope (``snapshot_sha256``); resolution needs both to match.

The grammar is canonical: every snapshot has exactly one reference, and
:func:`parse_source_ref` accepts only that spelling (fields in this order, no
duplicates, no unknown or missing fields, no hash prefixes, no upper-case hex,
no needless escapes), so ``build_source_ref(parse_source_ref(r)) == r`` for every
reference that parses. References are capped at 16 KiB after URL encoding; the
builder raises rather than emit one the parser would refuse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import unquote

from pressmark.snapshot._errors import InvalidSnapshot, InvalidSourceRef
from pressmark.snapshot._model import is_hex_digest, validate_source_id
from pressmark.snapshot._time import is_canonical_timestamp

PREFIX = "pressmark:snapshot:"
VERSION = 1
MAX_REF_CHARS = 16 * 1024
_FIELDS = ("source_id", "url", "fetched_at", "body_hash", "snapshot_sha256")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%")
# RFC 3986 unreserved: what ``urllib.parse.quote(s, safe="")`` leaves alone.
_SAFE_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
_UNSAFE_CHAR = re.compile(r"[^A-Za-z0-9\-._~]")
_ASCII_ESCAPES = {chr(c): f"%{c:02X}" for c in range(128) if c not in _SAFE_BYTES}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _ASCII_ESCAPES.get(char) or "%" + char.encode("utf-8").hex("%").upper()


def quote_all(text: str) -> str:
    """``urllib.parse.quote(text, safe="")``, byte for byte, without a Python loop per byte.

    UTF-8 with strict errors (a lone surrogate raises UnicodeEncodeError, as quote
    does); every byte outside the unreserved set becomes ``%XX`` in upper-case hex.
    """
    return _UNSAFE_CHAR.sub(_escape, text)


def quoted_length(text: str) -> int:
    """``len(quote_all(text))``, counted without building the string."""
    data = text.encode("utf-8")
    return len(data) + 2 * len(data.translate(None, _SAFE_BYTES))


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceRef:
    """A parsed sourceRef."""

    source_id: str
    url: str
    fetched_at: str
    body_hash: str
    snapshot_sha256: str
    version: int = VERSION


class _RefFields(Protocol):
    @property
    def source_id(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def fetched_at(self) -> str: ...
    @property
    def body_hash(self) -> str: ...
    @property
    def snapshot_sha256(self) -> str: ...


def build_source_ref(snapshot: _RefFields) -> str:
    """The sourceRef of a snapshot (or of a :class:`SourceRef`); raises InvalidSourceRef."""
    source_id, url, fetched_at = snapshot.source_id, snapshot.url, snapshot.fetched_at
    body_hash, digest = snapshot.body_hash, snapshot.snapshot_sha256
    _check_fields(source_id, url, fetched_at, body_hash, digest)
    try:
        ref = (f"{PREFIX}v{VERSION}?source_id={quote_all(source_id)}&url={quote_all(url)}"
               f"&fetched_at={quote_all(fetched_at)}&body_hash={body_hash}"
               f"&snapshot_sha256={digest}")
    except UnicodeEncodeError as exc:
        raise InvalidSourceRef("sourceRef field is not encodable as UTF-8") from exc
    if quoted_length(ref) > MAX_REF_CHARS:
        raise InvalidSourceRef("sourceRef would exceed 16 KiB after URL encoding")
    return ref


def parse_source_ref(ref: str) -> SourceRef:
    """Parse a sourceRef in the canonical grammar; raises InvalidSourceRef (code invalid-ref)."""
    if not isinstance(ref, str):
        raise InvalidSourceRef("sourceRef must be a string")
    # The builder's measure (length once URL-encoded), so everything that parses builds.
    if len(ref) > MAX_REF_CHARS or quoted_length(ref) > MAX_REF_CHARS:
        raise InvalidSourceRef("sourceRef is longer than 16 KiB after URL encoding")
    if not ref.startswith(PREFIX):
        raise InvalidSourceRef("not a pressmark sourceRef")
    version, sep, query = ref[len(PREFIX) :].partition("?")
    if version != f"v{VERSION}":
        raise InvalidSourceRef("unsupported sourceRef version")
    if not sep:
        raise InvalidSourceRef("sourceRef has no fields")
    seen: dict[str, str] = {}
    for part in query.split("&"):
        key, eq, raw = part.partition("=")
        if not eq:
            raise InvalidSourceRef("malformed sourceRef field")
        if key not in _FIELDS:
            raise InvalidSourceRef("unknown sourceRef field")
        if key in seen:
            raise InvalidSourceRef("duplicated sourceRef field")
        if not raw or not set(raw) <= _UNRESERVED:
            raise InvalidSourceRef("sourceRef field is empty or not URL-safe")
        try:
            value = unquote(raw, errors="strict")
        except UnicodeDecodeError as exc:
            raise InvalidSourceRef("sourceRef field is not valid UTF-8") from exc
        if quote_all(value) != raw:
            raise InvalidSourceRef("sourceRef field is not canonically encoded")
        seen[key] = value
    missing = [name for name in _FIELDS if name not in seen]
    if missing:
        raise InvalidSourceRef("sourceRef is missing a required field")
    if tuple(seen) != _FIELDS:
        raise InvalidSourceRef("sourceRef fields are not in canonical order")
    _check_fields(*(seen[name] for name in _FIELDS))
    return SourceRef(
        source_id=seen["source_id"],
        url=seen["url"],
        fetched_at=seen["fetched_at"],
        body_hash=seen["body_hash"],
        snapshot_sha256=seen["snapshot_sha256"],
    )


def _check_fields(
    source_id: str, url: str, fetched_at: str, body_hash: str, snapshot_sha256: str
) -> None:
    try:
        validate_source_id(source_id)
    except InvalidSnapshot as exc:
        raise InvalidSourceRef(f"invalid source id in sourceRef: {exc.message}") from exc
    if not isinstance(url, str) or not url:
        raise InvalidSourceRef("sourceRef url must be a non-empty string")
    if not is_canonical_timestamp(fetched_at):
        raise InvalidSourceRef("sourceRef fetched_at is not canonical ISO-8601 UTC")
    if not is_hex_digest(body_hash):
        raise InvalidSourceRef("sourceRef body_hash must be 64 lower-case hex digits")
    if not is_hex_digest(snapshot_sha256):
        raise InvalidSourceRef("sourceRef snapshot_sha256 must be 64 lower-case hex digits")
