from __future__ import annotations

import pytest

from pressmark.crawl._frontier import Frontier, FrontierItem
from pressmark.fetch import Pacer


def item(url: str, depth: int = 1, score: float = 0.0, host: str | None = None) -> FrontierItem:
    return FrontierItem(url=url, host=host or url.split("/")[2], depth=depth, score=score)


def test_dedupe_and_priority() -> None:
    f = Frontier(per_host_concurrency=10, max_admitted=100)
    assert f.add(item("http://a/2", depth=2))
    assert f.add(item("http://a/1low", depth=1, score=0.1))
    assert f.add(item("http://a/1high", depth=1, score=5.0))
    assert f.add(item("http://a/1first", depth=1))
    assert not f.add(item("http://a/2", depth=0))
    order = [f.pop_ready(0.0)[0] for _ in range(4)]
    assert [i.url for i in order if i] == ["http://a/1high", "http://a/1low", "http://a/1first",
                                           "http://a/2"]
    assert f.pop_ready(0.0) == (None, None)


def test_per_host_concurrency_and_many_hosts() -> None:
    f = Frontier(per_host_concurrency=2, max_admitted=100)
    for host in ("a", "b"):
        for n in range(3):
            f.add(item(f"http://{host}/{n}"))
    taken = []
    while True:
        got, _ = f.pop_ready(0.0)
        if got is None:
            break
        taken.append(got)
    assert sorted(i.host for i in taken) == ["a", "a", "b", "b"]
    f.release("a")
    got, _ = f.pop_ready(0.0)
    assert got is not None and got.host == "a"


class FakeClock:
    def __init__(self) -> None:
        self.t = 10.0

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.t += seconds


async def test_the_fetch_layers_pacing_says_when_a_host_may_start() -> None:
    """One clock: the frontier does not pick a host its ``Pacer`` holds back, and
    reports when it may start (the delay counts from the request's end too)."""
    clock = FakeClock()
    pacing = Pacer(min_delay_ms=500, clock=clock)
    f = Frontier(per_host_concurrency=1, max_admitted=100, pacing=pacing)
    f.add(item("http://a:8080/1"))
    f.add(item("http://a:8080/2"))
    first, _ = f.pop_ready(clock.now())
    assert first is not None
    assert f.pop_ready(clock.now()) == (None, None)  # one in flight at a time
    async with pacing.slot("a"):  # the page's request, paced by the fetch layer
        clock.t = 10.2  # a slow response
    f.release("a:8080")
    clock.t = 10.3
    none, wake = f.pop_ready(clock.now())
    assert none is None and wake == pytest.approx(10.7)
    clock.t = 10.7
    second, _ = f.pop_ready(clock.now())
    assert second is not None


def test_admission_cap_is_bounded_memory() -> None:
    f = Frontier(per_host_concurrency=1, max_admitted=3)
    results = [f.add(item(f"http://a/{n}")) for n in range(10)]
    assert results == [True] * 3 + [False] * 7
    assert f.dropped_full == 7
    assert f.admitted == 3


def test_crawl_delay_forces_single_connection() -> None:
    f = Frontier(per_host_concurrency=4, max_admitted=10)
    f.add(item("http://a/1"))
    f.partition("a").one_at_a_time()
    assert f.partition("a").max_in_flight == 1


def test_key_set_is_a_set_of_64_bit_keys() -> None:
    import random

    from pressmark.crawl._frontier import KeySet

    rng = random.Random(7)
    keys = [rng.getrandbits(64) for _ in range(5000)] + [0, 1, 2**64 - 1, 1024, 2048]
    packed, plain = KeySet(), set()
    for key in keys + keys[:100]:  # repeats, and keys whose low bits collide
        stored = key or 1  # 0 marks an empty slot: key 0 is kept as 1
        assert packed.add(key) == (stored not in plain)
        plain.add(stored)
    assert all(key in packed for key in keys)
    assert not any(rng.getrandbits(64) in packed for _ in range(5000))
    assert len(packed) == len(plain)
