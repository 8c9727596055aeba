"""One Chromium, up to K pages at a time, a fresh context per page, replaced when it goes bad.

A *lease* is one page's stay in the pool: a slot of the semaphore, a new browser
context (no cookies, storage or renderer process shared with any other page), and
the guarantee that the context is closed afterwards. The browser is replaced

- after ``recycle_after`` pages (a long-lived browser accumulates memory); the old
  one finishes its in-flight pages and is then closed;
- when it disconnects (crashed), and the pages it was rendering fail with
  ``browser-crashed``;
- when closing a context does not finish in ``close_timeout_s`` (hung): its whole
  process group is killed.

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
from collections.abc import AsyncIterator
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


@dataclass(slots=True, eq=False)
class Lease:
    """A page's slot: its context and the browser it lives in."""

    context: BrowserContext
    entry: BrowserEntry

    @property
    def browser_dead(self) -> bool:
        return self.entry.dead


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
        self._slots = asyncio.Semaphore(limits.max_pages)
        self._lock = asyncio.Lock()
        self._current: BrowserEntry | None = None
        self._entries: set[BrowserEntry] = set()
        self._closed = False
        self.launches = 0
        self.kills = 0
        self.peak_active = 0
        self._active = 0

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

    @contextlib.asynccontextmanager
    async def lease(self, context_options: dict[str, Any]) -> AsyncIterator[Lease]:
        """A slot plus a fresh context; the context is closed (or its browser killed) after."""
        async with self._slots:
            entry = await self._browser()
            entry.active += 1
            entry.started += 1
            self._active += 1
            self.peak_active = max(self.peak_active, self._active)
            if entry.started >= self._limits.recycle_after:
                entry.retiring = True
            try:
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
                try:
                    yield Lease(context=context, entry=entry)
                finally:
                    await self._close_context(entry, context)
            finally:
                entry.active -= 1
                self._active -= 1
                self._maybe_dispose(entry)

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
