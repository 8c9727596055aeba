"""WARC/1.1 records of one snapshot, as bytes, and the reading of one record back.

These are the records a :class:`~pressmark.store.SegmentStore` appends to its segments
(each compressed as its own gzip member, so any record reads by offset) and that
``export_warc`` copies out of them. Per snapshot, in this order (a *group*):

* wire snapshots: per redirect hop a ``response`` (its status and ``Location``, its own
  date and address, ``WARC-Pressmark-Redirect-Hop``) and its ``request``; then the final
  ``response`` (status line, the stored headers minus the transfer framing that no longer
  applies, the stored bytes) and its ``request``. When the store already holds the same
  body, the final record is a ``revisit`` (profile identical-payload-digest) naming the
  record that holds it, with the HTTP head only;
* rendered snapshots: a ``conversion`` record holding the serialised DOM, referring to the
  newest plain response of the source at or before it, and a ``metadata`` record naming
  the renderer, readiness outcome and page state.

The record holding the snapshot (final response, revisit or conversion) carries the
sourceRef, the body's SHA-256 and the canonical envelope itself as
``WARC-Pressmark-Envelope-JSON`` (ASCII JSON, so a valid header value; it compresses
with the HTTP head it repeats, where base64 would not). Digests are SHA-256 in base32,
so the payload digest *is* the snapshot's ``body_hash``.

WHY not warcio's writer here: it builds each record through several stream layers and
hashes it again in SHA-1; at a crawl's rate that is about a millisecond per page, the
whole budget of one. warcio reads these records (``warcio check``, the import, the
tests); this module only writes and reads the handful of fields it defines.
"""

from __future__ import annotations

import functools
import hashlib
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING
from urllib.parse import quote

from pressmark._version import __version__
from pressmark.snapshot import Snapshot, build_source_ref
from pressmark.store._errors import SnapshotCorrupt

if TYPE_CHECKING:
    from pressmark.egress import ParsedURL

ENVELOPE_JSON_HEADER = "WARC-Pressmark-Envelope-JSON"
REF_HEADER = "WARC-Pressmark-Source-Ref"
BODY_HEADER = "WARC-Pressmark-Body-SHA256"
HOP_HEADER = "WARC-Pressmark-Redirect-Hop"
PAYLOAD_REF_HEADER = "WARC-Pressmark-Payload-Ref"
TOMBSTONE_HEADER = "WARC-Pressmark-Tombstone"
REVISIT_PROFILE = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()

_FRAMING = frozenset({"content-encoding", "transfer-encoding", "content-length"})
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an RFC 9110 header name
_LINE_BREAKS = re.compile(r"[\r\n\x00]+")
_HOP_HEADERS_DROPPED = frozenset({"host", "authorization", "cookie", "proxy-authorization"})
_MAX_HEADER_BYTES = 1024 * 1024  # a record head longer than this is not one of ours
_END = b"\r\n\r\n"


@dataclass(frozen=True, slots=True, kw_only=True)
class Original:
    """The stored record a revisit refers to (the first record of that body)."""

    record_id: str
    target_uri: str
    date: str
    source_ref: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Group:
    """One snapshot's records, uncompressed, in order; ``main`` holds the snapshot."""

    records: tuple[bytes, ...]
    main: int


@dataclass(frozen=True, slots=True)
class WarcRecord:
    """One record read back: its headers (names lower-cased, first value) and block."""

    headers: dict[str, str]
    block: bytes

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    @property
    def type(self) -> str:
        return self.headers.get("warc-type", "")


def record_id(snapshot_sha256: str, role: str) -> str:
    """A stable record id: the same snapshot always writes the same records.

    The version-4 UUID of the first 16 bytes of SHA-256(digest/role), spelled out here
    (``uuid.UUID(bytes=..., version=4)`` gives the same string, three times slower).
    """
    raw = bytearray(hashlib.sha256(f"{snapshot_sha256}/{role}".encode()).digest()[:16])
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"<urn:uuid:{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}>"


def sha256_label(hexdigest: str) -> str:
    """``sha256:`` and the hex digest (RFC 3548 base16: warcio and pywb read it; base32,
    the SHA-1 custom, costs a pure-Python encoding per record in Python 3.11)."""
    return "sha256:" + hexdigest


def ascii_uri(url: str) -> str:
    """The URL as WARC and HTTP lines need it: an IRI becomes its URI (RFC 3987 3.1).

    Only the informational WARC and HTTP headers use it; the envelope keeps the exact
    URL, so an import restores the snapshot unchanged.
    """
    return quote(url, safe="!#$%&'()*+,/:;=?@[]~")


def one_line(value: str) -> str:
    """A header value that cannot break the block (the envelope keeps the original)."""
    return _LINE_BREAKS.sub(" ", value)


def reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def gzip_member(raw: bytes, level: int = 6) -> bytes:
    """``raw`` as one gzip member (no file name, mtime 0: the same bytes every time).

    The window is sized to the record (never smaller than it, so nothing compresses
    worse): zlib's set-up of a full 32 KiB window and hash table costs more than
    compressing a 400-byte request record, and most records are that small.
    """
    bits = max(9, min(15, (len(raw) - 1).bit_length()))
    packer = zlib.compressobj(level, zlib.DEFLATED, 16 + bits, max(1, min(8, bits - 7)))
    return packer.compress(raw) + packer.flush()


def record_bytes(headers: Sequence[tuple[str, str]], block: Sequence[bytes]) -> bytes:
    """A WARC/1.1 record: version line, named fields, ``Content-Length``, block, CRLF CRLF."""
    length = sum(len(part) for part in block)
    head = "".join(f"{name}: {value}\r\n" for name, value in headers)
    return b"".join((b"WARC/1.1\r\n", head.encode("utf-8"),
                     f"Content-Length: {length}\r\n\r\n".encode("ascii"), *block, _END))


def _http_head(start_line: str, fields: Sequence[tuple[str, str]]) -> bytes:
    lines = "".join(f"{name}: {value}\r\n" for name, value in fields)
    return f"{start_line}\r\n{lines}\r\n".encode("utf-8", "surrogateescape")


def warcinfo_record(when: str, token: str) -> bytes:
    """The first record of every segment: what wrote it."""
    block = (f"software: pressmark/{__version__}\r\nformat: WARC File Format 1.1\r\n"
             "description: pressmark snapshot store segment\r\n").encode("ascii")
    return record_bytes([
        ("WARC-Type", "warcinfo"), ("WARC-Record-ID", record_id(token, "warcinfo")),
        ("WARC-Date", when), ("Content-Type", "application/warc-fields"),
        ("WARC-Block-Digest", sha256_label(hashlib.sha256(block).hexdigest())),
    ], [block])


def tombstone_record(when: str, token: str, body: bytes) -> bytes:
    """A prune's note (JSON naming the removed snapshots), so a rebuilt index omits them."""
    return record_bytes([
        ("WARC-Type", "metadata"), ("WARC-Record-ID", record_id(token, "tombstone")),
        ("WARC-Date", when), ("WARC-Target-URI", "urn:pressmark:prune"),
        ("Content-Type", "application/json"), (TOMBSTONE_HEADER, "1"),
        ("WARC-Block-Digest", sha256_label(hashlib.sha256(body).hexdigest())),
    ], [body])


def snapshot_group(snapshot: Snapshot, envelope: bytes, *, original: Original | None = None,
                   refers: tuple[str, str, str] | None = None,
                   source_ref: str | None = None) -> Group:
    """The records of ``snapshot``; ``envelope`` is its canonical envelope JSON.

    ``original``: the record already holding this body (the final record is then a
    revisit). ``refers``: for a rendered snapshot, (record id, URI, date) of the plain
    response it was rendered after. ``source_ref``: the snapshot's, when known already.
    """
    ref = source_ref or build_source_ref(snapshot)
    if snapshot.rendered:
        return _rendered_group(snapshot, envelope, refers, ref)
    sha = snapshot.snapshot_sha256
    records: list[bytes] = []
    first_origin = _origin(snapshot.requested_url)
    hops = snapshot.redirects
    for index, (hop, url) in enumerate(zip(hops, _hop_urls(snapshot), strict=True), start=1):
        uri = ascii_uri(url)
        when = hop.fetched_at or snapshot.fetched_at
        hop_id = record_id(sha, f"hop{index}")
        http = _http_head(f"HTTP/1.1 {hop.status} {reason(hop.status)}",
                          [("Location", one_line(hop.location)), ("Content-Length", "0")])
        fields = [("WARC-Type", "response"), ("WARC-Record-ID", hop_id), ("WARC-Date", when),
                  ("WARC-Target-URI", uri)]
        if hop.ip:
            fields.append(("WARC-IP-Address", hop.ip))
        fields += [("WARC-Payload-Digest", sha256_label(EMPTY_SHA256)),
                   ("WARC-Block-Digest", sha256_label(hashlib.sha256(http).hexdigest())),
                   ("Content-Type", "application/http; msgtype=response"),
                   (HOP_HEADER, f"{index}/{len(hops)} {ref}")]
        records.append(record_bytes(fields, [http]))
        request = _request(snapshot, uri, when, f"hop{index}-request", hop_id,
                           same_origin=_origin(url) == first_origin)
        if request is not None:
            records.append(request)
    uri = ascii_uri(snapshot.url)
    wire = [(k, one_line(v)) for k, v in snapshot.headers
            if k not in _FRAMING and _TOKEN.fullmatch(k)]
    wire.append(("content-length", str(len(snapshot.bytes))))
    http = _http_head(f"HTTP/1.1 {snapshot.status} {reason(snapshot.status)}", wire)
    final_id = record_id(sha, "final")
    fields = [("WARC-Type", "revisit" if original is not None else "response"),
              ("WARC-Record-ID", final_id), ("WARC-Date", snapshot.fetched_at),
              ("WARC-Target-URI", uri)]
    if snapshot.peer_ip:
        fields.append(("WARC-IP-Address", snapshot.peer_ip))
    if original is not None:
        fields += [("WARC-Profile", REVISIT_PROFILE), ("WARC-Refers-To", original.record_id),
                   ("WARC-Refers-To-Target-URI", original.target_uri),
                   ("WARC-Refers-To-Date", original.date)]
        block_digest = hashlib.sha256(http).hexdigest()
        block: list[bytes] = [http]
    else:
        hasher = hashlib.sha256(http)
        hasher.update(snapshot.bytes)
        block_digest = hasher.hexdigest()
        block = [http, snapshot.bytes]
    fields += [("WARC-Payload-Digest", sha256_label(snapshot.body_hash)),
               ("WARC-Block-Digest", sha256_label(block_digest)),
               ("Content-Type", "application/http; msgtype=response"),
               *_pressmark_fields(ref, snapshot.body_hash, envelope)]
    if original is not None:
        fields.append((PAYLOAD_REF_HEADER, original.source_ref))
    records.append(record_bytes(fields, block))
    main = len(records) - 1
    request = _request(snapshot, uri, snapshot.fetched_at, "request", final_id,
                       same_origin=_origin(snapshot.url) == first_origin)
    if request is not None:
        records.append(request)
    return Group(records=tuple(records), main=main)


def _pressmark_fields(ref: str, body_hash: str, envelope: bytes) -> list[tuple[str, str]]:
    return [(REF_HEADER, ref), (BODY_HEADER, body_hash),
            (ENVELOPE_JSON_HEADER, envelope.decode("ascii"))]


def _rendered_group(snapshot: Snapshot, envelope: bytes,
                    refers: tuple[str, str, str] | None, ref: str) -> Group:
    sha = snapshot.snapshot_sha256
    uri = ascii_uri(snapshot.url)
    own_id = record_id(sha, "final")
    fields = [("WARC-Type", "conversion"), ("WARC-Record-ID", own_id),
              ("WARC-Date", snapshot.fetched_at), ("WARC-Target-URI", uri)]
    if refers is not None:
        fields += [("WARC-Refers-To", refers[0]), ("WARC-Refers-To-Target-URI", refers[1]),
                   ("WARC-Refers-To-Date", refers[2])]
    digest = sha256_label(hashlib.sha256(snapshot.bytes).hexdigest())
    fields += [("WARC-Payload-Digest", digest), ("WARC-Block-Digest", digest),
               ("Content-Type", "text/html; charset=utf-8"),
               *_pressmark_fields(ref, snapshot.body_hash, envelope)]
    conversion = record_bytes(fields, [snapshot.bytes])
    info = [("renderer", "unknown")] if not snapshot.render_info else []
    info += list(snapshot.render_info)
    info.append(("source-ref", ref))
    block = "".join(f"{k}: {one_line(v)}\r\n" for k, v in info).encode("utf-8")
    metadata = record_bytes([
        ("WARC-Type", "metadata"), ("WARC-Record-ID", record_id(sha, "metadata")),
        ("WARC-Date", snapshot.fetched_at), ("WARC-Target-URI", uri),
        ("WARC-Refers-To", own_id), ("WARC-Concurrent-To", own_id),
        ("Content-Type", "application/warc-fields"),
        ("WARC-Block-Digest", sha256_label(hashlib.sha256(block).hexdigest())),
    ], [block])
    return Group(records=(conversion, metadata), main=0)


def _request(snapshot: Snapshot, uri: str, when: str, role: str, concurrent: str, *,
             same_origin: bool) -> bytes | None:
    """The request record of ``uri``, or ``None`` if no request line can name it."""
    parts = _parsed(uri)
    if parts is None:
        return None
    sent = [(k, one_line(v)) for k, v in snapshot.request_headers
            if _TOKEN.fullmatch(k) and k.lower() != "host"
            and (same_origin or k.lower() not in _HOP_HEADERS_DROPPED)]
    http = _http_head(f"GET {parts.target} HTTP/1.1", [("Host", parts.authority), *sent])
    return record_bytes([
        ("WARC-Type", "request"), ("WARC-Record-ID", record_id(snapshot.snapshot_sha256, role)),
        ("WARC-Date", when), ("WARC-Target-URI", uri), ("WARC-Concurrent-To", concurrent),
        ("WARC-Block-Digest", sha256_label(hashlib.sha256(http).hexdigest())),
        ("Content-Type", "application/http; msgtype=request"),
    ], [http])


def _hop_urls(snapshot: Snapshot) -> list[str]:
    """The URL each hop was requested at (recorded since hops carry it; else re-derived)."""
    from pressmark.egress import join_url  # noqa: PLC0415  # egress loads on first use

    urls: list[str] = []
    current = snapshot.requested_url
    for hop in snapshot.redirects:
        current = hop.url or current
        urls.append(current)
        base = _parsed(current)
        current = current if base is None else join_url(base, hop.location)
    return urls


@functools.lru_cache(maxsize=64)  # a group reads its URLs two or three times
def _parsed(url: str) -> ParsedURL | None:
    """``url`` read by the one URL parser (egress), as the fetcher read it when it dialled."""
    from pressmark.egress import EgressDenied, parse_url  # noqa: PLC0415

    try:
        return parse_url(url)
    except EgressDenied:
        return None


def _origin(url: str) -> str:
    parts = _parsed(url)
    return url if parts is None else parts.origin


# -- reading ------------------------------------------------------------------------------


def inflate_member(data: bytes) -> bytes:
    """The content of exactly one gzip member; anything else is corrupt."""
    unpacker = zlib.decompressobj(31)
    try:
        raw = unpacker.decompress(data)
    except zlib.error as exc:
        raise SnapshotCorrupt("segment record does not decompress") from exc
    if not unpacker.eof or unpacker.unused_data:
        raise SnapshotCorrupt("segment record is cut short or has trailing bytes")
    return raw


def parse_record(raw: bytes) -> WarcRecord:
    """Split one uncompressed WARC record into its fields and block; checks the framing."""
    end = raw.find(_END, 0, _MAX_HEADER_BYTES)
    if end < 0 or not raw.startswith(b"WARC/1."):
        raise SnapshotCorrupt("segment record has no WARC head")
    headers: dict[str, str] = {}
    try:
        text = raw[:end].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SnapshotCorrupt("segment record head is not UTF-8") from exc
    for line in text.split("\r\n")[1:]:
        name, sep, value = line.partition(":")
        if not sep:
            raise SnapshotCorrupt("segment record head has a malformed line")
        headers.setdefault(name.strip().lower(), value.strip())
    length = headers.get("content-length", "")
    if not length.isdigit() or len(length) > 12:
        raise SnapshotCorrupt("segment record has no valid Content-Length")
    start = end + 4
    stop = start + int(length)
    if len(raw) != stop + 4 or raw[stop:] != _END:
        raise SnapshotCorrupt("segment record block does not match its Content-Length")
    return WarcRecord(headers, raw[start:stop])


def http_payload(block: bytes) -> bytes:
    """The body of an HTTP response block (after the head)."""
    end = block.find(_END)
    if end < 0:
        raise SnapshotCorrupt("segment record holds no HTTP head")
    return block[end + 4 :]


def original_of(record: WarcRecord) -> Original:
    """What a revisit of ``record`` (the record holding a body) refers to."""
    ident = record.header("WARC-Record-ID")
    uri = record.header("WARC-Target-URI")
    date = record.header("WARC-Date")
    ref = record.header(REF_HEADER)
    if not (ident and uri and date and ref):
        raise SnapshotCorrupt("segment record lacks the fields a revisit refers to")
    return Original(record_id=ident, target_uri=uri, date=date, source_ref=ref)
