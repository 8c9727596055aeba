"""WARC/1.1 export of snapshot stores (through warcio); import lives in ``_warc_import``.

Export writes, per snapshot, oldest first within each source, records a replay
tool (pywb, ReplayWeb.page) can follow:

* wire snapshots: per redirect hop, a ``request`` record (the headers pressmark
  sent, credentials redacted) and a ``response`` record (the hop's status and
  ``Location``, its own ``WARC-Date`` and ``WARC-IP-Address``, marked with
  ``WARC-Pressmark-Redirect-Hop``); then the final ``request`` and ``response``
  (status line, the stored headers minus the transfer framing that no longer
  applies, the stored bytes) with the address that answered it. So a replay
  tool answers the redirecting URL with its redirect, and its target with the page;
* rendered snapshots: a ``conversion`` record holding the serialised DOM (it is a
  browser's DOM, not a server's response), ``WARC-Refers-To`` the newest plain
  response of the same source at or before it, and a ``metadata`` record naming
  the renderer, readiness outcome and page state.

Record ids are derived from the snapshot digest, so the same store exports the
same records. The final record carries warcio's payload and block digests plus
``WARC-Pressmark-Source-Ref`` (the sourceRef), ``WARC-Pressmark-Body-SHA256`` and
``WARC-Pressmark-Envelope`` (the canonical envelope, base64url), so an import
restores each snapshot exactly and every exported sourceRef resolves to the same
bytes afterwards.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import re
import uuid
from collections.abc import Iterator, Sequence
from http import HTTPStatus
from io import BytesIO
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

from pressmark._version import __version__
from pressmark.egress import EgressDenied, ParsedURL, join_url, parse_url
from pressmark.snapshot import Snapshot, build_source_ref
from pressmark.snapshot._model import canonical_json, snapshot_envelope
from pressmark.store._protocol import SnapshotStore
from pressmark.store._warc_import import (
    ENVELOPE_HEADER,
    HOP_HEADER,
    REF_HEADER,
    WarcImportReport,
    import_warc,
)

BODY_HEADER = "WARC-Pressmark-Body-SHA256"
_FRAMING = frozenset({"content-encoding", "transfer-encoding", "content-length"})
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an RFC 9110 header name
_LINE_BREAKS = re.compile(r"[\r\n\x00]+")
_HOP_HEADERS_DROPPED = frozenset({"host", "authorization", "cookie", "proxy-authorization"})

__all__ = ["BODY_HEADER", "ENVELOPE_HEADER", "REF_HEADER", "WarcImportReport", "ascii_uri",
           "export_warc", "import_warc"]


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


@contextlib.contextmanager
def _open_out(target: str | os.PathLike[str] | IO[bytes]) -> Iterator[IO[bytes]]:
    if not isinstance(target, (str, os.PathLike)):
        yield target
        return
    path = Path(target)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def export_warc(
    store: SnapshotStore,
    out: str | os.PathLike[str] | IO[bytes],
    *,
    sources: Sequence[str] | None = None,
    gzip: bool = True,
) -> int:
    """Write every snapshot of ``sources`` (default: all) as WARC/1.1; returns the count.

    A :class:`~pressmark.store.SegmentStore` holds WARC already: its records are copied.
    """
    from pressmark.store._segments import SegmentStore  # noqa: PLC0415

    if isinstance(store, SegmentStore):
        with _open_out(out) as fh:
            return store.export(fh, sources=sources, gzip=gzip)
    # warcio is imported on use: `import pressmark.store` stays light.
    from warcio.warcwriter import WARCWriter  # noqa: PLC0415

    count = 0
    with _open_out(out) as fh:
        writer = WARCWriter(fh, gzip=gzip, warc_version="1.1")
        info = writer.create_warcinfo_record(
            "", {"software": f"pressmark/{__version__}", "format": "WARC File Format 1.1",
                 "description": "pressmark snapshot store export"})
        writer.write_record(info)
        for source_id in sources if sources is not None else store.sources():
            plain: list[Snapshot] = []  # this source's wire snapshots written so far
            for ref in reversed(store.list(source_id)):
                snapshot = store.get(source_id, ref.snapshot_sha256)
                if snapshot.rendered:
                    refers = next((p for p in reversed(plain)
                                   if p.fetched_at <= snapshot.fetched_at), None)
                    _write_rendered(writer, snapshot, refers)
                else:
                    _write_wire(writer, snapshot)
                    plain.append(snapshot)
                count += 1
    return count


def _record_id(snapshot: Snapshot, role: str) -> str:
    """A stable record id: the same store exports the same records, and ids can refer."""
    digest = hashlib.sha256(f"{snapshot.snapshot_sha256}/{role}".encode()).digest()
    return f"<urn:uuid:{uuid.UUID(bytes=digest[:16], version=4)}>"


def _hop_urls(snapshot: Snapshot) -> list[str]:
    """The URL each hop was requested at (recorded since hops carry it; else re-derived)."""
    urls: list[str] = []
    current = snapshot.requested_url
    for hop in snapshot.redirects:
        current = hop.url or current
        urls.append(current)
        base = _parsed(current)
        current = current if base is None else join_url(base, hop.location)
    return urls


def _parsed(url: str) -> ParsedURL | None:
    """``url`` read by the one URL parser (egress), as the fetcher read it when it dialled."""
    try:
        return parse_url(url)
    except EgressDenied:
        return None


def _request(writer: Any, snapshot: Snapshot, uri: str, when: str, *, same_origin: bool,
             role: str) -> Any:
    """The request record of ``uri``, or ``None`` if no request line can name it."""
    from warcio.statusandheaders import StatusAndHeaders  # noqa: PLC0415

    parts = _parsed(uri)
    if parts is None:
        return None
    sent = [(k, _one_line(v)) for k, v in snapshot.request_headers
            if _TOKEN.fullmatch(k) and k.lower() != "host"
            and (same_origin or k.lower() not in _HOP_HEADERS_DROPPED)]
    return writer.create_warc_record(
        uri, "request",
        warc_headers_dict={"WARC-Date": when, "WARC-Record-ID": _record_id(snapshot, role)},
        http_headers=StatusAndHeaders(f"GET {parts.target} HTTP/1.1",
                                      [("Host", parts.authority), *sent], is_http_request=True))


def _write_wire(writer: Any, snapshot: Snapshot) -> None:
    from warcio.statusandheaders import StatusAndHeaders  # noqa: PLC0415

    ref = build_source_ref(snapshot)
    first_origin = _origin(snapshot.requested_url)
    hops = snapshot.redirects
    for index, (hop, url) in enumerate(zip(hops, _hop_urls(snapshot), strict=True), start=1):
        uri = ascii_uri(url)
        when = hop.fetched_at or snapshot.fetched_at
        headers = {"WARC-Date": when, "WARC-Record-ID": _record_id(snapshot, f"hop{index}"),
                   HOP_HEADER: f"{index}/{len(hops)} {ref}"}
        if hop.ip:
            headers["WARC-IP-Address"] = hop.ip
        http = StatusAndHeaders(f"{hop.status} {_reason(hop.status)}",
                                [("Location", _one_line(hop.location)), ("Content-Length", "0")],
                                protocol="HTTP/1.1")
        response = writer.create_warc_record(uri, "response", payload=BytesIO(b""), length=0,
                                             warc_headers_dict=headers, http_headers=http)
        request = _request(writer, snapshot, uri, when, role=f"hop{index}-request",
                           same_origin=_origin(url) == first_origin)
        _write_pair(writer, request, response)
    uri = ascii_uri(snapshot.url)
    headers = _final_headers(snapshot)
    if snapshot.peer_ip:
        headers["WARC-IP-Address"] = snapshot.peer_ip
    wire = [(k, _one_line(v)) for k, v in snapshot.headers
            if k not in _FRAMING and _TOKEN.fullmatch(k)]
    wire.append(("content-length", str(len(snapshot.bytes))))
    http = StatusAndHeaders(f"{snapshot.status} {_reason(snapshot.status)}", wire,
                            protocol="HTTP/1.1")
    response = writer.create_warc_record(
        uri, "response", payload=BytesIO(snapshot.bytes), length=len(snapshot.bytes),
        warc_headers_dict=headers, http_headers=http)
    request = _request(writer, snapshot, uri, snapshot.fetched_at, role="request",
                       same_origin=_origin(snapshot.url) == first_origin)
    _write_pair(writer, request, response)


def _write_rendered(writer: Any, snapshot: Snapshot, refers: Snapshot | None) -> None:
    uri = ascii_uri(snapshot.url)
    headers = _final_headers(snapshot)
    if refers is not None:
        headers["WARC-Refers-To"] = _record_id(refers, "final")
        headers["WARC-Refers-To-Target-URI"] = ascii_uri(refers.url)
        headers["WARC-Refers-To-Date"] = refers.fetched_at
    record = writer.create_warc_record(
        uri, "conversion", payload=BytesIO(snapshot.bytes), length=len(snapshot.bytes),
        warc_content_type="text/html; charset=utf-8", warc_headers_dict=headers)
    writer.write_record(record)
    fields = [("renderer", "unknown")] if not snapshot.render_info else []
    fields += list(snapshot.render_info)
    fields.append(("source-ref", build_source_ref(snapshot)))
    block = "".join(f"{k}: {_one_line(v)}\r\n" for k, v in fields).encode("utf-8")
    metadata = writer.create_warc_record(
        uri, "metadata", payload=BytesIO(block), length=len(block),
        warc_content_type="application/warc-fields",
        warc_headers_dict={"WARC-Date": snapshot.fetched_at,
                           "WARC-Record-ID": _record_id(snapshot, "metadata"),
                           "WARC-Refers-To": headers["WARC-Record-ID"],
                           "WARC-Concurrent-To": headers["WARC-Record-ID"]})
    writer.write_record(metadata)


def _origin(url: str) -> str:
    parts = _parsed(url)
    return url if parts is None else parts.origin


def _write_pair(writer: Any, request: Any, response: Any) -> None:
    if request is None:
        writer.write_record(response)
    else:
        writer.write_request_response_pair(request, response)


def ascii_uri(url: str) -> str:
    """The URL as WARC and HTTP lines need it: an IRI becomes its URI (RFC 3987 3.1).

    Only the informational WARC and HTTP headers use it; the envelope keeps the
    exact URL, so an import restores the snapshot unchanged.
    """
    return quote(url, safe="!#$%&'()*+,/:;=?@[]~")


def _one_line(value: str) -> str:
    """A header value that cannot break the HTTP block (the envelope keeps the original)."""
    return _LINE_BREAKS.sub(" ", value)


def _final_headers(snapshot: Snapshot) -> dict[str, str]:
    envelope = base64.urlsafe_b64encode(canonical_json(snapshot_envelope(snapshot)))
    return {
        "WARC-Date": snapshot.fetched_at,
        "WARC-Record-ID": _record_id(snapshot, "final"),
        REF_HEADER: build_source_ref(snapshot),
        BODY_HEADER: snapshot.body_hash,
        ENVELOPE_HEADER: envelope.decode("ascii"),
    }
