"""Fixtures for the browser tests: loopback test pages, a canary, renderers.

One Chromium at a time: ``shared_renderer`` lives for a test module (its tests run on
the module's event loop, see ``MODULE_LOOP``); tests that need their own settings
start their own renderer and close it before the next test.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio

from ._site import Canary, PageServer


@pytest.fixture(scope="session")
def pages() -> Iterator[PageServer]:
    server = PageServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def canary() -> Iterator[Canary]:
    server = Canary().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def policy(pages: PageServer) -> Any:
    """The egress policy of the browser tests: loopback denied except the test pages."""
    from pressmark.egress import EgressPolicy

    return EgressPolicy().allow_loopback(pages.origin)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def renderer(policy: Any) -> AsyncIterator[Any]:
    from pressmark.render import PlaywrightRenderer, PoolLimits

    async with PlaywrightRenderer(
        policy=policy, limits=PoolLimits(max_tabs=2, close_timeout_s=3.0)
    ) as r:
        yield r
