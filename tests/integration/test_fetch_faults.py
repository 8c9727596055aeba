"""Every fault endpoint gives its typed result within its time budget and bounded memory."""

from __future__ import annotations

import asyncio
import resource

import pytest

from pressmark.demo import DemoServer
from pressmark.egress import EgressPolicy
from pressmark.fetch import FetchOptions, SourceConfig, fetch_source


def options(origin: str, **kwargs: object) -> FetchOptions:
    policy = EgressPolicy(test_only_allowed_loopback_origins=(origin,))
    return FetchOptions(egress=policy, backoff_base_ms=20, backoff_max_ms=50,
                        **kwargs)  # type: ignore[arg-type]


# (path, source knobs, expected kind, expected status, budget in seconds)
CASES: list[tuple[str, dict[str, object], str | None, int | None, float]] = [
    ("/fault/slow-headers?seconds=3", {"timeout_ms": 700}, "timeout", None, 1.5),
    ("/fault/slow-body?chunks=20&interval=0.5", {"timeout_ms": 800}, "timeout", None, 1.5),
    ("/fault/reset", {"retries": 0}, "network-error", None, 2.0),
    ("/fault/length-long", {"retries": 0}, "network-error", None, 2.0),
    ("/fault/gzip-bomb?mb=1024", {}, "response-too-large", None, 3.0),
    ("/fault/bad-gzip", {"retries": 0}, "network-error", None, 2.0),
    ("/fault/redirect-forever/0", {}, "egress-denied", None, 2.0),
    ("/fault/huge?mb=50", {"max_response_bytes": 1024 * 1024}, "response-too-large", None, 2.0),
    ("/fault/huge-chunked?mb=50", {"max_response_bytes": 1024 * 1024}, "response-too-large",
     None, 3.0),
    ("/fault/429?retry_after=2", {"retries": 0}, "http-error", 429, 1.0),
    ("/fault/503?retry_after=3", {"retries": 0}, "http-error", 503, 1.0),
    ("/fault/503-date", {"retries": 1}, "http-error", 503, 2.0),
    ("/fault/empty", {"retries": 0}, "network-error", None, 2.0),
    ("/fault/garbage", {"retries": 0}, "network-error", None, 2.0),
    ("/fault/flaky/2/fetch-test", {"retries": 2}, None, None, 2.0),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
async def test_fault(fault_server: DemoServer,
                     case: tuple[str, dict[str, object], str | None, int | None, float]) -> None:
    path, knobs, kind, status, budget = case
    loop = asyncio.get_running_loop()
    started = loop.time()
    result = await fetch_source(SourceConfig(url=fault_server.url + path,  # type: ignore[arg-type]
                                             **knobs), options(fault_server.url))
    elapsed = loop.time() - started
    got = None if result.error is None else result.error.kind
    assert got == kind, (result.error, result.warnings)
    if status is not None:
        assert result.error is not None and result.error.status == status
    assert elapsed < budget


async def test_length_short_keeps_the_declared_bytes(fault_server: DemoServer) -> None:
    result = await fetch_source(SourceConfig(url=fault_server.url + "/fault/length-short",
                                             retries=0), options(fault_server.url))
    if result.ok:
        assert result.snapshot is not None and len(result.snapshot.bytes) == 100
    else:
        assert result.error is not None and result.error.kind == "network-error"


async def test_retry_after_is_waited_when_retrying(fault_server: DemoServer) -> None:
    loop = asyncio.get_running_loop()
    started = loop.time()
    result = await fetch_source(SourceConfig(url=fault_server.url + "/fault/429?retry_after=1",
                                             retries=1), options(fault_server.url))
    elapsed = loop.time() - started
    assert result.error is not None and result.error.status == 429
    # waited the server's second (the backoff alone is 20-50 ms), and once: a second wait
    # would not end (the retry is the last), so the bound only needs to be well short of
    # what a stall would take
    assert 0.9 <= elapsed < 1.0 + 10.0
    assert "retry:http-429" in result.warnings


async def test_retry_after_over_the_cap_is_not_waited(fault_server: DemoServer) -> None:
    loop = asyncio.get_running_loop()
    started = loop.time()
    result = await fetch_source(
        SourceConfig(url=fault_server.url + "/fault/503?retry_after=60", retries=2),
        FetchOptions(egress=EgressPolicy(test_only_allowed_loopback_origins=(fault_server.url,)),
                     retry_after_cap_ms=1000))
    assert result.error is not None and result.error.status == 503
    assert loop.time() - started < 10.0  # answered at once: the 60 s asked for is not waited


async def test_gzip_bomb_memory_is_bounded(fault_server: DemoServer) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = await fetch_source(SourceConfig(url=fault_server.url + "/fault/gzip-bomb?mb=1024"),
                                options(fault_server.url))
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert result.error is not None and result.error.kind == "response-too-large"
    assert after - before < 64 * 1024  # KiB: far less than the 1 GiB the bomb expands to
