"""WARC import that fails closed: an evidence store takes a record whole and intact, or not.

Every record is read as a stream and checked before anything is stored:

* heads: every WARC and HTTP head line is read with a cap before it is parsed, and
  each head has a line count and size limit (:mod:`pressmark.store._warc_read`); a
  WARC head over its limit stops the import, an HTTP head over the live limits (64
  KiB, 256 header lines) refuses its record; an imported snapshot's headers are held
  to the same limits;
* the archive: a truncated ``.warc.gz`` member or a record cut short of its
  ``Content-Length`` is an error that stops the import (the records before it
  stay imported and are reported); bytes after the last whole record are too;
* size: a record over :data:`MAX_RECORD_BYTES` is refused before it is read, and
  the HTTP body is decoded (chunked, then ``Content-Encoding``) in 64 KiB pieces
  through the egress layer's bounded decoders with the 64 MiB cap enforced while
  inflating, so a gzip or brotli bomb costs at most one piece beyond the cap;
* framing: a chunked body without its last chunk, or shorter than its
  ``Content-Length``, is imported as recorded with a named warning on the snapshot
  (``import-truncated-body``); broken chunk framing refuses the record;
* integrity: ``WARC-Block-Digest`` and ``WARC-Payload-Digest`` are checked when
  present (warcio's digest reader); a mismatch refuses the record;
* target: only ``http``/``https`` URIs; ``metadata:`` and ``dns:`` records (which
  wget and Heritrix write for their logs) are skipped, any other scheme
  (``file:``, ``javascript:``, ...) is refused; user info is stripped (never in a
  URL, so never in a citation) with a warning; the URI is canonicalised by the egress
  URL model (``canonical_url``, as the crawler does), so replay finds it. A
  pressmark record's URLs (its URL, requested URL and redirect hops) go through the
  same model: any other scheme, or user info (which cannot be stripped from a signed
  envelope), refuses it;
* time: a capture dated after the moment it is imported is refused (it would stay
  ``latest()`` over every live capture made after it, and lend its validators);
* HTTP: the status line must be ``HTTP/x.y NNN`` with NNN in 100-599; a body whose
  ``Content-Encoding`` does not decode is refused, naming the coding;
* pressmark records: the envelope, sourceRef, body hash and ``WARC-Target-URI``
  must all agree.

A snapshot imported from another tool's record carries the note ``import-foreign``:
the fetch layer never sends its validators (its body was not seen with that ETag).

A pressmark ``revisit`` (a segment store's record of a body it already held) is restored
with the body of the record its ``WARC-Pressmark-Payload-Ref`` names, which the archive
holds before it (or the store already does), checked against its body hash. Records of
other types (request, metadata, other revisits, warcinfo, pressmark's own redirect hops)
are skipped and counted by type. warcio's own complaints, which it
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
from datetime import UTC, datetime
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
    source_id_for_url,
)
from pressmark.snapshot._model import snapshot_from_envelope
from pressmark.store._errors import StoreError
from pressmark.store._protocol import MAX_BODY_BYTES, MAX_RECORD_BYTES, SnapshotStore
from pressmark.store._warc_read import (
    MAX_HTTP_HEAD_BYTES,
    MAX_HTTP_HEAD_LINES,
    FramingError,
    HeadTooLarge,
    body_pieces,
    bounded_loader,
    bounded_reader,
    head_problem,
)
from pressmark.store._warc_records import (
    BODY_HEADER,
    ENVELOPE_JSON_HEADER,
    PAYLOAD_REF_HEADER,
)

ENVELOPE_HEADER = "WARC-Pressmark-Envelope"
REF_HEADER = "WARC-Pressmark-Source-Ref"
HOP_HEADER = "WARC-Pressmark-Redirect-Hop"
_FRAMING = frozenset({"content-encoding", "transfer-encoding", "content-length"})
_STATUS_LINE = re.compile(r"HTTP/[0-9](?:\.[0-9])?\Z")
_IMPORTED_TYPES = frozenset({"response", "resource", "conversion"})
_NON_WEB_SCHEMES = frozenset({"metadata", "dns"})
_SHOWN = 80
_MESSAGE = 240
_MAX_NOTES = 1000
FOREIGN_NOTE = "import-foreign"
"""The note on a snapshot imported from another tool's record (see the module docstring)."""
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
                iterator.loader = bounded_loader()
                iterator.reader = bounded_reader(iterator.fh)  # before the first read
                records = iter(iterator)
                while True:
                    try:
                        record = next(records)
                    except StopIteration:
                        break
                    number += 1
                    _relay(chatter, number, warnings)
                    notes: list[str] = []
                    snapshot: Snapshot | None
                    try:
                        if record.rec_headers.get_header(PAYLOAD_REF_HEADER):
                            snapshot = _pressmark_revisit(store, iterator, record, number)
                        else:
                            snapshot = _read_record(iterator, record, number, foreign,
                                                    skipped, notes)
                    except _Refused as exc:
                        _note(errors, f"record {number}: {exc}")
                    else:
                        if snapshot is not None:
                            refs.append(store.put(snapshot).source_ref)
                            for note in notes:
                                _note(warnings, f"record {number}: {note}")
                    iterator.read_to_end()  # idempotent: where this record ends
                    end = iterator.offset
                    _relay(chatter, number, warnings)
            if number and size is not None and end < size:
                raise _Stop(f"the archive is truncated or has trailing bytes after record "
                            f"{number} (byte {end} of {size})")
        except _Stop as exc:
            errors.append(str(exc))
        except HeadTooLarge as exc:
            errors.append(f"record {number + 1}: {exc}; import stopped")
        except (InvalidSnapshot, InvalidSourceRef, StoreError) as exc:
            errors.append(f"record {number}: {exc.message[:_MESSAGE]}")
        except Exception as exc:  # warcio raises plain exceptions on broken archives
            errors.append(f"the archive is unreadable at record {number + 1}: "
                          f"{_one_line(str(exc)[:_MESSAGE]) or type(exc).__name__}")
        finally:
            _relay(chatter, number, warnings)
        if not number and not errors:  # warcio yields nothing for empty or non-WARC input
            errors.append("the archive holds no WARC records")
    return WarcImportReport(
        imported=len(refs), skipped=sum(skipped.values()), source_refs=tuple(refs),
        errors=tuple(errors), warnings=tuple(warnings),
        skipped_by_type=tuple(sorted(skipped.items())))


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
                _note(warnings, f"record {number}: warcio: {_one_line(line[:_MESSAGE])[:200]}")


def _note(notes: list[str], text: str) -> None:
    """Append a report line; past :data:`_MAX_NOTES` lines only the last one counts them."""
    if len(notes) < _MAX_NOTES:
        notes.append(text)
    elif len(notes) == _MAX_NOTES:
        notes.append("... further lines left out")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _read_record(iterator: Any, record: Any, number: int, foreign: bool,  # noqa: PLR0917
                 skipped: Counter[str], notes: list[str]) -> Snapshot | None:
    rec_type = str(record.rec_type or "unknown")
    headers = record.rec_headers
    if rec_type not in _IMPORTED_TYPES:
        skipped[rec_type] += 1
        return None
    if headers.get_header(HOP_HEADER):
        skipped[f"{rec_type} (redirect hop)"] += 1  # part of the final snapshot's envelope
        return None
    envelope = headers.get_header(ENVELOPE_HEADER) or headers.get_header(ENVELOPE_JSON_HEADER)
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
    declared = None
    if rec_type == "response" and http is None:
        raise _Refused("the response record holds no HTTP response head")
    if http is not None:
        problem = head_problem(http)
        if problem is not None:
            raise _Refused(f"{problem} (the live limits: {MAX_HTTP_HEAD_BYTES} bytes, "
                           f"{MAX_HTTP_HEAD_LINES} lines)")
        _check_status(http)
        coding = http.get_header("Content-Encoding")
        chunked = "chunked" in (http.get_header("Transfer-Encoding") or "").lower()
        length_header = (http.get_header("Content-Length") or "").strip()
        declared = int(length_header) if length_header.isdigit() and len(
            length_header) <= 18 else None
    else:
        chunked = False
    body = _payload(record, coding=coding if not envelope else None, chunked=chunked,
                    declared=declared, notes=notes)
    _check_whole(iterator, record, number)
    if envelope:
        return _pressmark_snapshot(record, envelope, body, uri)
    assert target is not None
    return _foreign_snapshot(record, rec_type, body, target, http, notes)


def _check_status(http: Any) -> None:
    protocol = str(http.protocol or "")
    line = str(http.statusline or "").strip()
    code, _, _ = line.partition(" ")
    shown = f"{protocol} {line}".strip()[:_SHOWN]
    if not _STATUS_LINE.fullmatch(protocol) or not (
            len(code) == 3 and code.isdigit() and 100 <= int(code) <= 599):
        raise _Refused(f"HTTP status line {shown!r} is not valid (want 'HTTP/x.y NNN', "
                       "NNN from 100 to 599)")


def _payload(record: Any, *, coding: str | None, chunked: bool, declared: int | None,
             notes: list[str]) -> bytes:
    """The HTTP body, dechunked and decoded, read in pieces and capped while inflating.

    Collected in a ``BytesIO``, whose ``getvalue()`` hands its buffer over: the body is
    held once, not once in pieces and again joined.
    """
    chain = decoders_for(coding)
    if chain is None and coding and coding.strip().lower() not in ("identity", ""):
        raise _Refused(f"the body's Content-Encoding {coding[:_SHOWN]!r} is not one "
                       "pressmark can decode")
    out = io.BytesIO()
    raw = body_pieces(record.raw_stream, chunked=chunked, declared=declared, notes=notes)
    try:
        while True:
            try:
                data = next(raw, b"")
            except (ValueError, OSError) as exc:  # warcio: zlib errors under the record
                raise _Refused(f"the record's body cannot be read ({_one_line(str(exc))[:100]}"
                               ")") from exc
            pieces = (run_chain(chain, data, final=not data) if chain is not None
                      else iter((data,)) if data else iter(()))
            for piece in pieces:
                if out.tell() + len(piece) > MAX_BODY_BYTES:
                    raise _Refused(f"the body exceeds the {MAX_BODY_BYTES}-byte limit "
                                   "once decoded (a compression bomb?)")
                out.write(piece)
            if not data:
                break
    except FramingError as exc:
        raise _Refused(f"the body's chunked framing is broken: {exc}") from exc
    except DecodeError as exc:
        raise _Refused(f"the body does not decode as its Content-Encoding {coding!r} says "
                       f"({exc})") from exc
    except ResponseTooLarge as exc:
        raise _Refused(exc.message) from exc
    return out.getvalue()


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


def _pressmark_revisit(store: SnapshotStore, iterator: Any, record: Any,
                       number: int) -> Snapshot:
    """A revisit a segment store wrote: its body is the record its payload ref names,
    which an earlier record of the same archive (or the store already) holds."""
    headers = record.rec_headers
    envelope = headers.get_header(ENVELOPE_JSON_HEADER)
    if not envelope:
        raise _Refused("the revisit record names a payload but holds no pressmark envelope")
    _check_whole(iterator, record, number)
    try:
        ref = parse_source_ref(str(headers.get_header(PAYLOAD_REF_HEADER)))
        body = store.get(ref.source_id, ref.snapshot_sha256).bytes
    except InvalidSourceRef as exc:
        raise _Refused(f"the revisit's payload reference is invalid ({exc.message})") from exc
    except StoreError as exc:
        raise _Refused("the record a revisit refers to is not in the archive before it, nor "
                       f"in the store ({exc.code})") from exc
    if hashlib.sha256(body).hexdigest() != headers.get_header(BODY_HEADER):
        raise _Refused("the revisit's payload record holds another body")
    return _pressmark_snapshot(record, envelope, body,
                               headers.get_header("WARC-Target-URI") or "")


def _pressmark_snapshot(record: Any, encoded: str, payload: bytes, uri: str) -> Snapshot:
    """The snapshot a pressmark record holds; ``encoded`` is its envelope (base64 in
    ``WARC-Pressmark-Envelope`` or JSON in ``WARC-Pressmark-Envelope-JSON``)."""
    headers = record.rec_headers
    try:
        plain = not headers.get_header(ENVELOPE_HEADER)
        envelope = json.loads(encoded.encode("ascii") if plain
                              else base64.urlsafe_b64decode(encoded.encode("ascii")))
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
    _own_url(snapshot.url, "URL")
    _own_url(snapshot.requested_url, "requested URL")
    for hop in snapshot.redirects:
        if hop.url:
            _own_url(hop.url, "redirect hop URL")
    _check_headers(snapshot.headers)
    _not_after_now(datetime.fromisoformat(snapshot.fetched_at.replace("Z", "+00:00")),
                   snapshot.fetched_at)
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


def _foreign_snapshot(record: Any, rec_type: str, payload: bytes,  # noqa: PLR0917
                      target: tuple[str, bool], http: Any, framing: list[str]) -> Snapshot:
    headers = record.rec_headers
    url, stripped = target
    when = headers.get_header("WARC-Date") or ""
    try:
        fetched = datetime.fromisoformat(when.replace("Z", "+00:00"))
    except ValueError as exc:
        raise _Refused(f"the record has no valid WARC-Date ({when[:40]!r})") from exc
    if fetched.tzinfo is None:
        raise _Refused(f"the record's WARC-Date has no time zone ({when[:40]!r})")
    _not_after_now(fetched, when)
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
    _check_headers(wire)
    notes.extend(framing)
    notes.append(f"{FOREIGN_NOTE}: captured by another tool and imported from a WARC "
                 "archive; its validators are never sent")
    try:
        return new_snapshot(source_id=source_id_for_url(url), requested_url=url, url=url,
                            status=status, headers=wire, body=payload, fetched_at=fetched,
                            peer_ip=headers.get_header("WARC-IP-Address") or None,
                            warnings=notes)
    except InvalidSnapshot as exc:
        raise _Refused(exc.message) from exc


def _not_after_now(fetched: datetime, shown: str) -> None:
    """A capture dated after its import would stay ``latest()`` over every live capture
    made after it (and lend its forged validators): refused, never clamped."""
    if fetched > datetime.now(UTC):
        raise _Refused(f"the record is dated {shown[:40]!r}, after the time of this import")


def _check_headers(headers: list[tuple[str, str]] | tuple[tuple[str, str], ...]) -> None:
    """An imported snapshot's headers are held to the live limits (egress's head caps)."""
    size = sum(len(name) + len(value) + 4 for name, value in headers)
    if len(headers) > MAX_HTTP_HEAD_LINES - 1 or size > MAX_HTTP_HEAD_BYTES:
        raise _Refused(f"the snapshot's headers ({len(headers)}, {size} bytes) exceed the live "
                       f"limits ({MAX_HTTP_HEAD_LINES - 1} headers, {MAX_HTTP_HEAD_BYTES} bytes)")


def _own_url(url: str, what: str) -> None:
    """A URL of a pressmark record, through the one URL model: http(s), no user info."""
    try:
        _, stripped = web_url(url)
    except _Refused as exc:
        raise _Refused(f"the pressmark envelope's {what} is refused: {exc}") from None
    if stripped:
        raise _Refused(f"the pressmark envelope's {what} carries user info")


def iter_warnings(report: WarcImportReport) -> Iterator[str]:
    """Human lines for the warnings and skip counts of a report (CLI output)."""
    yield from report.warnings
    for kind, count in report.skipped_by_type:
        yield f"skipped {count} {kind} record(s)"
