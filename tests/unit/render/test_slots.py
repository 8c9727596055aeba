"""Render slots sized for the machine: pages per core, capped by memory."""

from __future__ import annotations

import pytest

from pressmark.render import PoolLimits, RenderError
from pressmark.render._options import (
    MAX_AUTO_PAGES,
    PAGE_MEMORY_MB,
    machine_memory_budget_mb,
    machine_render_slots,
)


def test_pages_per_core_capped_by_memory() -> None:
    assert machine_render_slots(cpus=2, available_mb=24_000) == 8
    assert machine_render_slots(cpus=64, available_mb=1_000_000) == MAX_AUTO_PAGES
    # A quarter of 1.2 GB holds two pages of PAGE_MEMORY_MB, never fewer than 2.
    assert machine_render_slots(cpus=8, available_mb=8 * PAGE_MEMORY_MB) == 2
    assert machine_render_slots(cpus=1, available_mb=100) == 2
    assert machine_render_slots(cpus=2, available_mb=0) == 8  # memory unknown


def test_memory_budget_follows_the_pages() -> None:
    assert machine_memory_budget_mb(6, available_mb=24_000) == 2 * PAGE_MEMORY_MB * 6 + 300
    assert machine_memory_budget_mb(6, available_mb=1_000) == 500  # half of what is there


def test_for_machine_keeps_an_explicit_page_count() -> None:
    limits = PoolLimits.for_machine(3)
    assert limits.max_tabs == 3
    assert limits.memory_budget_mb is not None and limits.memory_budget_mb >= 64
    assert PoolLimits.for_machine(3, memory_budget_mb=None).memory_budget_mb is None


def test_invalid_limits() -> None:
    with pytest.raises(RenderError):
        PoolLimits(reuse_pages=0)
    with pytest.raises(RenderError):
        PoolLimits(memory_budget_mb=10)
