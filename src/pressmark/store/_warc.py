"""WARC/1.1 export and import of snapshot stores (through warcio).

Export writes, per snapshot, oldest first within each source:

* wire snapshots: a ``response`` record (HTTP status line, the stored headers
  minus the transfer framing that no longer applies, the stored bytes) and the
  matching ``request`` record (``WARC-Concurrent-To``);
* rendered snapshots: a ``resource`` record holding the serialised DOM.

Every record carries warcio's payload and block digests plus
``WARC-Pressmark-Source-Ref`` (the sourceRef), ``WARC-Pressmark-Body-SHA256`` and
``WARC-Pressmark-Envelope`` (the canonical envelope, base64url), so an import
restores each snapshot exactly and every exported sourceRef resolves to the same
bytes afterwards. Records from other tools (no envelope) can be imported too;
they become new snapshots under ``source_id_for_url(uri)``.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from http import HTTPStatus
from io import BytesIO
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote, urlsplit

from pressmark._version import __version__
from pressmark.snapshot import (
    InvalidSnapshot,
    InvalidSourceRef,
    Snapshot,
    build_source_ref,
    canonical_json,
    new_snapshot,
    parse_source_ref,
    snapshot_envelope,
    snapshot_from_envelope,
    source_id_for_url,
)
from pressmark.store._errors import StoreError
from pressmark.store._protocol import SnapshotStore

REF_HEADER = "WARC-Pressmark-Source-Ref"
ENVELOPE_HEADER = "WARC-Pressmark-Envelope"
BODY_HEADER = "WARC-Pressmark-Body-SHA256"
_FRAMING = frozenset({"content-encoding", "transfer-encoding", "content-length"})
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an RFC 9110 header name
_LINE_BREAKS = re.compile(r"[\r\n\x00]+")


@dataclass(frozen=True, slots=True, kw_only=True)
class WarcImportReport:
    """What an import did. ``errors`` name record numbers and reasons, never contents."""

    imported: int
    skipped: int
    source_refs: tuple[str, ...]
    errors: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.errors


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
    """Write every snapshot of ``sources`` (default: all) as WARC/1.1; returns the count."""
    # warcio is imported on use: `import pressmark.store` stays light.
    from warcio.statusandheaders import StatusAndHeaders  # noqa: PLC0415
    from warcio.warcwriter import WARCWriter  # noqa: PLC0415

    count = 0
    with _open_out(out) as fh:
        writer = WARCWriter(fh, gzip=gzip, warc_version="1.1")
        info = writer.create_warcinfo_record(
            "", {"software": f"pressmark/{__version__}", "format": "WARC File Format 1.1",
                 "description": "pressmark snapshot store export"})
        writer.write_record(info)
        for source_id in sources if sources is not None else store.sources():
            for ref in reversed(store.list(source_id)):
                snapshot = store.get(source_id, ref.snapshot_sha256)
                headers = _warc_headers(snapshot)
                uri = _ascii_uri(snapshot.url)
                if snapshot.rendered:
                    record = writer.create_warc_record(
                        uri, "resource", payload=BytesIO(snapshot.bytes),
                        length=len(snapshot.bytes), warc_content_type="text/html; charset=utf-8",
                        warc_headers_dict=headers)
                    writer.write_record(record)
                else:
                    wire = [(k, _one_line(v)) for k, v in snapshot.headers
                            if k not in _FRAMING and _TOKEN.fullmatch(k)]
                    wire.append(("content-length", str(len(snapshot.bytes))))
                    http = StatusAndHeaders(f"{snapshot.status} {_reason(snapshot.status)}",
                                            wire, protocol="HTTP/1.1")
                    response = writer.create_warc_record(
                        uri, "response", payload=BytesIO(snapshot.bytes),
                        length=len(snapshot.bytes), warc_headers_dict=headers, http_headers=http)
                    parts = urlsplit(uri)
                    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
                    request = writer.create_warc_record(
                        uri, "request",
                        warc_headers_dict={"WARC-Date": snapshot.fetched_at},
                        http_headers=StatusAndHeaders(
                            f"GET {target} HTTP/1.1", [("Host", parts.netloc)],
                            is_http_request=True))
                    writer.write_request_response_pair(request, response)
                count += 1
    return count


def _ascii_uri(url: str) -> str:
    """The URL as WARC and HTTP lines need it: an IRI becomes its URI (RFC 3987 3.1).

    Only the informational WARC and HTTP headers use it; the envelope keeps the
    exact URL, so an import restores the snapshot unchanged.
    """
    return quote(url, safe="!#$%&'()*+,/:;=?@[]~")


def _one_line(value: str) -> str:
    """A header value that cannot break the HTTP block (the envelope keeps the original)."""
    return _LINE_BREAKS.sub(" ", value)


def _warc_headers(snapshot: Snapshot) -> dict[str, str]:
    envelope = base64.urlsafe_b64encode(canonical_json(snapshot_envelope(snapshot)))
    headers = {
        "WARC-Date": snapshot.fetched_at,
        REF_HEADER: build_source_ref(snapshot),
        BODY_HEADER: snapshot.body_hash,
        ENVELOPE_HEADER: envelope.decode("ascii"),
    }
    if snapshot.redirects and snapshot.redirects[-1].ip:
        headers["WARC-IP-Address"] = str(snapshot.redirects[-1].ip)
    return headers


def import_warc(
    store: SnapshotStore,
    source: str | os.PathLike[str] | IO[bytes],
    *,
    foreign: bool = True,
) -> WarcImportReport:
    """Put every snapshot a WARC holds into ``store`` (idempotent for pressmark exports)."""
    from warcio.archiveiterator import ArchiveIterator  # noqa: PLC0415 - imported on use

    imported = skipped = seen = 0
    refs: list[str] = []
    errors: list[str] = []
    with contextlib.ExitStack() as stack:
        fh = (stack.enter_context(Path(source).open("rb"))
              if isinstance(source, (str, os.PathLike)) else source)
        try:
            for number, record in enumerate(ArchiveIterator(fh), start=1):
                seen = number
                if record.rec_type not in ("response", "resource"):
                    skipped += 1
                    continue
                try:
                    payload = record.content_stream().read()
                    snapshot = _snapshot_of(record, payload, foreign=foreign)
                    if snapshot is None:
                        skipped += 1
                        continue
                    refs.append(store.put(snapshot).source_ref)
                    imported += 1
                except (InvalidSnapshot, InvalidSourceRef, StoreError, ValueError) as exc:
                    reason = getattr(exc, "message", None) or type(exc).__name__
                    errors.append(f"record {number}: {reason}")
        except Exception as exc:  # warcio raises plain exceptions on broken archives
            errors.append(f"archive is unreadable ({type(exc).__name__})")
        else:
            if not seen:  # warcio yields nothing for empty or non-WARC input: not a success
                errors.append("archive holds no WARC records")
    return WarcImportReport(imported=imported, skipped=skipped, source_refs=tuple(refs),
                            errors=tuple(errors))


def _snapshot_of(record: Any, payload: bytes, *, foreign: bool) -> Snapshot | None:
    headers = record.rec_headers
    encoded = headers.get_header(ENVELOPE_HEADER)
    if encoded:
        try:
            envelope = json.loads(base64.urlsafe_b64decode(encoded.encode("ascii")))
        except (ValueError, RecursionError) as exc:
            raise InvalidSnapshot("record has a malformed pressmark envelope") from exc
        if not isinstance(envelope, dict):
            raise InvalidSnapshot("record has a malformed pressmark envelope")
        snapshot = snapshot_from_envelope(envelope, payload)
        if hashlib.sha256(payload).hexdigest() != snapshot.body_hash:
            raise InvalidSnapshot("record payload does not match its body hash")
        ref = headers.get_header(REF_HEADER)
        if ref and parse_source_ref(ref).snapshot_sha256 != snapshot.snapshot_sha256:
            raise InvalidSnapshot("record envelope does not match its sourceRef")
        return snapshot
    if not foreign:
        return None
    uri = headers.get_header("WARC-Target-URI") or ""
    if not uri:
        raise InvalidSnapshot("record has no target URI")
    when = headers.get_header("WARC-Date") or ""
    try:
        fetched = datetime.fromisoformat(when.replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidSnapshot("record has no valid WARC-Date") from exc
    if record.rec_type == "response" and record.http_headers is not None:
        status = int(record.http_headers.get_statuscode() or 0)
        wire = [(k, v) for k, v in record.http_headers.headers if k.lower() not in _FRAMING]
    else:
        status = 200
        wire = [("content-type", headers.get_header("Content-Type") or "")]
    return new_snapshot(source_id=source_id_for_url(uri), requested_url=uri, url=uri,
                        status=status, headers=wire, body=payload, fetched_at=fetched)
