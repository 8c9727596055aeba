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

from typing import TYPE_CHECKING

from pressmark._lazy import lazy_exports
from pressmark.snapshot._charset import (
    CharsetDecision,
    CharsetSource,
    DecodedText,
    decide_charset,
    decode_text_body,
    header_charset,
    sniff_charset,
    text_encoding,
)
from pressmark.snapshot._labels import lookup_encoding
from pressmark.snapshot._prescan import prescan_meta_charset

if TYPE_CHECKING:
    from pressmark.snapshot._errors import InvalidSnapshot, InvalidSourceRef, SnapshotError
    from pressmark.snapshot._kind import ContentKind, classify_content_type
    from pressmark.snapshot._model import (
        HashBasis,
        RedirectRecord,
        Snapshot,
        canonical_json,
        new_snapshot,
        snapshot_envelope,
        snapshot_from_envelope,
        source_id_for_url,
    )
    from pressmark.snapshot._replay import ReplayError, ReplayResult, resolve_source_ref
    from pressmark.snapshot._source_ref import SourceRef, build_source_ref, parse_source_ref
    from pressmark.snapshot._time import is_canonical_timestamp, utc_now_iso

_LAZY: dict[str, str] = {
    **dict.fromkeys(("InvalidSnapshot", "InvalidSourceRef", "SnapshotError"),
                    "pressmark.snapshot._errors"),
    **dict.fromkeys(("ContentKind", "classify_content_type"), "pressmark.snapshot._kind"),
    **dict.fromkeys(("HashBasis", "RedirectRecord", "Snapshot", "canonical_json",
                     "new_snapshot", "snapshot_envelope", "snapshot_from_envelope",
                     "source_id_for_url"), "pressmark.snapshot._model"),
    **dict.fromkeys(("ReplayError", "ReplayResult", "resolve_source_ref"),
                    "pressmark.snapshot._replay"),
    **dict.fromkeys(("SourceRef", "build_source_ref", "parse_source_ref"),
                    "pressmark.snapshot._source_ref"),
    **dict.fromkeys(("is_canonical_timestamp", "utc_now_iso"), "pressmark.snapshot._time"),
}

__all__ = [
    "CharsetDecision",
    "CharsetSource",
    "ContentKind",
    "DecodedText",
    "HashBasis",
    "InvalidSnapshot",
    "InvalidSourceRef",
    "RedirectRecord",
    "ReplayError",
    "ReplayResult",
    "Snapshot",
    "SnapshotError",
    "SourceRef",
    "build_source_ref",
    "canonical_json",
    "classify_content_type",
    "decide_charset",
    "decode_text_body",
    "header_charset",
    "is_canonical_timestamp",
    "lookup_encoding",
    "new_snapshot",
    "parse_source_ref",
    "prescan_meta_charset",
    "resolve_source_ref",
    "snapshot_envelope",
    "snapshot_from_envelope",
    "sniff_charset",
    "source_id_for_url",
    "text_encoding",
    "utc_now_iso",
]


__getattr__ = lazy_exports(__name__, _LAZY, globals())
