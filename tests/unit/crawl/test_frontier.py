from __future__ import annotations

import pytest

from pressmark.crawl import Frontier, FrontierItem


def item(url: str, depth: int = 1, score: float = 0.0, host: str | None = None) -> FrontierItem:
    return FrontierItem(url=url, host=host or url.split("/")[2], depth=depth, score=score)


def test_dedupe_and_priority() -> None:
    f = Frontier(per_host_concurrency=10, delay_s=0.0, max_admitted=100)
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
    f = Frontier(per_host_concurrency=2, delay_s=0.0, max_admitted=100)
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


def test_delay_spaces_starts_and_reports_wake_time() -> None:
    f = Frontier(per_host_concurrency=4, delay_s=0.5, max_admitted=100)
    f.add(item("http://a/1"))
    f.add(item("http://a/2"))
    first, _ = f.pop_ready(10.0)
    assert first is not None
    none, wake = f.pop_ready(10.1)
    assert none is None and wake is None  # one in flight at a time when there is a delay
    f.release("a", 10.2)
    none, wake = f.pop_ready(10.3)
    assert none is None and wake == pytest.approx(10.7)  # delay counts from the release too
    second, _ = f.pop_ready(10.7)
    assert second is not None


def test_admission_cap_is_bounded_memory() -> None:
    f = Frontier(per_host_concurrency=1, delay_s=0.0, max_admitted=3)
    results = [f.add(item(f"http://a/{n}")) for n in range(10)]
    assert results == [True] * 3 + [False] * 7
    assert f.dropped_full == 7
    assert f.admitted == 3


def test_crawl_delay_forces_single_connection() -> None:
    f = Frontier(per_host_concurrency=4, delay_s=0.0, max_admitted=10)
    f.add(item("http://a/1"))
    f.partition("a").set_delay(1.0)
    assert f.partition("a").max_in_flight == 1
    assert f.partition("a").delay_s == 1.0
