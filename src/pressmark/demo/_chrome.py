"""HTML for content blocks and the page chrome around them.

Three template variants keep extractors honest: one wraps the content in ``<main>``,
one in ``<article>`` without ``<main>``, one only in ``<div>`` elements with class
names. The chrome (cookie banner, nav, breadcrumbs, share buttons, related aside,
newsletter prompt, footer) is link-heavy on purpose.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from pressmark.demo._content import Block, Run

SECTIONS = ("world", "science", "technology", "culture", "business", "health", "sport",
            "opinion")
INFO_PAGES = (("/about", "About us"), ("/contact", "Contact"), ("/privacy", "Privacy"),
              ("/terms", "Terms of use"))
VARIANTS = ("main", "article", "div")


def e(text: str) -> str:
    return escape(text, quote=True)


def runs_html(runs: list[Run]) -> str:
    out: list[str] = []
    for run in runs:
        kind, text = run[0], e(run[1])
        if kind == "a":
            out.append(f'<a href="{e(run[2])}">{text}</a>')
        elif kind == "t":
            out.append(text)
        else:
            out.append(f"<{kind}>{text}</{kind}>")
    return "".join(out)


def _list_html(block: Block) -> str:
    tag = block["type"]
    items: list[str] = []
    for item in block["items"]:
        child = _list_html(item["children"]) if "children" in item else ""
        items.append(f"<li>{e(item['text'])}{child}</li>")
    return f"<{tag}>{''.join(items)}</{tag}>"


def _table_html(block: Block) -> str:
    head = "".join(f'<th colspan="{span}">{e(text)}</th>' if span > 1 else f"<th>{e(text)}</th>"
                   for text, span in block["head"])
    sub = "".join(f"<th>{e(text)}</th>" for text in block["subhead"])
    rows = "".join("<tr>" + "".join(f"<td>{e(cell)}</td>" for cell in row) + "</tr>"
                   for row in block["rows"])
    foot = "".join(f'<td colspan="{span}">{e(text)}</td>' if span > 1 else f"<td>{e(text)}</td>"
                   for text, span in block["foot"])
    return (f'<table class="data"><caption>{e(block["caption"])}</caption>'
            f"<thead><tr>{head}</tr><tr>{sub}</tr></thead><tbody>{rows}</tbody>"
            f"<tfoot><tr>{foot}</tr></tfoot></table>")


def block_html(block: Block) -> str:
    kind = block["type"]
    if kind in ("h2", "h3", "h4"):
        return f"<{kind}>{e(block['text'])}</{kind}>"
    if kind == "p":
        cls = ' class="lede"' if block.get("lede") else ""
        return f"<p{cls}>{runs_html(block['runs'])}</p>"
    if kind in ("ul", "ol"):
        return _list_html(block)
    if kind == "table":
        return _table_html(block)
    if kind == "code":
        return (f'<pre><code class="language-{e(block["language"])}">{e(block["text"])}'
                "</code></pre>")
    if kind == "quote":
        return (f"<blockquote><p>{e(block['text'])}</p><footer>— "
                f"<cite>{e(block['cite'])}</cite></footer></blockquote>")
    if kind == "img":
        return (f'<figure><img src="{e(block["src"])}" alt="{e(block["alt"])}" width="640" '
                f'height="360" loading="lazy"><figcaption>{e(block["caption"])}</figcaption>'
                "</figure>")
    raise ValueError(f"unknown block type {kind!r}")


def head_html(*, title: str, description: str, canonical: str, lang: str = "en",
              extra: str = "", variant: int = 0) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{e(title)} | The Pressmark Gazette</title>\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="description" content="{e(description)}">\n'
        f'<link rel="canonical" href="{e(canonical)}">\n'
        f'<meta property="og:title" content="{e(title)}">\n'
        f'<meta property="og:url" content="{e(canonical)}">\n'
        '<meta property="og:site_name" content="The Pressmark Gazette">\n'
        f'<link rel="stylesheet" href="/static/site.css?v={variant}">\n'
        '<link rel="icon" href="/favicon.ico">\n'
        "<style>.sr-only{position:absolute;width:1px;height:1px;overflow:hidden}</style>\n"
        f"{extra}</head>\n"
    )


def cookie_banner(variant: int) -> str:
    position = "bottom" if variant % 2 else "top"
    return (
        f'<div id="cookie-consent" class="cookie-banner cookie-{position}" role="dialog" '
        'aria-label="Cookie consent"><p>We use cookies to remember your preferences and to '
        'measure how our pages are read. See our <a href="/privacy">privacy notice</a>.</p>'
        '<button type="button" class="accept">Accept all</button>'
        '<button type="button" class="reject">Reject non-essential</button>'
        '<a href="/privacy#cookies">Manage settings</a></div>\n'
    )


def header_nav(active: str | None) -> str:
    items = []
    for name in SECTIONS:
        current = ' aria-current="page"' if name == active else ""
        items.append(f'<li><a href="/sections/{name}"{current}>{name.capitalize()}</a></li>')
    info = "".join(f'<li><a href="{path}">{e(label)}</a></li>' for path, label in INFO_PAGES)
    return (
        '<header class="site-header"><a class="skip-link" href="#content">Skip to content</a>'
        '<a class="logo" href="/">The Pressmark Gazette<span class="sr-only"> home</span></a>'
        f'<nav class="primary-nav" aria-label="Sections"><ul>{"".join(items)}</ul></nav>'
        f'<nav class="secondary-nav" aria-label="Site"><ul>{info}'
        '<li><a href="/account/login">Sign in</a></li>'
        '<li><a href="/account/subscribe">Subscribe</a></li></ul></nav>'
        '<form class="search" action="/search" method="get" role="search">'
        '<input type="search" name="q" placeholder="Search"><button>Search</button></form>'
        "</header>\n"
    )


def breadcrumbs(trail: Sequence[tuple[str, str]]) -> str:
    parts = ['<li><a href="/">Home</a></li>']
    for index, (path, label) in enumerate(trail):
        if index == len(trail) - 1:
            parts.append(f'<li aria-current="page">{e(label)}</li>')
        else:
            parts.append(f'<li><a href="{e(path)}">{e(label)}</a></li>')
    return f'<nav class="breadcrumbs" aria-label="Breadcrumb"><ol>{"".join(parts)}</ol></nav>\n'


_ICON = ('<svg class="icon" width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">'
         '<path d="M2 2h12v12H2z" fill="currentColor"/></svg>')


def share_buttons(path: str, title: str) -> str:
    quoted = e(path.replace("/", "%2F"))
    return (
        '<div class="share" aria-label="Share this article"><span>Share:</span>'
        f'<a class="share-x" href="/share/x?u={quoted}">{_ICON}Post</a>'
        f'<a class="share-fb" href="/share/facebook?u={quoted}">Facebook</a>'
        f'<a class="share-in" href="/share/linkedin?u={quoted}">LinkedIn</a>'
        f'<a class="share-mail" href="mailto:?subject={e(title)}">Email</a>'
        '<a class="share-copy" href="javascript:void(0)">Copy link</a></div>\n'
    )


def related_aside(related: Sequence[tuple[str, str]]) -> str:
    items = "".join(f'<li><a href="{e(p)}">{e(t)}</a></li>' for p, t in related)
    return (f'<aside class="related" aria-label="Related articles"><h2>Related articles</h2>'
            f"<ul>{items}</ul></aside>\n")


def newsletter() -> str:
    return (
        '<div class="newsletter-signup"><h2>Get the morning briefing</h2><p>One email a day '
        "with the stories that matter. No spam, unsubscribe at any time.</p>"
        '<form action="/newsletter" method="post"><input type="email" name="email" '
        'placeholder="you@example.org"><button>Sign up</button></form></div>\n'
    )


def footer() -> str:
    sections = "".join(f'<li><a href="/sections/{n}">{n.capitalize()}</a></li>'
                       for n in SECTIONS)
    company = "".join(f'<li><a href="{p}">{e(t)}</a></li>' for p, t in INFO_PAGES)
    return (
        '<footer class="site-footer"><div class="footer-columns">'
        f'<div class="col"><h3>Sections</h3><ul>{sections}</ul></div>'
        f'<div class="col"><h3>Company</h3><ul>{company}</ul></div>'
        '<div class="col"><h3>Members</h3><ul><li><a href="/private/">Member area</a></li>'
        '<li><a href="/account/login">Sign in</a></li></ul></div>'
        '<div class="col"><h3>Help</h3><ul><li><a href="mailto:desk@gazette.invalid">'
        'Email the desk</a></li><li><a href="tel:+15550100">Call us</a></li>'
        '<li><a href="#top">Back to top</a></li></ul></div></div>'
        "<p class=\"legal\">© 2026 The Pressmark Gazette. All rights reserved.</p>"
        "</footer>\n"
    )


def ad_slot(name: str) -> str:
    return (f'<div class="ad-slot ad-{name}" aria-hidden="true"><span class="ad-label">'
            "Advertisement</span><div class=\"ad-frame\"></div></div>\n")


def comments(entries: Sequence[tuple[str, str]]) -> str:
    items = "".join(f'<li class="comment"><p class="comment-author">{e(who)}</p>'
                    f'<p class="comment-body">{e(text)}</p></li>' for who, text in entries)
    return (f'<section class="comments" aria-label="Comments"><h2>{len(entries)} comments'
            f'</h2><ol class="comment-list">{items}</ol><p><a href="/account/login">Sign in'
            "</a> to join the conversation.</p></section>\n")


def content_html(title: str, meta: str, blocks: Sequence[Block], next_links: str) -> str:
    body = "".join(block_html(b) for b in blocks)
    return f"<h1>{e(title)}</h1>\n{meta}\n{body}\n{next_links}"


def wrap_variant(variant: str, *, inner: str, aside: str, share: str, crumbs: str) -> str:
    """Place content and its neighbours in one of the three layout variants."""
    if variant == "main":
        return (f'<main id="content">{crumbs}<div class="entry">{inner}</div>{share}</main>\n'
                f"{aside}")
    if variant == "article":
        return (f'<div class="container">{crumbs}<article class="post" id="content">{inner}'
                f"{share}</article>{aside}</div>\n")
    return (f'<div class="page-wrapper">{crumbs}<div class="content-area" id="content">'
            f'<div class="post-body">{inner}</div>{share}</div>'
            f'<div class="sidebar">{aside}</div></div>\n')


def page_html(*, head: str, body: str, variant: int) -> str:
    pixel = ('<noscript><img src="/img/pixel.png" alt="" width="1" height="1"></noscript>\n'
             if variant != 1 else "")
    return (f"{head}<body id=\"top\">\n{cookie_banner(variant)}{body}{pixel}"
            "<div hidden>Tracking consent state: pending</div>\n</body>\n</html>\n")
