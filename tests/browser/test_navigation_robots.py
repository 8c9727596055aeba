"""robots.txt on every top-level browser navigation, with real Chromium on the demo site.

The demo's robots.txt disallows ``/private/`` and ``/redirect/to-disallowed-target``. A
rendered page whose client-side redirect (script or meta refresh) or server redirect
targets such a path ends as ``robots-denied``, and the server log proves the browser
never requested the target. Subresources are not checked (browsers do not either).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pressmark.crawl import CrawlPolicy, Politeness, crawl
from pressmark.egress import EgressPolicy

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

CASES = {
    "/special/js-redirect-disallowed": "/private/2",
    "/special/meta-refresh-disallowed": "/private/2",
    "/redirect/to-disallowed": "/redirect/to-disallowed-target",
}


def _policy(origin: str, render: str) -> CrawlPolicy:
    return CrawlPolicy(max_depth=0, markdown=False, workers=0, render=render,  # type: ignore[arg-type]
                       egress=EgressPolicy().allow_loopback(origin), timeout_ms=8000,
                       politeness=Politeness(per_host_concurrency=1, concurrency=1))


async def test_disallowed_navigation_targets_are_never_requested(
        make_demo_server: Any, tmp_path: Path) -> None:
    server = make_demo_server(pages=20)
    origin = server.url
    mark = len(server.requests)
    m = await crawl([origin + path for path in CASES], _policy(origin, "always"),
                    out_dir=tmp_path / "out")
    by_url = {p.url: p for p in m.pages}
    for path, target in CASES.items():
        page = by_url[origin + path]
        assert page.outcome == "denied", (path, page)
        assert page.error is not None and page.error.kind == "robots-denied", page
        assert target in page.error.message
    requested = [r.path for r in server.requests[mark:]]
    for path in CASES:
        assert path in requested  # the page itself was loaded (plain check, then the browser)
    assert not [p for p in requested if p.startswith(("/private/", "/redirect/to-disallowed-"))]
    assert m.summary["robots_denied"] == len(CASES)


async def test_allowed_client_redirect_still_followed(
        make_demo_server: Any, tmp_path: Path) -> None:
    server = make_demo_server(pages=20)
    origin = server.url
    m = await crawl(origin + "/special/js-redirect", _policy(origin, "always"))
    (page,) = m.pages
    assert page.outcome == "ok", page
    assert page.final_url == origin + "/special/redirect-target"
    assert "/special/redirect-target" in [r.path for r in server.requests]
