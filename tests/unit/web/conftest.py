"""A sample crawl directory and a TestClient over it, per store implementation.

The app is read-only, so one crawl per store kind serves every test.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from pressmark.store import FilesystemSnapshotStore, MemorySnapshotStore, SnapshotStore
from pressmark.web import create_app
from pressmark.web._sample import SampleCrawl, write_sample_crawl

CANARY = "http://127.0.0.1:9/canary"


@pytest.fixture(scope="session", params=["filesystem", "memory"])
def sample(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[SampleCrawl, SnapshotStore | None]:
    """The sample crawl; with ``filesystem`` the app finds ``DIR/store`` on its own."""
    root = tmp_path_factory.mktemp(f"crawl-{request.param}")
    if request.param == "filesystem":
        store = FilesystemSnapshotStore(root / "store")
        return write_sample_crawl(root, store, canary_url=CANARY), None
    memory = MemorySnapshotStore()
    return write_sample_crawl(root, memory, canary_url=CANARY), memory


@pytest.fixture(scope="session")
def client(sample: tuple[SampleCrawl, SnapshotStore | None]) -> Iterator[TestClient]:
    crawl, store = sample
    app = create_app(crawl.root, store=store, allowed_hosts=["127.0.0.1"])
    with TestClient(app, base_url="http://127.0.0.1") as test_client:
        yield test_client


@pytest.fixture(scope="session")
def crawl(sample: tuple[SampleCrawl, SnapshotStore | None]) -> SampleCrawl:
    return sample[0]
