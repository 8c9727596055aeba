"""Every row of the render-policy contract (seed decisions 1-12) with FakeRenderer."""

from __future__ import annotations

import asyncio
import json

import pytest

from pressmark.fetch import FetchOptions, SourceConfig, fetch_source
from pressmark.store import MemorySnapshotStore
from pressmark.testing import FakeRenderer

from .conftest import LoopbackSite

STATIC = ("<!doctype html><html><head><title>S</title></head><body><main><h1>Static</h1>"
          + "<p>Real server-rendered article text that needs no JavaScript.</p>" * 10
          + "</main></body></html>")
SHELL = ("<!doctype html><html><head><title>Loading</title></head><body><div id=\"root\">"
         "</div><script src=\"/app.js\"></script></body></html>")
STATE_SHELL = ("<!doctype html><html><head><script type=\"application/ld+json\">"
               + json.dumps({"@type": "Article", "articleBody": "words " * 100})
               + "</script></head><body><div id=\"root\"></div>"
               "<script src=\"/app.js\"></script></body></html>")
RENDERED = ("<html><head><title>R</title></head><body><main>"
            + "<p>Rendered content.</p>" * 20 + "</main></body></html>")


def opts(site: LoopbackSite, renderer: FakeRenderer | None = None,
         store: MemorySnapshotStore | None = None) -> FetchOptions:
    return FetchOptions(egress=site.policy(), renderer=renderer, store=store)


@pytest.fixture
def pages(site: LoopbackSite) -> LoopbackSite:
    site.add("/static", STATIC)
    site.add("/shell", SHELL, headers={"ETag": '"s1"'})
    site.add("/state", STATE_SHELL)
    site.add("/data.json", '{"a": 1}', content_type="application/json")
    site.add("/robots.txt", "User-agent: *\nDisallow: /private\n", content_type="text/plain")
    return site


# -- never ------------------------------------------------------------------------------

async def test_never_is_one_plain_attempt_even_for_a_shell(pages: LoopbackSite) -> None:
    renderer = FakeRenderer(RENDERED)
    for source in (SourceConfig(url=pages.url("/shell")),
                   SourceConfig(url=pages.url("/shell"), render_policy="never"),
                   SourceConfig(url=pages.url("/shell"), render=False)):
        result = await fetch_source(source, opts(pages, renderer))
        assert result.ok and not result.rendered
        assert result.render_escalation is None
    assert renderer.call_count == 0


# -- always -----------------------------------------------------------------------------

@pytest.mark.parametrize("source_kwargs", [{"render_policy": "always"}, {"render": True},
                                           {"render": True, "render_policy": "always"}])
async def test_always_renders_once_and_shapes_the_snapshot(
        pages: LoopbackSite, source_kwargs: dict[str, object]) -> None:
    renderer = FakeRenderer(RENDERED, final_url=pages.url("/final"), status=None)
    store = MemorySnapshotStore()
    result = await fetch_source(SourceConfig(url=pages.url("/static"), **source_kwargs),  # type: ignore[arg-type]
                                opts(pages, renderer, store))
    assert result.ok and result.rendered
    snap = result.snapshot
    assert snap is not None
    assert snap.rendered and snap.hash_basis == "decoded-utf8" and snap.content_type == "html"
    assert snap.bytes == RENDERED.encode() and snap.body == RENDERED
    assert snap.redirects == () and snap.etag is None and snap.last_modified is None
    assert snap.url == pages.url("/final") and snap.requested_url == pages.url("/static")
    assert snap.status == 200
    assert renderer.urls == [pages.url("/static")]
    assert "/static" not in pages.paths()  # no plain attempt
    esc = result.render_escalation
    assert esc is not None and esc.attempted and esc.reason == "policy:always"
    assert esc.render_error is None and esc.first_snapshot_ref is None
    assert result.warnings == ()
    assert store.latest(snap.source_id) == snap


async def test_always_url_defaults_to_requested(pages: LoopbackSite) -> None:
    result = await fetch_source(SourceConfig(url=pages.url("/static"), render_policy="always"),
                                opts(pages, FakeRenderer(RENDERED)))
    assert result.snapshot is not None and result.snapshot.url == pages.url("/static")


async def test_always_without_renderer_is_invalid_config_before_io(pages: LoopbackSite) -> None:
    result = await fetch_source(SourceConfig(url=pages.url("/static"), render=True), opts(pages))
    assert result.error is not None and result.error.kind == "invalid-config"
    assert pages.requests == []


async def test_always_renderer_throws_is_adapter_error(pages: LoopbackSite) -> None:
    renderer = FakeRenderer.failing(RuntimeError("browser crashed"))
    result = await fetch_source(SourceConfig(url=pages.url("/static"), render_policy="always",
                                             retries=3), opts(pages, renderer))
    assert result.error is not None and result.error.kind == "adapter-error"
    assert "browser crashed" in result.error.message
    assert renderer.call_count == 1  # never retried
    esc = result.render_escalation
    assert esc is not None and esc.attempted and esc.render_error == result.error


async def test_always_non_2xx_render_is_http_error(pages: LoopbackSite) -> None:
    result = await fetch_source(SourceConfig(url=pages.url("/static"), render_policy="always"),
                                opts(pages, FakeRenderer(RENDERED, status=404)))
    assert result.error is not None
    assert (result.error.kind, result.error.status) == ("http-error", 404)


async def test_always_robots_checked_once_before_render(pages: LoopbackSite) -> None:
    renderer = FakeRenderer(RENDERED)
    denied = await fetch_source(SourceConfig(url=pages.url("/private"), render_policy="always"),
                                opts(pages, renderer))
    assert denied.error is not None and denied.error.kind == "robots-denied"
    assert renderer.call_count == 0
    esc = denied.render_escalation
    assert esc is not None and not esc.attempted
    ok = await fetch_source(SourceConfig(url=pages.url("/static"), render_policy="always"),
                            opts(pages, renderer))
    assert ok.ok and pages.paths().count("/robots.txt") == 2  # one per call (no shared cache)


async def test_always_egress_denied_never_calls_renderer(pages: LoopbackSite) -> None:
    renderer = FakeRenderer(RENDERED)
    result = await fetch_source(SourceConfig(url="http://10.0.0.1/", render_policy="always"),
                                opts(pages, renderer))
    assert result.error is not None and result.error.kind == "egress-denied"
    assert renderer.call_count == 0


async def test_always_rendered_html_over_the_cap(pages: LoopbackSite) -> None:
    result = await fetch_source(SourceConfig(url=pages.url("/static"), render_policy="always",
                                             max_response_bytes=100),
                                opts(pages, FakeRenderer(RENDERED)))
    assert result.error is not None and result.error.kind == "response-too-large"


class SpyStore(MemorySnapshotStore):
    def __init__(self) -> None:
        super().__init__()
        self.latest_calls = 0

    def latest(self, source_id: str):  # type: ignore[no-untyped-def]
        self.latest_calls += 1
        return super().latest(source_id)


async def test_always_inert_knobs_warn_only_when_set(pages: LoopbackSite) -> None:
    store = SpyStore()
    plain = await fetch_source(SourceConfig(url=pages.url("/shell"), revalidate=True),
                               opts(pages, store=store))
    assert plain.ok
    before = len(pages.requests)
    result = await fetch_source(
        SourceConfig(url=pages.url("/shell"), render_policy="always", revalidate=True,
                     headers={"X-Token": "t"}, retries=2),
        opts(pages, FakeRenderer(RENDERED), store))
    assert store.latest_calls == 1  # only the plain fetch above read validators
    assert result.ok and not result.not_modified
    assert result.snapshot is not None and result.snapshot.etag is None
    assert len(result.warnings) == 3
    assert [p for p, _ in pages.requests[before:]] == ["/robots.txt"]  # no page request
    quiet = await fetch_source(SourceConfig(url=pages.url("/shell"), render_policy="always"),
                               opts(pages, FakeRenderer(RENDERED)))
    assert quiet.warnings == ()


async def test_always_renderer_gets_user_agent_and_timeout_hint(pages: LoopbackSite) -> None:
    renderer = FakeRenderer(RENDERED)
    await fetch_source(SourceConfig(url=pages.url("/static"), render_policy="always",
                                    user_agent="mybot/1", timeout_ms=1234),
                       opts(pages, renderer))
    options = renderer.calls[0].options
    assert options.user_agent == "mybot/1"
    assert 1000 < options.timeout_ms <= 1234  # less the robots.txt download (one budget)


async def test_slow_renderer_is_not_raced(pages: LoopbackSite) -> None:
    renderer = FakeRenderer(RENDERED, delay_s=0.4)
    result = await fetch_source(SourceConfig(url=pages.url("/static"), render_policy="always",
                                             timeout_ms=100), opts(pages, renderer))
    assert result.ok  # timeout_ms is a hint the renderer enforces (decision 2)
    assert result.timings.render_ms >= 350


# -- on-shell ---------------------------------------------------------------------------

async def test_on_shell_static_page_is_not_rendered(pages: LoopbackSite) -> None:
    renderer = FakeRenderer(RENDERED)
    result = await fetch_source(SourceConfig(url=pages.url("/static"), render_policy="on-shell"),
                                opts(pages, renderer))
    assert result.ok and not result.rendered and renderer.call_count == 0
    assert result.render_escalation is None


async def test_on_shell_render_wins(pages: LoopbackSite) -> None:
    renderer = FakeRenderer(RENDERED, warnings=("readiness:ok",))
    store = MemorySnapshotStore()
    result = await fetch_source(SourceConfig(url=pages.url("/shell"), render_policy="on-shell"),
                                opts(pages, renderer, store))
    assert result.ok and result.rendered and renderer.call_count == 1
    assert result.snapshot is not None and result.snapshot.bytes == RENDERED.encode()
    esc = result.render_escalation
    assert esc is not None and esc.attempted and esc.render_error is None
    assert esc.reason == "js-shell-suspected:empty-mount:root"
    assert esc.first_snapshot_ref is not None and esc.first_snapshot_ref != result.source_ref
    assert not any(w.startswith("js-shell") for w in result.warnings)  # not merged
    assert "readiness:ok" in result.warnings
    assert result.readiness is not None and result.readiness.passed
    assert len(store.list(result.snapshot.source_id)) == 2  # both attempts are evidence
    assert pages.paths().count("/robots.txt") == 1


async def test_on_shell_embedded_state_does_not_escalate(pages: LoopbackSite) -> None:
    renderer = FakeRenderer(RENDERED)
    result = await fetch_source(SourceConfig(url=pages.url("/state"), render_policy="on-shell"),
                                opts(pages, renderer))
    assert result.ok and not result.rendered and renderer.call_count == 0
    assert "js-shell-suspected-embedded-state-available:json-ld" in result.warnings


async def test_on_shell_without_renderer_falls_back(pages: LoopbackSite) -> None:
    result = await fetch_source(SourceConfig(url=pages.url("/shell"), render_policy="on-shell"),
                                opts(pages))
    assert result.ok and not result.rendered
    assert any(w.startswith("render-fallback:no-renderer") for w in result.warnings)
    assert "js-shell-suspected:empty-mount:root" in result.warnings
    esc = result.render_escalation
    assert esc is not None and not esc.attempted and esc.first_snapshot_ref == result.source_ref


@pytest.mark.parametrize(("renderer", "kind"), [
    (FakeRenderer.failing(RuntimeError("boom")), "adapter-error"),
    (FakeRenderer(RENDERED, status=500), "http-error"),
    (FakeRenderer("x" * 5000), "response-too-large"),
])
async def test_on_shell_failed_render_falls_back(pages: LoopbackSite, renderer: FakeRenderer,
                                                 kind: str) -> None:
    result = await fetch_source(SourceConfig(url=pages.url("/shell"), render_policy="on-shell",
                                             max_response_bytes=4000), opts(pages, renderer))
    assert result.ok and not result.rendered and result.error is None
    assert result.snapshot is not None and result.snapshot.bytes == SHELL.encode()
    esc = result.render_escalation
    assert esc is not None and esc.attempted and esc.render_error is not None
    assert esc.render_error.kind == kind
    assert esc.first_snapshot_ref == result.source_ref
    assert any(w.startswith(f"render-fallback:render-failed:{kind}") for w in result.warnings)
    assert renderer.call_count == 1


async def test_on_shell_plain_error_does_not_render(pages: LoopbackSite) -> None:
    renderer = FakeRenderer(RENDERED)
    result = await fetch_source(SourceConfig(url=pages.url("/nope"), render_policy="on-shell"),
                                opts(pages, renderer))
    assert result.error is not None and result.error.status == 404
    assert renderer.call_count == 0


async def test_on_shell_non_html_is_not_classified(pages: LoopbackSite) -> None:
    renderer = FakeRenderer(RENDERED)
    result = await fetch_source(SourceConfig(url=pages.url("/data.json"),
                                             render_policy="on-shell"), opts(pages, renderer))
    assert result.ok and renderer.call_count == 0


async def test_on_shell_304_is_final(pages: LoopbackSite) -> None:
    etag = '"s1"'
    from aiohttp import web

    async def shell(request: web.Request) -> web.StreamResponse:
        if request.headers.get("If-None-Match") == etag:
            return web.Response(status=304, headers={"ETag": etag})
        return web.Response(text=SHELL, content_type="text/html", headers={"ETag": etag})

    pages.handle("/shell", shell)
    store = MemorySnapshotStore()
    await fetch_source(SourceConfig(url=pages.url("/shell")), opts(pages, store=store))
    renderer = FakeRenderer(RENDERED)
    result = await fetch_source(SourceConfig(url=pages.url("/shell"), render_policy="on-shell",
                                             revalidate=True), opts(pages, renderer, store))
    assert result.ok and result.not_modified and renderer.call_count == 0


async def test_on_shell_only_plain_attempt_uses_validators(pages: LoopbackSite) -> None:
    store = MemorySnapshotStore()
    renderer = FakeRenderer(RENDERED)
    first = await fetch_source(SourceConfig(url=pages.url("/shell"), render_policy="on-shell",
                                            revalidate=True, headers={"X-A": "1"}),
                               opts(pages, renderer, store))
    assert first.rendered
    # The rendered head of the store carries no validators; the plain attempt may still
    # use nothing from it, and the headers knob warns because the renderer ignores it.
    assert any(w.startswith("render-headers-not-forwarded") for w in first.warnings)
    assert not any(w.startswith("render-revalidate-inert") for w in first.warnings)


async def test_renderer_called_at_most_once_under_concurrency(pages: LoopbackSite) -> None:
    renderer = FakeRenderer(RENDERED, delay_s=0.05)
    results = await asyncio.gather(*(
        fetch_source(SourceConfig(url=pages.url("/shell"), render_policy="on-shell"),
                     opts(pages, renderer)) for _ in range(4)))
    assert all(r.rendered for r in results)
    assert renderer.call_count == 4  # one per call, never more
