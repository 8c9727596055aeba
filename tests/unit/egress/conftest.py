from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from pressmark.egress import EgressPolicy

from ._server import LoopbackOrigin


@pytest.fixture
async def origin() -> AsyncIterator[LoopbackOrigin]:
    async with LoopbackOrigin() as server:
        yield server


@pytest.fixture
async def origin2() -> AsyncIterator[LoopbackOrigin]:
    async with LoopbackOrigin() as server:
        yield server


@pytest.fixture
def policy(origin: LoopbackOrigin) -> EgressPolicy:
    return EgressPolicy(test_only_allowed_loopback_origins=(origin.origin,))
