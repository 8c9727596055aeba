"""One Chromium, up to K pages at a time, each slot's context reused, replaced when it goes bad.

A *lease* is one page's stay in the pool: a slot of the semaphore and a browser
context of its own (no cookies, storage or renderer process shared with a page
rendering at the same time). A context whose render ended cleanly is *reset* (the
renderer clears its cookies, storage and history) and kept for the next page with
the same context options, up to ``reuse_pages`` renders: its tab navigates again in
the renderer process it already has, which costs a third of the CPU of a new
context and process per page. Anything unusual (an error, a crash, a timeout, a
reset that fails) closes the context instead. The browser is replaced

- after ``recycle_after`` pages (a long-lived browser accumulates memory); the old
  one finishes its in-flight pages and is then closed;
- when it disconnects (crashed), and the pages it was rendering fail with
  ``browser-crashed``;
- when closing a context does not finish in ``close_timeout_s`` (hung): its whole
  process group is killed.

New leases wait while the browser's memory (summed PSS of its process group) is over
``memory_budget_mb``: back-pressure, so pages that allocate a lot lower the number
rendering at once instead of the machine swapping.

Playwright does not tell us the browser's process id, so every launch carries a
unique ``--pressmark-renderer=<token>`` switch that we look for in ``/proc``. Playwright
starts Chromium as a process-group leader, so killing the group takes the renderer,
GPU and utility processes with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, Playwright

from pressmark.render._errors import BROWSER_CRASHED, BROWSER_LAUNCH_FAILED, RenderError
from pressmark.render._options import PoolLimits


def find_marked_pids(token: str) -> list[int]:
    """Processes whose command line carries our marker switch (Linux; ``[]`` elsewhere)."""
    needle = f"--pressmark-renderer={token}".encode()
    found: list[int] = []
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if needle in cmdline.split(b"\0"):
            found.append(int(entry.name))
    return found


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes in process group ``pgid`` (Linux; ``[]`` elsewhere)."""
    members: list[int] = []
    proc = Path("/proc")
    if not proc.is_dir():
        return members
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[0] != "Z" and fields[2] == str(pgid):
            members.append(int(entry.name))
    return members


async def wait_group_gone(pgid: int, within: float) -> bool:
    """Poll until no live process of the group is left; False if some outlived ``within`` s."""
    loop = asyncio.get_running_loop()
    end = loop.time() + within
    while await asyncio.to_thread(group_members, pgid):
        if loop.time() >= end:
            return False
        await asyncio.sleep(0.02)
    return True


def kill_group(pid: int) -> None:
    """SIGKILL Chromium's process group (or the process, if it leads none)."""
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@dataclass(slots=True, eq=False)
class BrowserEntry:
    """One launched browser and its bookkeeping."""

    browser: Browser
    token: str
    pid: int | None
    started: int = 0
    active: int = 0
    retiring: bool = False
    dead: bool = False
    disposed: bool = False
    closing: asyncio.Task[None] | None = field(default=None)


def descendants(pid: int) -> list[int]:
    """``pid`` and its descendants, from ``/proc/<pid>/task/*/children`` (Linux): a dozen
    reads for a browser, where scanning all of ``/proc`` reads every process's stat."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            try:
                todo.extend(int(child) for child in task.read_text().split())
            except (OSError, ValueError):
                continue
    return found


def _summed_kb(pids: list[int], file: str, fields: tuple[str, ...]) -> int:
    """The sum of ``fields`` (kB values in a /proc file) over ``pids``."""
    total = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/{file}").read_text()
        except OSError:
            continue
        for name in fields:
            at = text.find(name)
            if at >= 0:
                total += int(text[at + len(name) :].split(maxsplit=1)[0])
    return total


def group_pss_mb(root: int) -> float:
    """Summed PSS of a browser and its descendants, in MiB (Linux; 0 elsewhere).

    Costly: the kernel walks every page table (about 70 ms of CPU for a browser with
    six pages open), so the pool reads it rarely (see :func:`group_anon_mb`)."""
    return _summed_kb(descendants(root), "smaps_rollup", ("\nPss:",)) / 1024


def group_anon_mb(root: int) -> float:
    """Summed resident anonymous and shared memory (``RssAnon`` + ``RssShmem``) of a
    browser and its descendants, in MiB: counters the kernel keeps, a tenth of the cost
    of PSS to read. What grows with pages (heaps, DOMs, compositor buffers) is counted
    here, so its growth since the last PSS reading bounds how far PSS has grown (file
    pages, the binary's code, are not; the pool reads PSS again every 30 s)."""
    return _summed_kb(descendants(root), "status", ("\nRssAnon:", "\nRssShmem:")) / 1024


@dataclass(slots=True, eq=False)
class Lease:
    """A page's slot: its context, the browser it lives in, and what the renderer keeps.

    ``uses`` counts the renders this context served before the current one (0 for a
    fresh context). The renderer sets ``reusable`` when its render ended cleanly;
    ``kept`` is the renderer's per-context state (its page, listeners)."""

    context: BrowserContext
    entry: BrowserEntry
    key: str = ""
    uses: int = 0
    reusable: bool = False
    kept: dict[str, Any] = field(default_factory=dict)

    @property
    def browser_dead(self) -> bool:
        return self.entry.dead


Reset = Callable[[Lease], Awaitable[None]]


class BrowserPool:
    """Owns the browser; hands out leases. Not thread-safe; one event loop."""

    def __init__(
        self,
        playwright: Playwright,
        *,
        launch_kwargs: dict[str, Any],
        args: list[str],
        limits: PoolLimits,
    ) -> None:
        self._pw = playwright
        self._launch_kwargs = launch_kwargs
        self._args = args
        self._limits = limits
        self._slots = asyncio.Semaphore(limits.max_tabs)
        self._lock = asyncio.Lock()
        self._current: BrowserEntry | None = None
        self._entries: set[BrowserEntry] = set()
        self._closed = False
        self._idle: list[Lease] = []
        self._released = asyncio.Event()
        self._pss_mb = 0.0
        self._pss_at = 0.0
        self._pss_lock = asyncio.Lock()
        self._pss_pid: int | None = None  # the browser the last PSS reading was of
        self._pss_base = 0.0  # that reading, and RssAnon at the time
        self._anon_base = 0.0
        self._pss_read_at = 0.0
        self.launches = 0
        self.kills = 0
        self.peak_active = 0
        self.reused = 0
        self.throttled = 0
        self._active = 0
        self._admitted = 0  # past the memory check, not yet released

    @property
    def slots(self) -> int:
        """Pages that may render at once."""
        return self._limits.max_tabs

    @property
    def pids(self) -> list[int]:
        """Main process ids of the browsers alive right now (for tests and the bench)."""
        return [e.pid for e in self._entries if e.pid is not None and not e.disposed]

    @property
    def tokens(self) -> list[str]:
        return [e.token for e in self._entries]

    async def _launch(self) -> BrowserEntry:
        token = secrets.token_hex(8)
        args = [f"--pressmark-renderer={token}", *self._args]
        try:
            browser = await asyncio.wait_for(
                self._pw.chromium.launch(args=args, **self._launch_kwargs),
                self._limits.launch_timeout_s,
            )
        except Exception as exc:
            for pid in find_marked_pids(token):
                kill_group(pid)
            raise RenderError(
                f"Chromium did not start: {exc}", code=BROWSER_LAUNCH_FAILED
            ) from exc
        pids = find_marked_pids(token)
        entry = BrowserEntry(browser=browser, token=token, pid=pids[0] if pids else None)
        browser.on("disconnected", lambda _b: self._on_disconnected(entry))
        self._entries.add(entry)
        self.launches += 1
        return entry

    def _on_disconnected(self, entry: BrowserEntry) -> None:
        entry.dead = True
        if entry.pid is not None:
            kill_group(entry.pid)  # whatever is left of a crashed browser

    async def _browser(self) -> BrowserEntry:
        async with self._lock:
            if self._closed:
                raise RenderError("the renderer is closed", code="renderer-closed")
            current = self._current
            if current is None or current.dead or current.retiring:
                if current is not None:
                    current.retiring = True
                    self._maybe_dispose(current)
                current = await self._launch()
                self._current = current
            return current

    async def warm(self) -> None:
        """Launch the browser now, so the first page does not pay for it."""
        await self._browser()

    async def _memory_mb(self) -> float:
        """The current browser's PSS, or an estimate that is never below it, refreshed at
        most every 3 s. PSS itself is read when the estimate (the last PSS plus the growth
        of anonymous memory since) nears the budget, or is 30 s old: it costs the kernel
        a walk of every page table, which read every 3 s was 7 ms of CPU per page."""
        async with self._pss_lock:  # a page arriving mid-measurement waits for its result
            entry = self._current
            now = time.monotonic()
            if entry is None or entry.pid is None or now - self._pss_at < 3.0:
                return self._pss_mb
            pid, budget = entry.pid, self._limits.memory_budget_mb or 0
            anon = await asyncio.to_thread(group_anon_mb, pid)
            estimate = self._pss_base + max(0.0, anon - self._anon_base)
            if (pid != self._pss_pid or estimate >= 0.8 * budget
                    or now - self._pss_read_at >= 30.0):
                # the anonymous reading just taken is the base: growth between it and
                # the PSS reading is counted twice, so the estimate errs high, never low
                self._pss_base = await asyncio.to_thread(group_pss_mb, pid)
                self._anon_base = anon
                self._pss_pid, self._pss_read_at = pid, time.monotonic()
                estimate = self._pss_base
            self._pss_mb = estimate
            self._pss_at = time.monotonic()
            return self._pss_mb

    async def _wait_for_memory(self) -> None:
        """Back-pressure: while over budget, a new page waits for one to finish."""
        budget = self._limits.memory_budget_mb
        if budget is None:
            return
        while self._admitted > 0 and await self._memory_mb() > budget:
            self.throttled += 1
            for idle in self._idle[:]:  # idle contexts are the first to give memory back
                self._idle.remove(idle)
                await self._close_context(idle.entry, idle.context)
            self._released.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._released.wait(), 1.0)
            self._pss_at = 0.0  # measure again now that a page has gone

    def _take_idle(self, key: str) -> Lease | None:
        for idle in self._idle:
            if idle.key == key and idle.entry is self._current and not idle.entry.retiring:
                self._idle.remove(idle)
                return idle
        return None

    async def _drop_stale_idle(self) -> None:
        for idle in self._idle[:]:
            if idle.entry is not self._current or idle.entry.retiring or idle.entry.dead:
                self._idle.remove(idle)
                await self._close_context(idle.entry, idle.context)

    @contextlib.asynccontextmanager
    async def lease(
        self, context_options: dict[str, Any], *, reset: Reset | None = None
    ) -> AsyncIterator[Lease]:
        """A slot plus a context of its own. With ``reset``, a context whose render ended
        cleanly (``lease.reusable``) is reset and kept for the next lease with the same
        options; otherwise it is closed (or its browser killed) after."""
        async with self._slots:
            await self._wait_for_memory()
            self._admitted += 1  # no await since the check: the next page sees this one
            try:
                entry = await self._browser()
                await self._drop_stale_idle()
            except BaseException:
                self._admitted -= 1
                raise
            key = repr(sorted(context_options.items()))
            entry.active += 1
            entry.started += 1
            self._active += 1
            self.peak_active = max(self.peak_active, self._active)
            if entry.started >= self._limits.recycle_after:
                entry.retiring = True
            try:
                lease = self._take_idle(key) if reset is not None else None
                if lease is not None:
                    self.reused += 1
                    lease.reusable = False
                else:
                    try:
                        context = await asyncio.wait_for(
                            entry.browser.new_context(**context_options),
                            self._limits.close_timeout_s,
                        )
                    except Exception as exc:
                        await self._mark_bad(entry)
                        raise RenderError(
                            f"the browser could not open a page: {exc}", code=BROWSER_CRASHED
                        ) from exc
                    lease = Lease(context=context, entry=entry, key=key)
                try:
                    yield lease
                finally:
                    await self._release(lease, reset)
            finally:
                entry.active -= 1
                self._active -= 1
                self._admitted -= 1
                self._released.set()
                self._maybe_dispose(entry)

    async def _release(self, lease: Lease, reset: Reset | None) -> None:
        keep = (
            reset is not None
            and lease.reusable
            and lease.uses + 1 < self._limits.reuse_pages
            and not lease.entry.dead
            and not lease.entry.retiring
            and not self._closed
        )
        if keep:
            assert reset is not None
            try:
                await asyncio.wait_for(reset(lease), self._limits.close_timeout_s)
            except Exception:
                keep = False
        if keep:
            lease.uses += 1
            self._idle.append(lease)
        else:
            await self._close_context(lease.entry, lease.context)

    async def _close_context(self, entry: BrowserEntry, context: BrowserContext) -> None:
        if entry.dead:
            return
        try:
            await asyncio.wait_for(context.close(), self._limits.close_timeout_s)
        except Exception:
            await self._mark_bad(entry)

    async def _mark_bad(self, entry: BrowserEntry) -> None:
        """Hung or crashed: kill now, so its other pages fail fast instead of hanging."""
        if not entry.dead:
            entry.dead = True
            self.kills += 1
            if entry.pid is not None:
                kill_group(entry.pid)
        self._maybe_dispose(entry)

    def _maybe_dispose(self, entry: BrowserEntry) -> None:
        if entry.disposed or entry.active > 0 or not (entry.retiring or entry.dead):
            return
        entry.disposed = True
        self._idle = [idle for idle in self._idle if idle.entry is not entry]
        if self._current is entry:
            self._current = None
        entry.closing = asyncio.get_running_loop().create_task(self._dispose(entry))

    async def _dispose(self, entry: BrowserEntry) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(entry.browser.close(), self._limits.close_timeout_s)
        if entry.pid is not None:
            kill_group(entry.pid)
            if not await wait_group_gone(entry.pid, 2.0):
                kill_group(entry.pid)
        self._entries.discard(entry)

    async def close(self) -> None:
        """Close every browser; afterwards no process of ours is left."""
        self._closed = True
        self._idle.clear()
        async with self._lock:
            for entry in list(self._entries):
                entry.retiring = True
                if not entry.disposed:
                    entry.disposed = True
                    entry.closing = asyncio.get_running_loop().create_task(self._dispose(entry))
            tasks = [e.closing for e in list(self._entries) if e.closing is not None]
            self._current = None
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        for entry in list(self._entries):
            if entry.pid is not None:
                kill_group(entry.pid)
        self._entries.clear()
