"""No barrier between depths (issue #35), and still the same page set.

The page set under a budget is the first ``max_pages`` pages in (depth, discovery order),
whatever the timing: checked against an independent breadth-first walk over random sites
with random page timings (hypothesis). A slow page holds back only the pages it could
displace: checked with a fetcher that holds a page until the pages of the next depth have
been requested (with a barrier the crawl would wait forever).
"""

from __future__ import annotations

import asyncio
import math
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pressmark.crawl import CrawlPolicy, PageRecord, Politeness, Seed, crawl
from pressmark.crawl._fetcher import Fetched
from pressmark.crawl._frontier import FrontierItem
from pressmark.crawl._levels import Ledger, Limits, order_key
from pressmark.crawl._progress import NullProgress
from pressmark.crawl.ray import LocalEngine
from pressmark.snapshot import new_snapshot, source_id_for_url
from pressmark.store import MemorySnapshotStore

from ._fakesite import ORIGIN, FakeFetcher

Graph = dict[str, list[str]]


def site_of(graph: Graph) -> dict[str, str]:
    """HTML pages whose links are the graph's edges, in order."""
    return {path: ("<html><head><title>t</title></head><body><main><h1>x</h1>"
                   + "".join(f'<a href="{to}">{to}</a>' for to in links)
                   + "</main></body></html>") for path, links in graph.items()}


def score_of(path: str) -> float:
    """A ``should_follow`` priority (higher first) that reorders pages within a depth."""
    return float(sum(map(ord, path)) % 3)


def reference(graph: Graph, max_pages: int, *, scored: bool = False) -> list[str]:
    """Breadth-first, each depth in (priority, discovery path) order, the first
    ``max_pages``: the order the levels design promised, written out plainly (a URL keeps
    its smallest path)."""
    level: dict[str, tuple[float, tuple[int, ...]]] = {"/": (-0.0, (0,))}
    seen: set[str] = set()
    chosen: list[str] = []
    depth = 0
    while level and len(chosen) < max_pages:
        ordered = sorted(level, key=level.__getitem__)[: max_pages - len(chosen)]
        chosen += ordered
        seen |= set(level)
        found: dict[str, tuple[float, tuple[int, ...]]] = {}
        for page in ordered:
            links = list(dict.fromkeys(graph.get(page, [])))
            for index, link in enumerate(links):
                key = (-score_of(link) if scored else -0.0, (*level[page][1], index))
                if link not in seen and (link not in found or key < found[link]):
                    found[link] = key
        level, depth = found, depth + 1
    return chosen


class TimedFetcher(FakeFetcher):
    """Each page answers after its own delay (seeded), some pages much later than others."""

    def __init__(self, pages: dict[str, str], delays: dict[str, float]) -> None:
        super().__init__(pages)
        self.delays = delays

    async def fetch_page(self, item: FrontierItem, seed: Seed | None) -> Fetched:
        path = "/" + item.url.split("/", 3)[3]
        await asyncio.sleep(self.delays.get(path, 0.0))
        return await super().fetch_page(item, seed)


@st.composite
def graphs(draw: st.DrawFn) -> Graph:
    size = draw(st.integers(min_value=2, max_value=30))
    pages = ["/"] + [f"/p{i}" for i in range(1, size)]
    return {page: draw(st.lists(st.sampled_from(pages), max_size=6)) for page in pages}


@given(graph=graphs(), max_pages=st.integers(min_value=1, max_value=32),
       seed=st.integers(min_value=0, max_value=2**16), concurrency=st.sampled_from([1, 3, 16]),
       scored=st.booleans())
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_page_set_is_the_breadth_first_prefix_whatever_the_timing(
        graph: Graph, max_pages: int, seed: int, concurrency: int, scored: bool) -> None:
    rng = random.Random(seed)
    delays = {page: rng.choice((0.0, 0.0, 0.001, 0.003, 0.02)) for page in graph}
    hook = (lambda c: score_of("/" + c.url.split("/", 3)[3])) if scored else None
    policy = CrawlPolicy(markdown=False, workers=0, max_pages=max_pages, should_follow=hook,
                         politeness=Politeness(concurrency=concurrency,
                                               per_host_concurrency=concurrency))
    fetcher = TimedFetcher(site_of(graph), delays)
    m = asyncio.run(crawl(ORIGIN + "/", policy, fetcher=fetcher))
    want = reference(graph, max_pages, scored=scored)
    assert sorted(p.url for p in m.pages) == sorted(ORIGIN + p for p in want)
    assert len(fetcher.requested) == len(want)  # nothing outside the budget was requested
    everything = reference(graph, 10**6, scored=scored)
    assert m.stop_reason == ("max-pages" if len(want) < len(everything) else None)
    depths = {ORIGIN + p: d for d, level in enumerate(_levels(graph, want)) for p in level}
    assert {p.url: p.depth for p in m.pages} == depths


def _levels(graph: Graph, chosen: list[str]) -> list[list[str]]:
    """The depth of each chosen page, as the reference walk assigns it."""
    out: list[list[str]] = []
    seen: set[str] = set()
    level = ["/"]
    while level:
        here = [p for p in level if p in chosen and p not in seen]
        if not here:
            break
        out.append(here)
        seen |= set(here)
        level = [link for page in here for link in graph.get(page, []) if link not in seen]
    return out


class HeldFetcher(FakeFetcher):
    """``/slow`` answers only once ``want`` other pages were requested after it started
    (so a crawl with a barrier after its depth never finishes)."""

    def __init__(self, pages: dict[str, str], want: int) -> None:
        super().__init__(pages)
        self.want = want
        self.after_slow: list[str] = []
        self._slow_started = False
        self._go = asyncio.Event()

    async def fetch_page(self, item: FrontierItem, seed: Seed | None) -> Fetched:
        if item.url.endswith("/slow"):
            self._slow_started = True
            await asyncio.wait_for(self._go.wait(), 30)
        elif self._slow_started:
            self.after_slow.append(item.url)
            if len(self.after_slow) >= self.want:
                self._go.set()
        return await super().fetch_page(item, seed)


def wide_site(slow_first: bool) -> Graph:
    """``/`` links to ``/slow`` and ``/a``, ``/b``; ``/a`` and ``/b`` link to ten pages
    each (depth 2); ``/slow`` links to its own two pages."""
    order = ["/slow", "/a", "/b"] if slow_first else ["/a", "/b", "/slow"]
    graph: Graph = {"/": order, "/slow": ["/s0", "/s1"], "/s0": [], "/s1": []}
    for hub in ("a", "b"):
        graph[f"/{hub}"] = [f"/{hub}{i}" for i in range(10)]
        graph.update({f"/{hub}{i}": [] for i in range(10)})
    return graph


async def test_the_next_depth_does_not_wait_for_a_slow_page() -> None:
    graph = wide_site(slow_first=True)
    fetcher = HeldFetcher(site_of(graph), want=20)
    m = await crawl(ORIGIN + "/", CrawlPolicy(markdown=False, workers=0), fetcher=fetcher)
    assert len(m.pages) == len(graph)
    # Every depth-2 page of /a and /b was requested while /slow was still out.
    assert {u.removeprefix(ORIGIN) for u in fetcher.after_slow} >= {
        f"/{h}{i}" for h in "ab" for i in range(10)}


async def test_under_a_binding_budget_only_the_pages_a_slow_one_could_displace_wait() -> None:
    # /slow is ranked last at depth 1: the depth-2 pages of /a and /b are ranked before
    # anything it could offer, so they go at once; its own pages wait for it.
    graph = wide_site(slow_first=False)
    budget = 1 + 3 + 20  # the budget ends before /slow's links
    fetcher = HeldFetcher(site_of(graph), want=20)
    m = await crawl(ORIGIN + "/", CrawlPolicy(markdown=False, workers=0, max_pages=budget),
                    fetcher=fetcher)
    assert sorted(p.url for p in m.pages) == sorted(ORIGIN + p for p in reference(graph, budget))
    assert m.stop_reason == "max-pages"
    # Ranked first, /slow could fill the budget with its own links: the rest waits for it.
    graph = wide_site(slow_first=True)
    fetcher = HeldFetcher(site_of(graph), want=10**6)
    task = asyncio.ensure_future(crawl(ORIGIN + "/", CrawlPolicy(
        markdown=False, workers=0, max_pages=budget), fetcher=fetcher))
    for _ in range(200):  # until /a and /b are done (no sleep stands in for it: a poll)
        await asyncio.sleep(0.01)
        if len(fetcher.requested) >= 4:
            break
    await asyncio.sleep(0.2)
    # /a and /b went beside /slow; their pages wait for it.
    assert {u.removeprefix(ORIGIN) for u in fetcher.after_slow} <= {"/a", "/b"}
    fetcher._go.set()
    m = await asyncio.wait_for(task, 30)
    assert sorted(p.url for p in m.pages) == sorted(ORIGIN + p for p in reference(graph, budget))


async def test_resume_in_the_middle_of_overlapping_depths(tmp_path: Path) -> None:
    graph = wide_site(slow_first=True)
    out = tmp_path / "out"
    stop = asyncio.Event()

    seen: list[PageRecord] = []

    class StopAfter(NullProgress):  # (a crawl into a directory keeps no records in memory)
        def page(self, record: PageRecord, engine: object) -> None:
            seen.append(record)
            if len(seen) >= 8:
                stop.set()

    budget = 15
    policy = CrawlPolicy(markdown=False, workers=0, max_pages=budget)
    delays = {"/slow": 0.2, **{f"/a{i}": 0.01 for i in range(10)}}
    first = await crawl(ORIGIN + "/", policy, fetcher=TimedFetcher(site_of(graph), delays),
                        out_dir=out, stop=stop, progress=StopAfter())
    assert not first.complete
    second = await crawl(ORIGIN + "/", policy, fetcher=FakeFetcher(site_of(graph)),
                         out_dir=out, resume=True)
    assert second.complete
    want = sorted(ORIGIN + p for p in reference(graph, budget))
    assert sorted(p.url for p in second.pages) == want


def item(url: str, depth: int, path: tuple[int, ...], score: float = 0.0) -> FrontierItem:
    return FrontierItem(url=url, host="h", depth=depth, path=path, score=score)


def test_ledger_counts_what_unfinished_parents_could_still_offer() -> None:
    ledger = Ledger(max_pages=8, links_per_page=3)
    ledger.offer(item("/", 0, (0,)))
    assert ledger.take(ledger.limits(urgent=True)) == [item("/", 0, (0,))]
    for i, name in enumerate(("a", "b", "c")):
        ledger.offer(item(f"/{name}", 1, (0, i)))
    ledger.finish("/", charged=True)
    released = ledger.take(ledger.limits(urgent=True))
    assert [i.url for i in released] == ["/a", "/b", "/c"]  # 1 + 3 + 3 * 3 > 8 but in order
    ledger.offer(item("/a0", 2, (0, 0, 0)))
    ledger.offer(item("/c0", 2, (0, 2, 0)))
    ledger.finish("/a", charged=True)
    ledger.finish("/c", charged=True)
    # /a0: 4 pages before it and nothing unfinished ranked before its parent: certain.
    # /c0: /b (unfinished, ranked before /c) could still offer 3 pages before it: 4+1+3 = 8.
    limits = ledger.limits(urgent=True)
    assert limits.allows(2, order_key(item("/a0", 2, (0, 0, 0))))
    assert not limits.allows(2, order_key(item("/c0", 2, (0, 2, 0))))
    assert [i.url for i in ledger.take(limits)] == ["/a0"]
    ledger.finish("/b", charged=True)  # it offered nothing
    assert [i.url for i in ledger.take(ledger.limits(urgent=True))] == ["/c0"]


def test_ledger_limits_are_never_for_a_depth_whose_pages_could_move_up() -> None:
    ledger = Ledger(max_pages=100)
    ledger.offer(item("/", 0, (0,)))
    ledger.take(ledger.limits(urgent=True))
    ledger.offer(item("/a", 1, (0, 0)))
    ledger.finish("/", charged=True)
    ledger.take(ledger.limits(urgent=True))
    ledger.offer(item("/x", 2, (0, 0, 0)))
    # /x could still be found at depth 1? no: every depth-0 page is done. At depth 3 a page
    # waits while depth 1 has an unfinished page.
    assert 2 in ledger.limits(urgent=True).keys
    ledger.offer(item("/y", 3, (0, 0, 0, 0)))
    assert 3 not in ledger.limits(urgent=True).keys
    assert isinstance(ledger.limits(urgent=True), Limits)


class MultiHostTimed:
    """Pages on several hosts, each answering after its own delay (a shard's fetcher)."""

    def __init__(self, pages: dict[str, str], delays: dict[str, float]) -> None:
        self.pages = pages
        self.delays = delays
        self.store = MemorySnapshotStore()
        self.requested: list[str] = []

    async def fetch_page(self, item: FrontierItem, seed: Seed | None) -> Fetched:
        self.requested.append(item.url)
        await asyncio.sleep(self.delays.get(item.url, 0.0))
        body = self.pages.get(item.url, "<p>missing</p>")
        snap = new_snapshot(
            source_id=source_id_for_url(item.url), requested_url=item.url, url=item.url,
            status=200, headers=[("content-type", "text/html; charset=utf-8")],
            body=body.encode(), fetched_at="2026-11-30T12:00:00.000Z")
        return Fetched(url=item.url, snapshot=snap, source_ref=self.store.put(snap).source_ref,
                       status=200)

    async def fetch_document(self, url: str) -> bytes:
        raise RuntimeError("no sitemaps")

    async def sitemap_roots(self, origin: str) -> list[str]:
        return []

    async def crawl_delay(self, origin: str) -> float | None:
        return None

    def robots_allows(self, url: str) -> bool | None:
        return True

    async def aclose(self) -> None:
        return None


def multi_host_graph(seed: int) -> Graph:
    rng = random.Random(seed)
    pages = [f"http://{h}.test/{p}" for h in "abc" for p in ("", "p1", "p2", "p3", "p4", "p5")]
    return {page: rng.sample(pages, rng.randint(0, 5)) for page in pages}


def multi_reference(graph: Graph, seeds: list[str], max_pages: int) -> list[str]:
    level = {url: (-0.0, (i,)) for i, url in enumerate(seeds)}
    seen: set[str] = set()
    chosen: list[str] = []
    while level and len(chosen) < max_pages:
        ordered = sorted(level, key=level.__getitem__)[: max_pages - len(chosen)]
        chosen += ordered
        seen |= set(level)
        found: dict[str, tuple[float, tuple[int, ...]]] = {}
        for page in ordered:
            for index, link in enumerate(dict.fromkeys(graph.get(page, []))):
                key = (-0.0, (*level[page][1], index))
                if link not in seen and (link not in found or key < found[link]):
                    found[link] = key
        level = found
    return chosen


@pytest.mark.parametrize("seed", [3, 11, 29])
async def test_sharded_page_set_with_stragglers_is_the_in_process_one(
        tmp_path: Path, seed: int) -> None:
    """Two shards, links across hosts, some pages much slower than others: the same page
    set as in process and as the breadth-first reference, under a binding budget."""
    graph = multi_host_graph(seed)
    html = {url: "<html><body><main><h1>x</h1>" + "".join(
        f'<a href="{to}">l</a>' for to in links) + "</main></body></html>"
        for url, links in graph.items()}
    rng = random.Random(seed)
    delays = {url: rng.choice((0.0, 0.0, 0.002, 0.08)) for url in graph}
    seeds = ["http://a.test/", "http://b.test/"]
    for budget in (5, 9, 14):
        want = sorted(multi_reference(graph, seeds, budget))
        policy = CrawlPolicy(markdown=False, workers=0, max_pages=budget, render="never",
                             scope=("a.test", "b.test", "c.test"))
        local = await crawl(seeds, policy, fetcher=MultiHostTimed(html, delays))
        assert sorted(p.url for p in local.pages) == want
        fetchers = [MultiHostTimed(html, delays), MultiHostTimed(html, delays)]
        sharded = await LocalEngine(shards=2).run(seeds, policy, out_dir=tmp_path / f"{budget}",
                                                  fetchers=fetchers)
        assert sorted(p.url for p in sharded.pages) == want
        assert sum(len(f.requested) for f in fetchers) == len(want)


def test_a_finished_url_is_kept_as_its_digest_and_stays_known() -> None:
    """A finished page leaves the ledger's entries (only its 64-bit key stays): it is
    still known, started and earlier than any offer, and a second finish is a no-op."""
    ledger = Ledger(max_pages=100)
    ledger.offer(item("/", 0, (0,)))
    ledger.take(ledger.limits(urgent=True))
    ledger.offer(item("/a", 1, (0, 0)))
    ledger.finish("/", charged=True)
    ledger.finish("/a", charged=False)  # a denial: never released
    assert "/" not in ledger._entries and "/a" not in ledger._entries
    for url in ("/", "/a"):
        assert ledger.known(url) and ledger.started(url)
        assert ledger.earlier(url, 0, (-math.inf,))
        assert not ledger.offer(item(url, 0, (0, 5)))
        ledger.finish(url, charged=True)  # already done: nothing changes
    assert not ledger.known("/b") and not ledger.started("/b")
    assert ledger.unfinished() == 0 and ledger.waiting == 0
    with pytest.raises(KeyError):
        ledger.finish("/b", charged=True)
