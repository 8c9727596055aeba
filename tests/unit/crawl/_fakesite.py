"""A tiny in-memory site and a fetcher over it, for engine tests without sockets."""

from __future__ import annotations

import asyncio

from pressmark.crawl import Seed
from pressmark.crawl._fetcher import Fetched
from pressmark.crawl._frontier import FrontierItem
from pressmark.crawl._manifest import PageFailure
from pressmark.snapshot import new_snapshot, source_id_for_url
from pressmark.store import MemorySnapshotStore, SnapshotStore

ORIGIN = "http://site.test"


def tree_site(fanout: int = 3, depth: int = 3) -> dict[str, str]:
    """/ links to /n/0../n/{fanout-1}; each node links to its children and back home."""
    pages: dict[str, str] = {}

    def add(path: str, level: int) -> None:
        kids = [f"{path.rstrip('/')}/{i}" if path != "/" else f"/n{i}" for i in range(fanout)]
        kids = kids if level < depth else []
        links = "".join(f'<a href="{k}">{k}</a>' for k in kids)
        pages[path] = (f"<html><head><title>{path}</title></head><body><main><h1>{path}</h1>"
                       f'<p>text of {path}</p>{links}<a href="/">home</a>'
                       f'<a href="http://other.test/x">off-site</a></main></body></html>')
        for k in kids:
            add(k, level + 1)

    add("/", 0)
    return pages


class FakeFetcher:
    def __init__(self, pages: dict[str, str], store: SnapshotStore | None = None,
                 delay: float = 0.0, fail: frozenset[str] = frozenset(),
                 disallow: tuple[str, ...] = ()) -> None:
        self.disallow = disallow
        self.pages = pages
        self.store = store or MemorySnapshotStore()
        self.delay = delay
        self.fail = fail
        self.requested: list[str] = []

    async def fetch_page(self, item: FrontierItem, seed: Seed | None) -> Fetched:
        self.requested.append(item.url)
        if self.delay:
            await asyncio.sleep(self.delay)
        path = "/" + item.url.split("/", 3)[3] if item.url.count("/") >= 3 else "/"
        if path in self.fail:
            raise RuntimeError("boom")
        if not item.url.startswith(ORIGIN):
            return Fetched(url=item.url, snapshot=None, source_ref=None, status=None,
                           error=PageFailure(kind="egress-denied", message="not our site"))
        body = self.pages.get(path)
        status = 200 if body is not None else 404
        snap = new_snapshot(
            source_id=source_id_for_url(item.url), requested_url=item.url, url=item.url,
            status=status, headers=[("content-type", "text/html; charset=utf-8")],
            body=(body or "<p>missing</p>").encode(), fetched_at="2026-11-30T12:00:00.000Z",
        )
        ref = self.store.put(snap)
        return Fetched(url=item.url, snapshot=snap, source_ref=ref.source_ref, status=status)

    async def fetch_document(self, url: str) -> bytes:
        raise RuntimeError("no sitemaps here")

    async def sitemap_roots(self, origin: str) -> list[str]:
        return [origin + "/sitemap.xml"]

    async def crawl_delay(self, origin: str) -> float | None:
        return None

    def robots_allows(self, url: str) -> bool | None:
        return not any(part in url for part in self.disallow)

    async def aclose(self) -> None:
        return None
