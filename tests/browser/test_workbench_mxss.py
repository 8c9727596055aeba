"""The snapshot view, opened in Chromium for every capture of a corpus of mutation-XSS
payloads, makes no connection (red team #34 item 3).

Before: the view served the captured HTML parsed and re-serialised, which is not a
fixpoint for foreign content; ``<math><mtext><table><mglyph><style><p><iframe src=...>``
(and a ``<form>`` variant) came back a live iframe in Chromium, and Chromium opened a
connection to its origin before CSP blocked the load. Now the capture is built from data
(``pressmark.web._inert``, ``static/capture.js``). Each capture is opened in the page
view and directly in a tab; a loopback canary counts connections. The netns variant of
the hostile test (``test_workbench_netns``) runs this too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pressmark.snapshot import new_snapshot, source_id_for_url
from pressmark.store import FilesystemSnapshotStore

from .mxss_corpus import corpus
from .test_web_workbench import CHROMIUM, CHROMIUM_ARGS, Canary, Workbench

pytestmark = pytest.mark.browser


def _write_crawl(root: Path, documents: list[tuple[str, str]]) -> list[tuple[str, int, str]]:
    """A crawl directory holding one capture per document: ``(name, row, digest)``."""
    store = FilesystemSnapshotStore(root / "store", durability="flush")
    rows: list[tuple[str, int, str]] = []
    lines: list[str] = []
    for row, (name, html) in enumerate(documents, 1):
        url = f"https://mxss.example/{name}"
        snapshot = new_snapshot(source_id=source_id_for_url(url), requested_url=url, url=url,
                                status=200, headers=(("content-type", "text/html"),),
                                body=html.encode(), fetched_at="2026-11-30T12:00:00.000Z")
        ref = store.put(snapshot)
        lines.append(json.dumps({
            "url": url, "final_url": url, "depth": 0, "status": 200, "outcome": "ok",
            "source_id": snapshot.source_id, "source_ref": ref.source_ref,
            "snapshot_sha256": ref.snapshot_sha256, "body_hash": ref.body_hash,
            "fetched_at": snapshot.fetched_at, "title": name, "warnings": [], "error": None,
            "markdown_path": None, "evidence_path": None, "validation": None,
            "bytes": len(html)}))
        rows.append((name, row, ref.snapshot_sha256))
    (root / "pages.jsonl").write_text("\n".join(lines) + "\n")
    return rows


@pytest.fixture(scope="module")
def canary() -> Iterator[Canary]:
    with Canary() as server:
        yield server


@pytest.fixture(scope="module")
def captures(tmp_path_factory: pytest.TempPathFactory,
             canary: Canary) -> tuple[Path, list[tuple[str, int, str]]]:
    root = tmp_path_factory.mktemp("mxss")
    return root, _write_crawl(root, corpus(canary.url))


@pytest.fixture(scope="module")
def page(captures: tuple[Path, list[tuple[str, int, str]]]) -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed at /usr/bin/chromium")
    with Workbench(captures[0]) as base_url, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(base_url=base_url)
        tab = context.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        yield tab
        browser.close()
        assert errors == [], errors


def test_mxss_captures_make_no_connection(
        page: Any, captures: tuple[Path, list[tuple[str, int, str]]], canary: Canary) -> None:
    _, rows = captures
    assert len(rows) >= 40
    alive: list[str] = []
    for name, row, digest in rows:
        before = canary.connections
        page.goto(f"/page/{row}")
        page.wait_for_selector("#snapshot[data-ready='1']")
        frame = page.frame_locator("#snapshot")
        # the capture was built: its heading and the text after the payload are there
        if name not in ("frameset", "plaintext"):
            assert frame.locator("#payload").inner_text() == name
        page.goto(f"/raw/{row}/{digest}")  # opened directly: the inert shell
        assert page.title() == name
        page.wait_for_timeout(100)  # let a preconnect, if any, arrive before counting
        if canary.connections != before:
            alive.append(name)
    page.wait_for_timeout(1500)  # past any refresh or lazy load
    assert alive == [] and canary.connections == 0, (alive, canary.requests)
    assert canary.requests == []
