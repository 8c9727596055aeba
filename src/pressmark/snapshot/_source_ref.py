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

from dataclasses import dataclass
from typing import Protocol
from urllib.parse import quote, unquote

from pressmark.snapshot._errors import InvalidSnapshot, InvalidSourceRef
from pressmark.snapshot._model import is_hex_digest, validate_source_id
from pressmark.snapshot._time import is_canonical_timestamp

PREFIX = "pressmark:snapshot:"
VERSION = 1
MAX_REF_CHARS = 16 * 1024
_FIELDS = ("source_id", "url", "fetched_at", "body_hash", "snapshot_sha256")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%")


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
    _check_fields(
        snapshot.source_id, snapshot.url, snapshot.fetched_at,
        snapshot.body_hash, snapshot.snapshot_sha256,
    )
    try:
        values = (
            quote(snapshot.source_id, safe=""),
            quote(snapshot.url, safe=""),
            quote(snapshot.fetched_at, safe=""),
            snapshot.body_hash,
            snapshot.snapshot_sha256,
        )
    except UnicodeEncodeError as exc:
        raise InvalidSourceRef("sourceRef field is not encodable as UTF-8") from exc
    query = "&".join(f"{k}={v}" for k, v in zip(_FIELDS, values, strict=True))
    ref = f"{PREFIX}v{VERSION}?{query}"
    if len(quote(ref, safe="")) > MAX_REF_CHARS:
        raise InvalidSourceRef("sourceRef would exceed 16 KiB after URL encoding")
    return ref


def parse_source_ref(ref: str) -> SourceRef:
    """Parse a sourceRef in the canonical grammar; raises InvalidSourceRef (code invalid-ref)."""
    if not isinstance(ref, str):
        raise InvalidSourceRef("sourceRef must be a string")
    # The builder's measure (length once URL-encoded), so everything that parses builds.
    if len(ref) > MAX_REF_CHARS or len(quote(ref, safe="")) > MAX_REF_CHARS:
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
        if quote(value, safe="") != raw:
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
