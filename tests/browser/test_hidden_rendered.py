"""Hidden text, rendered: the page set of tests/pages/hidden served on loopback and rendered
in Chromium; the browser's verdict (computed styles and geometry, marked in the capture
script) flags every hidden passage and leaves it out of the Markdown, and no visible
look-alike. The static path over the same files: tests/unit/markdown/test_hidden_text.py."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from pressmark.markdown import to_markdown
from pressmark.markdown._hidden import REASONS

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

PAGES = Path(__file__).resolve().parents[1] / "pages" / "hidden"
CASES: list[dict[str, Any]] = json.loads((PAGES / "cases.json").read_text(encoding="utf-8"))


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def hidden_site() -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(PAGES))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def hidden_renderer(hidden_site: str) -> AsyncIterator[Any]:
    from pressmark.egress import EgressPolicy
    from pressmark.render import PlaywrightRenderer, PoolLimits

    async with PlaywrightRenderer(policy=EgressPolicy().allow_loopback(hidden_site),
                                  limits=PoolLimits(max_tabs=2, close_timeout_s=3.0)) as r:
        yield r


async def test_rendered(hidden_renderer: Any, hidden_site: str) -> None:
    from pressmark.render import ReadinessSpec, RenderOptions

    options = RenderOptions(timeout_ms=8000, readiness=ReadinessSpec(stability_window_ms=0))
    wrong: list[str] = []
    for case in CASES:
        url = f"{hidden_site}/{case['file']}"
        result = await hidden_renderer.render(url, options)
        converted = to_markdown(result.html, url=url)
        flags = converted.evidence.hidden_text
        assert "Skippers asked for more time" in converted.markdown, case["file"]
        if case["hidden"]:
            ok = (case["passage"] not in converted.markdown and len(flags) == 1
                  and flags[0]["text"] == case["passage"] and flags[0]["reason"] in REASONS)
        else:
            ok = case["passage"] in converted.markdown and flags == ()
        if not ok:
            wrong.append(f"{case['file']}: {[dict(f) for f in flags]}")
    assert wrong == []


async def test_a_page_cannot_plant_the_mark(hidden_renderer: Any, hidden_site: str) -> None:
    """A page's own data-pressmark-hidden is removed before the browser marks: text the
    page marks itself stays (visible) unless the browser finds it hidden."""
    from pressmark.render import ReadinessSpec, RenderOptions

    options = RenderOptions(timeout_ms=8000, readiness=ReadinessSpec(stability_window_ms=0))
    url = f"{hidden_site}/planted-mark.html"
    result = await hidden_renderer.render(url, options)
    assert "data-pressmark-hidden" not in result.html
    converted = to_markdown(result.html, url=url)
    assert "The ferry timetable changes on Monday" in converted.markdown
    assert converted.evidence.hidden_text == ()
