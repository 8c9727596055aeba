"""The review workbench end to end in real Chromium.

One browser and one server for the module. Screenshots of each view go to
``test-artifacts/screenshots/`` (and the overview also to ``docs/screenshots/``
for the README).
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from pressmark.store import FilesystemSnapshotStore
from pressmark.web import create_app
from pressmark.web._sample import SampleCrawl, write_sample_crawl

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "test-artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


class Canary:
    """A loopback HTTP server that records every connection and request it gets."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.connections = 0
        canary = self

        class Handler(BaseHTTPRequestHandler):
            def _record(self) -> None:
                canary.requests.append(f"{self.command} {self.path}")
                self.send_response(200)
                self.send_header("content-type", "text/plain")
                self.end_headers()
                self.wfile.write(b"canary")

            do_GET = do_POST = do_HEAD = _record

            def log_message(self, format: str, *args: Any) -> None:
                return

        class Server(ThreadingHTTPServer):
            def get_request(self) -> Any:
                canary.connections += 1
                return super().get_request()

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Canary:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class Workbench:
    def __init__(self, root: Path) -> None:
        self.app = create_app(root)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=0, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 60  # a safety net: a loaded machine starts it late
        while not self.server.started:
            assert time.monotonic() < deadline, "workbench did not start"
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def canary() -> Iterator[Canary]:
    with Canary() as server:
        yield server


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory, canary: Canary) -> SampleCrawl:
    root = tmp_path_factory.mktemp("crawl")
    return write_sample_crawl(root, FilesystemSnapshotStore(root / "store"),
                              canary_url=canary.url)


@pytest.fixture(scope="module")
def base_url(crawl: SampleCrawl) -> Iterator[str]:
    with Workbench(crawl.root) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed at /usr/bin/chromium")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, base_url: str) -> Iterator[Any]:
    context = browser.new_context(
        viewport={"width": 1440, "height": 900}, base_url=base_url,
    )
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    yield tab
    context.close()
    assert errors == [], errors  # the app's own script never throws


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def test_overview_and_filter_to_failed_validations(page: Any, crawl: SampleCrawl) -> None:
    page.goto("/")
    assert page.locator("#kpi-pages").inner_text() == str(len(crawl.records))
    assert page.locator("#pages tbody tr").count() == 50
    shot(page, "overview")
    if os.environ.get("PRESSMARK_UPDATE_DOC_SCREENSHOTS"):
        # The README's screenshot is refreshed on request only, so a test run
        # never leaves the checkout modified.
        docs = REPO / "docs" / "screenshots"
        docs.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(docs / "overview.png"))

    page.select_option("select[name=validation]", "failed")
    page.click("#filters button[type=submit]")
    page.wait_for_url("**validation=failed**")
    failed = [r for r in crawl.records if r["validation"] and not r["validation"]["passed"]]
    assert page.locator("#pages tbody tr").count() == len(failed)
    assert page.locator("#pages tbody .badge.bad").count() == len(failed)
    shot(page, "overview-failed-validations")

    page.click(f'#pages tr[data-row="{crawl.rows["failed"]}"] a')
    page.wait_for_url(f"**/page/{crawl.rows['failed']}")
    assert "too-little-text" in page.locator("#validation-reasons").inner_text()


def test_provenance_copy_and_verify(page: Any, crawl: SampleCrawl) -> None:
    row = crawl.rows["home"]
    record = crawl.records[row - 1]
    page.goto(f"/page/{row}")
    page.wait_for_selector("#snapshot[data-ready='1']")
    frame = page.frame_locator("#snapshot")

    page.click('.prov-row[data-prov="2"]')  # the "Top stories" heading
    marked = frame.locator("[data-pressmark-highlight]")
    assert marked.count() == 1
    assert marked.inner_text() == "Top stories"
    assert "outline" in (marked.get_attribute("style") or "")
    assert page.locator("#markdown .prov.active").inner_text() == "## Top stories"

    page.click('#markdown .prov[data-prov="3"]')  # a paragraph, from the Markdown side
    assert frame.locator("[data-pressmark-highlight]").inner_text().startswith("Story 1.")
    assert page.locator('.prov-row.active').get_attribute("data-prov") == "3"
    shot(page, "page-provenance")

    page.click('[data-md-view="markdown-rendered"]')
    page.wait_for_selector("#markdown-rendered[data-loaded='1']")
    assert page.locator("#markdown").is_hidden()
    assert page.locator("#markdown-rendered .active").inner_text().startswith("Story 1.")
    page.click('.prov-row[data-prov="2"]')
    assert page.locator("#markdown-rendered .active").inner_text() == "Top stories"
    shot(page, "page-rendered-markdown")
    page.click('[data-md-view="markdown"]')

    page.click("#copy-ref")
    assert page.evaluate("navigator.clipboard.readText()") == record["source_ref"]

    page.click("#verify-ref")
    page.wait_for_selector("#verify-result[data-status]")
    assert page.locator("#verify-result").inner_text() == "verified"
    shot(page, "page-verified")
    page.screenshot(path=str(SHOTS / "page-full.png"), full_page=True)

    tampered = record["source_ref"].replace("T12%3A00%3A01.000Z", "T12%3A00%3A09.000Z")
    page.goto("/verify")
    page.fill("input[name=ref]", tampered)
    page.click(".verify-form button")
    page.wait_for_selector("#verify-page-result")
    assert page.locator("#verify-page-result b").inner_text() == "not-found"
    shot(page, "verify-error")


def test_history_and_diff(page: Any, crawl: SampleCrawl) -> None:
    page.goto(f"/page/{crawl.rows['history']}")
    page.click("#history-link")
    page.wait_for_selector("#captures")
    assert page.locator("#captures tbody tr").count() == 2
    shot(page, "history")
    page.click("#show-diff")
    page.wait_for_selector("#diff-stats")
    if page.locator("#diff").count():
        assert page.locator("#diff tr.d-add").count() > 0
        assert "What happens next" in page.locator("#diff").inner_text()
    shot(page, "diff")


def test_hostile_snapshot_executes_nothing(page: Any, crawl: SampleCrawl, canary: Canary) -> None:
    before = list(canary.requests)
    page.goto(f"/page/{crawl.rows['hostile']}")
    page.wait_for_selector("#snapshot[data-ready='1']")
    frame = page.frame_locator("#snapshot")
    frame.locator("#bait-link").click()
    frame.locator("#bait-submit").click()
    page.wait_for_timeout(1500)  # past the meta refresh delay
    assert frame.locator("#pwned").count() == 0
    assert frame.locator("h1").inner_text() == "This capture is hostile"  # not navigated away
    page.click('.prov-row[data-prov="0"]')
    assert frame.locator("[data-pressmark-highlight]").inner_text() == "This capture is hostile"
    shot(page, "hostile")
    # Opened directly in a tab, the CSP sandbox still keeps it inert.
    record = crawl.records[crawl.rows["hostile"] - 1]
    page.goto(f"/raw/{crawl.rows['hostile']}/{record['snapshot_sha256']}")
    page.wait_for_timeout(1500)
    assert page.title() == "Hostile capture"
    assert page.locator("#pwned").count() == 0
    assert canary.requests == before == [], canary.requests
    assert canary.connections == 0


@pytest.mark.parametrize("path", [
    "/static/%2e%2e/_app.py", "/static/..%2f_app.py", "/raw/1/..%2f..%2fmanifest.json",
    "/page/..%2fmanifest.json", "/pages.jsonl", "/store/",
])
def test_traversal_is_404(page: Any, path: str) -> None:
    response = page.goto(path)
    assert response is not None and response.status == 404
    assert "404" in page.locator("h1").inner_text()


def test_page_view_time_of_a_60kb_page(page: Any, crawl: SampleCrawl) -> None:
    row = crawl.rows["big"]
    assert crawl.records[row - 1]["bytes"] >= 60_000
    timings: list[float] = []
    for _ in range(6):
        page.goto(f"/page/{row}", wait_until="load")  # load waits for the snapshot iframe
        timings.append(page.evaluate(
            "() => { const n = performance.getEntriesByType('navigation')[0];"
            " return n.loadEventEnd - n.startTime; }"
        ))
    median = statistics.median(timings[1:])
    shot(page, "page-60kb")
    print(f"\npage view of a 60 KB page: median {median:.0f} ms over {len(timings) - 1} loads"
          f" (first {timings[0]:.0f} ms)")
    assert page.locator("#markdown .prov").count() == 21
