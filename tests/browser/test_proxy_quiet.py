"""What the egress proxy sees during a plain render: the page, nothing of Chromium's own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pressmark.egress import EgressProxy
from pressmark.render import PoolLimits, RenderOptions

from ._site import PageServer

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

_VENDOR = ("google", "gstatic", "gvt1", "chrome.com", "chromium.org", "doubleclick")


class RecordingProxy(EgressProxy):
    """Keeps the request line of everything the browser sent, authenticated or not."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lines: list[str] = []

    async def _request(self, head: bytes, *args: Any) -> bool:  # type: ignore[override]
        self.lines.append(head.split(b"\r\n", 1)[0].decode("latin-1"))
        return await super()._request(head, *args)


async def test_no_vendor_traffic_and_no_handshake_denials(policy: Any, pages: PageServer) -> None:
    from pressmark.render import PlaywrightRenderer

    proxy = RecordingProxy(policy)
    async with proxy:
        async with PlaywrightRenderer(proxy=proxy, limits=PoolLimits(max_tabs=1)) as renderer:
            # A page on a host the proxy must see (not bypassed as loopback by name).
            result = await renderer.render(pages.origin + "/static", RenderOptions())
            await asyncio.sleep(1.0)  # background fetches start a little after launch
        lines = list(proxy.lines)
        denied = list(proxy.denied)
        challenges = proxy.challenges
    assert result.readiness.passed
    vendor = [line for line in lines if any(v in line.lower() for v in _VENDOR)]
    assert vendor == [], vendor
    # Chromium's first, credential-less attempt is a handshake, not a refusal.
    assert all(d.code != "PROXY_AUTH" for d in denied), denied
    assert denied == []
    assert challenges >= 1  # counted apart from the refusals
    assert any(pages.origin + "/static" in line for line in lines)  # the proxy saw the page
