"""Agent views (issue #39): a loopback site serving agents another Markdown than its
readers, a Markdown twin, an ``llms.txt``, a hostile twin and a huge answer. With
``agent_views`` each is captured as its own snapshot through the crawl's guarded, polite
fetch and compared with the page's Markdown; without it, not one extra request is sent
(the server's request log)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_site import (
    AGENT_ONLY,
    CHANGED_B,
    LLMS,
    PARA_B,
    PARA_C,
    AgentSite,
    serve_agent_site,
)
from click.testing import CliRunner

from pressmark.cite import Verifier
from pressmark.cli import main
from pressmark.crawl import CrawlError, CrawlManifest, CrawlPolicy, Politeness, crawl
from pressmark.egress import EgressPolicy
from pressmark.store import open_store

PAGES = ("/", "/agree", "/differ", "/plain", "/alt", "/huge", "/hostile", "/hostile2")


@pytest.fixture
def site() -> Iterator[AgentSite]:
    with serve_agent_site() as running:
        yield running


def policy(origin: str, **kwargs: object) -> CrawlPolicy:
    options: dict[str, object] = {
        "egress": EgressPolicy().allow_loopback(origin), "workers": 0, "render": "never",
        "politeness": Politeness(per_host_concurrency=2, concurrency=4),
        "max_response_bytes": 1024 * 1024,
    }
    options.update(kwargs)
    return CrawlPolicy(**options)  # type: ignore[arg-type]


def views_of(manifest: CrawlManifest, origin: str) -> dict[str, dict[str, dict[str, object]]]:
    """path -> kind -> view."""
    out: dict[str, dict[str, dict[str, object]]] = {}
    for page in manifest.pages:
        out[page.url.removeprefix(origin) or "/"] = {
            view["kind"]: view for view in page.agent_views or ()}
    return out


async def test_without_agent_views_no_extra_request(site: AgentSite, tmp_path: Path) -> None:
    manifest = await crawl(site.url + "/", policy(site.url), out_dir=tmp_path / "off")
    assert {p.url.removeprefix(site.url) or "/" for p in manifest.pages} == set(PAGES)
    paths = [path for path, _ in site.requests]
    # robots.txt once and each page once: no Markdown request, no twin, no llms.txt
    assert sorted(paths) == sorted(["/robots.txt", *PAGES])
    assert not any("text/markdown" in accept for _, accept in site.requests)
    assert manifest.agent_views is None
    assert all(page.agent_views is None for page in manifest.pages)
    saved = json.loads((tmp_path / "off" / "manifest.json").read_text())
    assert saved["agent_views"] is None and "agent_views" not in saved["policy"]


async def test_agent_views_captured_compared_and_cited(site: AgentSite, tmp_path: Path) -> None:
    out = tmp_path / "on"
    manifest = await crawl(site.url + "/", policy(site.url, agent_views=True), out_dir=out)
    views = views_of(manifest, site.url)
    log = site.requests
    # llms.txt once for the site; each page's Markdown request once; the twin once
    assert [p for p, _ in log].count("/llms.txt") == 1
    assert [p for p, _ in log].count("/alt.md") == 1
    for page in PAGES:
        asked = [a for p, a in log if p == page]
        assert len(asked) == 2 and sum("text/markdown" in a for a in asked) == 1, page
    # hostile twins: a private address (egress) and a robots.txt-disallowed path: denied,
    # never requested
    assert not any(p.startswith("/private/") for p, _ in log)
    assert views["/hostile"]["alternate"]["outcome"] == "denied"
    assert views["/hostile"]["alternate"]["error"]["kind"] == "egress-denied"
    assert views["/hostile2"]["alternate"]["outcome"] == "denied"
    assert views["/hostile2"]["alternate"]["error"]["kind"] == "robots-denied"
    # a huge answer is cut at the byte limit: an error, the page itself stands
    huge = views["/huge"]["accept-markdown"]
    assert huge["outcome"] == "error" and huge["error"]["kind"] == "response-too-large"
    assert next(p for p in manifest.pages if p.url.endswith("/huge")).outcome == "ok"
    # servers that ignore Accept: nothing captured
    for page in ("/plain", "/alt", "/hostile", "/hostile2", "/"):
        assert views[page]["accept-markdown"]["outcome"] == "not-offered", page
        assert views[page]["accept-markdown"]["source_ref"] is None
    store = open_store(out / "store")
    verifier = Verifier(store)
    # agree: captured, low divergence, nothing only on one side
    agree = views["/agree"]["accept-markdown"]
    assert agree["outcome"] == "captured" and agree["content_type"] == "text/markdown"
    assert agree["divergence"]["agrees"] is True and agree["divergence"]["score"] <= 0.2
    assert agree["divergence"]["only_in_page"] == []
    assert agree["divergence"]["only_in_view"] == []
    twin = views["/alt"]["alternate"]
    assert twin["outcome"] == "captured" and twin["url"] == site.url + "/alt.md"
    assert twin["divergence"]["agrees"] is True
    # differ: the changed price and the agent-only instruction, on their own sides
    differ = views["/differ"]["accept-markdown"]["divergence"]
    assert differ["agrees"] is False
    only_view = [p["text"] for p in differ["only_in_view"]]
    only_page = [p["text"] for p in differ["only_in_page"]]
    assert only_view == [CHANGED_B, AGENT_ONLY]
    assert only_page == [PARA_B, PARA_C]  # the bicycle rule is not shown to agents
    for passage in (*differ["only_in_view"], *differ["only_in_page"]):
        check = verifier.verify_citation(passage["citation"])
        assert check.verdict == "exact", passage
    # llms.txt: one snapshot, listed with the page that asked and in the manifest
    llms = [v["llms-txt"] for v in views.values() if "llms-txt" in v]
    assert len(llms) == 1 and llms[0]["outcome"] == "captured"
    assert manifest.agent_views is not None
    assert manifest.agent_views["llms_txt"] == {site.url: {
        "url": site.url + "/llms.txt", "outcome": "captured", "status": 200,
        "source_ref": llms[0]["source_ref"]}}
    assert verifier.page(str(llms[0]["source_ref"])).markdown == LLMS
    counts = manifest.agent_views["by_kind"]
    assert counts["accept-markdown"] == {"captured": 2, "error": 1, "not-offered": 5}
    assert counts["alternate"] == {"captured": 1, "denied": 2}
    assert manifest.agent_views["compared"] == 3
    assert manifest.agent_views["diverging"] == 1
    # the view is its own source: the page's history holds only HTML captures
    differ_page = next(p for p in manifest.pages if p.url.endswith("/differ"))
    assert differ_page.source_id is not None
    assert len(store.list(differ_page.source_id)) == 1
    view_ref = views["/differ"]["accept-markdown"]["source_ref"]
    assert isinstance(view_ref, str) and differ_page.source_id not in view_ref
    saved = json.loads((out / "manifest.json").read_text())
    assert saved["agent_views"] == manifest.agent_views
    assert saved["policy"]["agent_views"] is True


def scrub(value: object) -> object:
    """``value`` without what names one capture (its time-stamped refs and digests)."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items()
                if k not in ("source_ref", "snapshot_sha256")}
    if isinstance(value, list | tuple):
        return [scrub(v) for v in value]
    return value


async def test_agent_views_are_deterministic(site: AgentSite, tmp_path: Path) -> None:
    """Same site, same views: outcomes, divergences and passages alike in two crawls."""
    runs = []
    for name in ("a", "b"):
        manifest = await crawl(site.url + "/", policy(site.url, agent_views=True),
                               out_dir=tmp_path / name)
        runs.append({p.url: scrub(p.agent_views) for p in manifest.pages})
    assert json.dumps(runs[0], sort_keys=True) == json.dumps(runs[1], sort_keys=True)


def test_replay_refuses_agent_views() -> None:
    with pytest.raises(CrawlError, match="agent_views needs a live crawl"):
        CrawlPolicy(mode="replay", agent_views=True).validate()


def test_cli_crawl_agent_views(site: AgentSite, tmp_path: Path) -> None:
    out = tmp_path / "cli"
    result = CliRunner().invoke(main, ["crawl", site.url + "/differ", "--out", str(out),
                                       "--allow-loopback", site.url, "--max-pages", "1",
                                       "--render", "never", "--workers", "0", "-q",
                                       "--agent-views"])
    assert result.exit_code == 0, result.output
    row = json.loads((out / "pages.jsonl").read_text().splitlines()[0])
    kinds = {view["kind"]: view for view in row["agent_views"]}
    assert set(kinds) == {"accept-markdown", "llms-txt"}
    assert kinds["accept-markdown"]["divergence"]["agrees"] is False


def test_cli_fetch_agent_views(site: AgentSite, tmp_path: Path) -> None:
    store = tmp_path / "store"
    args = ["fetch", site.url + "/differ", "--allow-loopback", site.url, "--store", str(store)]
    mark = len(site.requests)
    result = CliRunner().invoke(main, [*args, "--json", "--agent-views"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    kinds = {view["kind"]: view for view in document["agent_views"]}
    assert set(kinds) == {"accept-markdown", "llms-txt"}
    diverging = kinds["accept-markdown"]["divergence"]
    assert [p["text"] for p in diverging["only_in_view"]] == [CHANGED_B, AGENT_ONLY]
    verifier = Verifier(open_store(store))
    for passage in (*diverging["only_in_view"], *diverging["only_in_page"]):
        assert verifier.verify_citation(passage["citation"]).verdict == "exact"
    # robots.txt once, the page, its Markdown answer, llms.txt
    assert sorted(p for p, _ in site.requests[mark:]) == sorted(
        ["/robots.txt", "/differ", "/differ", "/llms.txt"])
    mark = len(site.requests)
    plain = CliRunner().invoke(main, [*args, "--format", "markdown"])
    assert plain.exit_code == 0 and "agent view" not in plain.stderr
    assert all("text/markdown" not in a for _, a in site.requests[mark:])
    said = CliRunner().invoke(main, [*args, "--format", "markdown", "--agent-views"])
    assert "agent view accept-markdown: captured (text/markdown), divergence" in said.stderr


async def test_sharded_crawl_takes_the_same_agent_views(site: AgentSite, tmp_path: Path) -> None:
    """``--engine ray``'s shards (LocalEngine: the same driver and shards, no Ray) request
    each page's views as the in-process crawl does, and the driver counts them."""
    from pressmark.crawl.ray import LocalEngine

    local = await crawl(site.url + "/", policy(site.url, agent_views=True),
                        out_dir=tmp_path / "local")
    mark = len(site.requests)
    sharded = await LocalEngine(shards=2).run(site.url + "/",
                                              policy(site.url, agent_views=True),
                                              out_dir=tmp_path / "sharded")
    assert [p for p, _ in site.requests[mark:]].count("/llms.txt") == 1
    want = {p.url: scrub(p.agent_views) for p in local.pages}
    have = {p.url: scrub(p.agent_views) for p in sharded.pages}
    assert json.dumps(have, sort_keys=True) == json.dumps(want, sort_keys=True)
    assert scrub(sharded.agent_views) == scrub(local.agent_views)
