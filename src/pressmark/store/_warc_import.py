"""WARC import that fails closed: an evidence store takes a record whole and intact, or not.

Every record is read as a stream and checked before anything is stored:

* the archive: a truncated ``.warc.gz`` member or a record cut short of its
  ``Content-Length`` is an error that stops the import (the records before it
  stay imported and are reported); bytes after the last whole record are too;
* size: a record over :data:`MAX_RECORD_BYTES` is refused before it is read, and
  the HTTP body is decoded (chunked, then ``Content-Encoding``) through the
  egress layer's bounded decoders with the 64 MiB cap enforced while inflating,
  so a gzip or brotli bomb costs at most one 64 KiB piece beyond the cap;
* integrity: ``WARC-Block-Digest`` and ``WARC-Payload-Digest`` are checked when
  present (warcio's digest reader); a mismatch refuses the record;
* target: only ``http``/``https`` URIs; ``metadata:`` and ``dns:`` records (which
  wget and Heritrix write for their logs) are skipped, any other scheme
  (``file:``, ``javascript:``, ...) is refused; user info is stripped (never in a
  URL, so never in a citation) with a warning; the URI is canonicalised by the egress
  URL model (``canonical_url``, as the crawler does), so replay finds it;
* HTTP: the status line must be ``HTTP/x.y NNN`` with NNN in 100-599; a body whose
  ``Content-Encoding`` does not decode is refused, naming the coding;
* pressmark records: the envelope, sourceRef, body hash and ``WARC-Target-URI``
  must all agree.

Records of other types (request, metadata, revisit, warcinfo, pressmark's own
redirect hops) are skipped and counted by type. warcio's own complaints, which it
writes to stderr, are captured and reported with the record number.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from pressmark.egress import EgressDenied, ResponseTooLarge, canonical_url, parse_url
from pressmark.egress._decode import (  # the one Content-Encoding implementation, bounded
    DecodeError,
    decoders_for,
    run_chain,
)
from pressmark.snapshot import (
    InvalidSnapshot,
    InvalidSourceRef,
    Snapshot,
    new_snapshot,
    parse_source_ref,
    snapshot_from_envelope,
    source_id_for_url,
)
from pressmark.store._errors import StoreError
from pressmark.store._protocol import MAX_BODY_BYTES, MAX_RECORD_BYTES, SnapshotStore

ENVELOPE_HEADER = "WARC-Pressmark-Envelope"
REF_HEADER = "WARC-Pressmark-Source-Ref"
HOP_HEADER = "WARC-Pressmark-Redirect-Hop"
_FRAMING = frozenset({"content-encoding", "transfer-encoding", "content-length"})
_STATUS_LINE = re.compile(r"HTTP/[0-9](?:\.[0-9])?\Z")
_IMPORTED_TYPES = frozenset({"response", "resource", "conversion"})
_NON_WEB_SCHEMES = frozenset({"metadata", "dns"})
_READ = 64 * 1024
_SHOWN = 80
_AUTHORITY = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*:[/\\]*)([^/\\?#]*)(.*)\Z", re.S)


@dataclass(frozen=True, slots=True, kw_only=True)
class WarcImportReport:
    """What an import did. ``errors`` and ``warnings`` name record numbers, never contents.

    ``skipped_by_type`` counts every record that was not imported and was not an
    error, by WARC type (``"response (redirect hop)"`` for pressmark's hop records,
    ``"resource (metadata:)"`` for tool logs).
    """

    imported: int
    skipped: int
    source_refs: tuple[str, ...]
    errors: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    skipped_by_type: tuple[tuple[str, int], ...] = ()

    @property
    def ok(self) -> bool:
        return not self.errors


class _Refused(Exception):
    """This record is not imported; the import goes on."""


class _Stop(Exception):
    """The archive cannot be read past this point; the import stops."""


def import_warc(
    store: SnapshotStore,
    source: str | os.PathLike[str] | IO[bytes],
    *,
    foreign: bool = True,
) -> WarcImportReport:
    """Put every snapshot a WARC holds into ``store`` (idempotent for pressmark exports)."""
    from warcio.archiveiterator import ArchiveIterator  # noqa: PLC0415 - imported on use

    refs: list[str] = []
    errors: list[str] = []
    warnings: list[str] = []
    skipped: Counter[str] = Counter()
    number = 0
    with contextlib.ExitStack() as stack:
        fh = (stack.enter_context(Path(source).open("rb"))
              if isinstance(source, (str, os.PathLike)) else source)
        size = _size(fh)
        chatter = io.StringIO()
        end = 0
        try:
            with contextlib.redirect_stderr(chatter):
                iterator = ArchiveIterator(fh, check_digests=True)
                iterator.loader = _loader()
                records = iter(iterator)
                while True:
                    try:
                        record = next(records)
                    except StopIteration:
                        break
                    number += 1
                    _relay(chatter, number, warnings)
                    try:
                        snapshot = _read_record(iterator, record, number, foreign, skipped)
                    except _Refused as exc:
                        errors.append(f"record {number}: {exc}")
                    else:
                        if snapshot is not None:
                            refs.append(store.put(snapshot).source_ref)
                    iterator.read_to_end()  # idempotent: where this record ends
                    end = iterator.offset
                    _relay(chatter, number, warnings)
            if number and size is not None and end < size:
                raise _Stop(f"the archive is truncated or has trailing bytes after record "
                            f"{number} (byte {end} of {size})")
        except _Stop as exc:
            errors.append(str(exc))
        except (InvalidSnapshot, InvalidSourceRef, StoreError) as exc:
            errors.append(f"record {number}: {exc.message}")
        except Exception as exc:  # warcio raises plain exceptions on broken archives
            errors.append(f"the archive is unreadable at record {number + 1}: "
                          f"{_one_line(str(exc)) or type(exc).__name__}")
        finally:
            _relay(chatter, number, warnings)
        if not number and not errors:  # warcio yields nothing for empty or non-WARC input
            errors.append("the archive holds no WARC records")
    return WarcImportReport(
        imported=len(refs), skipped=sum(skipped.values()), source_refs=tuple(refs),
        errors=tuple(errors), warnings=tuple(warnings),
        skipped_by_type=tuple(sorted(skipped.items())))


def _loader() -> Any:
    """warcio's record loader, reading the HTTP head of ``HTTP://`` targets too.

    warcio only parses the HTTP head when the target starts with a lower-case
    ``http:``; a scheme is case-insensitive (RFC 3986 3.1).
    """
    from warcio.recordloader import ArcWarcRecordLoader  # noqa: PLC0415

    class _Loader(ArcWarcRecordLoader):  # type: ignore[misc]  # warcio is untyped
        def load_http_headers(self, rec_type: Any, uri: Any, stream: Any, length: Any) -> Any:
            if isinstance(uri, str) and ":" in uri:
                scheme, _, rest = uri.partition(":")
                uri = f"{scheme.lower()}:{rest}"
            return super().load_http_headers(rec_type, uri, stream, length)

    return _Loader(verify_http=False, arc2warc=False)


def _size(fh: IO[bytes]) -> int | None:
    try:
        here = fh.tell()
        size = fh.seek(0, os.SEEK_END)
        fh.seek(here)
    except (OSError, ValueError, AttributeError):
        return None
    return size


def _relay(chatter: io.StringIO, number: int, warnings: list[str]) -> None:
    text = chatter.getvalue()
    if text:
        chatter.seek(0)
        chatter.truncate()
        for line in text.splitlines():
            if line.strip():
                warnings.append(f"record {number}: warcio: {_one_line(line)[:200]}")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _read_record(iterator: Any, record: Any, number: int, foreign: bool,
                 skipped: Counter[str]) -> Snapshot | None:
    rec_type = str(record.rec_type or "unknown")
    headers = record.rec_headers
    if rec_type not in _IMPORTED_TYPES:
        skipped[rec_type] += 1
        return None
    if headers.get_header(HOP_HEADER):
        skipped[f"{rec_type} (redirect hop)"] += 1  # part of the final snapshot's envelope
        return None
    envelope = headers.get_header(ENVELOPE_HEADER)
    if not envelope and not foreign:
        skipped[f"{rec_type} (not pressmark)"] += 1
        return None
    uri = headers.get_header("WARC-Target-URI") or ""
    scheme = uri.partition(":")[0].lower() if ":" in uri else ""
    if scheme in _NON_WEB_SCHEMES:
        skipped[f"{rec_type} ({scheme}:)"] += 1
        return None
    # The target decides first: no byte of a record for file: or javascript: is read.
    target = web_url(uri) if not envelope else None
    length = record.length
    if length is None or length < 0:
        raise _Refused("the record has no valid Content-Length")
    if length > MAX_RECORD_BYTES:
        raise _Stop(f"record {number}: its {length}-byte block exceeds the "
                    f"{MAX_RECORD_BYTES}-byte record limit; import stopped")
    http = record.http_headers if rec_type == "response" else None
    coding = None
    if rec_type == "response" and http is None:
        raise _Refused("the response record holds no HTTP response head")
    if http is not None:
        _check_status(http)
        coding = http.get_header("Content-Encoding")
        chunked = "chunked" in (http.get_header("Transfer-Encoding") or "").lower()
    else:
        chunked = False
    body = _payload(record, coding=coding if not envelope else None, chunked=chunked)
    _check_whole(iterator, record, number)
    if envelope:
        return _pressmark_snapshot(record, envelope, body, uri)
    assert target is not None
    return _foreign_snapshot(record, rec_type, body, target, http)


def _check_status(http: Any) -> None:
    protocol = str(http.protocol or "")
    line = str(http.statusline or "").strip()
    code, _, _ = line.partition(" ")
    shown = f"{protocol} {line}".strip()[:_SHOWN]
    if not _STATUS_LINE.fullmatch(protocol) or not (
            len(code) == 3 and code.isdigit() and 100 <= int(code) <= 599):
        raise _Refused(f"HTTP status line {shown!r} is not valid (want 'HTTP/x.y NNN', "
                       "NNN from 100 to 599)")


def _payload(record: Any, *, coding: str | None, chunked: bool) -> bytes:
    """The HTTP body, dechunked and decoded, read in pieces and capped while inflating."""
    raw: Any = record.raw_stream
    if chunked:
        from warcio.bufferedreaders import ChunkedDataReader  # noqa: PLC0415

        raw = ChunkedDataReader(raw)
    chain = decoders_for(coding)
    if chain is None and coding and coding.strip().lower() not in ("identity", ""):
        raise _Refused(f"the body's Content-Encoding {coding[:_SHOWN]!r} is not one "
                       "pressmark can decode")
    out: list[bytes] = []
    size = 0
    try:
        while True:
            try:
                data = raw.read(_READ)
            except (ValueError, OSError) as exc:  # warcio: bad chunk framing, zlib errors
                raise _Refused(f"the record's body cannot be read ({_one_line(str(exc))[:100]}"
                               ")") from exc
            pieces = (run_chain(chain, data, final=not data) if chain is not None
                      else iter((data,)) if data else iter(()))
            for piece in pieces:
                size += len(piece)
                if size > MAX_BODY_BYTES:
                    raise _Refused(f"the body exceeds the {MAX_BODY_BYTES}-byte limit "
                                   "once decoded (a compression bomb?)")
                out.append(piece)
            if not data:
                break
    except DecodeError as exc:
        raise _Refused(f"the body does not decode as its Content-Encoding {coding!r} says "
                       f"({exc})") from exc
    except ResponseTooLarge as exc:
        raise _Refused(exc.message) from exc
    return b"".join(out)


def _check_whole(iterator: Any, record: Any, number: int) -> None:
    """Refuse a record cut short of its length, or one whose digests do not match."""
    stream = record.raw_stream
    iterator.read_to_end()
    if getattr(stream, "limit", 0):
        raise _Stop(f"record {number} is truncated: the archive ends {stream.limit} byte(s) "
                    "before its declared Content-Length; import stopped")
    decompressor = iterator.reader.decompressor if iterator.reader is not None else None
    if decompressor is not None and not getattr(decompressor, "eof", True):
        raise _Stop(f"record {number} is truncated: its gzip member ends early; import stopped")
    checker = record.digest_checker
    if checker.passed is False:
        problems = "; ".join(checker.problems) or "digest mismatch"
        raise _Refused(f"the record does not match its WARC digests ({problems[:_SHOWN * 2]})")


def _pressmark_snapshot(record: Any, encoded: str, payload: bytes, uri: str) -> Snapshot:
    headers = record.rec_headers
    try:
        envelope = json.loads(base64.urlsafe_b64decode(encoded.encode("ascii")))
    except (ValueError, RecursionError) as exc:
        raise _Refused("the record has a malformed pressmark envelope") from exc
    if not isinstance(envelope, dict):
        raise _Refused("the record has a malformed pressmark envelope")
    try:
        snapshot = snapshot_from_envelope(envelope, payload)
    except InvalidSnapshot as exc:
        raise _Refused(f"the pressmark envelope is invalid ({exc.message})") from exc
    if hashlib.sha256(payload).hexdigest() != snapshot.body_hash:
        raise _Refused("the record payload does not match its pressmark body hash")
    ref = headers.get_header(REF_HEADER)
    try:
        if ref and parse_source_ref(ref).snapshot_sha256 != snapshot.snapshot_sha256:
            raise _Refused("the record's pressmark envelope does not match its sourceRef")
    except InvalidSourceRef as exc:
        raise _Refused(f"the record's sourceRef is invalid ({exc.message})") from exc
    from pressmark.store._warc import ascii_uri  # noqa: PLC0415 - the exporter's spelling

    if uri != ascii_uri(snapshot.url):
        raise _Refused("WARC-Target-URI does not match the URL in the pressmark envelope "
                       "(the record was rewritten)")
    return snapshot


def web_url(uri: str) -> tuple[str, bool]:
    """``(canonical http(s) URL, credentials were stripped)``; raises _Refused otherwise.

    Canonical as the crawler spells it (:func:`pressmark.egress.canonical_url`: the
    egress parser's serialisation, percent-encoding normalised, no fragment, no bare
    ``?``), so ``HTTP://Example.COM/%7ea#x`` files under the source id a crawl of
    ``http://example.com/~a`` uses.
    """
    if not uri:
        raise _Refused("the record has no WARC-Target-URI")
    scheme = uri.partition(":")[0].strip().lower() if ":" in uri else ""
    if scheme not in ("http", "https"):
        raise _Refused(f"target URI scheme {scheme or '(none)'!r} is not http or https")
    stripped = False
    match = _AUTHORITY.match(uri.strip())
    if match is not None and "@" in match.group(2):
        # user info ends at the authority's last "@"; the authority ends where the egress
        # parser ends it (at / \\ ? #), so what is stripped is what a browser would strip
        stripped = True
        uri = match.group(1) + match.group(2).rpartition("@")[2] + match.group(3)
    try:
        parsed = parse_url(uri)
    except EgressDenied as exc:
        raise _Refused(f"the target URI is not a valid web URL ({exc.message})") from exc
    return canonical_url(parsed), stripped


def _foreign_snapshot(record: Any, rec_type: str, payload: bytes, target: tuple[str, bool],
                      http: Any) -> Snapshot:
    headers = record.rec_headers
    url, stripped = target
    when = headers.get_header("WARC-Date") or ""
    try:
        fetched = datetime.fromisoformat(when.replace("Z", "+00:00"))
    except ValueError as exc:
        raise _Refused(f"the record has no valid WARC-Date ({when[:40]!r})") from exc
    if fetched.tzinfo is None:
        raise _Refused(f"the record's WARC-Date has no time zone ({when[:40]!r})")
    notes = ["import-credentials-stripped: the target URI carried user info; removed"
             ] if stripped else []
    if http is not None:
        status = int(http.get_statuscode())
        wire = [(k, v) for k, v in http.headers if k.lower() not in _FRAMING]
    else:
        status = 200
        wire = [("content-type", headers.get_header("Content-Type") or "")]
        if rec_type == "conversion":
            notes.append("import-conversion: a converted capture, not a server response")
    try:
        return new_snapshot(source_id=source_id_for_url(url), requested_url=url, url=url,
                            status=status, headers=wire, body=payload, fetched_at=fetched,
                            peer_ip=headers.get_header("WARC-IP-Address") or None,
                            warnings=notes)
    except InvalidSnapshot as exc:
        raise _Refused(exc.message) from exc


def iter_warnings(report: WarcImportReport) -> Iterator[str]:
    """Human lines for the warnings and skip counts of a report (CLI output)."""
    yield from report.warnings
    for kind, count in report.skipped_by_type:
        yield f"skipped {count} {kind} record(s)"
