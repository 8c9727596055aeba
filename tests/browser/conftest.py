"""Fixtures for the browser tests: loopback test pages, a canary, renderers.

One Chromium at a time: ``shared_renderer`` lives for a test module (its tests run on
the module's event loop, see ``MODULE_LOOP``); tests that need their own settings
start their own renderer and close it before the next test.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio

from ._site import Canary, PageServer

_NETNS_TEST = "test_workbench_netns.py::test_hostile_capture_in_a_network_namespace"
_MXSS_TEST = "test_workbench_mxss.py::test_mxss_captures_make_no_connection"


def _unshare_works() -> bool:
    unshare = shutil.which("unshare")
    return unshare is not None and subprocess.run(
        [unshare, "-n", "true"], check=False, capture_output=True).returncode == 0


@pytest.hookimpl(trylast=True)  # after -k and -m have deselected theirs
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The mutation-XSS corpus runs once: inside the network namespace of the netns test
    when that test is selected too and ``unshare -n`` works (there a zero-connection count
    proves more: nothing but the canary is reachable), else on its own. Twice cost ~25 s
    of Chromium a suite run for nothing the netns run does not check."""
    if not any(item.nodeid.endswith(_NETNS_TEST) for item in items):
        return
    again = [item for item in items if _MXSS_TEST in item.nodeid]
    if again and _unshare_works():
        config.hook.pytest_deselected(items=again)
        items[:] = [item for item in items if _MXSS_TEST not in item.nodeid]


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
