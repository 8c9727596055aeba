"""Crawl-wide pacing: per-host spacing, per-host and global concurrency, back-off.

One :class:`Pacer` is shared by every fetch of a crawl, and it is the one clock of
per-host pacing: the crawler's frontier asks it when a host may start next
(:meth:`Pacer.next_start_in`) instead of keeping a second one. A request to a host
starts no sooner than ``delay`` after the previous request to that host started, and no
sooner than ``delay`` after it ended (the larger of the caller's minimum delay and the
site's capped ``Crawl-delay``), so a slow response does not bring the next request
closer; ``Retry-After`` pushes the host's next start further out for everyone. Start
times are reserved synchronously, so concurrent callers queue fairly without a lock, and
a zero delay costs no sleep at all. :meth:`Pacer.wait_turn` reserves a start without
holding a slot (a redirect hop to another host, which must not wait for a slot while its
page holds one on the first host).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pressmark.fetch._config import Clock, SystemClock


@dataclass(slots=True)
class _Host:
    semaphore: asyncio.Semaphore
    next_start: float = 0.0


@dataclass(slots=True)
class PolitenessStats:
    """Totals for a crawl report: slots handed out and seconds spent waiting for them."""

    waited_s: float = 0.0
    slots: int = 0


class Pacer:
    """Per-host and global limits. Create one per crawl; safe within one event loop."""

    def __init__(self, *, min_delay_ms: int = 0, max_concurrency: int = 64,
                 max_per_host: int = 8, clock: Clock | None = None) -> None:
        if max_concurrency < 1 or max_per_host < 1 or min_delay_ms < 0:
            raise ValueError("concurrency limits must be >= 1 and min_delay_ms >= 0")
        self.min_delay_s = min_delay_ms / 1000.0
        self.max_concurrency = max_concurrency
        self.max_per_host = max_per_host
        self.clock: Clock = clock or SystemClock()
        self._global: asyncio.Semaphore | None = None
        self._hosts: dict[str, _Host] = {}
        self.stats = PolitenessStats()

    def _host(self, host: str) -> _Host:
        state = self._hosts.get(host)
        if state is None:
            state = _Host(asyncio.Semaphore(self.max_per_host))
            self._hosts[host] = state
        return state

    def defer(self, host: str, seconds: float) -> None:
        """Hold every request to ``host`` for ``seconds`` from now (Retry-After)."""
        state = self._host(host)
        state.next_start = max(state.next_start, self.clock.now() + max(0.0, seconds))

    def next_start_in(self, host: str) -> float:
        """Seconds until ``host`` may be contacted again (0 when it may be now)."""
        state = self._hosts.get(host)
        if state is None:
            return 0.0
        return max(0.0, state.next_start - self.clock.now())

    def _gap(self, delay_s: float | None) -> float:
        return self.min_delay_s if delay_s is None else max(delay_s, self.min_delay_s)

    def slot(self, host: str, *, delay_s: float | None = None) -> _Slot:
        """Hold a request slot for ``host``: ``async with p.slot(host) as waited_s``."""
        if self._global is None:
            self._global = asyncio.Semaphore(self.max_concurrency)
        return _Slot(self, self._host(host), self._global, self._gap(delay_s))

    async def wait_turn(self, host: str, *, delay_s: float | None = None) -> float:
        """Reserve the next start on ``host`` and sleep until it, holding no slot: the
        request that follows is spaced from the others' starts like a slotted one (its end
        is not seen here). Returns the seconds waited."""
        state = self._host(host)
        now = self.clock.now()
        start_at = max(now, state.next_start)
        state.next_start = start_at + self._gap(delay_s)
        waited = start_at - now
        if waited > 0:
            await self.clock.sleep(waited)
        self.stats.waited_s += waited
        return waited


class _Slot:
    """One request's place: the host's semaphore, its start time, then a global slot.

    A class rather than a generator-based context manager: it is entered once per
    page, and this is the cheaper protocol. Released in reverse order, also when the
    wait is cancelled.
    """

    __slots__ = ("_gap", "_global", "_owner", "_state")

    def __init__(self, owner: Pacer, state: _Host, global_: asyncio.Semaphore,
                 gap: float) -> None:
        self._owner = owner
        self._state = state
        self._global = global_
        self._gap = gap

    async def __aenter__(self) -> float:
        owner, state = self._owner, self._state
        clock = owner.clock
        started = clock.now()
        await state.semaphore.acquire()
        try:
            now = clock.now()
            start_at = max(now, state.next_start)
            state.next_start = start_at + self._gap
            if start_at > now:
                await clock.sleep(start_at - now)
            await self._global.acquire()
        except BaseException:
            state.semaphore.release()
            raise
        waited = clock.now() - started
        owner.stats.waited_s += waited
        owner.stats.slots += 1
        return waited

    async def __aexit__(self, *exc_info: object) -> None:
        if self._gap > 0:  # spaced from this request's end too
            state = self._state
            state.next_start = max(state.next_start, self._owner.clock.now() + self._gap)
        self._global.release()
        self._state.semaphore.release()
