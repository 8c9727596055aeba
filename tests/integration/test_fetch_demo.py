"""fetch_source against the demo site: charsets, revalidation, redirects, robots, shells."""

from __future__ import annotations

import asyncio

import pytest

from pressmark.demo import DemoServer, DemoSite
from pressmark.egress import EgressPolicy
from pressmark.fetch import FetchOptions, RobotsCache, SourceConfig, classify_shell, fetch_source
from pressmark.store import MemorySnapshotStore
from pressmark.testing import FakeRenderer


def options(origin: str, **kwargs: object) -> FetchOptions:
    policy = EgressPolicy(test_only_allowed_loopback_origins=(origin,))
    return FetchOptions(egress=policy, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("path", [
    "/charset/shift_jis", "/charset/windows-1252", "/charset/http-equiv", "/charset/bom",
    "/charset/bom-conflict", "/charset/invalid-utf8", "/charset/none",
])
async def test_charset_variants_decode_as_a_browser_would(
        demo_site: DemoSite, demo_origin: str, path: str) -> None:
    result = await fetch_source(SourceConfig(url=demo_origin + path), options(demo_origin))
    assert result.ok, result.error
    snap = result.snapshot
    assert snap is not None
    assert demo_site.charset_text(path) in snap.body
    expected_source = {
        "/charset/shift_jis": "header", "/charset/windows-1252": "meta",
        "/charset/http-equiv": "meta", "/charset/bom": "bom", "/charset/bom-conflict": "bom",
        "/charset/invalid-utf8": "header", "/charset/none": "default",
    }[path]
    assert snap.charset_source == expected_source
    invalid = [w for w in result.warnings if w.startswith("charset-invalid-bytes")]
    assert bool(invalid) == (path == "/charset/invalid-utf8")
    if path == "/charset/invalid-utf8":
        assert "\ufffd" in snap.body
    if path == "/charset/bom-conflict":
        assert any(w.startswith("charset-bom-overrides-header") for w in result.warnings)


@pytest.mark.parametrize(("path", "revalidates"), [
    ("/cache/both", True), ("/cache/etag", True), ("/cache/last-modified", True),
    ("/cache/weak", True), ("/cache/none", False), ("/cache/changing", False),
])
async def test_revalidation(demo_origin: str, path: str, revalidates: bool) -> None:
    store = MemorySnapshotStore()
    source = SourceConfig(url=demo_origin + path, revalidate=True)
    first = await fetch_source(source, options(demo_origin, store=store))
    second = await fetch_source(source, options(demo_origin, store=store))
    assert first.ok and second.ok
    assert second.not_modified is revalidates
    if revalidates:
        assert second.source_ref == first.source_ref
        assert second.snapshot is not None and second.snapshot.bytes == first.snapshot.bytes  # type: ignore[union-attr]
    assert first.snapshot is not None and second.snapshot is not None
    # A full fetch stores what it got. Two captures of the same bytes in the same
    # millisecond are one content-addressed snapshot, not two (a fast machine does that).
    captured = {first.snapshot.snapshot_sha256, second.snapshot.snapshot_sha256}
    if not revalidates:
        assert second.snapshot.fetched_at >= first.snapshot.fetched_at
    assert len(store.list(first.snapshot.source_id)) == (1 if revalidates else len(captured))


async def test_redirect_chain_is_recorded(demo_origin: str) -> None:
    result = await fetch_source(SourceConfig(url=demo_origin + "/redirect/chain"),
                                options(demo_origin))
    assert result.ok
    snap = result.snapshot
    assert snap is not None
    assert snap.url == demo_origin + "/special/redirect-target"
    assert [r.status for r in snap.redirects] == [301, 302, 307, 308]
    assert snap.requested_url == demo_origin + "/redirect/chain"


async def test_robots_denies_a_redirect_target(demo_server: DemoServer,
                                               demo_origin: str) -> None:
    mark = len(demo_server.requests)
    result = await fetch_source(SourceConfig(url=demo_origin + "/redirect/to-disallowed"),
                                options(demo_origin))
    assert result.error is not None and result.error.kind == "robots-denied"
    paths = [r.path for r in demo_server.requests[mark:]]
    assert "/redirect/to-disallowed-target" not in paths
    allowed = await fetch_source(SourceConfig(url=demo_origin + "/private/open"),
                                 options(demo_origin))
    assert allowed.ok
    denied = await fetch_source(SourceConfig(url=demo_origin + "/private/1"),
                                options(demo_origin))
    assert denied.error is not None and denied.error.kind == "robots-denied"


async def test_loop_and_endless_redirects_are_denied(demo_origin: str) -> None:
    result = await fetch_source(SourceConfig(url=demo_origin + "/redirect/loop"),
                                options(demo_origin))
    assert result.error is not None and result.error.kind == "egress-denied"
    assert result.error.code == "TOO_MANY_REDIRECTS"


async def test_shell_pages_render_and_static_pages_do_not(demo_site: DemoSite,
                                                          demo_origin: str) -> None:
    robots = RobotsCache()
    shells = [p for p in demo_site.pages if p.kind in ("shell", "shell-links")][:3]
    embedded = [p for p in demo_site.pages if p.kind in ("shell-next", "shell-jsonld")][:2]
    static = [p for p in demo_site.pages if p.kind == "article"][:3]
    for page in shells + embedded + static:
        renderer = FakeRenderer()
        result = await fetch_source(
            SourceConfig(url=demo_origin + page.path, render_policy="on-shell"),
            options(demo_origin, renderer=renderer, robots=robots))
        assert result.ok, (page.path, result.error)
        assert result.rendered is (page in shells), page.path
        assert renderer.call_count == (1 if page in shells else 0)


async def test_classifier_has_no_false_positive_on_the_demo(demo_site: DemoSite,
                                                            demo_origin: str) -> None:
    from pressmark.egress import GuardedClient

    policy = EgressPolicy(test_only_allowed_loopback_origins=(demo_origin,))
    async with GuardedClient(policy) as client:
        for page in demo_site.pages:
            response = await client.get(demo_origin + page.path)
            verdict = classify_shell(response.content.decode("utf-8", "replace"))
            assert verdict.is_shell is page.is_shell, page.path
            assert verdict.escalate is (page.kind in ("shell", "shell-links")), page.path


@pytest.mark.parametrize(("mode", "path", "kind"), [
    ("500", "/", "robots-denied"),
    ("404", "/private/1", None),
    ("redirect", "/private/1", "robots-denied"),
    ("redirect", "/", None),
    ("huge", "/about", None),
    ("timeout", "/", "robots-denied"),
])
async def test_robots_modes(make_demo_server: object, mode: str, path: str,
                            kind: str | None) -> None:
    server = make_demo_server(robots=mode)  # type: ignore[operator]
    robots = RobotsCache(timeout_s=0.5)
    result = await fetch_source(SourceConfig(url=server.url + path, timeout_ms=3000),
                                options(server.url, robots=robots))
    assert (None if result.error is None else result.error.kind) == kind
    if mode == "huge":
        entry = robots.cached(server.url)
        assert entry is not None and entry.truncated


async def test_a_hanging_robots_txt_spends_the_page_budget(make_demo_server: object) -> None:
    server = make_demo_server(robots="timeout")  # type: ignore[operator]
    loop = asyncio.get_running_loop()
    started = loop.time()
    result = await fetch_source(SourceConfig(url=server.url + "/about", timeout_ms=600),
                                options(server.url))  # the cache's own robots timeout is 10 s
    assert result.error is not None and result.error.kind == "timeout"
    assert loop.time() - started < 6.0  # the page's 0.6 s, not the robots cache's own 10 s
    assert result.timings.robots_ms >= 550 and result.timings.attempts == 0
