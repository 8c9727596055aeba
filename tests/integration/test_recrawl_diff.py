"""A recrawl of the demo site after an editor's pass (one paragraph changed, one block
removed, one page deleted): the manifest and ``pressmark diff`` report exactly those three
changes, and each reported block resolves by its citation."""

from __future__ import annotations

import asyncio
import dataclasses
import html
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from pressmark.cite import Verifier, diff_captures
from pressmark.cli import main
from pressmark.crawl import CrawlManifest, CrawlPolicy, PageRecord, Politeness, crawl
from pressmark.crawl._progress import NullProgress
from pressmark.demo import DemoServer
from pressmark.egress import EgressPolicy
from pressmark.store import open_store

VOLATILE = (r"/cache/changing$", r"/special/live$")
"""Demo pages whose body changes on every request (a real change each time): left out."""
_PARAGRAPH = re.compile(r"<p>((?:(?!</?p[ >]|<a ).){150,}?)</p>")
"""A plain paragraph (no attributes, no link) of some length."""


def policy(origin: str) -> CrawlPolicy:
    return CrawlPolicy(egress=EgressPolicy().allow_loopback(origin), workers=0,
                       render="never", exclude=VOLATILE,
                       politeness=Politeness(per_host_concurrency=8, concurrency=16))


def paragraphs(server: DemoServer, path: str) -> list[str]:
    """The long plain paragraphs of an article's HTML, as the server sends it."""
    from pressmark.demo._http import Request, Response

    response = server.site.respond(Request(method="GET", target=path, version="HTTP/1.1",
                                           headers=(), origin=server.url, counters={}))
    assert isinstance(response, Response)
    return _PARAGRAPH.findall(response.body.decode("utf-8"))


def plain(markup: str) -> str:
    """Text of an HTML or Markdown paragraph without its inline markup."""
    return html.unescape(re.sub(r"<[^>]+>|[*`]", "", markup))


def by_url(manifest: CrawlManifest) -> dict[str, str | None]:
    return {page.url: page.change for page in manifest.pages}


async def test_recrawl_reports_exactly_the_edits(
        make_demo_server: Callable[..., DemoServer], tmp_path: Path) -> None:
    server = make_demo_server(pages=30)
    origin = server.url
    out = tmp_path / "crawl"
    first = await crawl(origin + "/", policy(origin), out_dir=out)
    assert first.changes is None  # a first crawl has nothing to compare with
    assert all(page.change is None for page in first.pages)

    articles = [path for path in server.site.paths_of_kind("article")
                if path in {p.url.removeprefix(origin) for p in first.pages}][:3]
    edited, trimmed, deleted = articles
    old_sentence = paragraphs(server, edited)[1]
    new_sentence = old_sentence.replace(" the ", " the quiet ", 1)
    assert new_sentence != old_sentence
    removed = paragraphs(server, trimmed)[2]
    server.serve(server.site.edited(
        replace={edited: [(f"<p>{old_sentence}</p>", f"<p>{new_sentence}</p>")],
                 trimmed: [(f"<p>{removed}</p>", "")]},
        delete=[deleted]))

    again = await crawl(origin + "/", policy(origin), out_dir=out)
    changes = by_url(again)
    # by the page reached: /redirect/to-article lands on an edited page, changed too
    reported = {(page.final_url or page.url).removeprefix(origin): page.change
                for page in again.pages if page.change in ("new", "changed", "gone")}
    assert reported == {edited: "changed", trimmed: "changed", deleted: "gone"}
    redirected = [p for p in again.pages if p.change == "changed" and p.final_url != p.url]
    assert again.changes is not None
    counts = again.changes["counts"]
    assert (counts["changed"], counts["gone"], counts["new"]) == (2 + len(redirected), 1, 0)
    assert again.changes["unvisited"] == []
    assert counts["not-modified"] + counts["unchanged-content"] == sum(
        1 for page in again.pages if page.outcome in ("ok", "not-modified")) - counts["changed"]
    lines = [json.loads(line) for line in (out / "pages.jsonl").read_text().splitlines()]
    assert {line["url"]: line["change"] for line in lines} == changes
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["changes"] == again.changes

    # pressmark diff URL: the two newest captures of each edited page
    runner = CliRunner()

    def cli_diff(path: str) -> dict[str, object]:
        result = runner.invoke(main, ["diff", origin + path, "--store", str(out), "--json"])
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert isinstance(data, dict)
        return data

    one = cli_diff(edited)
    assert [c["change"] for c in one["changes"]] == ["changed"]  # type: ignore[union-attr]
    change = one["changes"][0]  # type: ignore[index]
    assert plain(change["old"]["text"]) == plain(old_sentence)
    assert change["new"]["text"] == change["old"]["text"].replace(" the ", " the quiet ", 1)
    assert re.search(r" > p:nth-of-type\(\d+\)$", change["old"]["dom_path"])
    two = cli_diff(trimmed)
    assert [(c["change"], plain(c["old"]["text"])) for c in two["changes"]] == [  # type: ignore[union-attr]
        ("removed", plain(removed))]
    three = cli_diff(deleted)
    assert three["gone"] is True and three["new"]["status"] == 404  # type: ignore[index]
    assert three["new"]["source_ref"] is None  # type: ignore[index]  # a 404 stores nothing
    assert three["changes"] and {c["change"] for c in three["changes"]} == {"removed"}  # type: ignore[union-attr]

    # each reported block resolves by its citation, at its very span
    store = open_store(out / "store")
    verifier = Verifier(store)
    for data in (one, two, three):
        for item in data["changes"]:  # type: ignore[union-attr]
            for side in ("old", "new"):
                if item[side] is None:
                    continue
                check = verifier.verify_citation(item[side]["citation"])
                assert check.verdict == "exact", item[side]
                assert "span-moved" not in check.warnings
                assert list(check.match.markdown_span) == item[side]["markdown_span"]

    # and no other page's Markdown changed: every page captured twice diffs empty
    for page in again.pages:
        if page.source_id is None or (page.final_url or page.url).removeprefix(origin) in (
                edited, trimmed, deleted):
            continue
        history = store.list(page.source_id)
        if len(history) >= 2:
            result = diff_captures(store, history[1].source_ref, history[0].source_ref)
            assert result.changes == () and result.same_markdown, page.url

    text = runner.invoke(main, ["diff", origin + edited, "--store", str(out)])
    assert text.exit_code == 0
    assert "1 changed, 0 removed, 0 added" in text.stdout
    assert "+ " + plain(change["new"]["text"])[:60] in plain(text.stdout)
    flagged = runner.invoke(main, ["diff", origin + edited, "--store", str(out),
                                   "--exit-code"])
    assert flagged.exit_code == 1


class _StopAfter(NullProgress):
    """Sets the crawl's stop event once ``pages`` pages are recorded (an interrupted run)."""

    def __init__(self, stop: asyncio.Event, pages: int) -> None:
        self.stop, self.left = stop, pages

    def page(self, record: PageRecord, engine: object) -> None:
        self.left -= 1
        if self.left <= 0:
            self.stop.set()


async def test_a_resumed_recrawl_keeps_its_change_counts(
        make_demo_server: Callable[..., DemoServer], tmp_path: Path) -> None:
    """A recrawl interrupted and resumed compares every page with the earlier crawl, as an
    uninterrupted recrawl does: the same ``change`` per URL, the same counts."""
    server = make_demo_server(pages=30)
    origin = server.url
    out, twin = tmp_path / "crawl", tmp_path / "twin"
    first = await crawl(origin + "/", policy(origin), out_dir=out)
    shutil.copytree(out, twin)
    articles = [path for path in server.site.paths_of_kind("article")
                if path in {p.url.removeprefix(origin) for p in first.pages}][:2]
    server.serve(server.site.edited(
        replace={articles[0]: [(f"<p>{paragraphs(server, articles[0])[1]}</p>", "")]},
        delete=[articles[1]]))
    whole = await crawl(origin + "/", policy(origin), out_dir=twin)
    stop = asyncio.Event()
    cut = await crawl(origin + "/", policy(origin), out_dir=out, stop=stop,
                      progress=_StopAfter(stop, 8))
    assert not cut.complete
    resumed = await crawl(origin + "/", policy(origin), out_dir=out, resume=True)
    assert resumed.complete
    lines = [json.loads(line) for line in (out / "pages.jsonl").read_text().splitlines()]
    assert len(lines) > 8  # both runs' records
    assert {line["url"]: line["change"] for line in lines} == by_url(whole)
    assert resumed.changes == whole.changes
    assert whole.changes is not None and whole.changes["counts"]["gone"] == 1


async def test_a_sharded_recrawl_reports_the_same_changes(
        make_demo_server: Callable[..., DemoServer], tmp_path: Path) -> None:
    """``--engine ray``'s sharded crawl (LocalEngine: the same shards and driver, no Ray):
    a recrawl marks each page's ``change`` and counts them as the in-process crawl does,
    each shard sending the validators of the capture the driver merged into the whole store
    (``not-modified``), and, with revalidation off, fetching in full (``unchanged-content``)."""
    from pressmark.crawl.ray import LocalEngine

    server = make_demo_server(pages=30)
    origin = server.url
    revalidating = policy(origin)
    sharded, local = tmp_path / "sharded", tmp_path / "local"
    first = await LocalEngine(shards=2).run(origin + "/", revalidating, out_dir=sharded)
    assert first.changes is None
    await crawl(origin + "/", revalidating, out_dir=local)
    articles = [path for path in server.site.paths_of_kind("article")
                if path in {p.url.removeprefix(origin) for p in first.pages}][:2]
    server.serve(server.site.edited(
        replace={articles[0]: [(f"<p>{paragraphs(server, articles[0])[1]}</p>", "")]},
        delete=[articles[1]]))
    for recrawl_policy, kept in ((revalidating, "not-modified"),
                                 (dataclasses.replace(revalidating, revalidate=False),
                                  "unchanged-content")):
        again = await LocalEngine(shards=2).run(origin + "/", recrawl_policy, out_dir=sharded)
        expected = await crawl(origin + "/", recrawl_policy, out_dir=local)
        assert by_url(again) == by_url(expected)
        assert again.changes == expected.changes
        assert expected.changes is not None
        counts = expected.changes["counts"]
        assert counts[kept] > 0
        if recrawl_policy is revalidating:  # the edits, seen by the first recrawl
            assert counts["gone"] == 1 and counts["changed"] >= 1
        manifest = json.loads((sharded / "manifest.json").read_text())
        assert manifest["changes"] == expected.changes
