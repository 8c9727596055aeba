"""Snapshot, new_snapshot and the canonical envelope digest."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
import sys
from datetime import UTC, datetime

import pytest

from pressmark.snapshot import (
    InvalidSnapshot,
    RedirectRecord,
    Snapshot,
    new_snapshot,
    source_id_for_url,
)
from pressmark.snapshot._model import canonical_json, snapshot_envelope, snapshot_from_envelope
from pressmark.snapshot._time import is_canonical_timestamp, utc_now_iso
from pressmark.testing import make_snapshot

T0 = "2026-11-30T12:00:00.000Z"


def _wire(**overrides: object) -> Snapshot:
    fields: dict[str, object] = {
        "source_id": "src",
        "requested_url": "http://a.test/",
        "url": "http://a.test/home",
        "status": 200,
        "headers": [("Content-Type", "text/html; charset=ISO-8859-1"), ("ETag", '"v1"'),
                    ("Last-Modified", "Mon, 30 Nov 2026 11:00:00 GMT")],
        "body": b"<html><p>caf\xe9</p></html>",
        "fetched_at": T0,
        "redirects": [RedirectRecord(301, "/home", "93.184.216.34")],
    }
    fields.update(overrides)
    return new_snapshot(**fields)  # type: ignore[arg-type]


def test_new_snapshot_derives_every_field() -> None:
    snap = _wire()
    assert snap.headers[0] == ("content-type", "text/html; charset=ISO-8859-1")
    assert snap.content_type == "html"
    assert (snap.declared_charset, snap.charset_source) == ("iso-8859-1", "header")
    assert snap.body == "<html><p>café</p></html>"
    assert snap.body_hash == hashlib.sha256(snap.bytes).hexdigest()
    assert snap.hash_basis == "bytes"
    assert snap.etag == '"v1"'
    assert snap.last_modified == "Mon, 30 Nov 2026 11:00:00 GMT"
    assert snap.redirects == (RedirectRecord(301, "/home", "93.184.216.34"),)
    assert snap.warnings == ()
    assert snap.header("ETAG") == '"v1"'


def test_charset_from_bom_then_meta() -> None:
    bom = _wire(headers={"content-type": "text/html"}, body=b"\xef\xbb\xbf<p>x</p>")
    assert (bom.declared_charset, bom.charset_source) == ("utf-8", "bom")
    assert bom.body == "<p>x</p>"
    assert bom.bytes.startswith(b"\xef\xbb\xbf")
    meta = _wire(headers={"content-type": "text/html"},
                 body=b'<meta charset="windows-1251"><p>\xcf\xf0\xe8</p>')
    assert (meta.declared_charset, meta.charset_source) == ("windows-1251", "meta")
    assert "При" in meta.body


def test_explicit_charset_wins_and_is_lower_cased() -> None:
    snap = _wire(declared_charset="KOI8-R", charset_source="meta")
    assert (snap.declared_charset, snap.charset_source) == ("koi8-r", "meta")


def test_decoding_problems_become_warnings() -> None:
    """An unknown label and bytes invalid in UTF-8 are noted; on an HTML page the
    encoding is then detected (and noted), on other text there is no guessing."""
    snap = _wire(headers={"content-type": "text/plain; charset=bogus"}, body=b"\xff")
    assert any(w.startswith("charset-unknown") for w in snap.warnings)
    assert any(w.startswith("charset-invalid-bytes") for w in snap.warnings)
    page = _wire(headers={"content-type": "text/html; charset=bogus"}, body=b"\xff")
    assert any(w.startswith("charset-unknown") for w in page.warnings)
    assert any(w.startswith("charset-detected") for w in page.warnings)
    assert page.charset_source == "detected"


def test_rendered_snapshot_uses_decoded_utf8_basis_and_no_validators() -> None:
    snap = _wire(rendered=True, body="<p>rendered ✓</p>".encode())
    assert snap.hash_basis == "decoded-utf8"
    assert snap.rendered
    assert snap.content_type == "html"
    assert snap.etag is None and snap.last_modified is None
    assert snap.declared_charset is None
    assert snap.body == "<p>rendered ✓</p>"
    assert snap.body_hash == hashlib.sha256(snap.body.encode()).hexdigest()


def test_rendered_snapshot_with_invalid_utf8_is_repaired_with_a_warning() -> None:
    snap = _wire(rendered=True, body=b"<p>\xff</p>")
    assert snap.bytes == "<p>\ufffd</p>".encode()
    assert any(w.startswith("rendered-invalid-utf8") for w in snap.warnings)


def test_binary_body_is_kept_exactly() -> None:
    data = bytes(range(256))
    snap = _wire(headers={"content-type": "image/png"}, body=data)
    assert snap.content_type == "binary"
    assert snap.bytes == data
    assert snap.warnings == ()


def test_fetched_at_forms() -> None:
    assert is_canonical_timestamp(utc_now_iso())
    moment = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    assert _wire(fetched_at=moment).fetched_at == "2026-01-02T03:04:05.678Z"
    assert is_canonical_timestamp(_wire(fetched_at=None).fetched_at)


@pytest.mark.parametrize(
    "stamp",
    ["2026-11-30T12:00:00Z", "2026-11-30 12:00:00.000Z", "2026-11-30T12:00:00.000+00:00",
     "2026-13-30T12:00:00.000Z", "2026-11-30T12-00-00.000Z", "2026-11-30t12:00:00.000z"],
)
def test_non_canonical_fetched_at_is_rejected(stamp: str) -> None:
    with pytest.raises(InvalidSnapshot) as info:
        _wire(fetched_at=stamp)
    assert info.value.code == "invalid-snapshot"


@pytest.mark.parametrize("source_id", ["", "a\nb", "x" * 3000])
def test_bad_source_ids_are_rejected(source_id: str) -> None:
    with pytest.raises(InvalidSnapshot):
        _wire(source_id=source_id)


def test_every_envelope_field_changes_the_digest() -> None:
    base = _wire()
    variants = {
        "status": 203, "url": "http://a.test/other", "requested_url": "http://a.test/x",
        "source_id": "other", "fetched_at": "2026-11-30T12:00:00.001Z",
        "headers": (("content-type", "text/html"),), "redirects": (),
        "declared_charset": "utf-8", "charset_source": "meta", "content_type": "text",
        "hash_basis": "decoded-utf8", "rendered": True, "not_modified": True, "etag": None,
        "last_modified": None, "warnings": ("w",), "body_hash": "0" * 64,
    }
    digests = {base.snapshot_sha256}
    for name, value in variants.items():
        changed = dataclasses.replace(base, **{name: value})
        digests.add(changed.snapshot_sha256)
    assert len(digests) == len(variants) + 1


def test_envelope_round_trip() -> None:
    snap = _wire()
    again = snapshot_from_envelope(snapshot_envelope(snap), snap.bytes)
    assert again == snap
    assert again.snapshot_sha256 == snap.snapshot_sha256
    expected = hashlib.sha256(canonical_json(snapshot_envelope(snap))).hexdigest()
    assert snap.snapshot_sha256 == expected


@pytest.mark.parametrize(
    "mutate",
    [
        lambda e: e.update(body_length=1),
        lambda e: e.update(status="200"),
        lambda e: e.pop("etag"),
        lambda e: e.update(extra=1),
        lambda e: e.update(format="pressmark-snapshot/9"),
        lambda e: e.update(fetched_at="yesterday"),
        lambda e: e.update(headers=[["a"]]),
    ],
)
def test_malformed_envelopes_are_rejected(mutate: object) -> None:
    snap = _wire()
    envelope = snapshot_envelope(snap)
    mutate(envelope)  # type: ignore[operator]
    with pytest.raises(InvalidSnapshot):
        snapshot_from_envelope(envelope, snap.bytes)


def test_digest_is_the_same_in_other_processes_and_hash_seeds() -> None:
    snap = _wire()
    code = (
        "from pressmark.testing import make_snapshot;"
        "s = make_snapshot('src', 'http://a.test/', 'é ✓'.encode(),"
        " fetched_at='2026-11-30T12:00:00.000Z', headers={'Content-Type': 'text/html', 'X': 'y'});"
        "print(s.snapshot_sha256)"
    )
    here = make_snapshot("src", "http://a.test/", "é ✓".encode(), fetched_at=T0,
                         headers={"Content-Type": "text/html", "X": "y"}).snapshot_sha256
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, env=env)
        assert out.stdout.strip() == here
    assert snap.snapshot_sha256 == _wire().snapshot_sha256


def test_source_id_for_url_is_stable_and_bounded() -> None:
    a = source_id_for_url("https://example.com/" + "x" * 10_000)
    assert a == source_id_for_url("https://example.com/" + "x" * 10_000)
    assert a.startswith("url-") and len(a) == 36
    assert a != source_id_for_url("https://example.com/")


def test_make_snapshot_defaults() -> None:
    snap = make_snapshot("s", "http://a.test/", b'{"a": 1}', content_type="json")
    assert snap.content_type == "json"
    assert snap.status == 200
    assert snap.header("content-type") == "application/json"
    assert is_canonical_timestamp(snap.fetched_at)
