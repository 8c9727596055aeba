"""The generated structure: kinds, depths, links and sitemaps match the served HTML."""

from __future__ import annotations

import gzip
import json
import re
from collections import deque
from html import escape

import pytest

from pressmark.demo import DemoSite
from pressmark.demo._site import SHELL_KINDS, is_disallowed

from ._helpers import get, same_site_links


@pytest.fixture(scope="module")
def site() -> DemoSite:
    return DemoSite(seed=7, pages=200)


def test_every_kind_is_present(site: DemoSite) -> None:
    kinds = {page.kind for page in site.pages}
    assert set(SHELL_KINDS) <= kinds
    assert {"home", "section", "info", "article", "lazy", "tabs", "live", "soft-404",
            "wrong-locale", "redirect-target", "charset", "cache", "private",
            "client-redirect"} <= kinds
    assert len(site.generated) == 200
    assert 0.1 < site.shell_fraction < 0.3
    assert site.shell_fraction == sum(p.is_shell for p in site.generated) / 200


def test_page_lookup_and_kinds(site: DemoSite) -> None:
    shells = site.paths_of_kind(*SHELL_KINDS)
    assert all(path.startswith("/stories/") for path in shells)
    assert all(site.page(path).is_shell for path in shells)
    assert site.page("/").depth == 0


def test_served_links_match_the_model(site: DemoSite) -> None:
    known = {page.path for page in site.pages}
    for page in site.pages:
        response = get(site, page.path)
        assert response.status == 200, page.path
        if page.kind in ("charset", "cache"):
            continue
        served = same_site_links(response.body.decode("utf-8"), page.path) & known
        assert served == set(page.links), page.path


def test_bfs_over_served_html_gives_the_documented_depths(site: DemoSite) -> None:
    known = {page.path for page in site.pages}
    depth = {"/": 0}
    queue = deque(["/"])
    while queue:
        path = queue.popleft()
        html = get(site, path).body.decode("utf-8", "replace")
        for target in sorted(same_site_links(html, path) & known):
            if target not in depth:
                depth[target] = depth[path] + 1
                queue.append(target)
    for page in site.pages:
        assert depth.get(page.path) == page.depth, page.path
    assert site.max_depth == max(depth.values())


def test_hidden_pages_are_reachable_only_after_rendering(site: DemoSite) -> None:
    hidden = [p for p in site.generated if p.depth is None]
    assert hidden, "a 200-page site has render-only pages"
    for page in hidden:
        assert page.kind == "article"
        assert page.render_depth is not None
        assert not page.in_sitemap
    link_shells = site.paths_of_kind("shell-links")
    rendered_targets = set()
    for path in link_shells:
        page_id = site.page(path).page_id
        assert page_id is not None
        doc = json.loads(get(site, f"/api/pages/{page_id:04d}.json").body)
        rendered_targets |= {link["href"] for link in doc["links"]}
        assert set(site.page(path).render_links) <= {link["href"] for link in doc["links"]}
    assert {p.path for p in hidden} <= rendered_targets


def test_shell_pages_have_empty_roots_and_state(site: DemoSite) -> None:
    for path in site.paths_of_kind(*SHELL_KINDS):
        page = site.page(path)
        html = get(site, path).body.decode()
        assert re.search(r'<div id="(root|__next)"></div>', html)
        assert "<a " not in html
        if page.kind == "shell-next":
            assert '<script id="__NEXT_DATA__" type="application/json">' in html
        if page.kind == "shell-jsonld":
            assert '<script type="application/ld+json">' in html
        delay = int(re.findall(r", (\d+)\);</script>", html)[-1])
        assert 50 <= delay <= 400


def test_article_ground_truth_is_in_the_html(site: DemoSite) -> None:
    path = site.paths_of_kind("article")[3]
    content = site.content(path)
    html = get(site, path).body.decode()
    assert f"<h1>{escape(content.title)}</h1>" in html
    for heading in content.headings():
        assert escape(heading) in html
    for paragraph in content.paragraphs():
        first_words = paragraph.split(" ")[0]
        assert escape(first_words) in html
    for tag in ("<nav", "cookie-consent", "breadcrumbs", "class=\"share\"", "<aside",
                "newsletter-signup", "<footer"):
        assert tag in html


def test_templates_vary(site: DemoSite) -> None:
    seen = set()
    for path in site.paths_of_kind("article")[:30]:
        html = get(site, path).body.decode()
        seen.add(("<main" in html, "<article" in html))
        assert "<h1>" in html
    assert (True, False) in seen and (False, True) in seen
    assert any(not main and not art for main, art in seen) or (False, False) in seen


def test_features_appear_across_articles(site: DemoSite) -> None:
    html = "".join(get(site, p).body.decode() for p in site.paths_of_kind("article")[:20])
    for needle in ("<h2>", "<h3>", "<h4>", "<em>", "<strong>", "<code>", "<ol>", "<ul>",
                   'colspan="2"', 'class="language-', "<blockquote>", '<img src="/img/',
                   ' alt="'):
        assert needle in html, needle
    assert re.search(r"<li>[^<]*<(ul|ol)>", html), "nested lists"


def test_sitemaps_list_exactly_the_sitemap_pages(site: DemoSite) -> None:
    index = get(site, "/sitemap.xml").body.decode()
    assert "/sitemaps/articles.xml" in index and "/sitemaps/more.xml.gz" in index
    plain = get(site, "/sitemaps/articles.xml").body.decode()
    packed = get(site, "/sitemaps/more.xml.gz")
    assert packed.content_type == "application/gzip"
    listed = re.findall(r"<loc>http://127\.0\.0\.1:9([^<]*)</loc>",
                        plain + gzip.decompress(packed.body).decode())
    assert len(listed) == len(set(listed))
    assert set(listed) == {p.path for p in site.pages if p.in_sitemap}
    assert all(site.page(p).kind == "article" for p in re.findall(r"9(/[^<]*)</loc>", plain))


def test_robots_rules(site: DemoSite) -> None:
    text = get(site, "/robots.txt").body.decode()
    assert "User-agent: slowbot\nCrawl-delay: 5\n" in text
    assert "Crawl-delay" not in text.split("User-agent: *")[1]
    assert "Sitemap: http://127.0.0.1:9/sitemap.xml" in text
    delayed = DemoSite(pages=5, crawl_delay=0.5)
    assert "User-agent: *\nCrawl-delay: 0.5\n" in get(delayed, "/robots.txt").body.decode()
    assert is_disallowed("/private/1") and not is_disallowed("/private/open")
    assert site.page("/private/2").disallowed and not site.page("/private/open").disallowed
    assert is_disallowed("/search?q=x") and is_disallowed("/share/x")
    assert not any(p.disallowed for p in site.generated)


@pytest.mark.parametrize(("mode", "status"), [("500", 500), ("404", 404), ("redirect", 302)])
def test_robots_modes(mode: str, status: int) -> None:
    site = DemoSite(pages=5, robots=mode)  # type: ignore[arg-type]
    assert get(site, "/robots.txt").status == status


def test_huge_robots_hides_the_rules_past_500_kib() -> None:
    body = get(DemoSite(pages=5, robots="huge"), "/robots.txt").body
    assert len(body) > 500 * 1024
    assert b"Disallow:" not in body[: 500 * 1024]


def test_size_limits() -> None:
    with pytest.raises(ValueError, match="pages"):
        DemoSite(pages=0)
    with pytest.raises(ValueError, match="pages"):
        DemoSite(pages=10_001)
    small = DemoSite(pages=1)
    assert len(small.generated) == 1
    assert get(small, small.generated[0].path).status == 200


def test_large_site_depth_is_bounded() -> None:
    big = DemoSite(seed=3, pages=3000)
    assert big.max_depth <= 8
    unreachable = [p for p in big.generated if p.depth is None]
    assert all(p.render_depth is not None for p in unreachable)
    assert len(unreachable) == round(3000 * 0.02)


def test_ground_truth_paragraphs_match_the_served_text(site: DemoSite) -> None:
    from html.parser import HTMLParser

    class Paragraphs(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.depth = 0
            self.current: list[str] = []
            self.found: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "p":
                self.depth += 1
                self.current = []

        def handle_endtag(self, tag: str) -> None:
            if tag == "p" and self.depth:
                self.depth -= 1
                self.found.append("".join(self.current))

        def handle_data(self, data: str) -> None:
            if self.depth:
                self.current.append(data)

    for path in site.paths_of_kind("article")[:15]:
        parser = Paragraphs()
        parser.feed(get(site, path).body.decode())
        served = set(parser.found)
        for paragraph in site.content(path).paragraphs():
            assert paragraph in served, (path, paragraph)


def test_special_pages(site: DemoSite) -> None:
    from pressmark.demo._http import Request, Response

    counters: dict[str, int] = {}

    def live() -> bytes:
        result = site.respond(Request(method="GET", target="/special/live", version="HTTP/1.1",
                                      headers=(), origin="http://x", counters=counters))
        assert isinstance(result, Response)
        return result.body

    first, second = live(), live()
    assert first != second and b'id="live-counter"' in first
    assert get(site, "/special/live").etag is None
    assert '<html lang="fr">' in get(site, "/special/wrong-locale").body.decode()
    lazy = get(site, "/special/lazy").body.decode()
    assert lazy.count('data-src="/api/lazy/') == 4 and "IntersectionObserver" in lazy
    assert json.loads(get(site, "/api/lazy/3.json").body)["heading"].startswith("Part 3")
    assert get(site, "/api/lazy/9.json").status == 404
    tabs = get(site, "/special/tabs").body.decode()
    assert tabs.count('role="tabpanel"') == 4
    assert len(re.findall(r'role="tabpanel"[^>]* hidden>', tabs)) == 3
    refresh = get(site, "/special/meta-refresh").body.decode()
    assert 'http-equiv="refresh" content="0; url=/special/redirect-target"' in refresh
    assert "location.replace" in get(site, "/special/js-redirect").body.decode()
    assert get(site, "/api/pages/0000.json").status in (200, 404)
