"""Server-rendered HTML pages: home, sections, info pages, articles and special pages."""

from __future__ import annotations

import hashlib
import html
import json
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import TYPE_CHECKING

from pressmark.demo import _chrome as c
from pressmark.demo import _text
from pressmark.demo._http import Response

if TYPE_CHECKING:
    from pressmark.demo._site import DemoSite

SITE_DATE = "Mon, 02 Nov 2026 08:00:00 GMT"


def http_date(iso_day: str) -> str:
    year, month, day = (int(part) for part in iso_day.split("-"))
    return format_datetime(datetime(year, month, day, 9, 30, tzinfo=UTC), usegmt=True)


def etag_of(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:16] + '"'


def html_response(html: str, *, last_modified: str | None = SITE_DATE, status: int = 200,
                  cacheable: bool = True) -> Response:
    body = html.encode("utf-8")
    return Response(status=status, body=body, etag=etag_of(body) if status == 200 else None,
                    last_modified=last_modified if status == 200 else None, compressible=True,
                    cacheable=cacheable)


def _standard(*, origin: str, path: str, title: str, description: str, main: str,
              variant: int = 0, active: str | None = None, lang: str = "en",
              extra_head: str = "") -> str:
    head = c.head_html(title=title, description=description, canonical=origin + path,
                       lang=lang, extra=extra_head, variant=variant)
    body = (f"{c.header_nav(active)}{main}{c.newsletter() if variant != 2 else ''}"
            f"{c.footer()}")
    return c.page_html(head=head, body=body, variant=variant)


def _link_list(site: DemoSite, ids: list[int], cls: str) -> str:
    items = []
    for page_id in ids:
        item = site.item(page_id)
        items.append(f'<li><a href="{c.e(item.path)}">{c.e(item.title)}</a></li>')
    return f'<ul class="{cls}">{"".join(items)}</ul>'


def home(site: DemoSite, origin: str) -> Response:
    visible = [site.page(p) for p in site.home_links() if p.startswith(("/articles/", "/stories/"))]
    top = "".join(f'<li><a href="{c.e(p.path)}">{c.e(p.title)}</a></li>' for p in visible)
    lab_labels = {
        "/special/lazy": "A long read (loads on scroll)", "/special/tabs": "Timetables (tabs)",
        "/special/live": "Live coverage", "/special/soft-404": "An old link",
        "/special/wrong-locale": "En français", "/special/redirect-target": "Arrivals",
        "/private/open": "Open letter from members", "/redirect/to-article": "A moved story",
        "/redirect/chain": "A story that moved four times",
        "/special/meta-refresh": "A story that moved (meta refresh)",
        "/special/js-redirect": "A story that moved (script)",
    }
    lab = []
    for path in site.home_links():
        if path in {p.path for p in visible}:
            continue
        label = lab_labels.get(path, path.rsplit("/", 1)[1].replace("-", " ").replace("_", " "))
        lab.append(f'<li><a href="{c.e(path)}">{c.e(label)}</a></li>')
    lab.append('<li><a href="/special/redirect-target">Arrivals board</a></li>')
    main = (
        '<main id="content"><h1>The Pressmark Gazette</h1>'
        '<p class="tagline">Slow news from quiet towns, generated fresh for every seed.</p>'
        f'<section class="top-stories"><h2>Top stories</h2><ul>{top}</ul></section>'
        f'<section class="lab"><h2>From the archive</h2><ul>{"".join(lab)}</ul></section>'
        "</main>\n"
    )
    html = _standard(origin=origin, path="/", title="Front page",
                     description="The front page of the Pressmark Gazette.", main=main)
    return html_response(html)


def section(site: DemoSite, origin: str, name: str) -> Response:
    members = site.section_members(name)
    crumbs = c.breadcrumbs([(f"/sections/{name}", name.capitalize())])
    main = (f'<main id="content">{crumbs}<h1>{c.e(name.capitalize())}</h1>'
            f"<p>The top {len(members)} stories from the {name} desk.</p>"
            f"{_link_list(site, members, 'story-list')}</main>\n")
    html = _standard(origin=origin, path=f"/sections/{name}", title=name.capitalize(),
                     description=f"Latest stories in {name}.", main=main, active=name)
    return html_response(html)


def info(origin: str, path: str, title: str) -> Response:
    rng = _text.rng_for(0, "info", path)
    paragraphs = "".join(f"<p>{c.e(_text.sentence(rng))} {c.e(_text.sentence(rng))}</p>"
                         for _ in range(3))
    main = (f'<main id="content">{c.breadcrumbs([(path, title)])}<h1>{c.e(title)}</h1>'
            f"{paragraphs}</main>\n")
    html = _standard(origin=origin, path=path, title=title, description=title, main=main)
    return html_response(html)


def article(site: DemoSite, origin: str, page_id: int) -> Response:
    item = site.item(page_id)
    content = site.content_by_id(page_id)
    variant = item.variant
    layout = c.VARIANTS[variant]
    french = ""
    if page_id == site.first_article_id():
        french = ' · <a href="/special/wrong-locale" hreflang="fr">Lire en français</a>'
    meta = (f'<p class="byline">By <span class="author">{c.e(content.author)}</span> · '
            f'<time datetime="{content.published}">{content.published}</time> · '
            f'<span class="section-label">{c.e(item.section.capitalize())}</span>{french}</p>')
    next_links = ""
    if item.children:
        next_links = ('<nav class="read-next" aria-label="Continue reading"><h2>Continue '
                      f"reading</h2>{_link_list(site, item.children, 'next-list')}</nav>")
    inner = c.content_html(content.title, meta, content.blocks, next_links)
    related = [(site.item(i).path, site.item(i).title) for i in item.related]
    crumbs = c.breadcrumbs([(f"/sections/{item.section}", item.section.capitalize()),
                            (item.path, item.title)])
    share = c.share_buttons(item.path, item.title)
    if variant == 0:
        inner = c.ad_slot("top") + inner + c.ad_slot("bottom")
    elif variant == 2:
        rng = _text.rng_for(site.seed, page_id, "comments")
        share += c.comments([(_text.person(rng), _text.sentence(rng))
                             for _ in range(rng.randint(2, 4))])
    body = c.wrap_variant(layout, inner=inner, aside=c.related_aside(related), share=share,
                          crumbs=crumbs)
    extra = ""
    if page_id == site.first_article_id():
        extra = '<link rel="alternate" hreflang="fr" href="/special/wrong-locale">\n'
    if variant == 1:
        ld = {"@context": "https://schema.org", "@type": "NewsArticle",
              "headline": content.title, "datePublished": content.published,
              "author": {"@type": "Person", "name": content.author}}
        extra += ('<script type="application/ld+json">'
                  f"{json.dumps(ld, sort_keys=True)}</script>\n")
    extra += ("<script>window.dataLayer=window.dataLayer||[];"
              "window.dataLayer.push({event:'pageview'});</script>\n")
    html = _standard(origin=origin, path=item.path, title=content.title,
                     description=content.summary, main=body, variant=variant,
                     active=item.section, extra_head=extra)
    return html_response(html, last_modified=http_date(content.published))


def soft_404(origin: str, path: str, *, status: int) -> Response:
    main = ('<main id="content" class="error-page"><h1>Page not found</h1>'
            "<p>Sorry, we couldn't find the page you were looking for. It may have been "
            'moved or deleted.</p><p><a href="/">Return to the front page</a></p></main>\n')
    html = _standard(origin=origin, path=path, title="Page not found",
                     description="Page not found", main=main)
    return html_response(html, status=status)


def wrong_locale(site: DemoSite, origin: str) -> Response:
    first = site.item(site.first_article_id())
    paragraphs = "".join(f"<p>{c.e(text)}</p>" for text in _text.FRENCH)
    main = (f'<main id="content"><h1>Le port tranquille rouvre</h1>{paragraphs}'
            f'<p><a href="{c.e(first.path)}" hreflang="en">Read in English</a></p></main>\n')
    extra = f'<link rel="alternate" hreflang="en" href="{c.e(first.path)}">\n'
    html = _standard(origin=origin, path="/special/wrong-locale",
                     title="Le port tranquille rouvre", description="Version française",
                     main=main, lang="fr", extra_head=extra)
    return html_response(html)


def redirect_target(origin: str, path: str) -> Response:
    main = ('<main id="content"><h1>You have arrived</h1><p>This page is where every '
            "redirect chain on the demo site ends. Its text never changes.</p></main>\n")
    html = _standard(origin=origin, path=path, title="You have arrived",
                     description="Redirect target", main=main)
    return html_response(html)


def sign_in(origin: str, path: str) -> Response:
    """A 200 login form: where a paywalled or members-only route sends a crawler."""
    main = ('<main id="content"><h1>Sign in</h1><p>Sign in to keep reading. Members get '
            "every story, the archive and the newsletter.</p><form method=\"post\" "
            'action="/signin"><label>Email <input name="email"></label><label>Password '
            '<input name="password" type="password"></label><button>Sign in</button></form>'
            "</main>\n")
    return html_response(_standard(origin=origin, path=path, title="Sign in",
                                   description="Sign in", main=main))


def link_list(origin: str, path: str, targets: list[str]) -> Response:
    """A page that links exactly ``targets`` (absolute URLs, for cross-host scope tests)."""
    items = "".join(f'<li><a href="{html.escape(t, quote=True)}">{html.escape(t)}</a></li>'
                    for t in targets)
    main = f'<main id="content"><h1>Elsewhere</h1><ul class="links">{items}</ul></main>\n'
    return html_response(_standard(origin=origin, path=path, title="Elsewhere",
                                   description="Links to other hosts", main=main),
                         cacheable=False)


def private(origin: str, path: str) -> Response:
    links = ""
    if path == "/private/":
        links = "<ul>" + "".join(f'<li><a href="/private/{n}">Members note {n}</a></li>'
                                 for n in range(1, 5))
        links += '<li><a href="/private/open">Open letter</a></li></ul>'
    title = "Open letter from members" if path == "/private/open" else "Member area"
    main = (f'<main id="content"><h1>{title}</h1><p>Notes for members at {c.e(path)}. '
            f"Well-behaved crawlers never read this unless robots.txt allows it.</p>{links}"
            "</main>\n")
    html = _standard(origin=origin, path=path, title=title, description=title, main=main)
    return html_response(html)


def client_redirect(origin: str, path: str, target: str = "/special/redirect-target") -> Response:
    """A 200 page that moves the browser on: by meta refresh or by script after 100 ms."""
    extra = ""
    script = ""
    if path.startswith("/special/meta-refresh"):
        extra = f'<meta http-equiv="refresh" content="0; url={target}">\n'
    else:
        script = (f"<script>setTimeout(function () {{ location.replace({target!r}); }}, 100);"
                  "</script>\n")
    main = ('<main id="content"><h1>Redirecting</h1><p>This story has moved. If nothing '
            f"happens, the new page is at {target}.</p></main>\n{script}")
    html = _standard(origin=origin, path=path, title="Redirecting", description="Moved",
                     main=main, extra_head=extra)
    return html_response(html)
