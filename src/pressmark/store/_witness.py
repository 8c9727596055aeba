"""Verified source-head witnesses of the filesystem store (opt-in, additive).

``read_verified_head`` is one fenced operation: fingerprint the source's
metadata (record names, capacity slots and what they name, identity and body
entries, HEAD), authenticate the head record in full, fingerprint again, and succeed only
if nothing moved. It refuses state that is not settled (temporary files, slots
or identity entries naming no record, records without them, a HEAD that is not
the newest record) instead of attesting to it. The result carries the exact head
reference and an opaque token.

``compare_head_witness`` later re-reads only metadata, never a body, and reports

* ``matches``: same physical source, same fingerprint;
* ``changed``: the source was written or pruned since;
* ``missing``: the source no longer exists or holds no record;
* ``unavailable``: the metadata could not be read (I/O error);
* ``corrupt``: the metadata is malformed;
* ``unsupported``: the token is not one we issue, or names another physical store
  (a copy or restore has other inode numbers, which invalidates the token).

The token attests to metadata and to the head's authentication at capture time;
it is not a bit-rot detector, nor proof against someone who can rewrite every
file of the store.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pressmark.snapshot import build_source_ref
from pressmark.store._errors import (
    SnapshotCorrupt,
    SnapshotNotFound,
    SnapshotStoreError,
    StoreError,
)
from pressmark.store._fsio import TEMP_PREFIX, read_symlink
from pressmark.store._protocol import MAX_HISTORY_FILES, MAX_RECORD_BYTES
from pressmark.store._records import parse_record_name, read_record

if TYPE_CHECKING:
    from pressmark.store._filesystem import FilesystemSnapshotStore
    from pressmark.store._sourcedir import SourceState

TOKEN_PREFIX = "pressmark.source-head-witness/v1."
WitnessStatus = Literal["matches", "changed", "missing", "unavailable", "corrupt", "unsupported"]
MAX_INDEX_BYTES = 8 * 1024 * 1024
_IGNORED = frozenset({"source.lock", "source.lock.breaker"})


@dataclass(frozen=True, slots=True, kw_only=True)
class HeadWitness:
    """The verified head of one source at one moment, and a token to compare later."""

    source_id: str
    source_ref: str
    snapshot_sha256: str
    fetched_at: str
    token: str


class _Unsettled(SnapshotStoreError):
    pass


def _fingerprint(
    store: FilesystemSnapshotStore, state: SourceState, max_entries: int, max_index_bytes: int
) -> tuple[str, str | None]:
    """(digest of the settled metadata, head record name); raises when not settled."""
    entries = sorted(e for e in store.entries(state) if e not in _IGNORED)
    if len(entries) > 4 * max_entries + 3:  # record, slot, identity and body entries
        raise SnapshotStoreError("source exceeds the witness entry limit")
    records = [e for e in entries if parse_record_name(e) is not None]
    digest = hashlib.sha256()
    index_bytes = 0
    slotted: set[str] = set()
    indexed: set[str] = set()
    bodies: set[str] = set()
    for entry in entries:
        if entry.startswith(TEMP_PREFIX):
            raise _Unsettled("source has a write in flight or interrupted")
        if entry.startswith("slot."):
            named = store.read_slot(state, entry) or ""
            if named in slotted or parse_record_name(named) is None:
                raise _Unsettled("source has a capacity slot naming no record")
            slotted.add(named)
            value = named
        elif entry.startswith("id."):
            value = read_symlink(state.file(entry)) or ""
            named = value.rpartition("|")[2]
            if parse_record_name(named) is None or named[25:89] != entry[3:]:
                raise SnapshotCorrupt("identity index entry is malformed")
            indexed.add(named)
        elif entry.startswith("body."):
            value = read_symlink(state.file(entry)) or ""
            if parse_record_name(value) is None:
                raise SnapshotCorrupt("body index entry is malformed")
            bodies.add(value)
        elif entry == "HEAD":
            value = read_symlink(state.file(entry)) or ""
        else:
            value = ""
        index_bytes += len(entry) + len(value)
        if index_bytes > max_index_bytes:
            raise SnapshotStoreError("source exceeds the witness index-bytes limit")
        digest.update(f"{entry}\0{value}\n".encode())
    if slotted != set(records) or indexed != set(records) or not bodies <= set(records):
        raise _Unsettled("source has reservations or records outside the index")
    head = read_symlink(state.file("HEAD"))
    if records and head != records[-1]:
        raise _Unsettled("HEAD does not name the newest record")
    return digest.hexdigest(), (records[-1] if records else None)


def read_verified_head(
    store: FilesystemSnapshotStore,
    source_id: str,
    *,
    max_entries: int = MAX_HISTORY_FILES,
    max_index_bytes: int = MAX_INDEX_BYTES,
    max_verified_body_bytes: int = MAX_RECORD_BYTES,
) -> HeadWitness:
    if not (0 < max_entries <= MAX_HISTORY_FILES and 0 < max_index_bytes <= MAX_INDEX_BYTES
            and 0 < max_verified_body_bytes <= MAX_RECORD_BYTES):
        raise ValueError("witness limits can only be lowered")
    state = store.source_state(source_id, create=False)
    if state is None:
        raise SnapshotNotFound("no such source")
    try:
        before, head = _fingerprint(store, state, max_entries, max_index_bytes)
        if head is None:
            raise SnapshotNotFound("source holds no snapshot")
        if Path(state.file(head)).stat().st_size > max_verified_body_bytes:
            raise SnapshotStoreError("head record exceeds the witness byte limit")
        snapshot = read_record(state.file(head), head, source_id)
        after, _ = _fingerprint(store, state, max_entries, max_index_bytes)
        ident = Path(state.dir).stat()
    except FileNotFoundError as exc:
        raise SnapshotStoreError("source changed during the fenced read") from exc
    except OSError as exc:
        raise SnapshotStoreError("could not read the source") from exc
    if before != after:
        raise SnapshotStoreError("source changed during the fenced read")
    payload = {"k": Path(state.dir).name, "h": head, "f": before,
               "d": ident.st_dev, "i": ident.st_ino}
    token = TOKEN_PREFIX + base64.urlsafe_b64encode(
        json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    ).decode("ascii").rstrip("=")
    return HeadWitness(source_id=source_id, source_ref=build_source_ref(snapshot),
                       snapshot_sha256=snapshot.snapshot_sha256,
                       fetched_at=snapshot.fetched_at, token=token)


def compare_head_witness(
    store: FilesystemSnapshotStore, witness: HeadWitness | str
) -> WitnessStatus:
    token = witness.token if isinstance(witness, HeadWitness) else witness
    try:
        if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX):
            return "unsupported"
        raw = token[len(TOKEN_PREFIX) :]
        payload = json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))
        key, fingerprint = str(payload["k"]), str(payload["f"])
        device, inode = int(payload["d"]), int(payload["i"])
    except (ValueError, KeyError, TypeError, RecursionError):
        return "unsupported"
    try:
        state = store.state_for_key(key) if len(key) == 64 else None
        if state is None:
            return "missing"
        ident = Path(state.dir).stat()
        if (ident.st_dev, ident.st_ino) != (device, inode):
            return "unsupported"
        current, head = _fingerprint(store, state, MAX_HISTORY_FILES, MAX_INDEX_BYTES)
    except _Unsettled:
        return "changed"
    except SnapshotCorrupt:
        return "corrupt"
    except FileNotFoundError:
        return "missing"
    except (OSError, StoreError):
        return "unavailable"
    if head is None:
        return "missing"
    return "matches" if current == fingerprint else "changed"
