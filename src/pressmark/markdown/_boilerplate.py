"""Named boilerplate rules: which elements are page chrome rather than content.

Each rule has a stable name that appears in the evidence packet
(``boilerplate_rules_used``) whenever it removed something. Signals, strongest
first: the element's tag, its ARIA role, and whole words of its ``class`` /
``id`` (``related-posts`` -> ``related``, ``shareBar`` -> ``share``). Words,
not substrings: ``header`` does not match ``ad``.

Pattern rules are only *signals*. An element that matches but carries most of
the page's content (a layout wrapper called ``has-sidebar``) is kept; the
selection code applies that guard.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pressmark.markdown._tree import Node

TAG_RULES = {
    "nav": "exclude_nav",
    "aside": "exclude_aside",
    "footer": "exclude_footer",
    "form": "exclude_form",
    "figcaption": "exclude_caption",
}

_ROLE_RULES = {
    "navigation": "exclude_nav",
    "menu": "exclude_nav",
    "menubar": "exclude_nav",
    "toolbar": "exclude_nav",
    "tablist": "exclude_nav",
    "search": "exclude_nav",
    "banner": "exclude_site_header",
    "contentinfo": "exclude_footer",
    "complementary": "exclude_aside",
    "dialog": "exclude_dialog",
    "alertdialog": "exclude_dialog",
}

_WORD_RULES: dict[str, str] = {}
for _rule, _words in {
    "exclude_nav": "nav navbar navigation menu menubar submenu breadcrumb breadcrumbs crumbs "
                   "pagination pager prev previous skip skiplink toc",
    "exclude_footer": "footer",
    "exclude_aside": "sidebar aside rail widget widgets",
    "exclude_cookie_banner": "cookie cookies consent gdpr ccpa cmp onetrust",
    "exclude_dialog": "modal popup overlay dialog lightbox interstitial",
    "exclude_share": "share sharing sharebar social sns",
    "exclude_subscribe": "subscribe subscription newsletter signup login signin "
                         "registration",
    "exclude_related": "related recommended recommendations recirc recirculation popular "
                       "trending outbrain taboola teaser teasers",
    "exclude_comments": "comment comments disqus respond",
    "exclude_ads": "ad ads adv advert adverts advertisement advertising adslot adunit dfp "
                   "sponsor sponsored promo promotion promoted",
    "exclude_byline": "byline dateline timestamp meta",
    "exclude_tags": "tags tagcloud keywords topics",
    "exclude_feedback": "feedback survey rating vote print",
    "exclude_caption": "caption captions credit credits",
}.items():
    for _word in _words.split():
        _WORD_RULES[_word] = _rule

_WHOLE_RULES = {
    "sr-only": "exclude_screen_reader_text",
    "visually-hidden": "exclude_screen_reader_text",
    "visuallyhidden": "exclude_screen_reader_text",
    "screen-reader-text": "exclude_screen_reader_text",
    "hidden": "exclude_hidden",
    "hide": "exclude_hidden",
    "d-none": "exclude_hidden",
}

# "content-with-sidebar", "main-nav-wrapper"? Layout words next to a content word in
# the same class name describe a wrapper, not chrome (readability's "okMaybe" idea).
_POSITIVE = frozenset(("content", "article", "main", "body", "story", "entry", "post", "text",
                       "column"))
_LAYOUT_RULES = frozenset(("exclude_aside", "exclude_nav", "exclude_footer", "exclude_byline",
                           "exclude_tags"))

_SPLIT = re.compile(r"[^A-Za-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@functools.lru_cache(maxsize=8192)  # a pure memo: class strings repeat a lot within a site
def words_rule(value: str) -> str | None:
    rule: str | None = None
    for name in value.split():
        whole = _WHOLE_RULES.get(name.lower())
        if whole is not None:
            rule = whole
            break
        words = [w.lower() for w in _SPLIT.split(_CAMEL.sub(" ", name)) if w]
        for word in words:
            found = _WORD_RULES.get(word)
            if found is not None and not (found in _LAYOUT_RULES and _POSITIVE.intersection(words)):
                rule = found
                break
        if rule is not None:
            break
    return rule


def match(node: Node) -> str | None:
    """The name of the first boilerplate rule this element matches, if any."""
    rule = TAG_RULES.get(node.tag)
    if rule is not None:
        parent = node.parent
        # <blockquote><p>..</p><footer>- Author</footer></blockquote>: the attribution
        if not (rule == "exclude_footer" and parent is not None
                and parent.tag in ("blockquote", "figure")):
            return rule
    attrs = node.attrs
    if not attrs:
        return None
    role = attrs.get("role")
    if role:
        rule = _ROLE_RULES.get(role.strip().lower())
        if rule is not None:
            return rule
    for key in ("id", "class"):
        value = attrs.get(key)
        if value:
            rule = words_rule(value)
            if rule is not None:
                return rule
    return None


_LOADING = re.compile(
    r"^\W*(?:loading|please wait|advert|advertisement|sponsored(?: content)?"
    r"|skip to (?:main )?content|\d* ?comments?|close|read more|learn more|see more|show more"
    r"|view all(?: \(\d+\))?|don.t miss|text size|share(?: this)?(?: article| story)?"
    r"|print|e-?mail|tweet|you may also like|related(?: posts?| articles?| stories)?"
    r"|recommended(?: for you)?|more (?:stories|news|from \w+)|tags?|filed under"
    r"|continue reading|click here|subscribe(?: now)?|sign up|log ?in)\W*$",
    re.IGNORECASE,
)


def is_placeholder(text: str) -> bool:
    """Text that is UI state or a UI label, not content ("Loading...", "Read more")."""
    return len(text) < 40 and _LOADING.match(text) is not None
