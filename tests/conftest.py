"""Shared fixtures for every test layer.

Fixtures here start real things (loopback servers, temporary stores); fakes are
only used for what cannot run on this machine (public DNS, the internet).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pressmark.demo import DemoServer, DemoSite

_NETWORK_ENV = (
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
    "http_proxy", "https_proxy", "all_proxy", "no_proxy",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse to test compiled converter modules older than their source.

    The Markdown layer's hot modules are compiled in place (mypyc, see pyproject.toml;
    the parse screen's C pass, see hatch_build.py), and Python imports a ``.so`` before
    the ``.py`` beside it: after an edit, the tests would silently run yesterday's code.
    ``make`` rebuilds them when a source changes.
    """
    root = Path(__file__).resolve().parents[1] / "src" / "pressmark"
    stale = sorted(
        source.name
        # cite/_cut.py and snapshot/_prescan.py are compiled too
        for package in (root / "markdown", root / "cite", root / "snapshot")
        for source in [*package.glob("*.py"), *package.glob("*.c")]
        if any(built.stat().st_mtime < source.stat().st_mtime
               for built in package.glob(f"{source.stem}.*.so"))
    )
    if stale:
        pytest.exit(f"compiled modules older than their source ({', '.join(stale)}): run "
                    "`make setup` to rebuild them (or delete src/pressmark/markdown/*.so "
                    "to test the pure-Python code)", returncode=3)


@pytest.fixture(autouse=True)
def clean_environ() -> Iterator[None]:
    """No test sees proxy or TLS settings from the machine it runs on."""
    saved = {name: os.environ.pop(name) for name in _NETWORK_ENV if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


# -- the demo site (docs/demo-site.md) ---------------------------------------------------


@pytest.fixture(scope="session")
def demo_site() -> DemoSite:
    """The standard demo site: seed 7, 200 generated pages, no faults."""
    from pressmark.demo import DemoSite

    return DemoSite(seed=7, pages=200)


@pytest.fixture(scope="session")
def demo_server(demo_site: DemoSite) -> Iterator[DemoServer]:
    """``demo_site`` served on 127.0.0.1 (ephemeral port) from a background thread.

    Shared by the whole session: read ``server.requests`` after a marker
    (``n = len(server.requests)``) instead of clearing it.
    """
    from pressmark.demo import run_demo_server_in_thread

    with run_demo_server_in_thread(demo_site) as server:
        yield server


@pytest.fixture(scope="session")
def demo_origin(demo_server: DemoServer) -> str:
    """``"http://127.0.0.1:PORT"`` of the session demo server (no trailing slash)."""
    return demo_server.url


@pytest.fixture(scope="session")
def fault_server() -> Iterator[DemoServer]:
    """A 50-page demo site with ``/fault/*`` endpoints enabled."""
    from pressmark.demo import DemoSite, run_demo_server_in_thread

    with run_demo_server_in_thread(DemoSite(seed=7, pages=50, faults=True)) as server:
        yield server


@pytest.fixture
def make_demo_server() -> Iterator[Callable[..., DemoServer]]:
    """Factory for extra servers: ``make_demo_server(robots="500", host="127.0.0.2")``.

    Keyword arguments other than ``host`` and ``port`` go to ``DemoSite`` (defaults:
    ``seed=7, pages=20``). Every server started is stopped at teardown.
    """
    from pressmark.demo import DemoSite, run_demo_server_in_thread

    with contextlib.ExitStack() as stack:

        def make(*, host: str = "127.0.0.1", port: int = 0, **site_options: Any) -> DemoServer:
            options: dict[str, Any] = {"seed": 7, "pages": 20, **site_options}
            site = DemoSite(**options)
            return stack.enter_context(run_demo_server_in_thread(site, host=host, port=port))

        yield make
