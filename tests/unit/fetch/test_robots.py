from __future__ import annotations

import asyncio

import pytest
from aiohttp import web

from pressmark.egress import GuardedClient
from pressmark.fetch import RobotsCache, SourceConfig, fetch_source
from pressmark.fetch._robots import parse_robots, product_token

from .conftest import LoopbackSite

UA = "pressmark/0.1 (+https://example.test/bot)"
RULES = """
User-agent: otherbot
Disallow: /

User-agent: pressmark
Crawl-delay: 120
Allow: /private/open
Disallow: /private/

User-agent: *
Disallow: /

Sitemap: http://example.test/sitemap.xml
"""


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.t += seconds


def test_product_token() -> None:
    assert product_token(UA) == "pressmark"
    assert product_token("Mozilla/5.0 (compatible)") == "mozilla"
    assert product_token("") == "*"


def test_parse_is_pure_and_matches_the_product_token() -> None:
    rules = parse_robots(RULES)
    assert rules.can_fetch("http://example.test/a", product_token(UA))
    assert not rules.can_fetch("http://example.test/private/x", product_token(UA))
    assert rules.can_fetch("http://example.test/private/open", product_token(UA))
    assert not rules.can_fetch("http://example.test/a", "somebot")


async def _cache(site: LoopbackSite, **kwargs: object) -> tuple[GuardedClient, RobotsCache]:
    client = GuardedClient(site.policy())
    return client, RobotsCache(client, user_agent=UA, **kwargs)  # type: ignore[arg-type]


async def test_rules_cached_per_origin_and_crawl_delay_capped(site: LoopbackSite) -> None:
    site.add("/robots.txt", RULES, content_type="text/plain")
    client, cache = await _cache(site, crawl_delay_cap_s=5.0)
    async with client:
        results = await asyncio.gather(
            *(cache.allowed(site.url(p), UA) for p in ("/a", "/private/x", "/private/open") * 5))
        assert results == [True, False, True] * 5
        assert await cache.crawl_delay(site.origin, UA) == 5.0
        assert await cache.sitemaps(site.origin) == ["http://example.test/sitemap.xml"]
    assert site.paths().count("/robots.txt") == 1  # concurrent lookups shared one download
    assert site.requests[0][1]["user-agent"] == UA


@pytest.mark.parametrize(("status", "allowed"), [(404, True), (410, True), (401, True),
                                                 (403, True), (500, False), (503, False)])
async def test_status_semantics(site: LoopbackSite, status: int, allowed: bool) -> None:
    site.add("/robots.txt", "User-agent: *\nDisallow: /\n", status=status,
             content_type="text/plain")
    client, cache = await _cache(site)
    async with client:
        assert await cache.allowed(site.url("/page"), UA) is allowed


async def test_5xx_is_retried_after_the_error_ttl(site: LoopbackSite) -> None:
    clock = FakeClock()
    site.add("/robots.txt", "", status=500)
    client, cache = await _cache(site, clock=clock, error_ttl_s=30.0)
    async with client:
        assert not await cache.allowed(site.url("/page"), UA)
        site.add("/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")
        assert not await cache.allowed(site.url("/page"), UA)  # still within the error TTL
        clock.t += 31
        assert await cache.allowed(site.url("/page"), UA)
    assert site.paths().count("/robots.txt") == 2


async def test_ttl_follows_max_age(site: LoopbackSite) -> None:
    clock = FakeClock()
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain",
             headers={"Cache-Control": "public, max-age=60"})
    client, cache = await _cache(site, clock=clock)
    async with client:
        await cache.allowed(site.url("/"), UA)
        clock.t += 59
        await cache.allowed(site.url("/"), UA)
        clock.t += 2
        await cache.allowed(site.url("/"), UA)
    assert site.paths().count("/robots.txt") == 2


async def test_unreachable_and_timeout_disallow(site: LoopbackSite) -> None:
    async def hang(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(2)
        return web.Response(text="")

    site.handle("/robots.txt", hang)
    client, cache = await _cache(site, timeout_s=0.3)
    async with client:
        started = asyncio.get_running_loop().time()
        assert not await cache.allowed(site.url("/page"), UA)
        assert asyncio.get_running_loop().time() - started < 1.5
        entry = cache.cached(site.origin)
        assert entry is not None and entry.reason == "timeout"
    refused = RobotsCache(user_agent=UA, policy=site.policy().allow_loopback(
        "http://127.0.0.1:9"))
    assert not await refused.allowed("http://127.0.0.1:9/x", UA)


async def test_huge_file_is_cut_at_500_kib(site: LoopbackSite) -> None:
    filler = "# padding line to push the real rules past the parse limit\n" * 9000
    body = "User-agent: *\nDisallow: /early\n" + filler + "Disallow: /late\n"
    assert len(body) > 500 * 1024
    site.add("/robots.txt", body, content_type="text/plain")
    client, cache = await _cache(site)
    async with client:
        assert not await cache.allowed(site.url("/early"), UA)
        assert await cache.allowed(site.url("/late"), UA)
        entry = cache.cached(site.origin)
        assert entry is not None and entry.truncated


async def test_redirects_are_followed_up_to_five(site: LoopbackSite) -> None:
    site.add("/robots.txt", "", status=301, headers={"Location": "/moved.txt"})
    site.add("/moved.txt", "User-agent: *\nDisallow: /x\n", content_type="text/plain")
    client, cache = await _cache(site)
    async with client:
        assert not await cache.allowed(site.url("/x"), UA)
        assert await cache.allowed(site.url("/y"), UA)


async def test_too_many_redirects_means_unavailable(site: LoopbackSite) -> None:
    for i in range(8):
        site.add(f"/r{i}", "", status=302, headers={"Location": f"/r{i + 1}"})
    site.add("/robots.txt", "", status=302, headers={"Location": "/r0"})
    site.add("/r8", "User-agent: *\nDisallow: /\n", content_type="text/plain")
    client, cache = await _cache(site)
    async with client:
        assert await cache.allowed(site.url("/x"), UA)
        entry = cache.cached(site.origin)
        assert entry is not None and entry.reason == "too-many-redirects"


async def test_a_cancelled_download_does_not_strand_other_waiters(site: LoopbackSite) -> None:
    gate = asyncio.Event()

    async def slow_rules(request: web.Request) -> web.StreamResponse:
        await asyncio.wait_for(gate.wait(), 2)
        return web.Response(text="User-agent: *\nDisallow: /x\n", content_type="text/plain")

    site.handle("/robots.txt", slow_rules)
    client, cache = await _cache(site)
    async with client:
        first = asyncio.create_task(cache.allowed(site.url("/x"), UA))
        await asyncio.sleep(0.05)
        second = asyncio.create_task(cache.allowed(site.url("/x"), UA))
        await asyncio.sleep(0.05)
        first.cancel()
        await asyncio.sleep(0.05)
        gate.set()
        assert await second is False
        with pytest.raises(asyncio.CancelledError):
            await first


def test_groups_match_the_exact_product_token() -> None:
    # RFC 9309 2.2.1: a group applies when its token equals ours (case-insensitively),
    # not when it is a prefix of it; a version in the group line is not part of the token.
    prefix = parse_robots("User-agent: press\nDisallow: /\n\nUser-agent: *\nDisallow: /b\n")
    assert prefix.can_fetch("http://x.test/a", UA)
    assert not prefix.can_fetch("http://x.test/b", UA)
    longer = parse_robots("User-agent: pressmarker\nDisallow: /\n")
    assert longer.can_fetch("http://x.test/a", UA)
    exact = parse_robots("User-agent: PressMark/2.0  # us\nDisallow: /a\nCrawl-delay: 3\n\n"
                         "User-agent: *\nDisallow: /\n")
    assert not exact.can_fetch("http://x.test/a", UA)
    assert exact.can_fetch("http://x.test/b", "pressmark")
    assert exact.crawl_delay(UA) == 3.0
    assert not exact.can_fetch("http://x.test/b", "otherbot/1.0")
    assert exact.can_fetch("http://x.test/robots.txt", "otherbot/1.0")


async def test_redirect_chain_is_cut_after_five_hops(site: LoopbackSite) -> None:
    for i in range(20):
        site.add(f"/r{i}", "", status=302, headers={"Location": f"/r{i + 1}"})
    site.add("/robots.txt", "", status=302, headers={"Location": "/r0"})
    client, cache = await _cache(site)
    async with client:
        assert await cache.allowed(site.url("/x"), UA)
    assert len(site.requests) == 6  # robots.txt and five redirects, not the client's ten


async def test_redirect_to_a_denied_address_disallows_without_egress_denial(
        site: LoopbackSite) -> None:
    site.add("/robots.txt", "", status=302, headers={"Location": "http://10.0.0.1/robots.txt"})
    site.add("/page", "<p>hi</p>")
    result = await fetch_source(SourceConfig(url=site.url("/page")), site.options())
    assert result.error is not None and result.error.kind == "robots-denied"
    assert "unreachable (redirect-denied:DENIED_ADDRESS)" in result.error.message
    assert "/page" not in site.paths()


async def test_4xx_ttl_and_expires_follow_the_server(site: LoopbackSite) -> None:
    clock = FakeClock()
    site.add("/robots.txt", "gone", status=404, headers={"Cache-Control": "max-age=90"})
    client, cache = await _cache(site, clock=clock)
    async with client:
        assert await cache.allowed(site.url("/"), UA)
        clock.t += 91
        site.add("/robots.txt", "User-agent: *\nDisallow: /\n", content_type="text/plain",
                 headers={"Date": "Mon, 30 Nov 2026 12:00:00 GMT",
                          "Expires": "Mon, 30 Nov 2026 12:01:00 GMT"})
        assert not await cache.allowed(site.url("/"), UA)
        entry = cache.cached(site.origin)
        assert entry is not None and entry.expires_at == pytest.approx(clock.t + 60)
    assert site.paths().count("/robots.txt") == 2


async def test_no_cache_still_keeps_the_rules_a_minute(site: LoopbackSite) -> None:
    clock = FakeClock()
    site.add("/robots.txt", "User-agent: *\nDisallow: /x\n", content_type="text/plain",
             headers={"Cache-Control": "no-cache"})
    client, cache = await _cache(site, clock=clock)
    async with client:
        for _ in range(5):
            assert not await cache.allowed(site.url("/x"), UA)
        clock.t += 61
        assert not await cache.allowed(site.url("/x"), UA)
    assert site.paths().count("/robots.txt") == 2
