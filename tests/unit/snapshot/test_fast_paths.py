"""The hot path's shortcuts produce exactly what the plain code they replace produces.

Each shortcut (the envelope written without building a dict, percent-encoding in C,
the verified mark that spares put() a second check and hash, the cached clock and
timestamp check) is held here to its reference implementation, byte for byte.
"""

from __future__ import annotations

import dataclasses
import pickle
import re
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.snapshot import InvalidSnapshot, RedirectRecord, Snapshot, new_snapshot
from pressmark.snapshot._model import (
    canonical_json,
    check_snapshot,
    envelope_json,
    snapshot_envelope,
)
from pressmark.snapshot._source_ref import quote_all, quoted_length
from pressmark.snapshot._time import format_timestamp, is_canonical_timestamp, utc_now_iso
from pressmark.store import MemorySnapshotStore
from pressmark.testing import make_snapshot

ANY_TEXT = st.text(st.characters(), max_size=40)  # surrogates, controls, non-BMP included
HEX = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
ODD = st.one_of(st.none(), st.booleans(), st.integers(-5, 1000), ANY_TEXT, st.floats(0, 1))


@st.composite
def snapshots(draw: st.DrawFn) -> Snapshot:
    """Snapshots as __init__ accepts them, including values no constructor would make."""
    hops = draw(st.lists(st.builds(
        RedirectRecord, status=st.one_of(st.integers(300, 399), st.just(True)),
        location=ANY_TEXT, ip=st.one_of(st.none(), ANY_TEXT),
        url=st.one_of(st.none(), ANY_TEXT), fetched_at=st.one_of(st.none(), ANY_TEXT)),
        max_size=3))
    pairs = st.lists(st.tuples(ANY_TEXT, ANY_TEXT), max_size=3).map(tuple)
    return Snapshot(
        source_id=draw(ANY_TEXT), requested_url=draw(ANY_TEXT), url=draw(ANY_TEXT),
        status=draw(st.one_of(st.integers(0, 999), st.just(False))),
        headers=tuple(draw(st.lists(st.tuples(ANY_TEXT, ANY_TEXT), max_size=6))),
        redirects=tuple(hops), fetched_at=draw(ANY_TEXT),
        content_type=draw(st.sampled_from(["html", "xml", "json", "text", "binary"])),
        bytes=draw(st.binary(max_size=64)),
        declared_charset=draw(st.one_of(st.none(), ANY_TEXT)),
        charset_source=draw(st.sampled_from(["header", "meta", "bom", "default"])),
        body_hash=draw(HEX), hash_basis=draw(st.sampled_from(["bytes", "decoded-utf8"])),
        rendered=draw(st.one_of(st.booleans(), st.just(1))),  # type: ignore[arg-type]  # int, not bool: a JSON edge
        not_modified=draw(st.one_of(st.booleans(), st.just(0))),  # type: ignore[arg-type]  # same
        etag=draw(st.one_of(st.none(), ANY_TEXT)),
        last_modified=draw(st.one_of(st.none(), ANY_TEXT)),
        warnings=tuple(draw(st.lists(ANY_TEXT, max_size=3))),
        peer_ip=draw(st.one_of(st.none(), ANY_TEXT)),
        request_headers=draw(pairs), render_info=draw(pairs),
    )


@settings(deadline=None, max_examples=400)
@given(snapshots())
def test_envelope_json_is_canonical_json_of_the_envelope(snapshot: Snapshot) -> None:
    assert envelope_json(snapshot) == canonical_json(snapshot_envelope(snapshot))


@settings(deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["headers", "warnings"]), ODD), max_size=3))
def test_envelope_json_falls_back_for_values_of_other_types(edits: list[tuple[str, object]],
                                                            ) -> None:
    snap = make_snapshot("s", "http://a.test/", b"x", fetched_at="2026-11-30T12:00:00.000Z")
    for name, value in edits:
        pairs = (("x", value),) if name == "headers" else (value,)
        snap = dataclasses.replace(snap, **{name: pairs})
    try:
        expected: bytes | type[Exception] = canonical_json(snapshot_envelope(snap))
    except (TypeError, ValueError) as exc:
        expected = type(exc)
    try:
        got: bytes | type[Exception] = envelope_json(snap)
    except (TypeError, ValueError) as exc:
        got = type(exc)
    assert got == expected


@settings(deadline=None, max_examples=500)
@given(st.text(st.characters(), max_size=60))
def test_quote_all_is_urllib_quote_with_nothing_safe(text: str) -> None:
    try:
        expected = quote(text, safe="")
    except UnicodeEncodeError:
        with pytest.raises(UnicodeEncodeError):
            quote_all(text)
        with pytest.raises(UnicodeEncodeError):
            quoted_length(text)
        return
    assert quote_all(text) == expected
    assert quoted_length(text) == len(expected)


def test_new_snapshots_are_verified_and_copies_are_not() -> None:
    snap = make_snapshot("s", "http://a.test/", b"<p>x</p>")
    assert snap._verified
    assert not dataclasses.replace(snap, url="http://a.test/y")._verified
    again = pickle.loads(pickle.dumps(snap))  # our own bytes
    assert again == snap
    assert not again._verified
    assert again.snapshot_sha256 == snap.snapshot_sha256


def test_put_still_checks_a_snapshot_changed_after_it_was_built() -> None:
    snap = make_snapshot("s", "http://a.test/", b"<p>x</p>")
    store = MemorySnapshotStore()
    with pytest.raises(InvalidSnapshot):
        store.put(dataclasses.replace(snap, bytes=b"<p>tampered</p>"))
    with pytest.raises(InvalidSnapshot):
        check_snapshot(pickle.loads(pickle.dumps(dataclasses.replace(
            snap, fetched_at="yesterday"))))
    assert store.put(snap).snapshot_sha256 == snap.snapshot_sha256


def test_a_wrong_digest_cache_is_refused_by_the_store() -> None:
    snap = make_snapshot("s", "http://a.test/", b"<p>x</p>")
    object.__setattr__(snap, "_digest", "0" * 64)
    with pytest.raises(InvalidSnapshot):
        MemorySnapshotStore().put(snap)


def test_utc_now_iso_is_the_canonical_spelling_of_now() -> None:
    before = datetime.now(UTC)
    stamp = utc_now_iso()
    after = datetime.now(UTC)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", stamp)
    assert format_timestamp(before - timedelta(milliseconds=1)) <= stamp <= format_timestamp(after)


@pytest.mark.parametrize("stamp", ["2026-02-30T00:00:00.000Z", "2026-11-30T12:00:00Z", 7])
def test_the_cached_timestamp_check_still_refuses(stamp: object) -> None:
    assert not is_canonical_timestamp(stamp)
    assert not is_canonical_timestamp(stamp)  # the second answer comes from the cache
    assert is_canonical_timestamp("2026-11-30T12:00:00.000Z")


def test_new_snapshot_takes_the_first_of_repeated_headers() -> None:
    snap = new_snapshot(source_id="s", requested_url="http://a.test/", url="http://a.test/",
                        status=200, body=b"{}",
                        headers=[("ETag", '"a"'), ("etag", '"b"'), ("Content-Type", "text/x"),
                                 ("content-type", "application/json")])
    assert snap.etag == '"a"'
    assert snap.content_type == "text"
    assert snap.headers[0] == ("etag", '"a"')
