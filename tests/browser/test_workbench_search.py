"""The workbench finds things, in real Chromium, over a real crawl of the demo site.

Search by a sentence of a page's Markdown; the validation-failure chart's bars and the
outcome chart's bars are links to their filter; the reason and Markdown-size columns sort;
the figures carry the guide's words as tooltips. Screenshots of each step go to
``test-artifacts/screenshots/`` (``search-*.png``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pressmark.web._glossary import TERMS

from .test_web_workbench import CHROMIUM, CHROMIUM_ARGS, SHOTS, Workbench

if TYPE_CHECKING:
    from pressmark.demo import DemoServer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def crawl_dir(tmp_path_factory: pytest.TempPathFactory, demo_server: DemoServer) -> Path:
    out = tmp_path_factory.mktemp("demo-crawl") / "out"
    done = subprocess.run(  # its own process: this module's tests run inside an event loop
        [sys.executable, "-m", "pressmark", "crawl", demo_server.url + "/", "--out", str(out),
         "--allow-loopback", demo_server.url, "--render", "never", "--discovery", "both", "-q"],
        capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def workbench(crawl_dir: Path) -> Iterator[tuple[str, Any]]:
    bench = Workbench(crawl_dir)
    with bench as url:
        yield url, bench.app


@pytest.fixture(scope="module")
def base_url(workbench: tuple[str, Any]) -> str:
    return workbench[0]


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
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, base_url=base_url)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    yield tab
    context.close()
    assert errors == [], errors


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"search-{name}.png"), full_page=False)


def _pages(crawl_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (crawl_dir / "pages.jsonl").read_text().splitlines()]


def _words(text: str) -> set[str]:
    return {word.casefold() for word in re.findall(r"\w+", text)}


def _sentence(crawl_dir: Path) -> tuple[int, str]:
    """A row and a sentence of its Markdown whose words no other page holds all of: the
    search wants every word, in any order, so a sentence unique only as a string (the demo
    site's prose shares its vocabulary) could find many pages. Which row comes first
    depends on the crawl's timing, so the choice must not rest on luck."""
    rows = _pages(crawl_dir)
    texts = {n: (crawl_dir / r["markdown_path"]).read_text()
             for n, r in enumerate(rows, start=1) if r.get("markdown_path")}
    bags = [_words(text + " " + str(rows[n - 1].get("title") or "")) for n, text in texts.items()]
    for n, text in texts.items():
        for sentence in re.findall(r"[A-Z][^.\n#*\[\]]{40,120}\.", text):
            if sum(_words(sentence) <= bag for bag in bags) == 1:
                return n, sentence
    raise AssertionError("no sentence in the crawl's Markdown whose words only one page has")


def _rows(page: Any) -> list[int]:
    return [int(r) for r in page.eval_on_selector_all(
        "#pages tbody tr[data-row]", "rows => rows.map(r => r.dataset.row)")]


def test_search_finds_a_sentence_of_the_markdown(page: Any, crawl_dir: Path,
                                                workbench: tuple[str, Any]) -> None:
    row, sentence = _sentence(crawl_dir)
    page.goto("/")
    # the index fills in the background from the first visit: wait for it to say it is
    # done (the app's own index, in this process), not for a number of tries
    assert workbench[1].state.search.wait(120)
    page.fill("input[name=q]", sentence)
    # the results are a new document: wait for it, not for the load state of the one
    # already loaded (that returns at once, and the rows read were the unfiltered list's)
    with page.expect_navigation():
        page.click("#filters button[type=submit]")
    assert page.locator("#search-pending").count() == 0
    assert _rows(page) == [row]
    hit = page.locator(f'#pages tr[data-row="{row}"] .snippet mark').first
    assert hit.is_visible()
    shot(page, "sentence")


def test_chart_bars_are_links_to_their_filter(page: Any, crawl_dir: Path) -> None:
    page.goto("/")
    bar = page.locator("#chart-reasons a.bar-row", has_text="too-little-text")
    expected = sum(1 for r in _pages(crawl_dir) if r.get("validation")
                   and "too-little-text" in r["validation"]["reasons"])
    assert expected > 0
    assert "Show the" in (bar.get_attribute("title") or "")
    bar.hover()
    shot(page, "chart-hover")
    bar.click()
    page.wait_for_url("**reason=too-little-text**")
    assert f"{expected} page" in page.locator("#result-count").inner_text()
    assert page.locator("#pages tbody td.reasons a.reason").first.inner_text() == "too-little-text"
    shot(page, "reason-filter")
    page.goto("/")
    page.locator("#chart-outcome a.bar-row", has_text="denied").click()
    page.wait_for_url("**outcome=denied**")
    denied = sum(1 for r in _pages(crawl_dir) if r["outcome"] == "denied")
    assert f"{denied} page" in page.locator("#result-count").inner_text()


def test_markdown_size_column_sorts_and_flags_tiny_pages(page: Any, crawl_dir: Path) -> None:
    page.goto("/?outcome=ok")
    page.click("#pages thead th a:text('Markdown')")
    page.wait_for_url("**sort=md_bytes**")
    sizes = [int(t) for t in page.locator("#pages tbody td.md-bytes").all_inner_texts() if t]
    assert sizes == sorted(sizes) and sizes
    smallest = min((crawl_dir / r["markdown_path"]).stat().st_size
                   for r in _pages(crawl_dir) if r.get("markdown_path"))
    assert sizes[0] == smallest
    shot(page, "markdown-size")


def test_figures_and_columns_carry_the_guides_words(page: Any) -> None:
    page.goto("/")
    for label, term in (("Validation pass", "validation pass"),
                        ("Mean readiness", "mean readiness"), ("Render rate", "render rate")):
        dt = page.locator("dl.kpis dt", has_text=label)
        assert dt.get_attribute("title") == TERMS[term]
    assert page.locator("#pages thead th", has_text="Markdown").get_attribute("title") == \
        TERMS["markdown"]
    assert page.locator("input[name=q]").get_attribute("title") == TERMS["search"]
