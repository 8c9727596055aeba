from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pressmark.store import (
    FilesystemSnapshotStore,
    MemorySnapshotStore,
    SegmentStore,
    SnapshotStore,
)

StoreFactory = Callable[..., SnapshotStore]


@pytest.fixture(params=["memory", "filesystem", "segments"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> StoreFactory:
    """Builds the store under test; every contract test runs against every implementation."""

    def build(max_history_files: int = 10_000) -> SnapshotStore:
        if request.param == "memory":
            return MemorySnapshotStore(max_history_files=max_history_files)
        if request.param == "segments":
            return SegmentStore(tmp_path / "store", max_history_files)
        return FilesystemSnapshotStore(tmp_path / "store", max_history_files)

    return build


@pytest.fixture
def store(make_store: StoreFactory) -> SnapshotStore:
    return make_store()
