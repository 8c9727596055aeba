"""The crawler against the demo site: discovery, robots, politeness, limits, output."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from pressmark.crawl import CrawlManifest, CrawlPolicy, Politeness, crawl
from pressmark.demo import DemoServer, DemoSite
from pressmark.egress import EgressPolicy

DISALLOWED = ("/private/", "/search", "/account/", "/share/", "/redirect/to-disallowed-target")


def policy(*origins: str, **kwargs: object) -> CrawlPolicy:
    options: dict[str, object] = {
        "egress": EgressPolicy().allow_loopback(*origins), "markdown": False, "workers": 0,
        "render": "never",
        "politeness": Politeness(per_host_concurrency=8, concurrency=16),
    }
    options.update(kwargs)
    return CrawlPolicy(**options)  # type: ignore[arg-type]


def fetched(m: CrawlManifest) -> dict[str, int]:
    return {p.url: p.status for p in m.pages if p.status is not None}


def is_disallowed(path: str) -> bool:
    return path.startswith(DISALLOWED) and not path.startswith("/private/open")


def page_gets(server: DemoServer, since: int) -> list[str]:
    return [r.path for r in server.requests[since:] if r.path != "/robots.txt"]


async def test_bfs_reaches_every_linked_page_within_depth(
        demo_site: DemoSite, demo_server: DemoServer, demo_origin: str) -> None:
    mark = len(demo_server.requests)
    m = await crawl(demo_origin + "/", policy(demo_origin, max_depth=2))
    got = fetched(m)
    want = {demo_origin + p.path for p in demo_site.pages
            if p.depth is not None and p.depth <= 2 and not p.disallowed}
    assert want <= {u for u, status in got.items() if status == 200}
    assert max(p.depth for p in m.pages) == 2
    gets = page_gets(demo_server, mark)
    redirected = [p for p in m.pages if p.final_url not in (None, p.url)]
    # each page requested once; extra requests are only redirect hops
    assert len(gets) - len(got) <= sum(3 for _ in redirected)
    assert {demo_origin + g for g in gets} >= set(got)
    assert m.complete


async def test_sitemap_discovery_finds_exactly_the_sitemap_pages(
        demo_site: DemoSite, demo_server: DemoServer, demo_origin: str) -> None:
    mark = len(demo_server.requests)
    m = await crawl(demo_origin + "/", policy(demo_origin, discovery="sitemap"))
    want = {demo_origin + p.path for p in demo_site.pages if p.in_sitemap}
    assert set(fetched(m)) == want | {demo_origin + "/"}
    assert m.sitemap["documents_read"] == 4
    # the image sitemap repeats five article pages and adds ten <image:loc> pictures
    assert m.sitemap["urls_discovered"] == len(want) + 5
    assert m.sitemap["extension_locs_ignored"] == 10
    assert m.sitemap["errors"] == []
    assert not [g for g in page_gets(demo_server, mark) if g.startswith("/media/")]


async def test_robots_disallowed_pages_are_never_requested(
        demo_server: DemoServer, demo_origin: str) -> None:
    mark = len(demo_server.requests)
    m = await crawl(demo_origin + "/", policy(demo_origin, max_depth=1))
    gets = page_gets(demo_server, mark)
    assert gets and not [p for p in gets if is_disallowed(p)]
    denied = [p for p in m.pages if p.error is not None and p.error.kind == "robots-denied"]
    assert denied and all(p.status is None for p in denied)
    assert m.summary["robots_denied"] == len(denied)
    assert any(p.url.endswith("/private/open") and p.status == 200 for p in m.pages)


@pytest.mark.parametrize("max_pages", [1, 25])
async def test_max_pages_is_exact(demo_server: DemoServer, demo_origin: str,
                                  max_pages: int) -> None:
    mark = len(demo_server.requests)
    m = await crawl(demo_origin + "/", policy(demo_origin, max_pages=max_pages))
    assert len(fetched(m)) == max_pages
    assert len(page_gets(demo_server, mark)) == max_pages
    assert m.stop_reason == "max-pages"


async def test_scope_excludes_other_hosts(
        make_demo_server: Callable[..., DemoServer], demo_origin: str) -> None:
    other = make_demo_server(host="127.0.0.2")
    m = await crawl(demo_origin + "/", policy(demo_origin, other.url, max_depth=1,
                                              include=(r"/articles/",), exclude=(r"0001",)))
    urls = set(fetched(m))
    assert demo_origin + "/" in urls  # seeds are always fetched
    assert all("/articles/" in u and "0001" not in u for u in urls - {demo_origin + "/"})
    assert not other.requests or all(r.path == "/robots.txt" for r in other.requests)


async def test_crawl_delay_is_honoured(make_demo_server: Callable[..., DemoServer]) -> None:
    server = make_demo_server(pages=5, crawl_delay=0.2)
    await crawl(server.url + "/", policy(server.url, max_pages=5))
    times = [r.time for r in server.requests if r.path != "/robots.txt"]
    assert len(times) == 5
    gaps = [b - a for a, b in itertools.pairwise(times)]
    # The fetch layer starts a request no sooner than the delay after the previous one
    # ended, and the server records a request before it answers it: so the gaps between
    # the server's own timestamps hold however late a loaded machine runs its thread.
    assert min(gaps) >= 0.19


async def test_politeness_per_host_with_many_hosts_in_flight(
        make_demo_server: Callable[..., DemoServer]) -> None:
    servers = [make_demo_server(host=f"127.0.0.{n}", pages=20) for n in (1, 2, 3)]
    origins = [s.url for s in servers]
    # depth 1 of each host's seven /sections/ pages (no redirect hops): one level, so all
    # three hosts are in flight together
    await crawl([o + "/" for o in origins],
                policy(*origins, max_depth=1, include=(r"/sections/", r"/$"),
                       politeness=Politeness(delay_ms=100, per_host_concurrency=2,
                                             concurrency=16)))
    spans = []
    for server in servers:
        times = sorted(r.time for r in server.requests if r.path != "/robots.txt")
        assert len(times) >= 6
        gaps = [b - a for a, b in itertools.pairwise(times)]
        # one host never sees requests closer than delay_ms (spaced from the previous
        # request's end, which comes after the server recorded it)
        assert min(gaps) >= 0.095
        spans.append((times[0], times[-1]))
    # ... while the hosts are crawled at the same time, not one after another
    assert max(start for start, _ in spans) < min(end for _, end in spans)


async def test_output_directory_with_markdown(demo_origin: str, tmp_path: Path) -> None:
    out = tmp_path / "crawl"
    m = await crawl(demo_origin + "/", policy(demo_origin, max_pages=12, markdown=True,
                                              workers=1), out_dir=out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format"] == "pressmark-crawl/1" and manifest["complete"]
    lines = [json.loads(x) for x in (out / "pages.jsonl").read_text().splitlines()]
    assert len(lines) == len(m.pages)
    html_pages = [x for x in lines if x["markdown_path"]]
    assert html_pages
    for page in html_pages:
        assert (out / page["markdown_path"]).read_text().strip()
        evidence = json.loads((out / page["evidence_path"]).read_text())
        assert evidence
        assert page["validation"] is not None
        assert page["source_ref"].startswith("pressmark:snapshot:")
    assert manifest["summary"]["validation_pass_rate"] is not None


async def test_wrong_route_validation_and_requested_url_in_evidence(
        demo_site: DemoSite, demo_origin: str, tmp_path: Path) -> None:
    from pressmark.crawl import Seed

    article = demo_site.generated[0]
    title = demo_site.content(article.path).title
    seeds = [
        demo_origin + "/redirect/to-home",
        demo_origin + "/redirect/to-login",
        demo_origin + "/redirect/to-article",
        Seed(demo_origin + article.path, expected_heading=r"^No such heading$"),
        Seed(demo_origin + "/special/wrong-locale", expected_language="en"),
    ]
    out = tmp_path / "out"
    m = await crawl(seeds, policy(demo_origin, max_depth=0, markdown=True), out_dir=out)
    by_url = {p.url: p for p in m.pages}

    def reasons(path: str) -> tuple[str, ...]:
        page = by_url[demo_origin + path]
        assert page.validation is not None, page
        return page.validation.reasons

    assert "redirected-to-home" in reasons("/redirect/to-home")
    assert "redirected-to-login" in reasons("/redirect/to-login")
    assert not {"redirected-to-home", "redirected-to-login", "redirected-off-host"} & set(
        reasons("/redirect/to-article"))  # a moved article is not a wrong route
    assert "required-heading-missing" in reasons(article.path)
    assert "language-mismatch" in reasons("/special/wrong-locale")
    page = by_url[demo_origin + "/redirect/to-home"]
    evidence = json.loads((out / str(page.evidence_path)).read_text())
    assert evidence["url_requested"] == demo_origin + "/redirect/to-home"
    assert evidence["url_final"] == demo_origin + "/"
    assert title  # the article's own validation judged its real heading
