from __future__ import annotations

import asyncio

import pytest

from pressmark.fetch import Pacer


class FakeClock:
    """Virtual time: sleeping advances the clock instantly."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += max(0.0, seconds)
        await asyncio.sleep(0)


async def test_min_delay_spaces_requests_to_one_host() -> None:
    clock = FakeClock()
    polite = Pacer(min_delay_ms=500, clock=clock)
    starts: list[float] = []
    for _ in range(3):
        async with polite.slot("a.test"):
            starts.append(clock.now())
    assert starts == [1000.0, 1000.5, 1001.0]


async def test_the_delay_counts_from_a_slow_requests_end_too() -> None:
    clock = FakeClock()
    polite = Pacer(min_delay_ms=500, clock=clock)
    async with polite.slot("a.test"):
        clock.t += 2.0  # a slow response
    assert polite.next_start_in("a.test") == pytest.approx(0.5)
    async with polite.slot("a.test") as waited:
        assert waited == pytest.approx(0.5)


async def test_wait_turn_reserves_a_start_without_a_slot() -> None:
    """A redirect hop's turn: spaced from the others' starts, no slot held (so a page
    holding a slot on another host cannot deadlock with one holding this host's)."""
    clock = FakeClock()
    polite = Pacer(min_delay_ms=0, max_per_host=1, clock=clock)
    async with polite.slot("a.test", delay_s=1.0):
        assert await polite.wait_turn("a.test", delay_s=1.0) == pytest.approx(1.0)
    assert polite.next_start_in("a.test") == pytest.approx(1.0)
    assert await polite.wait_turn("b.test") == 0.0


async def test_hosts_are_independent_and_zero_delay_never_sleeps() -> None:
    clock = FakeClock()
    polite = Pacer(min_delay_ms=0, clock=clock)
    for host in ("a.test", "b.test", "a.test"):
        async with polite.slot(host) as waited:
            assert waited == 0.0
    assert clock.sleeps == []


async def test_crawl_delay_raises_the_gap() -> None:
    clock = FakeClock()
    polite = Pacer(min_delay_ms=100, clock=clock)
    async with polite.slot("a.test", delay_s=2.0):
        pass
    async with polite.slot("a.test", delay_s=2.0) as waited:
        assert waited == pytest.approx(2.0)


async def test_defer_holds_a_host() -> None:
    clock = FakeClock()
    polite = Pacer(clock=clock)
    polite.defer("a.test", 3.0)
    assert polite.next_start_in("a.test") == pytest.approx(3.0)
    async with polite.slot("a.test") as waited:
        assert waited == pytest.approx(3.0)
    async with polite.slot("b.test") as waited:
        assert waited == 0.0


async def test_concurrency_limits() -> None:
    polite = Pacer(max_concurrency=3, max_per_host=2)
    active: dict[str, int] = {}
    peak: dict[str, int] = {}
    total = [0, 0]

    async def one(host: str) -> None:
        async with polite.slot(host):
            active[host] = active.get(host, 0) + 1
            total[0] += 1
            peak[host] = max(peak.get(host, 0), active[host])
            total[1] = max(total[1], total[0])
            await asyncio.sleep(0.01)
            active[host] -= 1
            total[0] -= 1

    await asyncio.gather(*(one(h) for h in ["a"] * 6 + ["b"] * 6 + ["c"] * 6))
    assert max(peak.values()) == 2
    assert total[1] == 3


def test_rejects_bad_limits() -> None:
    with pytest.raises(ValueError, match="concurrency"):
        Pacer(max_concurrency=0)


def test_retry_after_parses_seconds_and_http_dates() -> None:
    import email.utils
    import time

    from pressmark.fetch._attempt import parse_retry_after

    assert parse_retry_after("120") == 120.0
    assert parse_retry_after(" 0 ") == 0.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past: now
    future = email.utils.formatdate(time.time() + 90, usegmt=True)
    got = parse_retry_after(future)
    assert got is not None and 85 <= got <= 90
    assert parse_retry_after("soon") is None and parse_retry_after("-5") is None
    assert parse_retry_after(None) is None


def test_backoff_is_full_jitter_under_an_exponential_ceiling() -> None:
    from pressmark.fetch import FetchOptions
    from pressmark.fetch._attempt import backoff_s

    options = FetchOptions(backoff_base_ms=100, backoff_max_ms=1000)
    for attempt, ceiling in ((0, 0.1), (1, 0.2), (2, 0.4), (3, 0.8), (4, 1.0), (9, 1.0)):
        samples = [backoff_s(attempt, options) for _ in range(200)]
        assert all(0.0 <= s <= ceiling for s in samples)
        assert max(samples) > ceiling / 2 and len(set(samples)) > 100  # spread, not fixed
