"""The SnapshotStore contract, run over MemorySnapshotStore and FilesystemSnapshotStore."""

from __future__ import annotations

import dataclasses

import pytest

from pressmark.snapshot import (
    InvalidSnapshot,
    InvalidSourceRef,
    Snapshot,
    build_source_ref,
    new_snapshot,
    resolve_source_ref,
)
from pressmark.store import (
    SnapshotHistoryFull,
    SnapshotNotFound,
    SnapshotStore,
    SnapshotTooLarge,
)
from pressmark.testing import make_snapshot

from .conftest import StoreFactory


def snap(n: int, source: str = "src", body: bytes | None = None, ms: int | None = None) -> Snapshot:
    stamp = f"2026-11-30T12:00:{(ms if ms is not None else n) // 1000:02d}." \
            f"{(ms if ms is not None else n) % 1000:03d}Z"
    return make_snapshot(source, f"http://a.test/{source}", body or f"<p>{n}</p>".encode(),
                         fetched_at=stamp)


def test_put_then_get_by_either_digest(store: SnapshotStore) -> None:
    s = snap(1)
    ref = store.put(s)
    assert (ref.source_id, ref.snapshot_sha256, ref.body_hash) == (
        "src", s.snapshot_sha256, s.body_hash)
    assert ref.source_ref == build_source_ref(s)
    assert store.get("src", s.snapshot_sha256) == s
    assert store.get("src", s.body_hash) == s
    assert store.get("src", s.snapshot_sha256).bytes == s.bytes


def test_get_by_body_hash_returns_the_newest_with_that_body(store: SnapshotStore) -> None:
    old, other, new = snap(1, body=b"same"), snap(2), snap(3, body=b"same")
    for s in (new, other, old):
        store.put(s)
    assert store.get("src", old.body_hash) == new


@pytest.mark.parametrize("digest", ["0" * 64, "nothex", "A" * 64, ""])
def test_get_unknown_is_not_found(store: SnapshotStore, digest: str) -> None:
    store.put(snap(1))
    with pytest.raises(SnapshotNotFound) as info:
        store.get("src", digest)
    assert info.value.code == "not-found"
    with pytest.raises(SnapshotNotFound):
        store.get("no-such-source", snap(1).snapshot_sha256)


def test_put_is_idempotent(store: SnapshotStore) -> None:
    s = snap(1)
    assert store.put(s) == store.put(s)
    assert len(store.list("src")) == 1


def test_list_is_newest_first_and_latest_is_the_head(store: SnapshotStore) -> None:
    shots = [snap(n) for n in (5, 1, 9, 3)]
    for s in shots:
        store.put(s)
    listed = store.list("src")
    assert [r.fetched_at for r in listed] == sorted((s.fetched_at for s in shots), reverse=True)
    assert store.latest("src") == snap(9)
    assert all(resolve_source_ref(store, r.source_ref).ok for r in listed)


def test_ties_on_fetched_at_break_by_snapshot_digest(store: SnapshotStore) -> None:
    a, b = snap(1, body=b"a", ms=7), snap(2, body=b"b", ms=7)
    store.put(a)
    store.put(b)
    winner = max((a, b), key=lambda s: s.snapshot_sha256)
    assert store.latest("src") == winner
    assert store.list("src")[0].snapshot_sha256 == winner.snapshot_sha256


def test_latest_and_list_of_unknown_source(store: SnapshotStore) -> None:
    assert store.latest("nothing") is None
    assert store.list("nothing") == []


def test_sources(store: SnapshotStore) -> None:
    assert store.sources() == []
    for name in ("b", "a", "c/../../etc", "ü"):
        store.put(snap(1, source=name))
    assert store.sources() == sorted(["a", "b", "c/../../etc", "ü"])


def test_sources_are_isolated(store: SnapshotStore) -> None:
    a, b = snap(1, source="a"), snap(1, source="b", body=b"other")
    store.put(a)
    store.put(b)
    with pytest.raises(SnapshotNotFound):
        store.get("a", b.snapshot_sha256)
    assert store.latest("a") == a


def test_exact_bytes_round_trip_for_every_kind(store: SnapshotStore) -> None:
    binary = make_snapshot("bin", "http://a.test/x.png", bytes(range(256)) * 3,
                           content_type="binary", fetched_at="2026-11-30T12:00:00.000Z")
    latin = new_snapshot(source_id="latin", requested_url="http://a.test/", url="http://a.test/",
                         status=200, headers={"content-type": "text/html; charset=latin1"},
                         body=b"caf\xe9", fetched_at="2026-11-30T12:00:00.000Z")
    rendered = new_snapshot(source_id="r", requested_url="http://a.test/", url="http://a.test/",
                            status=200, headers={}, body="<p>✓</p>".encode(), rendered=True,
                            fetched_at="2026-11-30T12:00:00.000Z")
    for s in (binary, latin, rendered):
        result = resolve_source_ref(store, store.put(s).source_ref)
        assert result.ok and result.snapshot is not None
        assert result.snapshot.bytes == s.bytes
        assert result.snapshot.body == s.body
        assert result.snapshot == s
    assert store.latest("latin") is not None
    assert store.latest("latin").body == "café"  # type: ignore[union-attr]


def test_put_rejects_invalid_snapshots(store: SnapshotStore) -> None:
    good = snap(1)
    for bad in (
        dataclasses.replace(good, fetched_at="2026-11-30T12:00:00Z"),
        dataclasses.replace(good, fetched_at="2026-11-30 12:00:00.000Z"),
        dataclasses.replace(good, body_hash="0" * 64),
        dataclasses.replace(good, source_id=""),
    ):
        with pytest.raises(InvalidSnapshot):
            store.put(bad)
    assert store.sources() == []


def test_put_rejects_bodies_over_64_mib(store: SnapshotStore) -> None:
    big = make_snapshot("big", "http://a.test/", b"\0" * (64 * 1024 * 1024 + 1),
                        content_type="binary", fetched_at="2026-11-30T12:00:00.000Z")
    with pytest.raises(SnapshotTooLarge):
        store.put(big)


def test_history_full_then_prune_accepts_again(make_store: StoreFactory) -> None:
    store = make_store(max_history_files=3)
    for n in range(3):
        store.put(snap(n))
    with pytest.raises(SnapshotHistoryFull) as info:
        store.put(snap(7))
    assert info.value.code == "history-full"
    store.put(snap(2))  # an existing identity is not a new record
    report = store.prune("src", keep_last=1)
    assert report.kept == (snap(2).snapshot_sha256,)
    assert len(report.removed) == 2
    store.put(snap(7))
    store.put(snap(8))
    with pytest.raises(SnapshotHistoryFull):
        store.put(snap(9))
    assert store.verify().ok


def test_prune_rule(store: SnapshotStore) -> None:
    shots = [snap(n) for n in range(8)]
    for s in shots:
        store.put(s)
    cited = build_source_ref(shots[1])
    report = store.prune("src", keep_last=2, keep=[cited, shots[3].body_hash])
    kept = {shots[7].snapshot_sha256, shots[6].snapshot_sha256, shots[1].snapshot_sha256,
            shots[3].snapshot_sha256}
    assert set(report.kept) == kept
    assert set(report.removed) == {s.snapshot_sha256 for s in shots} - kept
    assert {r.snapshot_sha256 for r in store.list("src")} == kept
    assert resolve_source_ref(store, cited).ok
    gone = resolve_source_ref(store, build_source_ref(shots[0]))
    assert gone.error is not None and gone.error.code == "not-found"
    assert store.verify().ok


def test_prune_keeps_the_head_even_with_keep_last_zero(store: SnapshotStore) -> None:
    for n in range(3):
        store.put(snap(n))
    report = store.prune("src", keep_last=0)
    assert report.kept == (snap(2).snapshot_sha256,)
    assert store.latest("src") == snap(2)


def test_prune_ignores_refs_of_other_sources_and_refuses_garbage(store: SnapshotStore) -> None:
    for n in range(3):
        store.put(snap(n))
    other = build_source_ref(snap(0, source="other"))
    assert len(store.prune("src", keep_last=0, keep=[other]).kept) == 1
    with pytest.raises(InvalidSourceRef):
        store.prune("src", keep_last=0, keep=["not a ref"])
    with pytest.raises(ValueError, match="keep_last"):
        store.prune("src", keep_last=-1)
    empty = store.prune("unknown", keep_last=0)
    assert empty.kept == () and empty.removed == ()


def test_verify_clean_store(store: SnapshotStore) -> None:
    for n in range(3):
        store.put(snap(n, source=f"s{n}"))
    report = store.verify()
    assert report.ok and report.problems == ()
    assert (report.sources, report.records) == (3, 3)


def test_resolve_source_ref_refuses_near_matches(store: SnapshotStore) -> None:
    s = snap(1)
    store.put(s)
    ref = build_source_ref(s)
    assert resolve_source_ref(store, ref).ok
    wrong_url = build_source_ref(dataclasses.replace(s, url="http://a.test/elsewhere"))
    wrong_body = ref.replace(s.body_hash, "0" * 64)
    for near in (wrong_url, wrong_body):
        result = resolve_source_ref(store, near)
        assert not result.ok
        assert result.error is not None and result.error.code == "not-found"
    invalid = resolve_source_ref(store, ref[:-1])
    assert invalid.error is not None and invalid.error.code == "invalid-ref"
