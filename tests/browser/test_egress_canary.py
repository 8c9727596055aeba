"""Nothing leaves the browser except through the egress proxy, by any channel."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pressmark.render import PoolLimits, RenderOptions
from pressmark.render._options import PageState

from ._site import Canary, PageServer, canary_page

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


async def test_canary_sees_nothing(policy: Any, pages: PageServer, canary: Canary) -> None:
    from pressmark.egress import StaticResolver
    from pressmark.render import PlaywrightRenderer

    # evil.test resolves to the canary's address: only the policy stands in between.
    resolver = StaticResolver({"evil.test": ["127.0.0.1"]})
    pages.extra["/canary"] = canary_page(canary.origin, f"http://evil.test:{canary.port}")
    before = len(pages.paths)
    # Nothing blocked by resource type: every channel must be stopped by egress alone.
    state = PageState(block=frozenset())
    async with PlaywrightRenderer(
        policy=policy, resolver=resolver, page_state=state, limits=PoolLimits(max_tabs=1)
    ) as r:
        result = await r.render(pages.origin + "/canary", RenderOptions())
        await asyncio.sleep(1.0)  # late attempts (timers, retries) still land on the canary
        denied = list(r.proxy.denied)  # type: ignore[attr-defined]
    assert canary.hits == []
    assert result.readiness.passed
    assert "<h1>Canary</h1>" in result.html
    assert result.final_url == pages.origin + "/canary"
    # The attempts were made, and refused at the proxy, for both targets.
    refused_hosts = {d.host for d in denied}
    assert {"127.0.0.1", "evil.test"} <= refused_hosts
    assert "/sw.js" not in pages.paths[before:]  # service workers are blocked


async def test_denied_page_and_denied_redirect_hop(
    renderer: Any, pages: PageServer, canary: Canary
) -> None:
    from pressmark.egress import EgressDenied

    with pytest.raises(EgressDenied):  # refused before the browser is involved
        await renderer.render(canary.origin + "/direct", RenderOptions())
    pages.redirects["/out"] = canary.origin + "/hop"
    with pytest.raises(EgressDenied) as info:  # refused by the proxy, mid-navigation
        await renderer.render(pages.origin + "/out", RenderOptions())
    assert info.value.url == canary.origin + "/hop"
    pages.redirects["/out-tls"] = "https://10.0.0.1/tunnel"  # a CONNECT the proxy refuses
    with pytest.raises(EgressDenied) as info:
        await renderer.render(pages.origin + "/out-tls", RenderOptions())
    assert (info.value.code, info.value.host) == ("DENIED_ADDRESS", "10.0.0.1")
    assert canary.hits == []


async def test_cross_host_subresource_allowed_by_policy(pages: PageServer) -> None:
    from pressmark.egress import EgressPolicy
    from pressmark.render import PlaywrightRenderer

    cdn = PageServer(host="127.0.0.2").start()
    try:
        script = f'<script src="{cdn.origin}/cdn.js"></script>'
        pages.extra["/uses-cdn"] = "<main><h1>App</h1></main>" + script
        policy = EgressPolicy().allow_loopback(pages.origin, cdn.origin)
        async with PlaywrightRenderer(policy=policy, limits=PoolLimits(max_tabs=1)) as r:
            result = await r.render(pages.origin + "/uses-cdn", RenderOptions())
        assert result.readiness.passed
        assert "From the CDN:" in result.html
        assert "/cdn.js" in cdn.paths
    finally:
        cdn.stop()
