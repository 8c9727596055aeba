"""The overview: summary, filters, search, sort and server-side pagination."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from pressmark.web._sample import SampleCrawl


def rows(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<tr data-row="(\d+)">', html)]


def test_overview_shows_summary_and_first_page(client: TestClient, crawl: SampleCrawl) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert f'id="kpi-pages">{len(crawl.records)}<' in response.text
    assert 'id="chart-outcome"' in response.text
    assert 'id="chart-errors"' in response.text
    assert rows(response.text) == list(range(1, 51))
    assert f"{len(crawl.records)} pages match" in response.text


def test_pagination_is_server_side(client: TestClient, crawl: SampleCrawl) -> None:
    total = len(crawl.records)
    last_page = -(-total // 50)
    assert rows(client.get("/?page=2").text) == list(range(51, 101))
    last = client.get(f"/?page={last_page}").text
    assert rows(last) == list(range((last_page - 1) * 50 + 1, total + 1))
    assert rows(client.get("/?page=999").text) == rows(last)  # clamped
    assert rows(client.get("/?per_page=10&page=3").text) == list(range(21, 31))
    assert len(rows(client.get("/?per_page=100000").text)) == min(total, 500)


def test_filter_failed_validations(client: TestClient, crawl: SampleCrawl) -> None:
    found = rows(client.get("/?validation=failed&per_page=500").text)
    expected = [
        i + 1 for i, r in enumerate(crawl.records)
        if r["validation"] and r["validation"]["passed"] is False
    ]
    assert found == expected
    assert crawl.rows["failed"] in found


def test_filters_combine(client: TestClient, crawl: SampleCrawl) -> None:
    assert rows(client.get("/?status=4xx").text) == [crawl.rows["http_error"]]
    assert rows(client.get("/?status=404").text) == [crawl.rows["http_error"]]
    assert rows(client.get("/?status=none").text) == [crawl.rows["network_error"]]
    assert rows(client.get("/?error_kind=network-error").text) == [crawl.rows["network_error"]]
    assert rows(client.get("/?outcome=error").text) == sorted(
        [crawl.rows["http_error"], crawl.rows["network_error"]]
    )
    assert rows(client.get("/?rendered=yes").text) == [crawl.rows["rendered"]]
    with_warnings = rows(client.get("/?warnings=yes&per_page=500").text)
    assert crawl.rows["rendered"] in with_warnings
    assert all(crawl.records[n - 1]["warnings"] for n in with_warnings)
    no_warnings = rows(client.get("/?warnings=no&per_page=500").text)
    assert len(with_warnings) + len(no_warnings) == len(crawl.records)
    both = rows(client.get("/?validation=failed&warnings=no&per_page=500").text)
    assert crawl.rows["failed"] in both


def test_search_url_and_title(client: TestClient, crawl: SampleCrawl) -> None:
    assert rows(client.get("/?q=Election").text) == [crawl.rows["history"]]
    assert rows(client.get("/?q=/politics/").text) == [crawl.rows["history"]]
    assert rows(client.get("/?q=%25").text) == []  # LIKE wildcards are literal
    assert rows(client.get("/?q=_").text) == []


def test_sort(client: TestClient, crawl: SampleCrawl) -> None:
    by_url = rows(client.get("/?sort=url&per_page=500").text)
    urls = [crawl.records[n - 1]["url"] for n in by_url]
    assert urls == sorted(urls)
    desc = rows(client.get("/?sort=url&order=desc&per_page=500").text)
    assert desc == by_url[::-1]
    by_bytes = rows(client.get("/?sort=bytes&order=desc").text)
    assert by_bytes[0] == crawl.rows["big"]


def test_bad_parameters_are_ignored(client: TestClient) -> None:
    for query in ("sort=url;DROP TABLE pages", "page=abc", "per_page=-5", "rendered=maybe",
                  "validation=1%20OR%201=1", "status=%27", "order=sideways"):
        response = client.get("/?" + query)
        assert response.status_code == 200, query


def test_filter_links_keep_the_query(client: TestClient) -> None:
    html = client.get("/?validation=failed&per_page=10").text
    assert "validation=failed" in html
    assert 'selected>failed<' in html
