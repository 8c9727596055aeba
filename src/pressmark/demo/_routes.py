"""The URL map of the demo site (documented in ``docs/demo-site.md``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pressmark.demo import _extras, _interactive, _pages, _shells
from pressmark.demo._chrome import INFO_PAGES, SECTIONS
from pressmark.demo._faults import fault
from pressmark.demo._http import Fault, Request, Response

if TYPE_CHECKING:
    from pressmark.demo._site import DemoSite

_API_PAGE = re.compile(r"^/api/pages/(\d{4,5})\.json$")
_API_LAZY = re.compile(r"^/api/lazy/(\d+)\.json$")
_INFO = dict(INFO_PAGES)
_TARGET = "/special/redirect-target"


def _redirect(status: int, location: str, *, cacheable: bool = True) -> Response:
    body = (f'<!DOCTYPE html>\n<html><head><title>Moved</title></head><body><p>Moved to '
            f'<a href="{location}">{location}</a>.</p></body></html>\n').encode()
    return Response(status=status, body=body, headers=(("Location", location),),
                    cacheable=cacheable)


def _text(status: int, text: str, *pairs: tuple[str, str], cacheable: bool = True) -> Response:
    return Response(status=status, body=text.encode("utf-8"), headers=pairs,
                    content_type="text/plain; charset=utf-8", cacheable=cacheable)


def _bump(request: Request, key: str) -> int:
    value = request.counters.get(key, 0) + 1
    request.counters[key] = value
    return value


def respond(site: DemoSite, request: Request) -> Response | Fault:
    path = request.path
    origin = request.origin
    if path == "/":
        return _pages.home(site, origin)
    if path == "/robots.txt":
        return _extras.robots(site, origin)
    if path == "/robots-moved.txt":
        body = _extras.robots_body(site, origin).encode("utf-8")
        return Response(status=200, body=body, content_type="text/plain; charset=utf-8")
    if path == "/sitemap.xml":
        return _extras.sitemap_index(origin)
    if path == "/sitemaps/articles.xml":
        return _extras.sitemap_articles(site, origin)
    if path == "/sitemaps/images.xml":
        return _extras.sitemap_images(site, origin)
    if path == "/sitemaps/more.xml.gz":
        return _extras.sitemap_more(site, origin)
    if path.startswith("/sections/") and path[10:] in SECTIONS:
        return _pages.section(site, origin, path[10:])
    if path in _INFO:
        return _pages.info(origin, path, _INFO[path])
    if path.startswith(("/articles/", "/stories/")):
        item = site.item_by_path.get(path)
        if item is None:
            return _pages.soft_404(origin, path, status=404)
        if path.startswith("/articles/"):
            return _pages.article(site, origin, item.page_id)
        return _shells.shell_page(site, item.page_id)
    if path.startswith("/api/"):
        return _api(site, request)
    if path.startswith("/special/"):
        return _special(site, request)
    if path.startswith("/redirect/"):
        return _redirects(site, request)
    if path.startswith("/charset/"):
        return _extras.charset(path) or _pages.soft_404(origin, path, status=404)
    if path.startswith("/cache/"):
        response = _extras.cache(path, _bump(request, "cache-changing"))
        return response or _pages.soft_404(origin, path, status=404)
    if path in ("/private/", "/private/open") or re.fullmatch(r"/private/[1-4]", path):
        return _pages.private(origin, path)
    if path.startswith("/fault/") and site.faults:
        return _faults(request)
    if path == "/signin":
        return _pages.sign_in(origin, path)
    if path == "/search" or path.startswith(("/account/", "/share/")):
        return _pages.private(origin, path)
    asset = _extras.asset(path)
    if asset is not None:
        return asset
    return _pages.soft_404(origin, path, status=404)


def _api(site: DemoSite, request: Request) -> Response:
    path = request.path
    match = _API_PAGE.match(path)
    if match:
        page_id = int(match.group(1))
        if page_id < site.size and site.item(page_id).kind.startswith("shell"):
            return _shells.api_response(site, page_id)
    match = _API_LAZY.match(path)
    if match and int(match.group(1)) in _interactive.LAZY_SECTIONS:
        return _interactive.lazy_api(site.seed, int(match.group(1)))
    if path == "/api/live.json":
        count = 1000 + _bump(request, "live")
        return Response(status=200, body=b'{"count": %d}' % count,
                        content_type="application/json", cacheable=False)
    return Response(status=404, body=b'{"error": "not found"}', content_type="application/json")


def _special(site: DemoSite, request: Request) -> Response:
    path, origin = request.path, request.origin
    if path == "/special/lazy":
        return _interactive.lazy_page(site.seed, origin)
    if path == "/special/tabs":
        return _interactive.tabs_page(site.seed, origin)
    if path == "/special/live":
        return _interactive.live_page(site.seed, origin, 1000 + _bump(request, "live"))
    if path == "/special/soft-404":
        return _pages.soft_404(origin, path, status=200)
    if path == "/special/wrong-locale":
        return _pages.wrong_locale(site, origin)
    if path == _TARGET:
        return _pages.redirect_target(origin, path)
    if path in ("/special/meta-refresh", "/special/js-redirect"):
        return _pages.client_redirect(origin, path)
    if path in ("/special/meta-refresh-disallowed", "/special/js-redirect-disallowed"):
        return _pages.client_redirect(origin, path, "/private/2")
    if path == "/special/links":
        targets = [t for t in request.query.get("to", "").split(",") if t]
        return _pages.link_list(origin, path, targets)
    return _pages.soft_404(origin, path, status=404)


def _redirects(site: DemoSite, request: Request) -> Response:
    path, origin = request.path, request.origin
    simple = {
        "/redirect/301": (301, _TARGET),
        "/redirect/302": (302, origin + _TARGET),
        "/redirect/307": (307, "../special/redirect-target"),
        "/redirect/308": (308, origin + _TARGET),
        "/redirect/chain": (301, "/redirect/chain/2"),
        "/redirect/chain/2": (302, origin + "/redirect/chain/3"),
        "/redirect/chain/3": (307, "4"),
        "/redirect/chain/4": (308, origin + _TARGET),
        "/redirect/loop": (302, "/redirect/loop/b"),
        "/redirect/loop/b": (302, "/redirect/loop"),
        "/redirect/to-disallowed": (302, "/redirect/to-disallowed-target"),
        "/redirect/to-article": (301, site.item(site.first_article_id()).path),
        "/redirect/to-home": (302, "/"),
        "/redirect/to-login": (302, "/signin?next=/members/story"),
    }
    if path in simple:
        status, location = simple[path]
        return _redirect(status, location)
    if path == "/redirect/to-disallowed-target":
        return _pages.redirect_target(origin, path)
    match = re.fullmatch(r"/redirect/n/(\d{1,4})", path)
    if match:
        hops = int(match.group(1))
        if hops == 0:
            return _pages.redirect_target(origin, path)
        return _redirect(302, f"/redirect/n/{hops - 1}")
    return _pages.soft_404(origin, path, status=404)


def _faults(request: Request) -> Response | Fault:
    path, query = request.path, request.query
    name = path[len("/fault/"):]
    if name == "429":
        return _text(429, "slow down\n", ("Retry-After", query.get("retry_after", "2")),
                     cacheable=False)
    if name == "503":
        return _text(503, "try later\n", ("Retry-After", query.get("retry_after", "3")),
                     cacheable=False)
    if name == "503-date":
        return _text(503, "try later\n", ("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"))
    match = re.fullmatch(r"flaky/(\d{1,3})/([\w.-]{1,64})", name)
    if match:
        seen = _bump(request, "flaky:" + match.group(2))
        if seen <= int(match.group(1)):
            return _text(503, f"attempt {seen} failed\n", ("Retry-After", "0"),
                         cacheable=False)
        return _text(200, f"ok after {seen - 1} failures\n", cacheable=False)
    match = re.fullmatch(r"redirect-forever/(\d{1,9})", name)
    if match:
        return _redirect(302, f"/fault/redirect-forever/{int(match.group(1)) + 1}",
                         cacheable=False)
    raw = fault(name, query)
    if raw is not None:
        return raw
    return _text(404, "no such fault\n")
