"""Chunks and quotes on the demo site: ids identical across crawls and a not-modified
recrawl, ``pressmark chunks`` and ``pressmark cite verify`` end to end."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from pressmark.cite._crawldir import crawl_pages
from pressmark.cli import main
from pressmark.crawl import CrawlPolicy, Politeness, crawl
from pressmark.demo import DemoServer
from pressmark.egress import EgressPolicy

CHANGING = ("/cache/none", "/cache/changing", "/special/live")


def policy(origin: str) -> CrawlPolicy:
    return CrawlPolicy(egress=EgressPolicy().allow_loopback(origin), workers=0, render="never",
                       max_pages=60,
                       politeness=Politeness(per_host_concurrency=8, concurrency=16))


def chunk_ids(out: Path) -> dict[str, list[str]]:
    result = CliRunner().invoke(main, ["chunks", str(out), "--max-chars", "800"])
    assert result.exit_code == 0, result.output
    ids: dict[str, list[str]] = {}
    for line in result.stdout.splitlines():
        record = json.loads(line)
        assert {"chunk_id", "source_ref", "url", "fetched_at", "title", "validation",
                "heading_path", "markdown_span", "dom_paths", "text"} <= set(record)
        ids.setdefault(record["url"], []).append(record["chunk_id"])
    return ids


def stable(ids: dict[str, list[str]], origin: str) -> dict[str, list[str]]:
    return {url: v for url, v in ids.items() if url.removeprefix(origin) not in CHANGING}


async def test_chunk_ids_survive_crawls_and_recrawls(demo_server: DemoServer, demo_origin: str,
                                                     tmp_path: Path) -> None:
    await crawl(demo_origin + "/", policy(demo_origin), out_dir=tmp_path / "a")
    await crawl(demo_origin + "/", policy(demo_origin), out_dir=tmp_path / "b")
    first = chunk_ids(tmp_path / "a")
    assert sum(len(v) for v in first.values()) > 50
    assert stable(first, demo_origin) == stable(chunk_ids(tmp_path / "b"), demo_origin)
    again = await crawl(demo_origin + "/", policy(demo_origin), out_dir=tmp_path / "a")
    assert again.summary["by_outcome"].get("not-modified", 0) > 20
    assert stable(chunk_ids(tmp_path / "a"), demo_origin) == stable(first, demo_origin)
    # every page's evidence carries its block map: the chunks name elements
    pages = list(crawl_pages(tmp_path / "a"))
    assert pages and all(p.block_map is not None for p in pages)


async def test_cite_verify_command(demo_server: DemoServer, demo_origin: str,
                                   tmp_path: Path) -> None:
    await crawl(demo_origin + "/", policy(demo_origin), out_dir=tmp_path / "o")
    page = next(p for p in crawl_pages(tmp_path / "o") if len(p.markdown) > 400)
    assert page.source_ref is not None
    quote = page.markdown[200:320].strip()
    run = CliRunner().invoke
    ok = run(main, ["cite", "verify", page.source_ref, quote, "--store", str(tmp_path / "o"),
                    "--json"])
    assert ok.exit_code == 0, ok.output
    answer = json.loads(ok.stdout)
    assert answer["verdict"] == "exact" and answer["match"]["dom_paths"]
    assert answer["warnings"] == []
    older = run(main, ["cite", "verify", page.source_ref, quote, "--store",
                       str(tmp_path / "o"), "--policy-version", "pressmark-md/1.0"])
    assert older.exit_code == 0 and "warning: policy-changed: cited under pressmark-md/1.0" \
        in older.stdout
    missing = run(main, ["cite", "verify", page.source_ref, "not on this page, surely",
                         "--store", str(tmp_path / "o")])
    assert missing.exit_code == 5 and missing.stdout.startswith("not-found")
    bad = run(main, ["cite", "verify", "pressmark:snapshot:v1?x", "q", "--store",
                     str(tmp_path / "o")])
    assert bad.exit_code == 4 and "invalid-ref" in bad.output
    empty = run(main, ["chunks", str(tmp_path / "nothing-here")])
    assert empty.exit_code == 2


def chunks_by_url(out: Path, max_chars: int) -> dict[str, list[tuple[str, str, int, int]]]:
    """(chunk id, text, span start, span end) of every chunk, by page."""
    result = CliRunner().invoke(main, ["chunks", str(out), "--max-chars", str(max_chars)])
    assert result.exit_code == 0, result.output
    pages: dict[str, list[tuple[str, str, int, int]]] = {}
    for line in result.stdout.splitlines():
        record = json.loads(line)
        pages.setdefault(record["url"], []).append(
            (record["chunk_id"], record["text"], *record["markdown_span"]))
    return pages


async def test_a_one_word_edit_changes_only_the_chunks_holding_it(
        make_demo_server: Callable[..., DemoServer], tmp_path: Path) -> None:
    """The demo site crawled, one word of one paragraph of one article changed, crawled
    again into the same directory: on that page the chunk ids that change are exactly
    those of the chunks holding the word (before and after); every other page, answered
    ``not-modified``, keeps all of its ids."""
    server = make_demo_server(pages=30)
    origin = server.url
    out = tmp_path / "crawl"
    await crawl(origin + "/", policy(origin), out_dir=out)
    before = chunks_by_url(out, 400)
    # an article of several chunks; a word of its middle paragraph found once in its HTML
    path = next(p for p in server.site.paths_of_kind("article")
                if len(before.get(origin + p, ())) >= 4)
    body = page_html(server, path)
    paragraph = _PARAGRAPH.findall(body)[len(_PARAGRAPH.findall(body)) // 2]
    word = next(w for w in re.findall(r"[A-Za-z]{6,}", paragraph)
                if len(re.findall(rf"\b{w}\b", body)) == 1)
    server.serve(server.site.edited(replace={path: [(word, "zygomorphic")]}))
    again = await crawl(origin + "/", policy(origin), out_dir=out)
    assert again.summary["by_outcome"].get("not-modified", 0) > 10
    after = chunks_by_url(out, 400)
    url = origin + path
    assert stable(after, origin).keys() == stable(before, origin).keys()
    for other in stable(before, origin).keys() - {url}:
        assert [c[0] for c in after[other]] == [c[0] for c in before[other]], other
    old_md_at = next(c[2] + c[1].index(word) for c in before[url] if word in c[1])
    new_md_at = next(c[2] + c[1].index("zygomorphic") for c in after[url]
                     if "zygomorphic" in c[1])
    old_ids, new_ids = {c[0] for c in before[url]}, {c[0] for c in after[url]}
    holding_old = {c[0] for c in before[url] if c[2] <= old_md_at < c[3]}
    holding_new = {c[0] for c in after[url] if c[2] <= new_md_at < c[3]}
    assert old_ids - new_ids == holding_old and len(holding_old) == 1
    assert new_ids - old_ids == holding_new and len(holding_new) == 1
    assert len(after[url]) == len(before[url])


def page_html(server: DemoServer, path: str) -> str:
    """An article's HTML as the server sends it."""
    from pressmark.demo._http import Request, Response

    response = server.site.respond(Request(method="GET", target=path, version="HTTP/1.1",
                                           headers=(), origin=server.url, counters={}))
    assert isinstance(response, Response)
    return response.body.decode("utf-8")


_PARAGRAPH = re.compile(r"<p>((?:(?!</?p[ >]|<a ).){150,}?)</p>")
"""A plain paragraph (no attributes, no link) of some length."""
