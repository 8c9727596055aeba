"""The renderer end to end on small loopback pages: readiness, page state, limits."""

from __future__ import annotations

from typing import Any

import pytest

from pressmark.render import ReadinessSpec, RenderError, RenderOptions

from ._site import PageServer

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


async def test_shell_renders_with_selector_and_stability(renderer: Any, pages: PageServer) -> None:
    result = await renderer.render(pages.origin + "/shell", RenderOptions(timeout_ms=8000))
    assert "Rendered shell" in result.html
    assert result.status == 200
    assert result.final_url == pages.origin + "/shell"
    assert result.readiness.passed
    assert result.readiness.reason == "main-selector+stable"
    assert result.readiness.samples >= 2
    assert result.warnings == ()
    assert set(result.timings) >= {"navigate_ms", "readiness_ms", "total_ms"}


async def test_stability_waits_out_changes_inside_the_window(
    renderer: Any, pages: PageServer
) -> None:
    # The main text is there at once and changes at 250 and 600 ms: readiness must not
    # pass before 600 + window (the page's own clock), and should pass soon after it. The
    # edit at 800 ms leaves the text as it was, so it does not restart the window.
    result = await renderer.render(pages.origin + "/settling", RenderOptions(timeout_ms=8000))
    report = result.readiness
    assert report.passed, report
    assert report.reason == "main-selector+stable"
    assert "Second late paragraph." in result.html
    marker = 'data-last-change="'
    last_edit = float(result.html.split(marker, 1)[1].split('"', 1)[0])
    window = ReadinessSpec().stability_window_ms
    assert report.last_change_ms is not None and report.stable_at_ms is not None
    assert report.last_change_ms >= last_edit - 1.0  # the observer saw the last edit
    assert report.stable_at_ms - report.last_change_ms >= window
    assert report.stable_at_ms >= last_edit + window
    # Prompt: confirmed by a timer, not by the next poll (loose bound for a loaded machine).
    assert report.stable_at_ms - (last_edit + window) < 400


async def test_required_heading_pattern_b(renderer: Any, pages: PageServer) -> None:
    spec = ReadinessSpec(required_heading="(?i)^(introduction|what you will learn)")
    result = await renderer.render(pages.origin + "/heading", RenderOptions(readiness=spec))
    assert result.readiness.passed
    assert result.readiness.reason == "main-selector+heading+stable"

    spec = ReadinessSpec(required_heading="^Overview$", stability_window_ms=0)
    result = await renderer.render(
        pages.origin + "/heading", RenderOptions(readiness=spec, timeout_ms=4000)
    )
    assert not result.readiness.passed
    assert result.readiness.reason.startswith("heading-failed")


async def test_not_ready_returns_dom_with_warning_within_timeout(
    renderer: Any, pages: PageServer
) -> None:
    import time

    started = time.monotonic()
    waits = ReadinessSpec(settled_after_ms=None)  # no early end: the deadline decides
    result = await renderer.render(
        pages.origin + "/short", RenderOptions(timeout_ms=2000, readiness=waits))
    elapsed = time.monotonic() - started
    assert result.readiness.elapsed_ms >= 1500
    assert result.timings["total_ms"] <= 2000 + 50  # the renderer keeps its own deadline
    # plus opening and closing the context: seconds on a loaded machine, never the 30 s
    # of a wait that ignored the deadline
    assert elapsed < 2.0 + 10.0
    assert not result.readiness.passed
    assert result.readiness.reason == "main-selector-failed: main text 22 < 200 chars"
    assert "Too little text." in result.html
    assert any(w.startswith("readiness not reached") for w in result.warnings)


async def test_settled_short_page_is_ready_early(renderer: Any, pages: PageServer) -> None:
    """A short page that is done (DOM unchanged, nothing in flight, nothing due soon) is
    captured then, ready, with the conditions in its reason: not at the 8 s deadline."""
    result = await renderer.render(pages.origin + "/short", RenderOptions(timeout_ms=8000))
    assert result.readiness.passed
    assert result.readiness.reason == (
        "ready:settled-short (dom unchanged 500 ms, no request in flight, nothing due within"
        " 2000 ms; main text 22 < 200 chars)")
    assert 500 <= result.readiness.elapsed_ms < 3000  # not the 8 s deadline
    assert result.warnings == ()
    assert "Too little text." in result.html


async def test_a_short_page_missing_its_heading_is_still_not_ready(
        renderer: Any, pages: PageServer) -> None:
    spec = ReadinessSpec(required_heading="^Overview$")
    result = await renderer.render(pages.origin + "/short",
                                   RenderOptions(timeout_ms=8000, readiness=spec))
    assert not result.readiness.passed
    assert result.readiness.reason.startswith("main-selector-failed: main text 22 < 200")
    assert result.readiness.reason.endswith("(the page settled: nothing left to run for 500 ms)")


async def test_a_timer_due_later_than_the_horizon_does_not_hold_a_page(
        renderer: Any, pages: PageServer) -> None:
    """A keep-alive set for a minute from now, or a slow interval between its ticks, is
    nothing that could change the page within the horizon; a frame of a running
    animation is (the page keeps changing: the deadline decides)."""
    pages.extra["/short-later"] = (
        "<!doctype html><main><h1>Later</h1><p>One sentence, and done.</p></main><script>"
        "setTimeout(() => document.title = 'x', 60000); setInterval(() => {}, 30000);"
        "</script>")
    result = await renderer.render(pages.origin + "/short-later", RenderOptions(timeout_ms=8000))
    assert result.readiness.reason.startswith("ready:settled-short"), result.readiness
    assert result.readiness.elapsed_ms < 3000
    pages.extra["/short-spinning"] = (
        "<!doctype html><main><h1>Spinning</h1><p>One sentence, and done.</p></main><script>"
        "const spin = () => requestAnimationFrame(spin); spin();</script>")
    result = await renderer.render(pages.origin + "/short-spinning",
                                   RenderOptions(timeout_ms=2500))
    assert not result.readiness.passed
    assert result.readiness.elapsed_ms >= 1500


async def test_link_elements_that_load_nothing_do_not_hold_a_page(
        renderer: Any, pages: PageServer) -> None:
    """<link rel=index>, rel=canonical, an icon: no load event ever comes for them (they
    held a documentation site's search page until the deadline)."""
    pages.extra["/short-links"] = (
        "<!doctype html><html><head><link rel=canonical href=/short-links>"
        "<link rel=index href=/genindex><link rel=search href='#'>"
        "<link rel='shortcut icon' href=/favicon.svg><link rel=stylesheet href=/missing.css>"
        "</head><body><main><h1>Search</h1><p>Type the words to look for.</p></main>"
        "<script src=/cdn-missing.js defer></script></body></html>")
    result = await renderer.render(pages.origin + "/short-links", RenderOptions(timeout_ms=8000))
    assert result.readiness.reason.startswith("ready:settled-short"), result.readiness
    assert result.readiness.elapsed_ms < 3000


# Content that comes after more than the settle time of DOM quiet, held up by something
# still pending: a timer, a fetch or an XHR waiting on a server (late.json takes 1.6 s).
LATE = {
    "timer": "setTimeout(add, 1600);",
    "fetch": "fetch('/api/late.json').then((r) => r.json()).then(add);",
    "xhr": "const x = new XMLHttpRequest(); x.onloadend = add; x.open('GET', '/api/late.json');"
           " x.send();",
}


@pytest.mark.parametrize("how", sorted(LATE))
async def test_pending_work_is_waited_for_not_settled(
    renderer: Any, pages: PageServer, how: str
) -> None:
    pages.extra[f"/late-{how}"] = (
        "<!doctype html><main><h1>Late</h1></main><script>"
        "function add() { document.querySelector('main').insertAdjacentHTML('beforeend',"
        f" '<p>{'Arrived late, after a long quiet. ' * 10}</p>'); }}{LATE[how]}</script>"
    )
    result = await renderer.render(pages.origin + f"/late-{how}", RenderOptions(timeout_ms=8000))
    assert result.readiness.passed, result.readiness.reason
    assert "Arrived late" in result.html


async def test_server_that_never_answers_is_a_timeout_error(
    renderer: Any, pages: PageServer
) -> None:
    import time

    started = time.monotonic()
    with pytest.raises(RenderError) as info:
        await renderer.render(pages.origin + "/hang", RenderOptions(timeout_ms=1500))
    assert info.value.code == "render-timeout"
    assert time.monotonic() - started < 1.5 + 10.0  # the deadline, not a 30 s default


async def test_network_idle_pattern_c(renderer: Any, pages: PageServer) -> None:
    spec = ReadinessSpec(network_idle_ms=200, stability_window_ms=0)
    result = await renderer.render(pages.origin + "/network", RenderOptions(readiness=spec))
    assert result.readiness.reason == "main-selector+network-idle"
    assert "late text" in result.html


async def test_lazy_page_complete_only_with_scroll(renderer: Any, pages: PageServer) -> None:
    plain = await renderer.render(pages.origin + "/lazy", RenderOptions())
    assert plain.readiness.passed
    assert plain.readiness.scrolls == 0
    assert "Section 5" not in plain.html

    spec = ReadinessSpec(scroll=True)
    scrolled = await renderer.render(pages.origin + "/lazy", RenderOptions(readiness=spec))
    assert scrolled.readiness.passed
    assert scrolled.readiness.reason == "main-selector+scroll+stable"
    assert scrolled.readiness.scrolls >= 1
    for k in range(2, 6):
        assert f"Section {k}" in scrolled.html


async def test_live_counter_is_deterministic(renderer: Any, pages: PageServer) -> None:
    # The counter changes every 250 ms: a 600 ms window can never hold still.
    strict = RenderOptions(readiness=ReadinessSpec(stability_window_ms=600), timeout_ms=3000)
    reasons = set()
    for _ in range(2):
        result = await renderer.render(pages.origin + "/live", strict)
        assert not result.readiness.passed
        reasons.add(result.readiness.reason.split(":")[0])
    assert reasons == {"stable-failed"}

    # Leaving the counter out, the stable region passes every time.
    spec = ReadinessSpec(stability_window_ms=600, ignore_selectors=("#live-counter",))
    for _ in range(2):
        result = await renderer.render(pages.origin + "/live", RenderOptions(readiness=spec))
        assert result.readiness.passed
        assert result.readiness.reason == "main-selector+stable"


async def test_same_origin_client_redirect_is_followed_once(
    renderer: Any, pages: PageServer
) -> None:
    result = await renderer.render(pages.origin + "/js-redirect", RenderOptions())
    assert result.final_url == pages.origin + "/static?moved"
    assert "<h1>Static</h1>" in result.html
    assert result.status == 200
    assert result.readiness.passed
    assert (
        f"followed a same-origin client-side redirect to {pages.origin}/static?moved"
        in result.warnings
    )
    # A second hop is cancelled: the page it would have left is captured, with a warning.
    pages.extra["/hop1"] = '<script>location.replace("/hop2")</script>'
    pages.extra["/hop2"] = (
        "<main><h1>Hop two</h1><p>" + "Some text. " * 30 + "</p></main>"
        '<script>setTimeout(() => { location.href = "/static?third"; }, 30);</script>'
    )
    result = await renderer.render(pages.origin + "/hop1", RenderOptions())
    assert result.final_url == pages.origin + "/hop2"
    assert "<h1>Hop two</h1>" in result.html
    assert "/static?third" not in pages.paths
    assert f"cancelled a client-side navigation to {pages.origin}/static?third" in result.warnings


async def test_cross_origin_client_redirect_is_cancelled(renderer: Any, pages: PageServer) -> None:
    other = pages.origin.replace("127.0.0.1", "localhost")  # another origin, same server
    pages.extra["/leave"] = (
        "<main><h1>Stay</h1><p>" + "Some text. " * 30 + "</p></main>"
        f'<meta http-equiv="refresh" content="0;url={other}/static?left">'
    )
    result = await renderer.render(pages.origin + "/leave", RenderOptions())
    assert result.final_url == pages.origin + "/leave"
    assert "<h1>Stay</h1>" in result.html
    assert "/static?left" not in pages.paths
    assert f"cancelled a client-side navigation to {other}/static?left" in result.warnings


async def test_non_http_urls_are_refused(renderer: Any) -> None:
    for url in ("file:///etc/passwd", "data:text/html,<p>x</p>", "chrome://version", "about:blank"):
        with pytest.raises(RenderError) as info:
            await renderer.render(url, RenderOptions())
        assert info.value.code == "navigation-refused"


async def test_max_html_bytes(renderer: Any, pages: PageServer) -> None:
    with pytest.raises(RenderError) as info:
        await renderer.render(pages.origin + "/static", RenderOptions(max_html_bytes=200))
    assert info.value.code == "html-too-large"


async def test_error_pages_and_non_html_are_captured_at_once(
    renderer: Any, pages: PageServer
) -> None:
    missing = await renderer.render(pages.origin + "/nope", RenderOptions())
    assert missing.status == 404
    assert missing.readiness.reason == "not-attempted: HTTP status 404"
    assert "not found" in missing.html
    data = await renderer.render(pages.origin + "/api/article.json", RenderOptions())
    assert data.readiness.reason == "not-attempted: content type application/json"
    assert data.readiness.elapsed_ms < 5000


async def test_downloads_are_refused(renderer: Any, pages: PageServer) -> None:
    pages.extra["/download"] = (
        "<main><h1>Download</h1><p>" + "Some text. " * 30 + "</p>"
        '<a id="d" href="/dl.bin" download>file</a></main>'
        "<script>document.getElementById('d').click();"
        "location.href = '/dl.bin';</script>"
    )
    before = len(pages.paths)
    result = await renderer.render(pages.origin + "/download", RenderOptions())
    assert result.readiness.passed
    # The download link is never fetched; the location change is a same-origin redirect,
    # followed once (through the proxy), and its answer, a file, is not saved: the page
    # it would have replaced is what we capture.
    assert pages.paths[before:].count("/dl.bin") <= 1
    assert result.final_url == pages.origin + "/download"
    assert "<h1>Download</h1>" in result.html
    assert any("did not replace the page" in w for w in result.warnings)


async def test_page_without_main_falls_back_to_body(renderer: Any, pages: PageServer) -> None:
    result = await renderer.render(pages.origin + "/divs", RenderOptions(timeout_ms=8000))
    assert result.readiness.passed, result.readiness
    assert result.readiness.reason == "fallback-body+stable"
    assert result.readiness.elapsed_ms < 4000  # well before the deadline
    assert "<h1>Only divs</h1>" in result.html

    # A main element that appears after the fallback passed is what stability judges.
    result = await renderer.render(pages.origin + "/late-main", RenderOptions(timeout_ms=8000))
    assert result.readiness.passed, result.readiness
    assert result.readiness.reason == "main-selector+stable"
    assert "<h1>Late main</h1>" in result.html

    # Navigation and footer text does not count as content: the page is short, and done.
    result = await renderer.render(pages.origin + "/chrome-only", RenderOptions(timeout_ms=1500))
    assert result.readiness.reason.startswith("ready:settled-short")
    assert "body text 11 < 200 chars" in result.readiness.reason  # "Stub Short."
    waits = ReadinessSpec(settled_after_ms=None)
    result = await renderer.render(pages.origin + "/chrome-only",
                                   RenderOptions(timeout_ms=1500, readiness=waits))
    assert not result.readiness.passed
    assert result.readiness.reason.startswith("fallback-body-failed: none of main, article")
    assert "body text 11 < 200 chars" in result.readiness.reason

    # Turned off, a page without main waits for one until the deadline, as before.
    spec = ReadinessSpec(fallback_after_ms=None, stability_window_ms=0)
    result = await renderer.render(
        pages.origin + "/divs", RenderOptions(readiness=spec, timeout_ms=1200)
    )
    assert result.readiness.reason.startswith("main-selector-failed: none of")
