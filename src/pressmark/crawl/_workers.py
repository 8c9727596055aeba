"""Killable parser processes: page CPU work with a deadline that bites.

WHY not ``ProcessPoolExecutor``: it cannot stop one job. A page that keeps a
worker busy (a parser's quadratic path, a converter bug) would hold it for the
rest of the crawl, and killing the worker breaks the whole executor. Here each
worker runs one job at a time over its own pipe; a job past its deadline gets its
worker SIGKILLed and replaced, and the page gets :class:`PageTimeout` (recorded
as outcome ``error``, kind ``parse-timeout``); every other page goes on.

WHY a plain child process (``python -c`` on a short bootstrap, a socket pair for
pickled jobs) rather than ``multiprocessing``'s spawn: spawn re-imports the parent's
``__main__``, so a user's script that starts a crawl at top level, without an
``if __name__ == "__main__":`` guard, ran the crawl again in every parser process (the
README's snippet, pasted as is, recorded its seed page ``parse-crashed``). The
bootstrap imports pressmark and nothing of the caller's; it runs on the parent's
``sys.path``, as spawn's children did.

Memory: a worker lives under an address-space limit (``RLIMIT_AS``, set by the
bootstrap before any import), so a page that would take gigabytes fails with
:class:`WorkerOutOfMemory` (kind ``parse-out-of-memory``) and its worker is replaced;
a worker that dies otherwise (a crash in C code) costs its page :class:`WorkerDied`.
Either way one page, never the crawl.

The event loop never blocks on a worker: results arrive through ``add_reader``.
Workers ask the kernel to SIGKILL them when the crawl process dies
(``PR_SET_PDEATHSIG``), so even a crawl killed with SIGKILL leaves no parser
behind; :meth:`ParseWorkers.close` reaps them on every ordinary exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pickle
import signal
import subprocess
import sys
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pressmark.crawl._policy import MIN_WORKER_MEMORY_BYTES, WORKER_MEMORY_BYTES

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from pressmark.crawl._sitemaps import SitemapDocument
    from pressmark.fetch import ShellVerdict

T = TypeVar("T")

PAGE_DEADLINE_S = 10.0
"""Default limit on one page's parse/extract/convert work (wall time in its worker)."""

_PR_SET_PDEATHSIG = 1
_READY = "ready"
_OK, _FAILED, _OUT_OF_MEMORY = "ok", "failed", "out-of-memory"
START_TIMEOUT_S = 120.0
"""How long a new worker may take to import and warm up (a loaded machine is slow)."""

# The child's whole program until pressmark is imported: the parent's sys.path, then the
# memory limit, before any import that could take memory. Nothing of the caller's runs.
_BOOTSTRAP = """\
import json, sys
fd, parent, memory = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
sys.path[:] = json.loads(sys.argv[4])
if memory > 0:
    import resource
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    if hard != resource.RLIM_INFINITY:
        memory = min(memory, hard)
    resource.setrlimit(resource.RLIMIT_AS, (memory, hard))
from pressmark.crawl._workers import serve_fd
serve_fd(fd, parent)
"""


class PageTimeout(Exception):  # an outcome, named for what happened
    """The page's work passed its deadline; its worker was killed."""

    kind = "parse-timeout"


class WorkerDied(Exception):
    """The worker exited under the page (killed by the kernel, a crash in C code)."""

    kind = "parse-crashed"


class WorkerOutOfMemory(WorkerDied):
    """The page's work reached the worker's address-space limit; the worker was replaced."""

    kind = "parse-out-of-memory"


def _die_with_parent() -> None:
    with contextlib.suppress(Exception):  # Linux only; elsewhere close() still reaps
        import ctypes  # noqa: PLC0415  # worker start-up only

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def serve_fd(fd: int, parent: int) -> None:
    """A worker's life, in the child the bootstrap started: jobs from the socket ``fd``."""
    from multiprocessing.connection import Connection  # noqa: PLC0415  # the child only

    conn = Connection(fd)
    _die_with_parent()
    if os.getppid() != parent:  # the parent died before prctl took effect
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the crawl decides how to stop
    try:
        warm: Callable[[], None] | None = conn.recv()
        if warm is not None:
            warm()
        conn.send(_READY)  # start-up (imports) never counts against a page's deadline
    except (EOFError, OSError):
        return
    _serve(conn)


def _serve(conn: Connection) -> None:
    """Run jobs from ``conn`` until it closes (or the address space runs out)."""
    while True:
        try:
            job = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            fn, arg = pickle.loads(job)  # names pressmark's functions: imports nothing else
            reply: tuple[str, Any] = (_OK, fn(arg))
        except MemoryError as exc:  # the page's failure; this process may be spent
            reply = (_OUT_OF_MEMORY, f"MemoryError: {exc}")
        except Exception as exc:  # the page's failure, re-raised in the crawl
            reply = (_FAILED, f"{type(exc).__name__}: {exc}")
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return
        if reply[0] == _OUT_OF_MEMORY:
            return  # a fresh worker takes this one's place


def _interpreter_flags() -> list[str]:
    """The parent's interpreter flags (-B, -X ..., -W ...), as multiprocessing passes them."""
    flags = getattr(subprocess, "_args_from_interpreter_flags", None)
    return list(flags()) if flags is not None else []


class _Worker:
    __slots__ = ("conn", "process")

    def __init__(self, process: subprocess.Popen[bytes], conn: Connection) -> None:
        self.process = process
        self.conn = conn

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
        with contextlib.suppress(Exception):
            self.process.kill()
        with contextlib.suppress(Exception):
            self.process.wait(timeout=2.0)


class ParseWorkers:
    """Up to ``size`` worker processes, started on first use (module doc).

    ``memory_bytes``: each worker's address-space limit, ``None`` for none.
    """

    def __init__(self, size: int, *, deadline_s: float = PAGE_DEADLINE_S,
                 warm: Callable[[], None] | None = None,
                 memory_bytes: int | None = WORKER_MEMORY_BYTES) -> None:
        if size < 1:
            raise ValueError("ParseWorkers needs at least one worker")
        if memory_bytes is not None and memory_bytes < MIN_WORKER_MEMORY_BYTES:
            raise ValueError(f"a parser process needs at least {MIN_WORKER_MEMORY_BYTES >> 20}"
                             " MiB of address space")
        self.size = size
        self.deadline_s = deadline_s
        self.memory_bytes = memory_bytes
        self._warm = warm
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        # a pool dropped without close() still reaps its processes (no zombie, no warning)
        weakref.finalize(self, _reap, self._all)
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
        from multiprocessing import Pipe  # noqa: PLC0415  # loaded on first use

        ours, theirs = Pipe(duplex=True)  # a socket pair: one end for the child
        fd = theirs.fileno()
        command = [sys.executable, *_interpreter_flags(), "-c", _BOOTSTRAP, str(fd),
                   str(os.getpid()), str(self.memory_bytes or 0), json.dumps(sys.path)]
        try:
            process = subprocess.Popen(command, pass_fds=(fd,), stdin=subprocess.DEVNULL)
        finally:
            theirs.close()
        worker = _Worker(process, ours)
        self._all.add(worker)
        # (if it died already, its start fails in ``_start``, as a WorkerDied)
        with contextlib.suppress(BrokenPipeError, OSError):
            ours.send(self._warm)
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
                status, value = await self._call(worker, fn, arg)
            except BaseException:
                self._drop(worker)  # busy with a job nobody waits for, or dead
                raise
            if status == _OUT_OF_MEMORY:
                self._drop(worker)
                raise WorkerOutOfMemory(f"page work passed the parser process's "
                                        f"{self._limit_text()} address-space limit ({value})")
            self._idle.append(worker)
        if status != _OK:
            raise RuntimeError(value)
        return value  # type: ignore[no-any-return]

    def _limit_text(self) -> str:
        return "unlimited" if self.memory_bytes is None else f"{self.memory_bytes >> 20} MiB"

    async def _call(self, worker: _Worker, fn: Callable[[Any], Any], arg: Any,
                    ) -> tuple[str, Any]:
        try:
            worker.conn.send((fn, arg))
        except (BrokenPipeError, OSError) as exc:
            raise WorkerDied(f"parser process gone: {exc}") from exc
        try:
            reply: tuple[str, Any] = await self._receive(worker, self.deadline_s)
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
        _reap(self._all)
        self._idle.clear()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """``Executor.shutdown`` spelling, for callers that held an executor before."""
        del wait, cancel_futures
        self.close()


def _reap(workers: set[_Worker]) -> None:
    """Kill every worker of ``workers`` and wait for each, emptying it."""
    dropped = list(workers)
    workers.clear()
    for worker in dropped:  # all signalled first, then reaped: one wait, not N
        with contextlib.suppress(Exception):
            worker.process.kill()
    for worker in dropped:
        worker.kill()


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
