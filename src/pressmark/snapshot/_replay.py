"""Resolve a sourceRef to the exact snapshot it names, or a typed reason why not.

Resolution never returns a near match: the store must produce a snapshot whose
envelope digest *and* body hash are the ones the reference commits to, and whose
source id, URL and timestamp agree with it. Errors are data here (a reviewer
clicking a dead citation is an ordinary outcome), with the codes

* ``invalid-ref``: the string is not a current sourceRef;
* ``not-found``: the store has no such snapshot (or the reference's fields do not
  match the snapshot its digest names);
* ``snapshot-corrupt``: the store holds the snapshot but it fails verification;
* ``snapshot-store-error``: the store could not be read (I/O, races, busy).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal, Protocol

from pressmark._errors import PressmarkError
from pressmark.snapshot._errors import InvalidSourceRef
from pressmark.snapshot._model import Snapshot, envelope_digest, snapshot_envelope
from pressmark.snapshot._source_ref import SourceRef, parse_source_ref

ReplayErrorCode = Literal["invalid-ref", "not-found", "snapshot-corrupt", "snapshot-store-error"]


class _Getter(Protocol):
    def get(self, source_id: str, digest: str) -> Snapshot: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayFailure:
    """Why a reference did not resolve. ``message`` is safe to show (no paths, no contents)."""

    code: ReplayErrorCode
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayResult:
    """The outcome of :func:`resolve_source_ref`: exactly one of ``snapshot`` or ``error``."""

    ref: SourceRef | None
    snapshot: Snapshot | None = None
    error: ReplayFailure | None = None

    @property
    def ok(self) -> bool:
        return self.snapshot is not None and self.error is None


def resolve_source_ref(store: _Getter, ref: str) -> ReplayResult:
    """Resolve ``ref`` against ``store`` (any object with ``get(source_id, digest)``)."""
    try:
        parsed = parse_source_ref(ref)
    except InvalidSourceRef as exc:
        return _fail(None, "invalid-ref", exc.message)
    try:
        snapshot = store.get(parsed.source_id, parsed.snapshot_sha256)
    except PressmarkError as exc:
        if exc.code in ("not-found", "snapshot-corrupt"):
            return _fail(parsed, exc.code, exc.message)  # type: ignore[arg-type]
        return _fail(parsed, "snapshot-store-error", exc.message)
    except (OSError, MemoryError) as exc:
        return _fail(parsed, "snapshot-store-error", f"store read failed ({type(exc).__name__})")
    digest = envelope_digest(snapshot_envelope(snapshot))
    if digest != parsed.snapshot_sha256:
        if snapshot.body_hash == parsed.snapshot_sha256:
            # get() also answers body hashes: a reference whose snapshot digest is some
            # stored body's hash names no snapshot; the store is not damaged.
            return _fail(parsed, "not-found", "no snapshot matches every field of the reference")
        return _fail(parsed, "snapshot-corrupt", "store returned a different snapshot")
    if hashlib.sha256(snapshot.bytes).hexdigest() != snapshot.body_hash:
        return _fail(parsed, "snapshot-corrupt", "snapshot body does not match its hash")
    if (
        snapshot.body_hash != parsed.body_hash
        or snapshot.source_id != parsed.source_id
        or snapshot.url != parsed.url
        or snapshot.fetched_at != parsed.fetched_at
    ):
        return _fail(parsed, "not-found", "no snapshot matches every field of the reference")
    return ReplayResult(ref=parsed, snapshot=snapshot)


def _fail(ref: SourceRef | None, code: ReplayErrorCode, message: str) -> ReplayResult:
    return ReplayResult(ref=ref, error=ReplayFailure(code=code, message=message))
