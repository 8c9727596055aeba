"""sourceRef: canonical, versioned, exact inverse of parsing; everything else is refused."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.snapshot import InvalidSourceRef, build_source_ref, parse_source_ref
from pressmark.snapshot._source_ref import SourceRef
from pressmark.snapshot._time import format_timestamp
from pressmark.testing import make_snapshot

HEX = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
SOURCE_IDS = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=200
)
URLS = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=300)
STAMPS = st.datetimes().map(format_timestamp)


@st.composite
def refs(draw: st.DrawFn) -> SourceRef:
    return SourceRef(source_id=draw(SOURCE_IDS), url=draw(URLS), fetched_at=draw(STAMPS),
                     body_hash=draw(HEX), snapshot_sha256=draw(HEX))


@settings(deadline=None)
@given(refs())
def test_parse_inverts_build(ref: SourceRef) -> None:
    text = build_source_ref(ref)
    assert parse_source_ref(text) == ref
    assert build_source_ref(parse_source_ref(text)) == text
    assert re.fullmatch(r"[A-Za-z0-9\-._~%:?&=]+", text)


@settings(deadline=None)
@given(refs(), st.data())
def test_any_single_character_edit_is_refused_or_names_another_snapshot(
    ref: SourceRef, data: st.DataObject
) -> None:
    text = build_source_ref(ref)
    index = data.draw(st.integers(0, len(text) - 1))
    replacement = data.draw(st.sampled_from("aZ0%&=?:-"))
    edited = text[:index] + replacement + text[index + 1 :]
    try:
        parsed = parse_source_ref(edited)
    except InvalidSourceRef:
        return
    assert edited == text or parsed != ref
    assert build_source_ref(parsed) == edited


def test_snapshot_ref_round_trip() -> None:
    snap = make_snapshot("src/1 ü", "http://a.test/a b?c=d&e", b"x",
                         fetched_at="2026-11-30T12:00:00.000Z")
    parsed = parse_source_ref(build_source_ref(snap))
    assert (parsed.source_id, parsed.url, parsed.fetched_at) == (snap.source_id, snap.url,
                                                                   snap.fetched_at)
    assert (parsed.body_hash, parsed.snapshot_sha256) == (snap.body_hash, snap.snapshot_sha256)
    assert parsed.version == 1


GOOD = build_source_ref(SourceRef(source_id="s", url="http://a.test/",
                                  fetched_at="2026-11-30T12:00:00.000Z",
                                  body_hash="a" * 64, snapshot_sha256="b" * 64))


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "forage:snapshot?x=1",
        GOOD.replace(":v1?", ":v2?"),
        GOOD.replace(":v1?", ":v0?"),
        GOOD.replace(":v1?", ":?"),
        GOOD.split("?")[0],
        GOOD + "&url=http%3A%2F%2Fa.test%2F",
        GOOD + "&extra=1",
        GOOD.replace("&url=http%3A%2F%2Fa.test%2F", ""),
        GOOD.replace("a" * 64, "a" * 63),
        GOOD.replace("a" * 64, "sha256:" + "a" * 64),
        GOOD.replace("a" * 64, "A" * 64),
        GOOD.replace("b" * 64, "g" * 64),
        GOOD.replace("b" * 64, "b" * 12),
        GOOD.replace("%3A%2F%2F", "%3a%2f%2f"),
        GOOD.replace("source_id=s", "source_id=%73"),
        GOOD.replace("source_id=s", "source_id="),
        GOOD.replace("source_id=s", "source_id=%0A"),
        GOOD.replace("source_id=s", "source_id=%FF"),
        GOOD.replace("source_id=s", "source_id=a/b"),
        GOOD.replace("2026-11-30T12%3A00%3A00.000Z", "2026-11-30"),
        GOOD.replace("2026-11-30T12%3A00%3A00.000Z",
                     quote("\u0662026-11-30T12:00:00.000Z", safe="")),  # not an ASCII digit
        GOOD.replace("2026-11-30T12%3A00%3A00.000Z", "2026-11-30T12%3A00%3A00Z"),
        GOOD.replace("2026-11-30T12%3A00%3A00.000Z", "2026-11-30T12%3A00%3A00.000%2B00%3A00"),
        GOOD.replace("2026-11-30T12%3A00%3A00.000Z", "2026-11-30T12%3A00%3A00.000z"),
        GOOD.replace("source_id=s&url=http%3A%2F%2Fa.test%2F",
                     "url=http%3A%2F%2Fa.test%2F&source_id=s"),
        GOOD.replace("&url", "&url=x&url"),
        GOOD + "&",
        "pressmark:snapshot:v1?" + "x" * 20_000,
    ],
)
def test_rejections(bad: str) -> None:
    with pytest.raises(InvalidSourceRef) as info:
        parse_source_ref(bad)
    assert info.value.code == "invalid-ref"


def test_builder_refuses_references_over_16_kib_after_url_encoding() -> None:
    ok = SourceRef(source_id="s", url="http://a.test/" + "a" * 15_000,
                   fetched_at="2026-11-30T12:00:00.000Z", body_hash="a" * 64,
                   snapshot_sha256="b" * 64)
    text = build_source_ref(ok)
    assert len(quote(text, safe="")) <= 16 * 1024
    assert parse_source_ref(text) == ok
    too_long = SourceRef(source_id="s", url="http://a.test/" + "é" * 3000,
                         fetched_at=ok.fetched_at, body_hash=ok.body_hash,
                         snapshot_sha256=ok.snapshot_sha256)
    with pytest.raises(InvalidSourceRef):
        build_source_ref(too_long)


def test_builder_refuses_unencodable_fields() -> None:
    bad = SourceRef(source_id="s", url="http://a.test/\udcff",
                    fetched_at="2026-11-30T12:00:00.000Z", body_hash="a" * 64,
                    snapshot_sha256="b" * 64)
    with pytest.raises(InvalidSourceRef):
        build_source_ref(bad)


def test_non_string_is_refused() -> None:
    with pytest.raises(InvalidSourceRef):
        parse_source_ref(b"pressmark:snapshot:v1?" )  # type: ignore[arg-type]


def test_parser_and_builder_share_the_16_kib_measure() -> None:
    # "%" is escaped once in the reference (%25) and again when the reference is
    # URL-encoded (%2525): short enough raw, too long encoded. Whatever parses must build.
    fields = {"source_id": "s", "fetched_at": "2026-11-30T12:00:00.000Z",
              "body_hash": "a" * 64, "snapshot_sha256": "b" * 64}
    ref = GOOD.replace("url=http%3A%2F%2Fa.test%2F", "url=" + "%25" * 4000)
    assert len(ref) <= 16 * 1024 < len(quote(ref, safe=""))
    with pytest.raises(InvalidSourceRef):
        parse_source_ref(ref)
    with pytest.raises(InvalidSourceRef):
        build_source_ref(SourceRef(url="%" * 4000, **fields))
