"""The renderer on the demo site: every shell, the lazy page, the live counter."""

from __future__ import annotations

import html
import json
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from pressmark.render import PoolLimits, ReadinessSpec, RenderOptions

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def demo_renderer(demo_origin: str) -> AsyncIterator[Any]:
    from pressmark.egress import EgressPolicy
    from pressmark.render import PlaywrightRenderer

    policy = EgressPolicy().allow_loopback(demo_origin)
    async with PlaywrightRenderer(policy=policy, limits=PoolLimits(max_pages=2)) as r:
        yield r


async def test_every_shell_renders(make_demo_server: Any) -> None:
    import asyncio

    from pressmark.egress import EgressPolicy
    from pressmark.render import PlaywrightRenderer

    server = make_demo_server(pages=20)  # every shell kind, few enough for two cores
    demo_site, demo_origin = server.site, server.url
    shells = [page for page in demo_site.pages if page.is_shell]
    assert {page.kind for page in shells} == {"shell", "shell-next", "shell-jsonld", "shell-links"}
    policy = EgressPolicy().allow_loopback(demo_origin)
    async with PlaywrightRenderer(policy=policy, limits=PoolLimits(max_pages=2)) as renderer:
        results = await asyncio.gather(
            *(renderer.render(demo_origin + page.path, RenderOptions()) for page in shells)
        )
    for page, result in zip(shells, results, strict=True):
        assert result.readiness.passed, (page.path, result.readiness)
        assert result.readiness.reason == "main-selector+stable"
        truth = demo_site.content(page.path)
        body = result.html.split("<body", 1)[1]
        # Rendered, not just served: the headings exist only after scripts ran.
        for heading in truth.headings():
            assert html.escape(heading, quote=False) in body, (page.path, heading)


def _get_json(url: str) -> Any:
    with urllib.request.urlopen(url) as response:
        return json.load(response)


async def test_lazy_page_needs_scroll_readiness(demo_renderer: Any, demo_origin: str) -> None:
    import asyncio

    last_heading = (await asyncio.to_thread(_get_json, demo_origin + "/api/lazy/5.json"))["heading"]
    plain = await demo_renderer.render(demo_origin + "/special/lazy", RenderOptions())
    assert plain.readiness.passed
    assert last_heading not in plain.html.replace("&quot;", '"')

    spec = ReadinessSpec(scroll=True)
    scrolled = await demo_renderer.render(
        demo_origin + "/special/lazy", RenderOptions(readiness=spec)
    )
    assert scrolled.readiness.passed
    assert scrolled.readiness.reason == "main-selector+scroll+stable"
    assert scrolled.readiness.scrolls >= 1
    assert last_heading in scrolled.html.replace("&quot;", '"')


async def test_live_counter_fails_stability_or_ignores_it(
    demo_renderer: Any, demo_origin: str
) -> None:
    # It ticks every second: a 2 s window never holds.
    strict = RenderOptions(readiness=ReadinessSpec(stability_window_ms=2000), timeout_ms=3500)
    result = await demo_renderer.render(demo_origin + "/special/live", strict)
    assert not result.readiness.passed
    assert result.readiness.reason.startswith("stable-failed: main text changed")
    assert "<h1>Live: the harbour festival</h1>" in result.html  # what it had, with a warning
    assert any(w.startswith("readiness not reached") for w in result.warnings)
    # Leaving the counter out, the stable region passes.
    spec = ReadinessSpec(stability_window_ms=1500, ignore_selectors=("#live-counter",))
    options = RenderOptions(readiness=spec)
    result = await demo_renderer.render(demo_origin + "/special/live", options)
    assert result.readiness.passed, result.readiness
    assert result.readiness.reason == "main-selector+stable"
