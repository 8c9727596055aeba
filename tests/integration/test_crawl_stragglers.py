"""The page set under a budget is today's, with stragglers in the way (issue #35).

The straggler site (:class:`pressmark.testing.StragglerSite`) has about 500 pages; at depth
1 a shell that renders for seconds and a page that answers after seconds. Under
``max_pages=100`` the pages fetched are the first 100 in (depth, discovery order), as the
breadth-first walk written out below finds them, in process and sharded (two shards, two
hosts), whatever the stragglers do. (Timing, with a 20 s page and a render that runs to its
deadline, is ``bench/crawl_stragglers.py``.)
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import threading
from pathlib import Path

import pytest

from pressmark.crawl import CrawlPolicy, crawl
from pressmark.crawl.executor import LiveFetcher
from pressmark.crawl.ray import LocalEngine
from pressmark.egress import EgressPolicy
from pressmark.render import RenderOptions, RenderResult
from pressmark.testing import FakeRenderer, StragglerSite


def first_pages(graph: dict[str, list[str]], seed: str, budget: int) -> list[str]:
    """Breadth-first from ``seed``, each depth in discovery-path order, the first
    ``budget`` pages (a URL keeps its smallest path)."""
    level, seen, chosen = {seed: (0,)}, set(), []
    while level and len(chosen) < budget:
        ordered = sorted(level, key=level.__getitem__)[: budget - len(chosen)]
        chosen += ordered
        seen |= set(level)
        found: dict[str, tuple[int, ...]] = {}
        for page in ordered:
            for index, link in enumerate(dict.fromkeys(graph.get(page, []))):
                path = (*level[page], index)
                if link not in seen and (link not in found or path < found[link]):
                    found[link] = path
        level = found
    return chosen


def policy(origins: list[str], budget: int) -> CrawlPolicy:
    hosts = tuple(o.split("//", 1)[1] for o in origins)
    return CrawlPolicy(max_pages=budget, render="on-shell", markdown=False, workers=0,
                       scope=hosts, egress=EgressPolicy().allow_loopback(*origins))


@pytest.mark.parametrize("budget", [100, 30])
async def test_budget_takes_the_first_pages_in_process_with_stragglers(budget: int) -> None:
    site = StragglerSite(slow_s=1.5)
    renderer = FakeRenderer(delay_s=2.0)  # /never: its render takes seconds
    with site.serve():
        m = await crawl(site.origin + "/", policy(site.origins, budget), renderer=renderer)
    want = first_pages(site.graph(), site.origin + "/", budget)
    assert sorted(p.url for p in m.pages) == sorted(want)
    assert m.stop_reason == "max-pages"
    assert renderer.call_count == 1 and renderer.calls[0].url.endswith("/never")
    by_url = {p.url: p for p in m.pages}
    assert by_url[site.origin + "/never"].rendered


async def test_budget_takes_the_first_pages_on_two_shards_with_stragglers(
        tmp_path: Path) -> None:
    site = StragglerSite(slow_s=1.5)
    with contextlib.ExitStack() as stack:
        stack.enter_context(site.serve("127.0.0.1"))
        stack.enter_context(site.serve("127.0.0.2"))
        pol = policy(site.origins, 100)
        fetchers = []
        for _ in range(2):
            live = LiveFetcher(pol, renderer=FakeRenderer(delay_s=2.0))
            fetchers.append(await live.__aenter__())
        try:
            sharded = await LocalEngine(shards=2).run(site.origin + "/", pol,
                                                      out_dir=tmp_path / "sharded",
                                                      fetchers=fetchers)
        finally:
            for fetcher in fetchers:
                await fetcher.aclose()
        local = await crawl(site.origin + "/", pol, renderer=FakeRenderer(delay_s=2.0))
    want = sorted(first_pages(site.graph(), site.origin + "/", 100))
    assert sorted(p.url for p in sharded.pages) == want
    assert sorted(p.url for p in local.pages) == want
    assert {p.url.split("/", 3)[2] for p in sharded.pages} == {
        o.split("//", 1)[1] for o in site.origins}  # both hosts, so both shards, crawled


class _Watch(io.StringIO):
    """The progress stream; ``seen`` is set by the first line naming both stragglers."""

    def __init__(self, origin: str) -> None:
        super().__init__()
        self.origin = origin
        self.seen = threading.Event()

    def write(self, text: str) -> int:
        if f"{self.origin}/never (rendering, " in text and f"{self.origin}/slow (" in text:
            self.seen.set()
        return super().write(text)


class _HeldSite(StragglerSite):
    """/slow answers once the progress line has named it (a minute at most)."""

    held: threading.Event

    def page(self, path: str) -> str | None:
        if path == "/slow":
            self.held.wait(HOLD_S)
        return super().page(path)


class _HeldRenderer(FakeRenderer):
    """The render of /never ends once the progress line has named it (a minute at most)."""

    held: threading.Event

    async def render(self, url: str, options: RenderOptions) -> RenderResult:
        await asyncio.to_thread(self.held.wait, HOLD_S)
        return await super().render(url, options)


HOLD_S = 60.0  # a safety net: without the line, the crawl still ends and the test fails


async def test_progress_names_the_renders_and_stragglers_it_waits_on() -> None:
    """Issue #35: when only a render and a slow page are left, the progress line says so,
    with each page's URL and the seconds it has taken so far. Both stragglers are held
    until a line names them (not for a fixed time a loaded machine may outrun)."""
    from pressmark.crawl._progress import LogProgress

    site = _HeldSite(hubs=2, leaves=2, slow_s=0.0)
    renderer = _HeldRenderer()
    with site.serve():
        stream = _Watch(site.origin)
        site.held = renderer.held = stream.seen
        await crawl(site.origin + "/", policy(site.origins, 1000), renderer=renderer,
                    progress=LogProgress(stream, every_s=0.5))
    waiting = [line for line in stream.getvalue().splitlines() if "waiting on:" in line]
    assert waiting, stream.getvalue()
    assert any(f"{site.origin}/never (rendering, " in line and f"{site.origin}/slow (" in line
               for line in waiting), waiting
