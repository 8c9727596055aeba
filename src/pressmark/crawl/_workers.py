"""Killable parser processes: page CPU work with a deadline that bites.

WHY not ``ProcessPoolExecutor``: it cannot stop one job. A page that keeps a
worker busy (a parser's quadratic path, a converter bug) would hold it for the
rest of the crawl, and killing the worker breaks the whole executor. Here each
worker runs one job at a time over its own pipe; a job past its deadline gets its
worker SIGKILLed and replaced, and the page gets :class:`PageTimeout` (recorded
as outcome ``error``, kind ``parse-timeout``); every other page goes on.

The event loop never blocks on a worker: results arrive through ``add_reader``.
Workers ask the kernel to SIGKILL them when the crawl process dies
(``PR_SET_PDEATHSIG``), so even a crawl killed with SIGKILL leaves no parser
behind; :meth:`ParseWorkers.close` reaps them on every ordinary exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    from pressmark.crawl._sitemaps import SitemapDocument
    from pressmark.fetch import ShellVerdict

T = TypeVar("T")

PAGE_DEADLINE_S = 10.0
"""Default limit on one page's parse/extract/convert work (wall time in its worker)."""

_PR_SET_PDEATHSIG = 1
_READY = "ready"
START_TIMEOUT_S = 120.0
"""How long a new worker may take to import and warm up (a loaded machine is slow)."""


class PageTimeout(Exception):  # an outcome, named for what happened
    """The page's work passed its deadline; its worker was killed."""

    kind = "parse-timeout"


class WorkerDied(Exception):
    """The worker exited under the page (out of memory, a crash in C code)."""

    kind = "parse-crashed"


def _die_with_parent() -> None:
    with contextlib.suppress(Exception):  # Linux only; elsewhere close() still reaps
        import ctypes  # noqa: PLC0415  # worker start-up only

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _serve(conn: Connection, parent: int, warm: Callable[[], None] | None) -> None:
    """A worker's life: run jobs from ``conn`` until it closes."""
    _die_with_parent()
    if os.getppid() != parent:  # the parent died before prctl took effect
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the crawl decides how to stop
    if warm is not None:
        warm()
    try:
        conn.send(_READY)  # start-up (imports) never counts against a page's deadline
    except (BrokenPipeError, OSError):
        return
    while True:
        try:
            fn, arg = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple[bool, Any] = (True, fn(arg))
        except Exception as exc:  # the page's failure, re-raised in the crawl
            reply = (False, f"{type(exc).__name__}: {exc}")
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return


class _Worker:
    __slots__ = ("conn", "process")

    def __init__(self, process: BaseProcess, conn: Connection) -> None:
        self.process = process
        self.conn = conn

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
        with contextlib.suppress(Exception):
            self.process.kill()
        with contextlib.suppress(Exception):
            self.process.join(timeout=2.0)


class ParseWorkers:
    """Up to ``size`` spawn-context worker processes, started on first use."""

    def __init__(self, size: int, *, deadline_s: float = PAGE_DEADLINE_S,
                 warm: Callable[[], None] | None = None) -> None:
        if size < 1:
            raise ValueError("ParseWorkers needs at least one worker")
        self.size = size
        self.deadline_s = deadline_s
        self._warm = warm
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._slots: asyncio.Semaphore | None = None
        self._closed = False
        self.killed = 0
        """Workers killed for passing a deadline (or abandoned by a cancelled page)."""

    async def _start(self) -> _Worker:
        """A new worker, once it has said it is ready."""
        worker = self._spawn()
        try:
            hello = await self._receive(worker, START_TIMEOUT_S)
        except TimeoutError:
            self._drop(worker)
            raise WorkerDied(f"parser process not ready in {START_TIMEOUT_S:g} s") from None
        except BaseException:
            self._drop(worker)
            raise
        if hello != _READY:
            self._drop(worker)
            raise WorkerDied(f"parser process started badly: {hello!r}")
        return worker

    def _spawn(self) -> _Worker:
        import multiprocessing  # noqa: PLC0415  # loaded on first use

        ctx = multiprocessing.get_context("spawn")
        ours, theirs = ctx.Pipe(duplex=True)
        process = ctx.Process(target=_serve, args=(theirs, os.getpid(), self._warm),
                              daemon=True, name="pressmark-parser")
        process.start()
        theirs.close()
        worker = _Worker(process, ours)
        self._all.add(worker)
        return worker

    def _drop(self, worker: _Worker) -> None:
        """Forget ``worker`` and kill it (it may be busy with a job nobody waits for)."""
        self._all.discard(worker)
        worker.kill()

    async def run(self, fn: Callable[[Any], T], arg: Any) -> T:
        """``fn(arg)`` in a worker; :class:`PageTimeout` past the deadline."""
        if self._closed:
            raise RuntimeError("ParseWorkers is closed")
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.size)
        async with self._slots:
            worker = self._idle.pop() if self._idle else await self._start()
            try:
                ok, value = await self._call(worker, fn, arg)
            except BaseException:
                self._drop(worker)  # busy with a job nobody waits for, or dead
                raise
            self._idle.append(worker)
        if not ok:
            raise RuntimeError(value)
        return value  # type: ignore[no-any-return]

    async def _call(self, worker: _Worker, fn: Callable[[Any], Any], arg: Any,
                    ) -> tuple[bool, Any]:
        try:
            worker.conn.send((fn, arg))
        except (BrokenPipeError, OSError) as exc:
            raise WorkerDied(f"parser process gone: {exc}") from exc
        try:
            reply: tuple[bool, Any] = await self._receive(worker, self.deadline_s)
        except TimeoutError:
            self.killed += 1
            raise PageTimeout(f"page work passed its {self.deadline_s:g} s deadline; "
                              "its parser process was killed") from None
        return reply

    @staticmethod
    async def _receive(worker: _Worker, limit_s: float) -> Any:
        """The worker's next message, read when its pipe is readable (never blocking)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Any] = loop.create_future()
        fd = worker.conn.fileno()

        def readable() -> None:
            if done.done():
                return
            try:
                done.set_result(worker.conn.recv())
            except (EOFError, OSError) as exc:
                done.set_exception(WorkerDied(f"parser process exited: {exc}"))

        loop.add_reader(fd, readable)
        try:
            return await asyncio.wait_for(done, limit_s)
        finally:
            loop.remove_reader(fd)

    def close(self) -> None:
        """Kill and reap every worker (idle ones have nothing left to lose)."""
        self._closed = True
        workers = list(self._all)
        for worker in workers:  # all signalled first, then reaped: one wait, not N
            with contextlib.suppress(Exception):
                worker.process.kill()
        for worker in workers:
            self._drop(worker)
        self._idle.clear()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """``Executor.shutdown`` spelling, for callers that held an executor before."""
        del wait, cancel_futures
        self.close()


def _classify(html: str) -> ShellVerdict:
    from pressmark.fetch import classify_shell  # noqa: PLC0415  # in the worker

    return classify_shell(html)


class OffLoopShellCheck:
    """``FetchOptions.shell_check`` for a crawl: the event loop only classifies a page the
    bounded parser's pre-scan proves cheap; any other goes to the parser workers."""

    def __init__(self, workers: ParseWorkers) -> None:
        self.workers = workers

    async def __call__(self, html: str, url: str | None) -> ShellVerdict:
        from pressmark.fetch import ShellVerdict, classify_shell  # noqa: PLC0415
        from pressmark.markdown import screen  # noqa: PLC0415  # loaded on first use

        if screen(html):
            return classify_shell(html, url, screened=True)
        try:
            return await self.workers.run(_classify, html)
        except (PageTimeout, WorkerDied) as exc:  # no verdict: the page is not rendered
            return ShellVerdict(is_shell=False, reason=exc.kind, score=0.0,
                                warnings=(f"shell-check-failed:{exc.kind}",))


async def parse_sitemap_off_loop(workers: ParseWorkers, data: bytes, max_bytes: int,
                                 max_urls: int) -> SitemapDocument:
    """``discover_sitemap_urls``'s ``parse`` hook: the document is parsed in a worker."""
    from pressmark.crawl._sitemaps import (  # noqa: PLC0415  # loaded on first use
        SitemapDocument,
        SitemapParseError,
        parse_sitemap_job,
    )

    try:
        result = await workers.run(parse_sitemap_job, (data, max_bytes, max_urls))
    except (PageTimeout, WorkerDied) as exc:
        raise SitemapParseError(exc.kind, str(exc)) from exc
    if isinstance(result, SitemapDocument):
        return result
    raise SitemapParseError(*result)
