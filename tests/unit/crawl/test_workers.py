"""Parser processes: a lost worker costs one job, never the pool, and runs no caller code."""

from __future__ import annotations

import pytest

from pressmark.crawl._workers import (
    PageTimeout,
    ParseWorkers,
    WorkerDied,
    WorkerOutOfMemory,
)

from . import _jobs


@pytest.fixture
def workers() -> ParseWorkers:
    pool = ParseWorkers(1, deadline_s=60.0, memory_bytes=512 << 20)
    yield pool  # type: ignore[misc]
    pool.close()


async def test_a_worker_never_runs_the_callers_main_module(workers: ParseWorkers) -> None:
    # spawn re-imported the caller's script in each worker; the bootstrap is no file
    assert await workers.run(_jobs.main_module_file, None) is None


async def test_a_job_past_the_address_space_limit_costs_that_job(workers: ParseWorkers) -> None:
    with pytest.raises(WorkerOutOfMemory) as raised:
        await workers.run(_jobs.allocate, 2 << 30)
    assert raised.value.kind == "parse-out-of-memory"
    assert isinstance(raised.value, WorkerDied)  # the engine records both alike
    assert await workers.run(_jobs.allocate, 64 << 20) == 64 << 20  # a fresh worker


async def test_a_worker_that_dies_costs_one_job(workers: ParseWorkers) -> None:
    with pytest.raises(WorkerDied) as raised:
        await workers.run(_jobs.die, None)
    assert raised.value.kind == "parse-crashed"
    assert await workers.run(_jobs.sleep, 0.0) == 0.0


async def test_a_failing_or_unimportable_job_leaves_the_worker_serving(
        workers: ParseWorkers) -> None:
    with pytest.raises(RuntimeError, match="ValueError: bad page"):
        await workers.run(_jobs.fail, "bad page")

    def local(_: object) -> None:  # pragma: no cover - never runs: not importable there
        return None

    with pytest.raises(Exception, match="local"):
        await workers.run(local, None)  # pickling fails here, in the caller
    assert await workers.run(_jobs.sleep, 0.0) == 0.0


async def test_a_job_past_its_deadline_is_killed() -> None:
    pool = ParseWorkers(1, deadline_s=0.5)
    try:
        assert await pool.run(_jobs.sleep, 0.0) == 0.0  # started (start-up is not timed)
        with pytest.raises(PageTimeout):
            await pool.run(_jobs.sleep, 60.0)
        assert pool.killed == 1
        assert await pool.run(_jobs.sleep, 0.0) == 0.0
    finally:
        pool.close()


def test_a_limit_too_small_to_start_is_refused() -> None:
    with pytest.raises(ValueError, match="address space"):
        ParseWorkers(1, memory_bytes=1 << 20)
