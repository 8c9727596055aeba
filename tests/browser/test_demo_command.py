"""`pressmark demo` end to end: serve, crawl with on-shell rendering in real Chromium, report.

The render policy's promise is checked against the demo site's ground truth: every
shell that carries no embedded state is rendered, shells whose content is in
``__NEXT_DATA__`` / JSON-LD are not (they warn instead, per the render-policy
contract, and their Markdown comes from that state), and no static page is ever
rendered. No page with main content gives an empty Markdown file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from pressmark.demo import DemoSite

pytestmark = pytest.mark.browser

ESCALATING = {"shell", "shell-links"}  # shells with nothing to read before rendering


def run_demo(out: Path, pages: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pressmark", "demo", "--pages", str(pages), "--out", str(out),
         "--quiet"],
        capture_output=True, text=True, timeout=300, check=False,
    )


def test_demo_crawls_renders_exactly_the_shells_and_says_where_output_went(
        tmp_path: Path) -> None:
    out = tmp_path / "demo"
    done = run_demo(out, pages=40)
    assert done.returncode == 0, done.stderr[-3000:]
    for name in ("manifest.json", "pages.jsonl", "markdown", "evidence", "store"):
        assert name in done.stdout and (out / name).exists()
    assert f"pressmark serve {out}" in done.stdout

    kinds = {page.path: page.kind for page in DemoSite(pages=40).pages}
    records = [json.loads(line) for line in (out / "pages.jsonl").read_text().splitlines()]
    fetched = [r for r in records if r["outcome"] in ("ok", "not-modified")]
    assert fetched and all(r["status"] for r in fetched)
    rendered = {urlsplit(r["url"]).path for r in fetched if r["rendered"]}
    expected = {urlsplit(r["url"]).path for r in fetched
                if kinds.get(urlsplit(r["url"]).path) in ESCALATING}
    assert expected, "the demo crawl should reach shells"
    assert rendered == expected
    for record in fetched:
        if record["rendered"]:
            assert record["render_reason"].startswith("js-shell-suspected")
            assert record["markdown_path"], record["url"]
            text = (out / record["markdown_path"]).read_text()
            assert len(text) > 200, record["url"]  # the shell's content, not an empty mount
        elif kinds.get(urlsplit(record["url"]).path) in ("shell-next", "shell-jsonld"):
            text = (out / record["markdown_path"]).read_text()
            assert len(text) > 200, record["url"]  # the article in the page's state
            evidence = json.loads((out / record["evidence_path"]).read_text())
            assert evidence["content_source"].startswith("embedded-state:"), record["url"]
    written = [r for r in fetched if r["markdown_path"]]
    empty = [r["url"] for r in written if not (out / r["markdown_path"]).read_text().strip()]
    assert not empty, empty

    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is True
    assert manifest["summary"]["render_rate"] == round(len(expected) / len(fetched), 4)

    # A second run keeps the store, so every page gains a capture (history in `serve`).
    again = run_demo(out, pages=40)
    assert again.returncode == 0, again.stderr[-3000:]
    listing = subprocess.run([sys.executable, "-m", "pressmark", "store", "verify",
                              str(out / "store")], capture_output=True, text=True, check=False)
    assert listing.returncode == 0, listing.stdout + listing.stderr
