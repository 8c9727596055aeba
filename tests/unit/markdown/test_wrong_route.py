"""Wrong-route validation: the page that answered is not the page that was asked for."""

from __future__ import annotations

import pytest

from pressmark.markdown import ConversionPolicy, to_markdown
from pressmark.markdown._validate import route_reasons

ARTICLE = ("<html lang='en'><head><title>Harbour notes</title></head><body><main>"
           "<h1>Harbour notes</h1>"
           + "".join(f"<p>Note {i}: the harbour was quiet this morning, with {i + 2} boats moored"
                     f" along the eastern wall and nets drying in the sun.</p>" for i in range(8))
           + "</main></body></html>")


@pytest.mark.parametrize(
    ("requested", "final", "reasons"),
    [
        ("https://a.test/news/1", "https://a.test/news/1", []),
        ("http://a.test/news/1", "https://www.a.test/news/1/", []),
        ("https://a.test/news/1", "https://a.test/news/one-moved", []),
        ("https://a.test/news/1", "https://a.test/", ["redirected-to-home"]),
        ("https://a.test/", "https://a.test/", []),
        ("https://a.test/news/1", "https://a.test/login?next=/news/1", ["redirected-to-login"]),
        ("https://a.test/news/1", "https://a.test/users/sign_in", ["redirected-to-login"]),
        ("https://a.test/login", "https://a.test/login/", []),
        ("https://a.test/news/1", "https://b.test/news/1", ["redirected-off-host"]),
        ("https://a.test/news/1", "https://sso.b.test/auth/x",
         ["redirected-off-host", "redirected-to-login"]),
        ("https://a.test/blog/catalog-of-signings", "https://a.test/blog/designing", []),
    ],
)
def test_route_reasons(requested: str, final: str, reasons: list[str]) -> None:
    assert route_reasons(requested, final) == reasons


def test_redirect_to_home_fails_validation_and_evidence_keeps_the_request() -> None:
    result = to_markdown(ARTICLE, url="https://a.test/", requested_url="https://a.test/news/1")
    assert "redirected-to-home" in result.validation.reasons
    assert result.evidence.url_requested == "https://a.test/news/1"
    assert result.evidence.url_final == "https://a.test/"
    same = to_markdown(ARTICLE, url="https://a.test/news/1", requested_url="https://a.test/news/1")
    assert same.validation.passed, same.validation.reasons
    off = to_markdown(ARTICLE, url="https://a.test/", requested_url="https://a.test/news/1",
                      policy=ConversionPolicy(check_route=False))
    assert off.validation.passed


@pytest.mark.parametrize(
    "marker",
    ['<body class="page error404 wp-theme">', '<body id="not-found">',
     '<body><meta name="prerender-status-code" content="404">'],
)
def test_not_found_markers(marker: str) -> None:
    html = ARTICLE.replace("<body>", marker)
    result = to_markdown(html, url="https://a.test/news/1")
    assert "not-found-marker" in result.validation.reasons


def test_an_article_about_404_errors_is_not_a_marker() -> None:
    html = ARTICLE.replace("<body>", '<body class="article topic-http">')
    assert to_markdown(html, url="https://a.test/news/1").validation.passed


@pytest.mark.parametrize(
    ("url", "canonical", "another"),
    [
        # the same document at another address: a local copy, a mirror, a version, an edition
        ("file:///usr/share/doc/tool/html/usage/quickstart.html",
         "https://www.tool.test/en/master/usage/quickstart.html", False),
        ("http://127.0.0.1:8000/usage/index.html", "https://docs.tool.test/en/3/usage/", False),
        ("https://news.test/how-to-retire-early", "https://news.test.de/how-to-retire-early",
         False),
        ("https://a.test/news/1?utm_source=feed", "https://a.test/news/1", False),
        ("https://a.test/", "https://www.a.test/index.html", False),
        # another document: another name, the home page, another query it keeps
        ("https://a.test/news/1", "https://a.test/news/2", True),
        ("https://a.test/news/harbour-notes", "https://a.test/", True),
        ("https://a.test/article.php?id=5", "https://a.test/article.php?id=7", True),
        ("https://a.test/", "https://b.test/", True),
    ],
)
def test_canonical_names_another_document(url: str, canonical: str, another: bool) -> None:
    html = ARTICLE.replace("</title>", f"</title><link rel='canonical' href='{canonical}'>")
    result = to_markdown(html, url=url)
    assert ("canonical-mismatch" in result.validation.reasons) is another
