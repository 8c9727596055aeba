"""The overview's search reaches the Markdown; reasons and Markdown size are columns; the
charts are links to their filter; the figures carry the guide's words as tooltips."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from markupsafe import escape
from starlette.testclient import TestClient

from pressmark.web import create_app
from pressmark.web._data import CrawlDir
from pressmark.web._glossary import TERMS
from pressmark.web._sample import write_markdown_crawl
from pressmark.web._search import MarkdownSearch, fts_query

PAGES = 300


def rows(text: str) -> list[int]:
    return [int(n) for n in re.findall(r'<tr data-row="(\d+)">', text)]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("search")
    sentences = write_markdown_crawl(root, PAGES, seed=3)
    manifest = {"summary": {"pages": PAGES, "by_outcome": {"ok": PAGES},
                            "errors_by_kind": {},
                            "failure_reasons": {"too-little-text": PAGES // 7}}}
    (root / "manifest.json").write_text(json.dumps(manifest))
    return root, sentences


@pytest.fixture(scope="module")
def client(corpus: tuple[Path, list[str]]) -> Iterator[TestClient]:
    app = create_app(corpus[0], allowed_hosts=["127.0.0.1"])
    with TestClient(app, base_url="http://127.0.0.1") as test_client:
        test_client.get("/")  # starts the indexer
        assert app.state.search.wait(60)
        yield test_client


def _wait_for_index(client: TestClient, total: int) -> None:
    for _ in range(600):
        if "(indexing)" not in client.get("/?q=harbour").text:
            return
        import time

        time.sleep(0.05)
    raise AssertionError(f"the search index never covered {total} pages")


def test_a_sentence_from_the_markdown_finds_its_page(client: TestClient,
                                                     corpus: tuple[Path, list[str]]) -> None:
    _wait_for_index(client, PAGES)
    sentences = corpus[1]
    for row in (1, 150, PAGES):
        found = client.get("/", params={"q": sentences[row - 1]}).text
        assert rows(found) == [row], sentences[row - 1]
        assert "<mark>" in found  # the passage, with the words found marked


def test_words_in_any_order_and_any_case(client: TestClient,
                                         corpus: tuple[Path, list[str]]) -> None:
    _wait_for_index(client, PAGES)
    token = f"REF3X{42}"
    assert rows(client.get("/", params={"q": f"{token}"}).text) == [42]
    words = corpus[1][41].rstrip(".").split()
    assert 42 in rows(client.get("/", params={"q": " ".join(reversed(words)),
                                              "per_page": "500"}).text)


@pytest.mark.parametrize("text", ['"', "NEAR(", "a*", "-x", "title:x", "AND OR NOT", "'; --",
                                  "\x00", "ü" * 600])
def test_query_syntax_never_errors(client: TestClient, text: str) -> None:
    assert client.get("/", params={"q": text}).status_code == 200


def test_fts_query_quotes_every_word() -> None:
    assert fts_query('a "b" c*') == '"a" "b" "c"'
    assert fts_query("   ;;; ") is None


def test_a_snippet_is_page_text_escaped(tmp_path: Path) -> None:
    (tmp_path / "markdown").mkdir()
    (tmp_path / "markdown" / "x.md").write_text(
        "# T\n\nThe <script>alert(1)</script> quagmire stays text.\n")
    (tmp_path / "pages.jsonl").write_text(json.dumps(
        {"url": "https://x.example/", "title": "T", "outcome": "ok",
         "markdown_path": "markdown/x.md"}) + "\n")
    crawl = CrawlDir(tmp_path)
    search = MarkdownSearch(crawl)
    try:
        assert search.wait(30)
        app = create_app(tmp_path, allowed_hosts=["127.0.0.1"])
        with TestClient(app, base_url="http://127.0.0.1") as test_client:
            test_client.get("/")
            for _ in range(200):
                page = test_client.get("/", params={"q": "quagmire"}).text
                if "<mark>" in page:
                    break
            assert "<mark>quagmire</mark>" in page
            assert "<script>alert(1)" not in page
            assert html.escape("<script>") in page
    finally:
        search.close()


def test_reason_column_filter_and_chart_links(client: TestClient) -> None:
    page = client.get("/").text
    assert 'href="/?reason=too-little-text&amp;page=1"' in page or \
        'href="/?reason=too-little-text"' in page
    failed = rows(client.get("/", params={"reason": "too-little-text", "per_page": "500"}).text)
    assert failed == [n for n in range(1, PAGES + 1) if n % 7 == 0]
    assert 'class="reason"' in client.get("/", params={"reason": "too-little-text"}).text


def test_markdown_size_sorts(client: TestClient, corpus: tuple[Path, list[str]]) -> None:
    root = corpus[0]
    smallest = rows(client.get("/", params={"sort": "md_bytes", "per_page": "5"}).text)
    sizes = {n: (root / "markdown" / f"{n:06d}.md").stat().st_size for n in range(1, PAGES + 1)}
    assert [sizes[n] for n in smallest] == sorted(sizes.values())[:5]
    assert all(n % 7 == 0 for n in smallest)  # the short, failed pages come first
    largest = rows(client.get("/", params={"sort": "md_bytes", "order": "desc",
                                           "per_page": "1"}).text)
    assert sizes[largest[0]] == max(sizes.values())


def test_tooltips_are_the_guides_words(client: TestClient) -> None:
    page = client.get("/").text
    for name in ("pages", "render rate", "validation pass", "mean readiness", "markdown",
                 "search"):
        assert f'title="{escape(TERMS[name])}"' in page, name


def test_a_rewritten_pages_file_is_searched_afresh(tmp_path: Path) -> None:
    write_markdown_crawl(tmp_path, 20, seed=5)
    app = create_app(tmp_path, allowed_hosts=["127.0.0.1"])
    with TestClient(app, base_url="http://127.0.0.1") as test_client:
        test_client.get("/")
        sentences = write_markdown_crawl(tmp_path, 10, seed=6)  # a new crawl in its place
        for _ in range(400):
            found = rows(test_client.get("/", params={"q": sentences[3]}).text)
            if found == [4]:
                break
        assert found == [4]
        assert rows(test_client.get("/", params={"q": "ref5x4"}).text) == []
