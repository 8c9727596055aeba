"""The common slips of a first hour, each answered with what to do instead.

``pressmark fetch`` prints what was asked for (HTML, text, Markdown or JSON); ``md`` refuses
empty and binary input and points a directory at ``--batch``; ``--resume`` of a finished
crawl says so; a page whose body repeats an earlier one (``/`` and ``/index.html``) is
recorded ``duplicate_of`` it, with no second Markdown file.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from pressmark.cli import main

if TYPE_CHECKING:
    from pressmark.demo import DemoSite


def _article(site: DemoSite) -> str:
    return site.paths_of_kind("article")[0]


def test_fetch_formats(demo_site: DemoSite, demo_origin: str) -> None:
    url = demo_origin + _article(demo_site)
    runner = CliRunner()
    allow = ("--allow-loopback", demo_origin)
    html = runner.invoke(main, ["fetch", url, *allow])
    markdown = runner.invoke(main, ["fetch", url, *allow, "--markdown"])
    same = runner.invoke(main, ["fetch", url, *allow, "--format", "markdown"])
    text = runner.invoke(main, ["fetch", url, *allow, "--format", "text"])
    assert {r.exit_code for r in (html, markdown, same, text)} == {0}
    assert html.stdout.lstrip().lower().startswith("<!doctype html")
    assert markdown.stdout == same.stdout and markdown.stdout.startswith("# ")
    assert "<" not in text.stdout and "# " not in text.stdout
    title = markdown.stdout.splitlines()[0].removeprefix("# ")
    assert title in text.stdout
    both = runner.invoke(main, ["fetch", url, *allow, "--markdown", "--json"])
    assert both.exit_code == 2 and "choose one output format" in both.stderr


def test_fetch_markdown_of_a_page_that_is_not_html(demo_origin: str) -> None:
    result = CliRunner().invoke(main, ["fetch", demo_origin + "/robots.txt", "--allow-loopback",
                                       demo_origin, "--markdown"])
    assert result.exit_code == 5
    assert "error: not-html: the page is text content" in result.stderr


def test_fetch_json_says_when_its_reference_cannot_resolve(demo_origin: str,
                                                           tmp_path: Path) -> None:
    runner = CliRunner()
    allow = ("--allow-loopback", demo_origin)
    loose = json.loads(runner.invoke(main, ["fetch", demo_origin + "/about", *allow,
                                            "--json"]).stdout)
    assert loose["source_ref"] and loose["source_ref_resolvable"] is False
    assert "--store" in loose["note"]
    kept = runner.invoke(main, ["fetch", demo_origin + "/about", *allow, "--json",
                                "--store", str(tmp_path / "store")])
    doc = json.loads(kept.stdout)
    assert "source_ref_resolvable" not in doc and "note" not in doc
    replayed = runner.invoke(main, ["replay", doc["source_ref"], "--store",
                                    str(tmp_path / "store")])
    assert replayed.exit_code == 0


@pytest.mark.parametrize(("data", "code"), [
    (b"", "empty-input"),
    (b" \n\t\n", "empty-input"),
    (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\x00\x00", "binary-input"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary-input"),
    (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", "binary-input"),
])
def test_md_refuses_what_is_no_html(data: bytes, code: str, tmp_path: Path) -> None:
    runner = CliRunner()
    piped = runner.invoke(main, ["md"], input=data)
    assert piped.exit_code == 2, piped.output
    assert piped.stderr.startswith(f"error: {code}: stdin ")
    assert piped.stdout == ""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "page.html").write_bytes(data)
    (tmp_path / "in" / "good.html").write_text("<h1>Hi</h1><p>A page.</p>")
    batch = runner.invoke(main, ["md", "--batch", str(tmp_path / "in"), str(tmp_path / "out")])
    assert batch.exit_code == 5
    assert f"page.html: {code}: " in batch.stderr
    assert (tmp_path / "out" / "good.md").exists() and not (tmp_path / "out" / "page.md").exists()


def test_md_still_converts_text_and_utf16(tmp_path: Path) -> None:
    runner = CliRunner()
    plain = runner.invoke(main, ["md"], input=b"just a line of text")
    assert plain.exit_code == 0
    utf16 = "\ufeff<html><body><h1>Hi</h1><p>UTF-16 page</p></body></html>".encode("utf-16-le")
    converted = runner.invoke(main, ["md"], input=utf16)
    assert converted.exit_code == 0, converted.stderr
    assert "# Hi" in converted.stdout


def test_md_of_a_directory_points_at_batch(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["md", str(tmp_path)])
    assert result.exit_code == 2
    assert f"pressmark md --batch {tmp_path} OUT_DIR" in result.stderr


@pytest.fixture
def index_site(tmp_path: Path) -> Iterator[str]:
    """A directory served by http.server: ``/`` answers the very bytes of ``/index.html``."""
    root = tmp_path / "site"
    root.mkdir()
    page = ("<!doctype html><html><head><title>Home</title></head><body><main><h1>Home</h1>"
            "<p>The front page of a small site, long enough to be a real paragraph of text "
            "that a reader would want to keep.</p><p><a href='/index.html'>Home again</a> "
            "and <a href='/about.html'>about</a>.</p></main></body></html>")
    (root / "index.html").write_text(page)
    (root / "about.html").write_text(page.replace("Home</h1>", "About</h1>")
                                     .replace("front page", "about page"))
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_the_same_body_twice_is_one_page_and_a_duplicate(index_site: str,
                                                         tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["crawl", index_site + "/", "--allow-loopback", index_site,
                                       "--out", str(out), "--no-robots", "--render", "never",
                                       "--workers", "0"])
    assert result.exit_code == 0, result.output
    pages = {p["url"]: p for p in map(json.loads, (out / "pages.jsonl").read_text().splitlines())}
    first, again = pages[index_site + "/"], pages[index_site + "/index.html"]
    assert first["duplicate_of"] is None
    assert pages[index_site + "/about.html"]["duplicate_of"] is None
    assert again["duplicate_of"] == index_site + "/"
    assert again["markdown_path"] == first["markdown_path"]  # shared, not written twice
    assert len(list((out / "markdown").glob("*/*.md"))) == 2  # in its shard directories
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["summary"]["duplicates"] == 1


def test_resume_of_a_finished_crawl_says_it_is_complete(index_site: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["crawl", index_site + "/", "--allow-loopback", index_site, "--out", str(out),
            "--no-robots", "--render", "never", "--workers", "0", "-q"]
    assert CliRunner().invoke(main, args).exit_code == 0
    again = CliRunner().invoke(main, [*args, "--resume", "--max-pages", "7"])
    assert again.exit_code == 0
    assert "nothing to resume" in again.stderr and "complete crawl (3 pages" in again.stderr
    assert "policy" not in again.stderr


def test_resume_of_an_unfinished_crawl_still_holds_to_its_options(index_site: str,
                                                                  tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["crawl", index_site + "/", "--allow-loopback", index_site, "--out", str(out),
            "--no-robots", "--render", "never", "--workers", "0", "-q"]
    assert CliRunner().invoke(main, args).exit_code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["complete"] = False  # as a crawl cut short leaves it
    (out / "manifest.json").write_text(json.dumps(manifest))
    changed = CliRunner().invoke(main, [*args, "--resume", "--delay-ms", "5"])
    assert changed.exit_code == 2
    assert "policy.politeness.delay_ms: 0 -> 5" in changed.stderr
