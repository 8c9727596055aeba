"""Revalidation takes its validators from the newest *wire* snapshot (seed decision 6)."""

from __future__ import annotations

from aiohttp import web

from pressmark.fetch import SourceConfig, fetch_source
from pressmark.store import MemorySnapshotStore
from pressmark.testing import FakeRenderer

from .conftest import LoopbackSite

SHELL = ("<!doctype html><html><head><title>App</title></head><body><div id=\"root\"></div>"
         "<script src=\"/app.js\"></script></body></html>")
RENDERED = ("<html><head><title>R</title></head><body><main>"
            + "<p>Rendered content.</p>" * 20 + "</main></body></html>")
ETAG = '"shell-v1"'
LAST_MODIFIED = "Mon, 02 Nov 2026 08:00:00 GMT"


def conditional_shell(site: LoopbackSite) -> None:
    async def shell(request: web.Request) -> web.StreamResponse:
        if request.headers.get("If-None-Match") == ETAG:
            return web.Response(status=304, headers={"ETag": ETAG})
        return web.Response(text=SHELL, content_type="text/html",
                            headers={"ETag": ETAG, "Last-Modified": LAST_MODIFIED})

    site.handle("/shell", shell)


def sent(site: LoopbackSite) -> list[dict[str, str]]:
    return [headers for path, headers in site.requests if path == "/shell"]


async def test_a_render_keeps_its_plain_attempts_validators_and_a_304_keeps_the_render(
        site: LoopbackSite) -> None:
    """Issue #35: validators belong to the plain attempt, and under on-shell the render
    carries them (render_info) to the next fetch; a trustworthy 304 then keeps the rendered
    snapshot as it is, with no second render."""
    conditional_shell(site)
    store = MemorySnapshotStore()
    # The delay puts the rendered snapshot in a later millisecond than the plain one, so it
    # is the store's head (fetched_at has millisecond resolution).
    renderer = FakeRenderer(RENDERED, delay_s=0.01)
    source = SourceConfig(url=site.url("/shell"), render_policy="on-shell", revalidate=True)
    first = await fetch_source(source, site.options(store=store, renderer=renderer))
    assert first.rendered and first.snapshot is not None
    assert first.snapshot.etag is None  # a rendered snapshot has no validators of its own
    info = dict(first.snapshot.render_info)
    assert info["plain_etag"] == ETAG and info["plain_last_modified"] == LAST_MODIFIED
    assert info["plain_url"] == site.url("/shell")
    head = store.latest(first.snapshot.source_id)
    assert head is not None and head.rendered  # the store's newest snapshot is rendered
    second = await fetch_source(source, site.options(store=store, renderer=renderer))
    headers = sent(site)[1]
    assert headers["if-none-match"] == ETAG
    assert headers["if-modified-since"] == LAST_MODIFIED
    # A trustworthy plain 304 is final: it keeps the rendered snapshot and never renders.
    assert second.ok and second.not_modified and second.http_status == 304
    assert renderer.call_count == 1
    assert second.snapshot is not None and second.snapshot.rendered
    assert second.snapshot.snapshot_sha256 == first.snapshot.snapshot_sha256
    assert second.source_ref == first.source_ref


async def test_a_rendered_head_without_validators_defers_to_the_plain_snapshot_before_it(
        site: LoopbackSite) -> None:
    """A render stored without its plain attempt's validators (an older version, which
    kept the plain snapshot beside it): the plain one lends them, and a 304 names it."""
    import dataclasses

    from pressmark.snapshot import new_snapshot

    conditional_shell(site)
    store = MemorySnapshotStore()
    plain = await fetch_source(SourceConfig(url=site.url("/shell"), revalidate=True),
                               site.options(store=store))
    assert plain.snapshot is not None and plain.snapshot.etag == ETAG
    old = plain.snapshot
    render = new_snapshot(
        source_id=old.source_id, requested_url=old.requested_url, url=old.url, status=200,
        headers=(), body=RENDERED.encode(), redirects=(), declared_charset="utf-8",
        charset_source="default", content_type="html", rendered=True,
        fetched_at="2100-01-01T00:00:00.000Z")
    assert not dataclasses.asdict(render)["render_info"]
    store.put(render)
    again = await fetch_source(SourceConfig(url=site.url("/shell"), revalidate=True),
                               site.options(store=store))
    assert sent(site)[1]["if-none-match"] == ETAG
    assert again.not_modified and again.snapshot is not None
    assert again.snapshot.snapshot_sha256 == old.snapshot_sha256


async def test_only_rendered_history_means_an_unconditional_request(site: LoopbackSite) -> None:
    conditional_shell(site)
    store = MemorySnapshotStore()
    await fetch_source(SourceConfig(url=site.url("/shell"), render_policy="always"),
                       site.options(store=store, renderer=FakeRenderer(RENDERED)))
    plain = await fetch_source(SourceConfig(url=site.url("/shell"), revalidate=True),
                               site.options(store=store))
    assert plain.ok and not plain.not_modified
    assert "if-none-match" not in sent(site)[0]
    assert "if-modified-since" not in sent(site)[0]


async def test_always_sends_no_validators_even_with_a_wire_snapshot(site: LoopbackSite) -> None:
    conditional_shell(site)
    store = MemorySnapshotStore()
    await fetch_source(SourceConfig(url=site.url("/shell"), revalidate=True),
                       site.options(store=store))
    result = await fetch_source(
        SourceConfig(url=site.url("/shell"), render_policy="always", revalidate=True),
        site.options(store=store, renderer=FakeRenderer(RENDERED)))
    assert result.rendered and not result.not_modified
    assert len(sent(site)) == 1  # the renderer's attempt sent no conditional request of ours
    assert result.snapshot is not None and result.snapshot.etag is None
    assert any(w.startswith("render-revalidate-inert") for w in result.warnings)


class BrokenReads(MemorySnapshotStore):
    def latest(self, source_id: str):  # type: ignore[no-untyped-def]
        from pressmark.store import SnapshotCorrupt

        raise SnapshotCorrupt("damaged head")


async def test_a_store_that_cannot_be_read_means_a_full_fetch(site: LoopbackSite) -> None:
    conditional_shell(site)
    store = BrokenReads()
    result = await fetch_source(SourceConfig(url=site.url("/shell"), revalidate=True),
                                site.options(store=store))
    assert result.ok and not result.not_modified
    assert any(w.startswith("revalidate-skipped:store-error:") for w in result.warnings)
    assert "if-none-match" not in sent(site)[0]
    assert result.snapshot is not None and store.list(result.snapshot.source_id)


NEW_PAGE = "<html><body><p>The target's own page.</p></body></html>"


def moved_away(site: LoopbackSite, *, target_304s_always: bool = False) -> list[str]:
    """``/page`` served a validated page once, then redirects to ``/moved``, which honours
    (or, with ``target_304s_always``, fakes) conditional requests. Returns the If-None-Match
    values ``/moved`` saw."""
    seen: list[str] = []
    calls = {"page": 0}

    async def page(request: web.Request) -> web.StreamResponse:
        calls["page"] += 1
        if calls["page"] == 1:
            return web.Response(text=SHELL, content_type="text/html", headers={"ETag": ETAG})
        raise web.HTTPFound("/moved")

    async def moved(request: web.Request) -> web.StreamResponse:
        seen.append(request.headers.get("If-None-Match", ""))
        if target_304s_always or request.headers.get("If-None-Match") == ETAG:
            return web.Response(status=304, headers={"ETag": ETAG})
        return web.Response(text=NEW_PAGE, content_type="text/html", headers={"ETag": ETAG})

    site.handle("/page", page)
    site.handle("/moved", moved)
    return seen


async def test_validators_are_not_forwarded_to_a_redirect_target(site: LoopbackSite) -> None:
    """Red team #34: the original URL redirects, the target answers 304 to the forwarded
    validators, and the original was kept as not-modified with its old content."""
    seen = moved_away(site)
    store = MemorySnapshotStore()
    source = SourceConfig(url=site.url("/page"), revalidate=True)
    assert (await fetch_source(source, site.options(store=store))).ok
    second = await fetch_source(source, site.options(store=store))
    assert seen == [""]  # the stored ETag stayed with /page
    assert second.ok and not second.not_modified
    assert second.snapshot is not None and second.snapshot.bytes == NEW_PAGE.encode()
    assert second.snapshot.url == site.url("/moved")


async def test_a_304_from_a_redirect_target_is_not_a_confirmation(site: LoopbackSite) -> None:
    moved_away(site, target_304s_always=True)
    store = MemorySnapshotStore()
    source = SourceConfig(url=site.url("/page"), revalidate=True)
    assert (await fetch_source(source, site.options(store=store))).ok
    second = await fetch_source(source, site.options(store=store))
    assert not second.ok and not second.not_modified
    assert second.error is not None and second.error.status == 304


async def test_validators_follow_their_own_url_through_a_redirect(site: LoopbackSite) -> None:
    """Validators stored for ``/moved`` (reached through ``/old``) go to ``/moved`` only,
    and its 304 confirms the capture; ``/old`` never sees them."""
    seen: list[tuple[str, str]] = []

    async def old(request: web.Request) -> web.StreamResponse:
        seen.append(("old", request.headers.get("If-None-Match", "")))
        raise web.HTTPFound("/moved")

    async def moved(request: web.Request) -> web.StreamResponse:
        seen.append(("moved", request.headers.get("If-None-Match", "")))
        if request.headers.get("If-None-Match") == ETAG:
            return web.Response(status=304, headers={"ETag": ETAG})
        return web.Response(text=NEW_PAGE, content_type="text/html", headers={"ETag": ETAG})

    site.handle("/old", old)
    site.handle("/moved", moved)
    store = MemorySnapshotStore()
    source = SourceConfig(url=site.url("/old"), revalidate=True)
    first = await fetch_source(source, site.options(store=store))
    second = await fetch_source(source, site.options(store=store))
    assert seen == [("old", ""), ("moved", ""), ("old", ""), ("moved", ETAG)]
    assert second.ok and second.not_modified
    assert second.source_ref == first.source_ref


async def test_a_foreign_import_lends_no_validators(site: LoopbackSite) -> None:
    """Red team #34: an imported record's (forged) ETag was sent to the live site; a record
    pairing the live ETag with other bytes would have its bytes confirmed by the 304."""
    import io

    from pressmark.store import import_warc

    conditional_shell(site)
    url = site.url("/shell")
    body = b"<p>not what the site serves</p>"
    head = (f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nETag: {ETAG}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    warc = ("WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: " + url + "\r\n"
            "WARC-Date: 2026-11-30T12:00:00Z\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
            "Content-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(head)}\r\n\r\n").encode() + head + b"\r\n\r\n"
    store = MemorySnapshotStore()
    assert import_warc(store, io.BytesIO(warc)).imported == 1
    result = await fetch_source(SourceConfig(url=url, revalidate=True), site.options(store=store))
    assert "if-none-match" not in sent(site)[0]
    assert result.ok and not result.not_modified
    assert result.snapshot is not None and result.snapshot.bytes == SHELL.encode()
