"""Progress reporting: a rich live display on a terminal, plain log lines otherwise.

The engine calls :meth:`Progress.page` once per finished page and :meth:`Progress.tick`
about once a second whatever happens, so a crawl that waits (on renders, on a page that
takes its time) still reports, and says what it waits for: the pages in flight when
nothing else is left to start, with the seconds each has taken so far (``waiting on:
https://x/search.html (rendering, 12 s)``). Displays refresh on their own clock so a fast
crawl does not spend its time redrawing.
"""

from __future__ import annotations

import sys
import time
from typing import IO, TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pressmark.crawl._engine import Engine
    from pressmark.crawl._manifest import CrawlManifest, PageRecord


class Progress(Protocol):
    def start(self, engine: Engine) -> None: ...

    def page(self, record: PageRecord, engine: Engine) -> None: ...

    def tick(self, engine: Engine) -> None:
        """About once a second, whether pages finish or not."""
        ...

    def finish(self, manifest: CrawlManifest) -> None: ...


TICK_S = 1.0
"""How often a crawl calls :meth:`Progress.tick`."""


def waiting_on(engine: Engine) -> str:
    """``waiting on: URL (rendering, 12 s), URL (18 s)``, or ``""`` when the crawl still has
    pages to start (``engine.progress_waits()``, see the module docstring)."""
    waits = getattr(engine, "progress_waits", None)
    found = waits() if callable(waits) else ()
    if not found:
        return ""
    parts = [f"{url} ({'rendering, ' if rendering else ''}{seconds:.0f} s)"
             for url, seconds, rendering in found]
    return "waiting on: " + ", ".join(parts)


class NullProgress:
    """``--quiet``: nothing at all."""

    def start(self, engine: Engine) -> None:
        return None

    def page(self, record: PageRecord, engine: Engine) -> None:
        return None

    def tick(self, engine: Engine) -> None:
        return None

    def finish(self, manifest: CrawlManifest) -> None:
        return None


def _counts(engine: Engine, started: float) -> dict[str, Any]:
    done = engine.summary.requested
    elapsed = max(time.monotonic() - started, 1e-6)
    rate = done / elapsed
    left = max(0, engine.max_pages - done)
    queued = engine.frontier.queued
    eta = min(left, queued + engine.in_flight) / rate if rate > 0 else None
    return {"done": done, "queued": queued, "failed": engine.summary.failed,
            "rendered": engine.summary.rendered, "rate": rate, "eta": eta,
            "max": engine.max_pages}


class LogProgress:
    """One line per finished page when verbose, else one summary line every ``every_s``."""

    def __init__(self, stream: IO[str] | None = None, *, every_s: float = 2.0,
                 per_page: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.every_s = every_s
        self.per_page = per_page
        self._started = time.monotonic()
        self._last = 0.0

    def start(self, engine: Engine) -> None:
        self._started = time.monotonic()

    def page(self, record: PageRecord, engine: Engine) -> None:
        if self.per_page:
            kind = f" {record.error.kind}" if record.error else ""
            self.stream.write(f"{record.status or '-'} {record.outcome}{kind} {record.url}\n")
        self.tick(engine)

    def tick(self, engine: Engine) -> None:
        now = time.monotonic()
        if now - self._last >= self.every_s:
            self._last = now
            c = _counts(engine, self._started)
            eta = "-" if c["eta"] is None else f"{c['eta']:.0f}s"
            waits = waiting_on(engine)
            self.stream.write(
                f"crawl: {c['done']} done, {c['queued']} queued, {c['failed']} failed, "
                f"{c['rendered']} rendered, {c['rate']:.1f} pages/s, eta {eta}"
                + (f"; {waits}" if waits else "") + "\n"
            )
            self.stream.flush()

    def finish(self, manifest: CrawlManifest) -> None:
        s = manifest.summary
        self.stream.write(
            f"crawl {'complete' if manifest.complete else 'stopped'}: {s['pages']} pages in "
            f"{s['duration_s']}s ({s['pages_per_s']} pages/s)\n"
        )
        self.stream.flush()


class RichProgress:
    """A live bar: done / queued / failed / renders, rate and ETA against ``max_pages``."""

    def __init__(self) -> None:
        from rich.console import Console  # noqa: PLC0415  # loaded on first use
        from rich.live import Live  # noqa: PLC0415  # loaded on first use

        self._console = Console(stderr=True)
        self._live = Live(console=self._console, refresh_per_second=4, transient=False)
        self._started = time.monotonic()
        self._engine: Engine | None = None

    def _render(self) -> Any:
        from rich.text import Text  # noqa: PLC0415  # loaded on first use

        if self._engine is None:
            return Text("")
        c = _counts(self._engine, self._started)
        eta = "-" if c["eta"] is None else f"{c['eta']:.0f}s"
        waits = waiting_on(self._engine)
        return Text.assemble(
            ("crawl ", "bold"), f"{c['done']}/{c['max']} done  ", f"{c['queued']} queued  ",
            (f"{c['failed']} failed", "red" if c["failed"] else ""),
            f"  {c['rendered']} rendered  {c['rate']:.1f} pages/s  eta {eta}",
            (f"\n{waits}", "dim") if waits else "",
        )

    def start(self, engine: Engine) -> None:
        self._engine = engine
        self._started = time.monotonic()
        self._live.start()

    def page(self, record: PageRecord, engine: Engine) -> None:
        self._live.update(self._render(), refresh=False)

    def tick(self, engine: Engine) -> None:
        self._live.update(self._render(), refresh=False)

    def finish(self, manifest: CrawlManifest) -> None:
        self._live.update(self._render())
        self._live.stop()


def default_progress(*, quiet: bool = False, stream: IO[str] | None = None) -> Progress:
    if quiet:
        return NullProgress()
    out = stream or sys.stderr
    if out.isatty():
        return RichProgress()
    return LogProgress(out)
