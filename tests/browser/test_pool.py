"""The pool survives bad pages: endless loops, memory bombs, pop-ups, a killed browser."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from pressmark.render import PoolLimits, ReadinessSpec, RenderError, RenderOptions
from pressmark.render._pool import find_marked_pids, group_members

from ._site import PageServer

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def small(policy: Any) -> AsyncIterator[Any]:
    from pressmark.render import PlaywrightRenderer

    limits = PoolLimits(max_tabs=2, js_heap_mb=64, close_timeout_s=3.0)
    async with PlaywrightRenderer(policy=policy, limits=limits) as r:
        yield r


async def test_endless_loop_then_recovers(small: Any, pages: PageServer) -> None:
    started = time.monotonic()
    with pytest.raises(RenderError) as info:
        await small.render(pages.origin + "/loop", RenderOptions(timeout_ms=1500))
    assert info.value.code == "render-timeout"
    # 1.5 s, plus opening and closing the context (seconds when the machine is loaded);
    # the loop itself never ends
    assert time.monotonic() - started < 1.5 + 10.0
    result = await small.render(pages.origin + "/static", RenderOptions())
    assert result.readiness.passed


async def test_memory_bomb_crashes_only_its_page(small: Any, pages: PageServer) -> None:
    launches = small.pool.launches
    with pytest.raises(RenderError) as info:
        await small.render(pages.origin + "/bomb", RenderOptions(timeout_ms=10_000))
    assert info.value.code == "page-crashed"
    result = await small.render(pages.origin + "/static", RenderOptions())
    assert result.readiness.passed
    assert small.pool.launches == launches  # the browser itself survived


async def test_popups_are_refused(small: Any, pages: PageServer) -> None:
    before = len(pages.paths)
    result = await small.render(pages.origin + "/popups", RenderOptions())
    await asyncio.sleep(0.3)
    assert result.readiness.passed
    assert "<h1>Pop-ups</h1>" in result.html
    assert not [p for p in pages.paths[before:] if p.startswith("/static")]


async def test_killed_browser_is_replaced(small: Any, pages: PageServer) -> None:
    launches = small.pool.launches
    (pid,) = small.pool.pids
    spec = ReadinessSpec(stability_window_ms=5000)
    pending = asyncio.ensure_future(  # a deadline far off: failing at once is told apart
        small.render(pages.origin + "/live", RenderOptions(readiness=spec, timeout_ms=60_000))
    )
    before = len(pages.paths)
    for _ in range(400):  # kill it mid-render, not mid-setup
        if "/live" in pages.paths[before:]:
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)
    started = time.monotonic()
    os.kill(pid, 9)
    with pytest.raises(RenderError) as info:
        await pending
    assert info.value.code == "browser-crashed"
    assert time.monotonic() - started < 20.0  # failed at once, not at its 60 s deadline
    result = await small.render(pages.origin + "/static", RenderOptions())
    assert result.readiness.passed
    assert small.pool.launches == launches + 1
    assert pid not in small.pool.pids


async def test_hung_browser_is_killed_and_replaced(small: Any, pages: PageServer) -> None:
    import signal

    launches, kills = small.pool.launches, small.pool.kills
    (pid,) = small.pool.pids
    os.kill(pid, signal.SIGSTOP)  # the browser stops answering anything
    try:
        started = time.monotonic()
        with pytest.raises(RenderError) as info:
            await small.render(pages.origin + "/static", RenderOptions(timeout_ms=1500))
        assert info.value.code in {"render-timeout", "browser-crashed"}
        # the deadline, the grace and the close timeout (6 s), with room for a loaded machine;
        # a stopped browser is never waited for without a bound
        assert time.monotonic() - started < 1500 / 1000 + 1.0 + 3.0 + 0.5 + 10.0
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)
    assert small.pool.kills == kills + 1
    result = await small.render(pages.origin + "/static", RenderOptions())
    assert result.readiness.passed
    assert small.pool.launches == launches + 1


async def test_recycle_and_k_and_clean_close(
    policy: Any, pages: PageServer
) -> None:
    from pressmark.render import PlaywrightRenderer

    limits = PoolLimits(max_tabs=2, recycle_after=2)
    quick = RenderOptions(readiness=ReadinessSpec(stability_window_ms=100))
    r = PlaywrightRenderer(policy=policy, limits=limits)
    async with r:
        results = await asyncio.gather(
            *(r.render(pages.origin + "/static", quick) for _ in range(5))
        )
        assert all(res.readiness.passed for res in results)
        assert r.pool.peak_active == 2
        assert r.pool.launches == 3  # 5 pages, a new browser every 2
        await asyncio.sleep(0.5)  # retired browsers finish closing in the background
        pids = list(r.pool.pids)
        (token,) = r.pool.tokens
        assert len(pids) == 1
    for pid in pids:
        assert group_members(pid) == []
    assert find_marked_pids(token) == []
    with pytest.raises(RenderError) as info:
        await r.render(pages.origin + "/static", quick)
    assert info.value.code == "renderer-closed"


async def test_memory_budget_holds_new_pages_back(policy: Any, pages: PageServer) -> None:
    from pressmark.render import PlaywrightRenderer

    # Any browser is over 64 MB: each page waits until the one before it has finished.
    limits = PoolLimits(max_tabs=3, memory_budget_mb=64)
    async with PlaywrightRenderer(policy=policy, limits=limits) as renderer:
        results = await asyncio.gather(
            *(renderer.render(pages.origin + "/static", RenderOptions()) for _ in range(3))
        )
        assert all(r.readiness.passed for r in results)
        assert renderer.pool.peak_active == 1
        assert renderer.pool.throttled >= 1


def _renderer_processes(browser: int) -> set[int]:
    found = set()
    for pid in group_members(os.getpgid(browser)):
        with contextlib.suppress(OSError):
            # (the zygote's children rewrite their command line as one string)
            if b"--type=renderer" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.add(pid)
    return found


async def test_a_slot_costs_one_renderer_process(policy: Any, pages: PageServer) -> None:
    """Each slot's context keeps one renderer process, whatever the slots do at once: no
    spare renderer started for another slot's context (and thrown away), no WebUI
    pop-up preloaded for each context's window."""
    from pressmark.render import PlaywrightRenderer

    options = RenderOptions(readiness=ReadinessSpec(stability_window_ms=50))
    async with PlaywrightRenderer(policy=policy, limits=PoolLimits(max_tabs=3)) as renderer:
        seen: set[int] = set()
        for _ in range(3):
            results = await asyncio.gather(
                *(renderer.render(pages.origin + "/static", options) for _ in range(3)))
            assert all(r.readiness.passed for r in results)
            seen |= _renderer_processes(renderer.pool.pids[0])
        assert renderer.pool.reused == 6
        assert len(seen) <= 3, seen
