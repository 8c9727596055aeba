"""The fetch layer's robots guard for browser navigations (the renderer asks it per hop)."""

from __future__ import annotations

import pickle

import pytest

from pressmark.fetch import FetchOptions, SourceConfig, fetch_source
from pressmark.fetch._render_policy import WARN_RENDER_FAILED
from pressmark.fetch._robots import RobotsCache, RobotsNavigationGuard
from pressmark.render import RenderError, RenderOptions, RenderResult
from pressmark.render._protocol import NavigationGuard
from pressmark.testing import FakeRenderer

from .conftest import LoopbackSite

SHELL = ("<!doctype html><html><head><title>Loading</title></head><body><div id=\"root\">"
         "</div><script src=\"/app.js\"></script></body></html>")


@pytest.fixture
def pages(site: LoopbackSite) -> LoopbackSite:
    site.add("/shell", SHELL)
    site.add("/robots.txt", "User-agent: *\nDisallow: /private\n", content_type="text/plain")
    return site


class HopRenderer(FakeRenderer):
    """Asks the guard about a redirect hop to ``hop`` the way the Chromium hook does."""

    def __init__(self, hop: str) -> None:
        super().__init__()
        self.hop = hop
        self.asked: list[tuple[str, bool]] = []

    async def render(self, url: str, options: RenderOptions) -> RenderResult:
        guard = options.navigation_guard
        assert isinstance(guard, NavigationGuard)
        for target in (url, self.hop):
            allowed = await guard.allows(target)
            self.asked.append((target, allowed))
            if not allowed:
                raise RenderError(f"robots.txt disallows the navigation to {target}",
                                  code="robots-denied", url=target)
        return await super().render(url, options)


async def test_always_ends_as_robots_denied(pages: LoopbackSite) -> None:
    renderer = HopRenderer(pages.url("/private/x"))
    result = await fetch_source(SourceConfig(url=pages.url("/shell"), render_policy="always"),
                                FetchOptions(egress=pages.policy(), renderer=renderer))
    assert result.error is not None and result.error.kind == "robots-denied"
    assert result.error.url == pages.url("/private/x")
    assert renderer.asked == [(pages.url("/shell"), True), (pages.url("/private/x"), False)]
    assert "/private/x" not in pages.paths()


async def test_on_shell_keeps_the_plain_snapshot(pages: LoopbackSite) -> None:
    renderer = HopRenderer(pages.url("/private/x"))
    result = await fetch_source(SourceConfig(url=pages.url("/shell"), render_policy="on-shell"),
                                FetchOptions(egress=pages.policy(), renderer=renderer))
    assert renderer.asked[-1] == (pages.url("/private/x"), False)
    assert result.ok and not result.rendered
    assert any(w.startswith(f"{WARN_RENDER_FAILED}:robots-denied") for w in result.warnings), \
        result.warnings


async def test_no_guard_when_robots_is_off(pages: LoopbackSite) -> None:
    renderer = FakeRenderer()
    await fetch_source(SourceConfig(url=pages.url("/shell"), render_policy="always",
                                    respect_robots=False),
                       FetchOptions(egress=pages.policy(), renderer=renderer))
    assert renderer.calls[0].options.navigation_guard is None


async def test_guard_pickles_with_its_egress_settings(pages: LoopbackSite) -> None:
    guard = RobotsNavigationGuard(RobotsCache(policy=pages.policy()), "pressmark/1")
    copy = pickle.loads(pickle.dumps(guard))
    assert await copy.allows(pages.url("/ok"))
    assert not await copy.allows(pages.url("/private/1"))
    assert await copy.allows("http://user@x.test/")  # egress refuses it itself
