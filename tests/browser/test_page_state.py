"""Deterministic page state: fixed environment, blocked resources, consent."""

from __future__ import annotations

from typing import Any

import pytest

from pressmark.render import PoolLimits, ReadinessSpec, RenderOptions
from pressmark.render._options import ConsentPolicy, PageState

from ._site import PageServer

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

PROBE = (
    "<main><h1>Env</h1><p id=env></p></main><script>document.getElementById('env').textContent ="
    " JSON.stringify([innerWidth, innerHeight, navigator.language,"
    " Intl.DateTimeFormat().resolvedOptions().timeZone, navigator.userAgent,"
    " matchMedia('(prefers-reduced-motion: reduce)').matches,"
    " matchMedia('(prefers-color-scheme: dark)').matches, typeof RTCPeerConnection]);</script>"
)
QUICK = RenderOptions(readiness=ReadinessSpec(min_main_text_chars=1, stability_window_ms=0))


async def test_fixed_environment(renderer: Any, pages: PageServer) -> None:
    pages.extra["/env"] = PROBE
    result = await renderer.render(pages.origin + "/env", QUICK)
    assert (
        '[1280,800,"en-US","UTC","Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like'
        ' Gecko) Chrome/130.0.0.0 Safari/537.36 pressmark",true,false,"undefined"]'
    ) in result.html.replace("&quot;", '"')


async def test_consent_cookies_and_dialog_removal(
    policy: Any, pages: PageServer
) -> None:
    from pressmark.render import PlaywrightRenderer

    state = PageState(
        consent=ConsentPolicy(
            cookies={"127.0.0.1": {"consent": "yes"}}, remove_selectors=(".cookie-dialog",)
        )
    )
    async with PlaywrightRenderer(policy=policy, page_state=state) as r:
        result = await r.render(pages.origin + "/consent", RenderOptions())
    assert "consent given" in result.html
    assert "cookie-dialog" not in result.html


async def test_images_blocked_by_default(renderer: Any, pages: PageServer) -> None:
    pages.extra["/img"] = (
        "<main><h1>Img</h1><img src='/pic.png'><video src='/clip.mp4'></video>"
        "<style>@font-face { font-family: f; src: url('/font.woff2'); } h1 { font-family: f; }"
        " main { background: url('/bg.png'); }</style></main>"
    )
    before = len(pages.paths)
    await renderer.render(pages.origin + "/img", QUICK)
    fetched = set(pages.paths[before:])
    assert fetched & {"/pic.png", "/clip.mp4", "/font.woff2", "/bg.png"} == set()


async def test_blocking_can_be_turned_off(policy: Any, pages: PageServer) -> None:
    from pressmark.render import PlaywrightRenderer

    pages.extra["/img2"] = "<main><h1>Img</h1><img src='/pic2.png'></main>"
    before = len(pages.paths)
    async with PlaywrightRenderer(
        policy=policy, page_state=PageState(block=frozenset()), limits=PoolLimits(max_tabs=1)
    ) as r:
        await r.render(pages.origin + "/img2", QUICK)
    assert "/pic2.png" in pages.paths[before:]


WRITER = (
    "<main><h1>Writer</h1><p>wrote state</p></main><script>"
    "document.cookie = 'left=1; path=/'; localStorage.setItem('left', '1');"
    "sessionStorage.setItem('left', '1'); window.name = 'left';"
    "indexedDB.open('left-db', 1);"
    "addEventListener('pagehide', () => localStorage.setItem('late', '1'));"
    "window.onunload = () => localStorage.setItem('later', '1');"
    "</script>"
)
READER = (
    "<main><h1>Reader</h1><p id=seen></p></main><script>"
    "indexedDB.databases().then((dbs) => {"
    "  document.getElementById('seen').textContent = JSON.stringify({"
    "    cookie: document.cookie, local: Object.keys(localStorage),"
    "    session: Object.keys(sessionStorage), name: window.name,"
    "    dbs: dbs.map((d) => d.name)});"
    "});</script>"
)


async def test_a_reused_tab_carries_nothing_over(policy: Any, pages: PageServer) -> None:
    from pressmark.render import PlaywrightRenderer

    pages.extra["/writer"] = WRITER
    pages.extra["/reader"] = READER
    read = RenderOptions(readiness=ReadinessSpec(min_main_text_chars=40, stability_window_ms=0))
    async with PlaywrightRenderer(policy=policy, limits=PoolLimits(max_tabs=1)) as renderer:
        fresh = await renderer.render(pages.origin + "/reader", read)
        await renderer.render(pages.origin + "/writer", QUICK)
        reused = await renderer.render(pages.origin + "/reader", read)
        assert renderer.pool.reused == 2  # one tab served all three pages
    empty = '{"cookie":"","local":[],"session":[],"name":"","dbs":[]}'
    assert empty in fresh.html
    assert empty in reused.html


TRACKED = (
    '<link rel="prefetch" href="/prefetched.json">'
    "<main><h1>Tracked</h1><p>An article with the usual passengers.</p></main>"
    '<script src="/js/analytics.js"></script>'
    "<script>window.beacon = navigator.sendBeacon('/collect-beacon', 'x');</script>"
    # the heading readiness waits for comes once /collections.js has been answered (a
    # 404 here): the render cannot end before the request the test looks for, however
    # slowly a loaded machine runs the page
    "<script>function answered() { document.querySelector('main').insertAdjacentHTML("
    "'beforeend', '<h2>Collections answered</h2>'); }</script>"
    '<script src="/collections.js" onload="answered()" onerror="answered()"></script>'
)


async def test_lean_loads_skip_trackers_and_beacons(renderer: Any, pages: PageServer) -> None:
    pages.extra["/tracked"] = TRACKED
    before = len(pages.paths)
    answered = RenderOptions(readiness=ReadinessSpec(
        min_main_text_chars=1, stability_window_ms=0, required_heading="Collections answered"))
    result = await renderer.render(pages.origin + "/tracked", answered)
    assert "Tracked" in result.html and result.readiness.passed, result.readiness
    fetched = set(pages.paths[before:])
    # No analytics script, beacon or prefetch; a path that merely starts like a
    # tracker's ("/collect?") is loaded.
    assert fetched == {"/tracked", "/collections.js"}
