"""Render slots are apart from request slots: a render holds its politeness slot only while
its document is requested, so a crawl with one request slot still renders several pages."""

from __future__ import annotations

import asyncio
from typing import Any

from pressmark.crawl import CrawlPolicy, Politeness, crawl
from pressmark.egress import EgressPolicy
from pressmark.render import ReadinessReport, RenderOptions, RenderResult


class SlotRenderer:
    """Counts renders at once, and renders inside the navigation slot at once."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.rendering = self.navigating = 0
        self.peak_rendering = self.peak_navigating = 0
        self.calls = 0

    async def render(self, url: str, options: RenderOptions) -> RenderResult:
        self.calls += 1
        self.rendering += 1
        self.peak_rendering = max(self.peak_rendering, self.rendering)
        try:
            assert options.navigation_slot is not None  # the crawl's politeness
            async with options.navigation_slot():
                self.navigating += 1
                self.peak_navigating = max(self.peak_navigating, self.navigating)
                await asyncio.sleep(0.02)  # the document request
                self.navigating -= 1
            await asyncio.sleep(0.3)  # readiness: nothing in flight to the host
        finally:
            self.rendering -= 1
        body = "<main><h1>Rendered</h1><p>" + "text " * 100 + "</p></main>"
        return RenderResult(html=f"<html><body>{body}</body></html>", final_url=url, status=200,
                            readiness=ReadinessReport(passed=True, reason="main-selector+stable",
                                                      elapsed_ms=320.0))


async def test_one_request_slot_still_renders_several_pages(demo_origin: str) -> None:
    renderer = SlotRenderer(slots=4)
    policy = CrawlPolicy(
        max_pages=12, render="always", markdown=False, discovery="sitemap",
        politeness=Politeness(concurrency=1, per_host_concurrency=1),
        egress=EgressPolicy().allow_loopback(demo_origin),
    )
    manifest: Any = await crawl(demo_origin + "/", policy, renderer=renderer)
    assert manifest.summary["pages"] == 12
    assert renderer.calls == 12
    assert renderer.peak_navigating == 1  # politeness: one document request at a time
    assert renderer.peak_rendering >= 3  # while several pages wait for readiness
