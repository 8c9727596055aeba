"""The immutable snapshot record and its canonical replay envelope.

A snapshot keeps the exact bytes a fetch produced (after content-decoding) and
everything needed to read them again the same way. Text is never stored: it is
re-derived from ``bytes`` and ``declared_charset`` on every read, so replay
returns what was fetched, not what some decoder once made of it.

Two digests identify a snapshot:

* ``body_hash``: SHA-256 of ``bytes``. For wire snapshots the ``hash_basis`` is
  ``"bytes"``; rendered snapshots have no wire bytes (their ``bytes`` are the
  UTF-8 of the serialised DOM) and say ``"decoded-utf8"``.
* ``snapshot_sha256``: SHA-256 of the *envelope*, sorted-key compact ASCII JSON
  of every field except the bytes themselves (status, headers, redirects, render
  state, body representation, hash basis, ``body_hash``, URLs, ``source_id``,
  ``fetched_at``, validators, warnings). It depends on nothing else (no hash
  seeds, no locale), so it is the same in every process.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from json.encoder import encode_basestring_ascii as _q
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

from pressmark.snapshot._charset import (
    decide_charset,
    decode_text_body,
    decode_warnings,
)
from pressmark.snapshot._errors import InvalidSnapshot
from pressmark.snapshot._kind import classify_content_type
from pressmark.snapshot._time import format_timestamp, is_canonical_timestamp, utc_now_iso

if TYPE_CHECKING:
    from pressmark.snapshot._charset import CharsetSource
    from pressmark.snapshot._kind import ContentKind

HashBasis = Literal["bytes", "decoded-utf8"]

ENVELOPE_FORMAT = "pressmark-snapshot/1"
MAX_SOURCE_ID_CHARS = 2048

_HEX64 = re.compile(r"[0-9a-f]{64}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # C0 controls and DEL, searched in C
_KINDS: frozenset[str] = frozenset({"html", "xml", "json", "text", "binary"})
_CHARSET_SOURCES: frozenset[str] = frozenset({"header", "meta", "bom", "default", "detected"})
_BASES: frozenset[str] = frozenset({"bytes", "decoded-utf8"})
_TEXT_KINDS: frozenset[str] = frozenset({"html", "xml", "json", "text"})


@dataclass(frozen=True, slots=True)
class RedirectRecord:
    """One redirect hop: the status, the Location it named, and the IP that answered.

    ``url`` (the URL that answered) and ``fetched_at`` (when) let an archive write the
    hop as its own record; snapshots made before they were recorded have None.
    """

    status: int
    location: str
    ip: str | None
    url: str | None = None
    fetched_at: str | None = None


class _HopLike(Protocol):
    @property
    def status(self) -> int: ...
    @property
    def location(self) -> str: ...
    @property
    def ip(self) -> str | None: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """One captured response, immutable. Build it with :func:`new_snapshot`."""

    source_id: str
    requested_url: str
    url: str
    status: int
    headers: tuple[tuple[str, str], ...]
    redirects: tuple[RedirectRecord, ...]
    fetched_at: str
    content_type: ContentKind
    bytes: builtins.bytes
    declared_charset: str | None
    charset_source: CharsetSource
    body_hash: str
    hash_basis: HashBasis
    rendered: bool = False
    not_modified: bool = False
    etag: str | None = None
    last_modified: str | None = None
    warnings: tuple[str, ...] = ()
    # Archive provenance (optional; in the envelope only when set, so older digests hold):
    # the address that answered the final response, the request headers sent (credentials
    # redacted) and, for rendered snapshots, how the browser produced them.
    peer_ip: str | None = None
    request_headers: tuple[tuple[str, str], ...] = ()
    render_info: tuple[tuple[str, str], ...] = ()
    _digest: str = field(default="", init=False, repr=False, compare=False)
    # Set only by the constructors that established every invariant of *this* instance
    # (new_snapshot hashed these very bytes; read_record verified them): the store's
    # put() then need not check and hash again. Never set by __init__ (so never by
    # dataclasses.replace), never pickled: a snapshot from elsewhere is checked in full.
    _verified: bool = field(default=False, init=False, repr=False, compare=False)

    def __getstate__(self) -> list[object]:
        return [getattr(self, name) for name in _STATE_FIELDS]

    def __setstate__(self, state: list[object]) -> None:
        for name, value in zip(_STATE_FIELDS, state, strict=True):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_digest", "")
        object.__setattr__(self, "_verified", False)

    @property
    def body(self) -> str:
        """The text of ``bytes``, decoded as a browser would; derived on every access."""
        if self.hash_basis == "decoded-utf8":
            return self.bytes.decode("utf-8", "replace")
        return decode_text_body(self.bytes, self.declared_charset).text

    @property
    def snapshot_sha256(self) -> str:
        """SHA-256 hex of the canonical replay envelope (computed once, then cached)."""
        if not self._digest:
            object.__setattr__(self, "_digest", hashlib.sha256(envelope_json(self)).hexdigest())
        return self._digest

    def header(self, name: str) -> str | None:
        """The first value of a header (names are stored lower-cased)."""
        wanted = name.lower()
        for key, value in self.headers:
            if key == wanted:
                return value
        return None


# One stateless encoder (json.dumps would build a new one per call).
_CANONICAL_ENCODER: Final = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
)


_STATE_FIELDS: Final = tuple(f.name for f in fields(Snapshot) if f.init)


def mark_verified(snapshot: Snapshot) -> None:
    """Record that ``snapshot`` passed :func:`check_snapshot` with ``verify_body=True``."""
    object.__setattr__(snapshot, "_verified", True)


def canonical_json(value: Any) -> builtins.bytes:
    """Sorted-key, compact, ASCII-only JSON: one byte string per value."""
    return _CANONICAL_ENCODER.encode(value).encode("ascii")


def envelope_digest(envelope: Mapping[str, Any]) -> str:
    """SHA-256 hex of an envelope's canonical JSON."""
    return hashlib.sha256(canonical_json(envelope)).hexdigest()


def envelope_json(snapshot: Snapshot) -> builtins.bytes:
    """``canonical_json(snapshot_envelope(snapshot))``, byte for byte, built directly.

    The envelope's shape is fixed, so its sorted keys are written out here and only the
    values go through the C string escaper ``json`` itself uses. Any value of a type
    the shortcut does not spell exactly as ``json`` would (a bool status, a non-str
    header) takes the generic path; the tests hold both paths to the same bytes.
    """
    try:
        return _envelope_json_fast(snapshot)
    except (_NotPlain, TypeError, ValueError):
        return canonical_json(snapshot_envelope(snapshot))


class _NotPlain(Exception):
    """A value the shortcut in :func:`envelope_json` does not spell as ``json`` would."""


def _json_bool(value: object) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    raise _NotPlain


def _json_int(value: object) -> str:
    if type(value) is not int:
        raise _NotPlain
    return str(value)


def _json_opt(value: str | None) -> str:
    return "null" if value is None else _q(value)


def _envelope_json_fast(s: Snapshot) -> builtins.bytes:
    headers = ",".join([f"[{_q(name)},{_q(value)}]" for name, value in s.headers])
    redirects = ",".join([
        ("{" if hop.fetched_at is None else f'{{"fetched_at":{_q(hop.fetched_at)},')
        + f'"ip":{_json_opt(hop.ip)},"location":{_q(hop.location)},'
        f'"status":{_json_int(hop.status)}'
        + ("}" if hop.url is None else f',"url":{_q(hop.url)}}}')
        for hop in s.redirects
    ])
    warnings = ",".join([_q(w) for w in s.warnings])
    peer = "" if s.peer_ip is None else f'"peer_ip":{_q(s.peer_ip)},'
    render = "" if not s.render_info else (
        '"render_info":[' + ",".join([f"[{_q(k)},{_q(v)}]" for k, v in s.render_info]) + "],")
    sent = "" if not s.request_headers else (
        '"request_headers":['
        + ",".join([f"[{_q(k)},{_q(v)}]" for k, v in s.request_headers]) + "],")
    return (
        f'{{"body_hash":{_q(s.body_hash)},"body_length":{len(s.bytes)},'
        f'"charset_source":{_q(s.charset_source)},"content_type":{_q(s.content_type)},'
        f'"declared_charset":{_json_opt(s.declared_charset)},"etag":{_json_opt(s.etag)},'
        f'"fetched_at":{_q(s.fetched_at)},"format":{_q(ENVELOPE_FORMAT)},'
        f'"hash_basis":{_q(s.hash_basis)},"headers":[{headers}],'
        f'"last_modified":{_json_opt(s.last_modified)},'
        f'"not_modified":{_json_bool(s.not_modified)},{peer}"redirects":[{redirects}],'
        f'{render}"rendered":{_json_bool(s.rendered)},{sent}'
        f'"requested_url":{_q(s.requested_url)},'
        f'"source_id":{_q(s.source_id)},"status":{_json_int(s.status)},"url":{_q(s.url)},'
        f'"warnings":[{warnings}]}}'
    ).encode("ascii")


def snapshot_envelope(snapshot: Snapshot) -> dict[str, Any]:
    """Every field of a snapshot except its bytes, as JSON-ready data (the store's header)."""
    envelope: dict[str, Any] = {
        "format": ENVELOPE_FORMAT,
        "source_id": snapshot.source_id,
        "requested_url": snapshot.requested_url,
        "url": snapshot.url,
        "status": snapshot.status,
        "headers": [[name, value] for name, value in snapshot.headers],
        "redirects": [_hop_json(hop) for hop in snapshot.redirects],
        "fetched_at": snapshot.fetched_at,
        "content_type": snapshot.content_type,
        "body_length": len(snapshot.bytes),
        "declared_charset": snapshot.declared_charset,
        "charset_source": snapshot.charset_source,
        "body_hash": snapshot.body_hash,
        "hash_basis": snapshot.hash_basis,
        "rendered": snapshot.rendered,
        "not_modified": snapshot.not_modified,
        "etag": snapshot.etag,
        "last_modified": snapshot.last_modified,
        "warnings": list(snapshot.warnings),
    }
    if snapshot.peer_ip is not None:
        envelope["peer_ip"] = snapshot.peer_ip
    if snapshot.request_headers:
        envelope["request_headers"] = [[k, v] for k, v in snapshot.request_headers]
    if snapshot.render_info:
        envelope["render_info"] = [[k, v] for k, v in snapshot.render_info]
    return envelope


def _hop_json(hop: RedirectRecord) -> dict[str, Any]:
    out: dict[str, Any] = {"status": hop.status, "location": hop.location, "ip": hop.ip}
    if hop.url is not None:
        out["url"] = hop.url
    if hop.fetched_at is not None:
        out["fetched_at"] = hop.fetched_at
    return out


def snapshot_from_envelope(envelope: Mapping[str, Any], data: builtins.bytes) -> Snapshot:
    """Rebuild a snapshot from its envelope and bytes; raises InvalidSnapshot on any mismatch."""
    try:
        if envelope.get("format") != ENVELOPE_FORMAT:
            raise InvalidSnapshot("unsupported snapshot envelope format")
        if not _ENVELOPE_KEYS <= set(envelope) <= _ENVELOPE_KEYS | _OPTIONAL_KEYS:
            raise InvalidSnapshot("snapshot envelope has missing or unknown fields")
        if envelope["body_length"] != len(data) or type(envelope["body_length"]) is not int:
            raise InvalidSnapshot("snapshot body length does not match its envelope")
        headers = tuple((_str(n), _str(v)) for n, v in envelope["headers"])
        redirects = tuple(_hop_of(hop) for hop in envelope["redirects"])
        snapshot = Snapshot(
            source_id=_str(envelope["source_id"]),
            requested_url=_str(envelope["requested_url"]),
            url=_str(envelope["url"]),
            status=_int(envelope["status"]),
            headers=headers,
            redirects=redirects,
            fetched_at=_str(envelope["fetched_at"]),
            content_type=envelope["content_type"],
            bytes=data,
            declared_charset=_opt_str(envelope["declared_charset"]),
            charset_source=envelope["charset_source"],
            body_hash=_str(envelope["body_hash"]),
            hash_basis=envelope["hash_basis"],
            rendered=_bool(envelope["rendered"]),
            not_modified=_bool(envelope["not_modified"]),
            etag=_opt_str(envelope["etag"]),
            last_modified=_opt_str(envelope["last_modified"]),
            warnings=tuple(_str(w) for w in envelope["warnings"]),
            peer_ip=_opt_str(envelope.get("peer_ip")),
            request_headers=_pairs(envelope, "request_headers"),
            render_info=_pairs(envelope, "render_info"),
        )
    except InvalidSnapshot:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InvalidSnapshot("malformed snapshot envelope") from exc
    check_snapshot(snapshot)
    return snapshot


def _hop_of(hop: Mapping[str, Any]) -> RedirectRecord:
    if not {"status", "location", "ip"} <= set(hop) <= {"status", "location", "ip", "url",
                                                        "fetched_at"}:
        raise InvalidSnapshot("snapshot redirect hop has missing or unknown fields")
    return RedirectRecord(_int(hop["status"]), _str(hop["location"]), _opt_str(hop["ip"]),
                          _opt_str(hop.get("url")), _opt_str(hop.get("fetched_at")))


def _pairs(envelope: Mapping[str, Any], key: str) -> tuple[tuple[str, str], ...]:
    if key not in envelope:
        return ()
    value = envelope[key]
    if not isinstance(value, list) or not value:  # an empty optional list is never written
        raise InvalidSnapshot("snapshot field has the wrong type")
    return tuple((_str(name), _str(text)) for name, text in value)


_OPTIONAL_KEYS = frozenset({"peer_ip", "request_headers", "render_info"})
_ENVELOPE_KEYS = frozenset({
    "format", "source_id", "requested_url", "url", "status", "headers", "redirects",
    "fetched_at", "content_type", "body_length", "declared_charset", "charset_source",
    "body_hash", "hash_basis", "rendered", "not_modified", "etag", "last_modified", "warnings",
})


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidSnapshot("snapshot field has the wrong type")
    return value


def _opt_str(value: object) -> str | None:
    return None if value is None else _str(value)


def _int(value: object) -> int:
    if type(value) is not int:
        raise InvalidSnapshot("snapshot field has the wrong type")
    return value


def _bool(value: object) -> bool:
    if type(value) is not bool:
        raise InvalidSnapshot("snapshot field has the wrong type")
    return value


def validate_source_id(source_id: object) -> str:
    """A source id is any non-empty string up to 2048 characters without control characters."""
    if not isinstance(source_id, str) or not source_id:
        raise InvalidSnapshot("source id must be a non-empty string")
    if len(source_id) > MAX_SOURCE_ID_CHARS:
        raise InvalidSnapshot("source id is too long")
    if _CONTROL.search(source_id) is not None:
        raise InvalidSnapshot("source id contains control characters")
    if not source_id.isascii():
        try:
            source_id.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: no file name, no sourceRef can hold them
            raise InvalidSnapshot("source id is not valid UTF-8") from None
    return source_id


def check_snapshot(snapshot: Snapshot, *, verify_body: bool = False) -> None:
    """Check a snapshot's invariants (cheap ones always; the body hash when asked)."""
    if snapshot._verified:  # checked in full when it was built or read
        return
    validate_source_id(snapshot.source_id)
    if not is_canonical_timestamp(snapshot.fetched_at):
        raise InvalidSnapshot("fetched_at is not canonical ISO-8601 UTC (YYYY-MM-DDTHH:MM:SS.mmmZ)")
    if snapshot.content_type not in _KINDS:
        raise InvalidSnapshot("unknown content type kind")
    if snapshot.charset_source not in _CHARSET_SOURCES:
        raise InvalidSnapshot("unknown charset source")
    if snapshot.hash_basis not in _BASES:
        raise InvalidSnapshot("unknown hash basis")
    if not 0 <= snapshot.status <= 999:
        raise InvalidSnapshot("status out of range")
    if not is_hex_digest(snapshot.body_hash):
        raise InvalidSnapshot("body hash is not a SHA-256 hex digest")
    for hop in snapshot.redirects:
        if hop.fetched_at is not None and not is_canonical_timestamp(hop.fetched_at):
            raise InvalidSnapshot("a redirect hop's fetched_at is not canonical ISO-8601 UTC")
    if verify_body and hashlib.sha256(snapshot.bytes).hexdigest() != snapshot.body_hash:
        raise InvalidSnapshot("body hash does not match the bytes")


def is_hex_digest(value: object) -> bool:
    """True for exactly 64 lower-case hex characters (no prefixes, no upper case)."""
    return isinstance(value, str) and _HEX64.fullmatch(value) is not None


def source_id_for_url(canonical_url: str) -> str:
    """The default source id of a page: ``url-`` and 32 hex of SHA-256 of its canonical URL.

    Fixed length, so a long URL never makes a long reference or directory name.
    """
    digest = hashlib.sha256(canonical_url.encode("utf-8", "surrogatepass")).hexdigest()
    return "url-" + digest[:32]


def new_snapshot(
    *,
    source_id: str,
    requested_url: str,
    url: str,
    status: int,
    headers: Mapping[str, str] | Iterable[tuple[str, str]],
    body: builtins.bytes,
    fetched_at: str | datetime | None = None,
    redirects: Sequence[RedirectRecord | _HopLike] = (),
    declared_charset: str | None = None,
    charset_source: CharsetSource = "default",
    content_type: ContentKind | None = None,
    rendered: bool = False,
    not_modified: bool = False,
    warnings: Sequence[str] = (),
    peer_ip: str | None = None,
    request_headers: Iterable[tuple[str, str]] = (),
    render_info: Iterable[tuple[str, str]] = (),
) -> Snapshot:
    """Build a valid snapshot, deriving hashes, validators, kind and charset.

    * ``body_hash`` is SHA-256 of ``body``; rendered snapshots use the
      ``decoded-utf8`` basis (their bytes are re-encoded as valid UTF-8).
    * ``etag`` / ``last_modified`` come from the headers (never for rendered ones).
    * ``content_type`` comes from the Content-Type header, sniffing the body when
      it says nothing.
    * with no ``declared_charset``, the charset is :func:`decide_charset`'s (the one
      decision: byte-order mark, valid Content-Type label, HTML ``<meta>``, UTF-8).
    * decoding problems (unknown label, invalid bytes) are added to ``warnings``.
    """
    validate_source_id(source_id)
    items = headers.items() if isinstance(headers, Mapping) else headers
    pairs = tuple([(str(k).lower(), str(v)) for k, v in items])
    first = dict(reversed(pairs))  # name -> its first value
    if fetched_at is None:
        stamp = utc_now_iso()
    elif isinstance(fetched_at, datetime):
        stamp = format_timestamp(fetched_at)
    else:
        stamp = fetched_at
    hops = tuple(
        hop if isinstance(hop, RedirectRecord) else RedirectRecord(hop.status, hop.location, hop.ip)
        for hop in redirects
    )
    header_type = first.get("content-type")
    notes = list(warnings)
    data = bytes(body)
    hash_basis: HashBasis = "bytes"
    etag = first.get("etag")
    last_modified = first.get("last-modified")
    if rendered:
        text = data.decode("utf-8", "replace")
        if text.encode("utf-8") != data:
            notes.append("rendered-invalid-utf8: rendered HTML was not valid UTF-8; "
                         "invalid sequences replaced with U+FFFD")
            data = text.encode("utf-8")
        hash_basis, etag, last_modified = "decoded-utf8", None, None
        kind: ContentKind = content_type or "html"
        declared_charset, charset_source = None, "default"
    else:
        kind = content_type or classify_content_type(header_type, data[:1024])
        if declared_charset is not None:
            declared_charset = declared_charset.strip().lower() or None
        elif charset_source == "default":
            decision = decide_charset(data, header_type, is_html=kind == "html")
            declared_charset, charset_source = decision.label, decision.source
            notes.extend(decision.warnings)
        if kind in _TEXT_KINDS:
            notes.extend(decode_warnings(data, declared_charset))
    snapshot = Snapshot(
        source_id=source_id,
        requested_url=requested_url,
        url=url,
        status=status,
        headers=pairs,
        redirects=hops,
        fetched_at=stamp,
        content_type=kind,
        bytes=data,
        declared_charset=declared_charset,
        charset_source=charset_source,
        body_hash=hashlib.sha256(data).hexdigest(),
        hash_basis=hash_basis,
        rendered=rendered,
        not_modified=not_modified,
        etag=etag,
        last_modified=last_modified,
        warnings=tuple(dict.fromkeys(notes)),
        peer_ip=peer_ip,
        request_headers=tuple((str(k), str(v)) for k, v in request_headers),
        render_info=tuple((str(k), str(v)) for k, v in render_info),
    )
    check_snapshot(snapshot)
    mark_verified(snapshot)  # body_hash was computed from these very bytes just above
    return snapshot
