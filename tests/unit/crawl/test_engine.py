from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from pressmark.crawl import CrawlError, CrawlPolicy, PageRecord, Politeness, Seed, crawl
from pressmark.crawl._output import PageFile
from pressmark.crawl._policy import FollowCandidate
from pressmark.crawl._progress import NullProgress

from ._fakesite import ORIGIN, FakeFetcher, tree_site

SITE = tree_site(fanout=3, depth=3)  # 1 + 3 + 9 + 27 = 40 pages
POLICY = CrawlPolicy(markdown=False, workers=0)


def urls(pages: tuple[PageRecord, ...] | list[PageRecord]) -> set[str]:
    return {p.url for p in pages}


async def test_bfs_reaches_every_page_within_depth() -> None:
    fetcher = FakeFetcher(SITE)
    m = await crawl(ORIGIN + "/", POLICY, fetcher=fetcher)
    assert urls(m.pages) == {ORIGIN + p for p in SITE}
    assert m.complete and m.summary["pages"] == 40
    assert m.summary["by_outcome"] == {"ok": 40}
    assert len(fetcher.requested) == len(set(fetcher.requested))
    assert "http://other.test/x" not in fetcher.requested  # same-host scope
    depths = {p.url: p.depth for p in m.pages}
    assert depths[ORIGIN + "/n0/0/0"] == 3
    assert all(p.status == 200 and p.title for p in m.pages)


@pytest.mark.parametrize("max_depth", [0, 1, 2])
async def test_max_depth_exact(max_depth: int) -> None:
    m = await crawl(ORIGIN + "/", CrawlPolicy(markdown=False, workers=0, max_depth=max_depth),
                    fetcher=FakeFetcher(SITE))
    assert len(m.pages) == sum(3**d for d in range(max_depth + 1))
    assert max(p.depth for p in m.pages) == max_depth


@pytest.mark.parametrize("max_pages", [1, 7, 13])
async def test_max_pages_exact_and_breadth_first(max_pages: int) -> None:
    m = await crawl(ORIGIN + "/", CrawlPolicy(markdown=False, workers=0, max_pages=max_pages),
                    fetcher=FakeFetcher(SITE))
    assert len(m.pages) == max_pages
    assert m.stop_reason == "max-pages"
    # breadth first: no page deeper than needed
    assert max(p.depth for p in m.pages) <= (0 if max_pages == 1 else 1 if max_pages <= 4 else 2)


async def test_scope_allow_list_and_patterns() -> None:
    policy = CrawlPolicy(markdown=False, workers=0, scope=("other.test",), exclude=(r"/n1",))
    fetcher = FakeFetcher(SITE)
    m = await crawl(ORIGIN + "/", policy, fetcher=fetcher)
    assert "http://other.test/x" in urls(m.pages)
    assert not any("/n1" in u for u in urls(m.pages))
    bad = next(p for p in m.pages if p.url == "http://other.test/x")
    assert bad.outcome == "denied" and bad.error is not None and bad.error.kind == "egress-denied"
    assert m.summary["egress_denied"] == 1


async def test_should_follow_drops_and_prioritises() -> None:
    seen: list[FollowCandidate] = []

    def hook(c: FollowCandidate) -> bool | float:
        seen.append(c)
        if c.url.endswith("/n0"):
            return False
        return 10.0 if c.url.endswith("/n2") else True

    policy = CrawlPolicy(markdown=False, workers=0, should_follow=hook, max_pages=2,
                         politeness=CrawlPolicy().politeness.__class__(concurrency=1))
    m = await crawl(ORIGIN + "/", policy, fetcher=FakeFetcher(SITE))
    assert [p.url for p in m.pages] == [ORIGIN + "/", ORIGIN + "/n2"]
    assert seen[0].parent_url == ORIGIN + "/" and seen[0].depth == 1


async def test_page_failure_is_a_record_not_a_crash(tmp_path: Path) -> None:
    m = await crawl(ORIGIN + "/", POLICY, fetcher=FakeFetcher(SITE, fail=frozenset({"/n1"})),
                    out_dir=tmp_path / "out")
    bad = next(p for p in m.pages if p.url == ORIGIN + "/n1")
    assert bad.outcome == "error" and bad.error is not None
    assert bad.error.kind == "crawl-error"
    assert len(m.pages) == 40 - 12  # n1's subtree was never discovered


async def test_output_directory(tmp_path: Path) -> None:
    out = tmp_path / "out"
    m = await crawl(ORIGIN + "/", POLICY, fetcher=FakeFetcher(SITE), out_dir=out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format"] == "pressmark-crawl/1"
    assert manifest["complete"] is True
    for key in ("pages", "by_outcome", "errors_by_kind", "render_rate", "robots_denied",
                "egress_denied", "bytes", "duration_s", "pages_per_s", "validation_pass_rate",
                "mean_readiness_ms", "failure_reasons", "urls_refused"):
        assert key in manifest["summary"]
    assert set(manifest["sitemap"]) == {"documents_read", "urls_discovered",
                                        "extension_locs_ignored", "errors"}
    lines = [json.loads(x) for x in (out / "pages.jsonl").read_text().splitlines()]
    assert len(lines) == len(m.pages) == 40
    assert all(isinstance(x["status"], int) for x in lines)
    for key in ("url", "final_url", "depth", "status", "outcome", "source_id", "source_ref",
                "snapshot_sha256", "body_hash", "fetched_at", "rendered", "render_reason",
                "title", "warnings", "error", "markdown_path", "evidence_path", "validation",
                "bytes"):
        assert key in lines[0]
    again = await crawl(ORIGIN + "/", POLICY, fetcher=FakeFetcher(SITE), out_dir=out)  # recrawl
    assert len(again.pages) == len((out / "pages.jsonl").read_text().splitlines()) == 40
    manifest["complete"] = False  # an interrupted crawl is resumed, never recrawled over
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(CrawlError, match="interrupted"):
        await crawl(ORIGIN + "/", POLICY, fetcher=FakeFetcher(SITE), out_dir=out)


async def test_a_large_crawl_into_a_directory_returns_its_pages_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past KEPT_PAGES records are read from pages.jsonl when asked (a million-page crawl
    does not keep them in memory): the records an in-memory crawl returns, as left."""
    small = await crawl(ORIGIN + "/", POLICY, fetcher=FakeFetcher(SITE), out_dir=tmp_path / "s")
    assert isinstance(small.pages, tuple) and len(small.pages) == 40
    monkeypatch.setattr("pressmark.crawl._engine.KEPT_PAGES", 5)
    out = tmp_path / "out"
    m = await crawl(ORIGIN + "/", POLICY, fetcher=FakeFetcher(SITE), out_dir=out)
    memory = await crawl(ORIGIN + "/", POLICY, fetcher=FakeFetcher(SITE))
    assert isinstance(memory.pages, tuple)
    assert isinstance(m.pages, PageFile)
    fields = ("url", "depth", "status", "outcome", "snapshot_sha256", "title")
    def rows(pages: Sequence[PageRecord]) -> list[tuple[object, ...]]:
        return sorted(tuple(p.to_dict()[f] for f in fields) for p in pages)
    assert rows(m.pages) == rows(memory.pages) and len(m.pages) == 40
    lines = (out / "pages.jsonl").read_text().splitlines()
    assert [p.url for p in m.pages] == [json.loads(line)["url"] for line in lines]
    assert m.pages[-1].url == json.loads(lines[-1])["url"] and m.pages[3] == list(m.pages)[3]
    assert [p.url for p in m.pages[1:3]] == [json.loads(x)["url"] for x in lines[1:3]]
    with (out / "pages.jsonl").open("a") as fh:  # a line added later is not this crawl's
        fh.write(lines[0] + "\n")
    assert len(PageFile(out / "pages.jsonl", seal=False)) == 0  # not sealed: nothing yet
    assert len(m.pages) == 40 and len(list(m.pages)) == 40
    await crawl(ORIGIN + "/", CrawlPolicy(markdown=False, workers=0, max_depth=1),
                fetcher=FakeFetcher(SITE), out_dir=out)  # a recrawl: another pages.jsonl
    with pytest.raises(CrawlError, match="replaced"):
        list(m.pages)


async def test_resume_after_interrupt_gives_same_page_set(tmp_path: Path) -> None:
    out = tmp_path / "out"
    stop = asyncio.Event()

    seen: list[PageRecord] = []

    class StopAfter(NullProgress):  # (a crawl into a directory keeps no records in memory)
        def page(self, record: PageRecord, engine: object) -> None:
            seen.append(record)
            if len(seen) >= 15:
                stop.set()

    first = await crawl(ORIGIN + "/", POLICY, fetcher=FakeFetcher(SITE, delay=0.001),
                        out_dir=out, stop=stop, progress=StopAfter())
    assert not first.complete and 15 <= len(first.pages) < 40
    fetcher = FakeFetcher(SITE)
    second = await crawl(ORIGIN + "/", POLICY, fetcher=fetcher, out_dir=out, resume=True)
    assert second.complete
    assert urls(second.pages) == {ORIGIN + p for p in SITE}
    assert not set(fetcher.requested) & urls(first.pages)
    lines = (out / "pages.jsonl").read_text().splitlines()
    assert len(lines) == 40
    with pytest.raises(CrawlError):
        await crawl(ORIGIN + "/", CrawlPolicy(markdown=False, workers=0, max_depth=1),
                    fetcher=FakeFetcher(SITE), out_dir=out, resume=True)


async def test_resume_drops_a_torn_last_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    await crawl(ORIGIN + "/", CrawlPolicy(markdown=False, workers=0, max_depth=1),
                fetcher=FakeFetcher(SITE), out_dir=out)
    pages = out / "pages.jsonl"
    lines = pages.read_bytes().splitlines(keepends=True)
    pages.write_bytes(b"".join(lines[:2]) + lines[2][:10])
    m = await crawl(ORIGIN + "/", CrawlPolicy(markdown=False, workers=0, max_depth=1),
                    fetcher=FakeFetcher(SITE), out_dir=out, resume=True)
    assert len(m.pages) == 4
    assert len(pages.read_text().splitlines()) == 4


async def test_replay_from_store_is_identical() -> None:
    live = FakeFetcher(SITE)
    first = await crawl(ORIGIN + "/", POLICY, fetcher=live)
    replay = await crawl(ORIGIN + "/", CrawlPolicy(markdown=False, workers=0, mode="replay",
                                                   store=live.store))
    a = {p.url: p.snapshot_sha256 for p in first.pages}
    b = {p.url: p.snapshot_sha256 for p in replay.pages}
    assert a == b


def test_invalid_config_raises() -> None:
    with pytest.raises(CrawlError):
        CrawlPolicy(max_depth=-1).validate()
    with pytest.raises(CrawlError):
        CrawlPolicy(include=("(",)).validate()
    with pytest.raises(CrawlError):
        asyncio.run(crawl("mailto:x@y", POLICY, fetcher=FakeFetcher(SITE)))
    with pytest.raises(CrawlError):
        asyncio.run(crawl([Seed("http://a.test/")], CrawlPolicy(mode="replay")))


async def test_robots_denied_links_are_recorded_never_requested_and_not_charged() -> None:
    fetcher = FakeFetcher(SITE, disallow=("/n1",))
    m = await crawl(ORIGIN + "/", CrawlPolicy(markdown=False, workers=0, max_pages=10),
                    fetcher=fetcher)
    denied = [p for p in m.pages if p.error is not None and p.error.kind == "robots-denied"]
    assert [p.url for p in denied] == [ORIGIN + "/n1"]
    assert not any("/n1" in u for u in fetcher.requested)
    assert len(fetcher.requested) == 10  # the denied URL did not use up the page budget
    assert m.summary["robots_denied"] == 1


async def test_time_budget_stops_the_crawl() -> None:
    m = await crawl(ORIGIN + "/", CrawlPolicy(markdown=False, workers=0, time_budget_s=0.05),
                    fetcher=FakeFetcher(SITE, delay=0.02))
    assert not m.complete and m.stop_reason == "time-budget"
    assert 0 < len(m.pages) < 40


@pytest.mark.parametrize("max_pages", [1, 4, 7, 13, 22])
async def test_max_pages_takes_the_first_pages_by_depth_then_discovery_order(
        max_pages: int) -> None:
    """The documented order (crawl/_levels.py): depth, then the discovery path; here the
    reference is a plain breadth-first walk of the tree, children in link order."""
    order, queue = [], ["/"]
    while queue:
        path = queue.pop(0)
        order.append(ORIGIN + path)
        kids = [f"{path.rstrip('/')}/{i}" if path != "/" else f"/n{i}" for i in range(3)]
        queue.extend(k for k in kids if k in SITE)
    for concurrency, delay in ((1, 0.0), (16, 0.001)):
        policy = CrawlPolicy(markdown=False, workers=0, max_pages=max_pages,
                             politeness=Politeness(concurrency=concurrency))
        m = await crawl(ORIGIN + "/", policy, fetcher=FakeFetcher(SITE, delay=delay))
        assert urls(m.pages) == set(order[:max_pages])
        assert m.stop_reason == "max-pages"


async def test_denials_reach_the_file_in_batches(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A depth's robots.txt denials are recorded in one synchronous pass (500,000 of them
    at the end of the 200,000-page bench crawl): they must reach pages.jsonl in batches,
    not all wait in memory (a record and its line are a kilobyte)."""
    from pressmark.crawl._engine import FLUSH_EVERY_PAGES
    from pressmark.crawl._output import OutputDir

    links = "".join(f'<a href="/private/{i}">p{i}</a>' for i in range(600))
    site = {"/": f"<html><head><title>home</title></head><body>{links}"
                 '<a href="/a">a</a></body></html>',
            "/a": "<html><head><title>a</title></head><body><p>a</p></body></html>"}
    most = 0
    append = OutputDir.append_page

    def watched(self: OutputDir, record: PageRecord) -> None:
        nonlocal most
        append(self, record)
        most = max(most, self.buffered)

    monkeypatch.setattr(OutputDir, "append_page", watched)
    m = await crawl(ORIGIN + "/", CrawlPolicy(markdown=False, workers=0),
                    fetcher=FakeFetcher(site, disallow=("/private/",)), out_dir=tmp_path)
    assert m.summary["robots_denied"] == 600
    lines = (tmp_path / "pages.jsonl").read_text().splitlines()
    assert len(lines) == 602
    assert most <= FLUSH_EVERY_PAGES


async def test_a_sharded_crawl_into_a_directory_returns_its_pages_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver of a sharded crawl keeps no more records than an in-process crawl: past
    KEPT_PAGES its manifest's pages are the directory's pages.jsonl."""
    from pressmark.crawl.ray import LocalEngine

    monkeypatch.setattr("pressmark.crawl.ray._driver.KEPT_PAGES", 5)
    m = await LocalEngine(shards=2).run(ORIGIN + "/", POLICY, out_dir=tmp_path / "out",
                                        fetchers=[FakeFetcher(SITE), FakeFetcher(SITE)])
    assert isinstance(m.pages, PageFile)
    lines = (tmp_path / "out" / "pages.jsonl").read_text().splitlines()
    assert [p.url for p in m.pages] == [json.loads(line)["url"] for line in lines]
    assert len(m.pages) == 40 == len(urls(list(m.pages)))
    small = await LocalEngine(shards=2).run(ORIGIN + "/", POLICY,
                                            fetchers=[FakeFetcher(SITE), FakeFetcher(SITE)])
    assert isinstance(small.pages, tuple) and urls(small.pages) == urls(list(m.pages))
