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
    async with PlaywrightRenderer(policy=policy, limits=PoolLimits(max_tabs=2)) as r:
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
    async with PlaywrightRenderer(policy=policy, limits=PoolLimits(max_tabs=2)) as renderer:
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


async def test_div_only_article_falls_back_to_body(
    demo_renderer: Any, demo_server: Any, demo_site: Any
) -> None:
    import asyncio

    def served(path: str) -> str:
        with urllib.request.urlopen(demo_server.url + path) as response:
            return str(response.read().decode("utf-8"))

    for path in demo_site.paths_of_kind("article")[:12]:  # the div-only layout variant
        body = await asyncio.to_thread(served, path)
        if not any(tag in body for tag in ("<main", "<article", 'role="main"')):
            break
    else:
        pytest.fail("no div-only article among the first twelve")
    # The body fallback is taken about a second in (fallback_after_ms), or at the deadline's
    # final check: a deadline far off (60 s) tells the two apart however loaded the machine.
    result = await demo_renderer.render(demo_server.url + path, RenderOptions(timeout_ms=60_000))
    assert result.readiness.passed, result.readiness
    assert result.readiness.reason == "fallback-body+stable"
    assert result.readiness.elapsed_ms < 30_000  # not the deadline's final check
    assert f"<h1>{html.escape(demo_site.content(path).title, quote=False)}</h1>" in result.html


async def test_demo_client_redirects_are_followed_once(
    demo_renderer: Any, demo_origin: str
) -> None:
    for path in ("/special/js-redirect", "/special/meta-refresh"):
        # The target page is short (readiness fails): the deadline bounds the test.
        result = await demo_renderer.render(demo_origin + path, RenderOptions(timeout_ms=2500))
        assert result.final_url == demo_origin + "/special/redirect-target", (path, result)
        assert "You have arrived" in result.html
        assert result.status == 200
        followed = "followed a same-origin client-side redirect"
        assert any(w.startswith(followed) for w in result.warnings), result.warnings
