"""On-disk record framing and names of the filesystem store.

A record is one immutable file::

    b"PMSNAP1 <header_len> <body_len>\\n" + header + body

where ``header`` is the snapshot's canonical envelope JSON (so its SHA-256 *is*
``snapshot_sha256``) and ``body`` the raw bytes: no base64, no JSON escaping of
the body. Reading verifies the framing, the envelope digest against the name,
the source id against the directory, and (for full reads) the body hash.

Record names are ``<fetched_at>_<snapshot_sha256>.rec``: string order is time
order, which is what lets ``latest()`` avoid reading history.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from typing import Any, BinaryIO

from pressmark.snapshot import InvalidSnapshot, Snapshot
from pressmark.snapshot._model import (
    canonical_json,
    envelope_json,
    mark_verified,
    snapshot_from_envelope,
)
from pressmark.store._errors import SnapshotCorrupt, SnapshotStoreError, SnapshotTooLarge
from pressmark.store._fsio import NotRegularFile, open_regular
from pressmark.store._protocol import MAX_BODY_BYTES, MAX_RECORD_BYTES

MAGIC = b"PMSNAP1 "
_FIRST_LINE_MAX = 64
RECORD_NAME = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z)_([0-9a-f]{64})\.rec\Z"
)


def record_name(fetched_at: str, snapshot_sha256: str) -> str:
    return f"{fetched_at}_{snapshot_sha256}.rec"


def parse_record_name(name: str) -> tuple[str, str] | None:
    """(fetched_at, snapshot_sha256) of a well-formed record name, else None."""
    match = RECORD_NAME.match(name)
    return (match.group(1), match.group(2)) if match else None


def encode_record(snapshot: Snapshot) -> tuple[bytes, bytes, str]:
    """(first line + header, body, snapshot_sha256); raises SnapshotTooLarge."""
    body = snapshot.bytes
    if len(body) > MAX_BODY_BYTES:
        raise SnapshotTooLarge("snapshot body exceeds 64 MiB")
    header = envelope_json(snapshot)
    digest = hashlib.sha256(header).hexdigest()
    cached = snapshot._digest  # the digest cache of this very envelope
    if not cached:  # spare snapshot_sha256 a rerun
        object.__setattr__(snapshot, "_digest", digest)
    elif cached != digest:  # only object.__setattr__ from outside could do this
        raise InvalidSnapshot("snapshot digest cache disagrees with its envelope")
    head = MAGIC + f"{len(header)} {len(body)}\n".encode("ascii") + header
    if len(head) + len(body) > MAX_RECORD_BYTES:
        raise SnapshotTooLarge("snapshot record exceeds 96 MiB")
    return head, body, digest


def _split_first_line(data: bytes) -> tuple[int, int, int]:
    """(header_len, body_len, offset of the header) from a record's first line."""
    end = data.find(b"\n", 0, _FIRST_LINE_MAX)
    if end < 0 or not data.startswith(MAGIC):
        raise SnapshotCorrupt("snapshot record has no valid framing")
    fields = data[len(MAGIC) : end].split(b" ")
    if len(fields) != 2 or not all(f.isdigit() and len(f) <= 10 for f in fields):
        raise SnapshotCorrupt("snapshot record has no valid framing")
    return int(fields[0]), int(fields[1]), end + 1


def _envelope(header: bytes) -> dict[str, Any]:
    try:
        envelope = json.loads(header)
    except (ValueError, RecursionError) as exc:  # nesting deeper than Python's stack
        raise SnapshotCorrupt("snapshot record header is not valid JSON") from exc
    if not isinstance(envelope, dict):
        raise SnapshotCorrupt("snapshot record header is not an object")
    return envelope


def _check_identity(
    envelope: dict[str, Any], header: bytes, name: str, source_id: str
) -> str:
    parsed = parse_record_name(name)
    digest = hashlib.sha256(header).hexdigest()
    if parsed is None or parsed[1] != digest:
        raise SnapshotCorrupt("snapshot record does not match its envelope digest")
    if envelope.get("source_id") != source_id:
        raise SnapshotCorrupt("snapshot record belongs to a different source")
    if envelope.get("fetched_at") != parsed[0]:
        raise SnapshotCorrupt("snapshot record timestamp does not match its name")
    return digest


def _open(path: str) -> BinaryIO:
    """Open a record as a regular file only: a planted symlink, FIFO or directory is a
    corrupt record, not a path to follow or an ``open()`` that never returns."""
    try:
        fd = open_regular(path)
    except NotRegularFile:
        raise SnapshotCorrupt("snapshot record is not a regular file") from None
    return os.fdopen(fd, "rb")


def read_record(path: str, name: str, source_id: str) -> Snapshot:
    """Read and fully verify one record. FileNotFoundError passes through (a race)."""
    try:
        with _open(path) as fh:
            data = fh.read(MAX_RECORD_BYTES + 1)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise SnapshotStoreError("could not read a snapshot record") from exc
    header_len, body_len, start = _split_first_line(data)
    if start + header_len + body_len != len(data):
        raise SnapshotCorrupt("snapshot record is truncated or has trailing bytes")
    header = data[start : start + header_len]
    body = data[start + header_len :]
    envelope = _envelope(header)
    digest = _check_identity(envelope, header, name, source_id)
    if hashlib.sha256(body).hexdigest() != envelope.get("body_hash"):
        raise SnapshotCorrupt("snapshot body does not match its hash")
    try:
        snapshot = snapshot_from_envelope(envelope, body)
    except InvalidSnapshot as exc:
        raise SnapshotCorrupt("snapshot record envelope is invalid") from exc
    if canonical_json(envelope) != header:
        raise SnapshotCorrupt("snapshot record header is not canonical")
    object.__setattr__(snapshot, "_digest", digest)
    mark_verified(snapshot)  # framing, identity, body hash and invariants all checked above
    return snapshot


def read_record_header(path: str, name: str, source_id: str) -> dict[str, Any]:
    """Read and authenticate a record's envelope without reading its body."""
    try:
        with _open(path) as fh:
            first = fh.read(_FIRST_LINE_MAX)
            header_len, body_len, start = _split_first_line(first)
            fh.seek(start)
            header = fh.read(header_len)
            size = fh.seek(0, 2)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise SnapshotStoreError("could not read a snapshot record") from exc
    if len(header) != header_len or size != start + header_len + body_len:
        raise SnapshotCorrupt("snapshot record is truncated or has trailing bytes")
    envelope = _envelope(header)
    _check_identity(envelope, header, name, source_id)
    if envelope.get("body_length") != body_len or not isinstance(envelope.get("body_hash"), str):
        raise SnapshotCorrupt("snapshot record framing disagrees with its envelope")
    return envelope
