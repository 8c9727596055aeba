"""Random operation sequences give the same answers from every store."""

from __future__ import annotations

import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pressmark.snapshot import build_source_ref, resolve_source_ref
from pressmark.store import (
    FilesystemSnapshotStore,
    MemorySnapshotStore,
    SegmentStore,
    SnapshotHistoryFull,
    SnapshotStore,
)

from ._helpers import snap

POOL = [snap(n % 7, source=f"s{n % 2}", body=f"<p>{n % 5}</p>".encode()) for n in range(14)]
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("put"), st.integers(0, len(POOL) - 1)),
        st.tuples(st.just("prune"), st.integers(0, 3), st.integers(0, len(POOL) - 1)),
    ),
    max_size=14,
)


def _apply(store: SnapshotStore, op: tuple[object, ...]) -> object:
    if op[0] == "put":
        shot = POOL[op[1]]  # type: ignore[index]
        try:
            return store.put(shot).source_ref
        except SnapshotHistoryFull:
            return "history-full"
    kept = POOL[op[2]]  # type: ignore[index]
    report = store.prune(kept.source_id, op[1], [build_source_ref(kept)])  # type: ignore[arg-type]
    return (sorted(report.kept), sorted(report.removed))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS)
def test_memory_filesystem_and_segments_agree(ops: list[tuple[object, ...]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        disk = FilesystemSnapshotStore(f"{tmp}/files", 4, durability="flush")
        segments = SegmentStore(f"{tmp}/segments", 4, durability="flush")
        memory = MemorySnapshotStore(max_history_files=4)
        for op in ops:
            expected = _apply(memory, op)
            assert _apply(disk, op) == expected
            assert _apply(segments, op) == expected
        for store in (disk, segments):
            for source in ("s0", "s1"):
                assert store.list(source) == memory.list(source)
                assert store.latest(source) == memory.latest(source)
            assert store.sources() == memory.sources()
            for shot in POOL:
                ref = build_source_ref(shot)
                a, b = resolve_source_ref(store, ref), resolve_source_ref(memory, ref)
                assert (a.ok, a.error and a.error.code) == (b.ok, b.error and b.error.code)
            assert store.verify().ok
        segments.close()
