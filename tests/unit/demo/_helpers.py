"""Call the demo site directly, without a socket."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from pressmark.demo import DemoSite
from pressmark.demo._http import Fault, Request, Response

ORIGIN = "http://127.0.0.1:9"


def get(site: DemoSite, target: str, *headers: tuple[str, str]) -> Response:
    result = site.respond(Request(method="GET", target=target, version="HTTP/1.1",
                                  headers=tuple(headers), origin=ORIGIN))
    assert not isinstance(result, Fault), target
    return result


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            href = dict(attrs).get("href")
            if href is not None:
                self.hrefs.append(href)


def same_site_links(html: str, base_path: str) -> set[str]:
    """Paths of the ``<a href>`` in ``html`` that stay on the site (no query, no fragment)."""
    parser = _Links()
    parser.feed(html)
    out = set()
    for href in parser.hrefs:
        if href.startswith("#"):
            continue
        url = urljoin(ORIGIN + base_path, href)
        parts = urlsplit(url)
        if parts.scheme == "http" and parts.netloc == urlsplit(ORIGIN).netloc:
            out.add(parts.path)
    return out
