"""Immutable snapshots, their canonical digests, and citable sourceRefs.

``Snapshot`` keeps the exact fetched bytes and how to read them; ``new_snapshot``
builds one with every derived field filled in; ``build_source_ref`` /
``parse_source_ref`` are exact inverses; ``resolve_source_ref`` replays a
reference from any store, exactly or with a typed error. The stores themselves
live in :mod:`pressmark.store`.

The charset decision loads with the package; the snapshot model, sourceRefs, replay
and the errors they raise load on first use, so ``pressmark md``, which only decodes
local files the way a snapshot would, does not pay for hashing and the envelope
format at start-up.
"""

from __future__ import annotations

from pressmark._lazy import lazy_exports
from pressmark.snapshot._charset import decide_charset, decode_text_body, text_encoding

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from pressmark.snapshot._errors import InvalidSnapshot, InvalidSourceRef, SnapshotError
    from pressmark.snapshot._kind import classify_content_type
    from pressmark.snapshot._model import RedirectRecord, Snapshot, new_snapshot, source_id_for_url
    from pressmark.snapshot._replay import resolve_source_ref
    from pressmark.snapshot._source_ref import build_source_ref, parse_source_ref

_LAZY: dict[str, str] = {
    **dict.fromkeys(("InvalidSnapshot", "InvalidSourceRef", "SnapshotError"),
                    "pressmark.snapshot._errors"),
    "classify_content_type": "pressmark.snapshot._kind",
    **dict.fromkeys(("RedirectRecord", "Snapshot", "new_snapshot", "source_id_for_url"),
                    "pressmark.snapshot._model"),
    "resolve_source_ref": "pressmark.snapshot._replay",
    **dict.fromkeys(("build_source_ref", "parse_source_ref"), "pressmark.snapshot._source_ref"),
}

__all__ = [
    "InvalidSnapshot",
    "InvalidSourceRef",
    "RedirectRecord",
    "Snapshot",
    "SnapshotError",
    "build_source_ref",
    "classify_content_type",
    "decide_charset",
    "decode_text_body",
    "new_snapshot",
    "parse_source_ref",
    "resolve_source_ref",
    "source_id_for_url",
    "text_encoding",
]


__getattr__ = lazy_exports(__name__, _LAZY, globals())
