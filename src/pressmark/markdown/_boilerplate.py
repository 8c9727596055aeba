"""Named boilerplate rules: which elements are page chrome rather than content.

Each rule has a stable name that appears in the evidence packet
(``boilerplate_rules_used``) whenever it removed something. Signals, strongest
first: the element's tag, its ARIA role, and whole words of its ``class`` /
``id`` (``related-posts`` -> ``related``, ``shareBar`` -> ``share``). Words,
not substrings: ``header`` does not match ``ad``.

Text rules (what markup does not name: UI labels, headings that open a chrome
section, credits, paywall, survey and consent prompts) live in ``_text_rules``.

Pattern rules are only *signals*. An element that matches but carries most of
the page's content (a layout wrapper called ``has-sidebar``) is kept; the
selection code applies that guard.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from pressmark.markdown._lazy_re import LazyPattern

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

    from pressmark.markdown._tree import Node

TAG_RULES: Final = {
    "nav": "exclude_nav",
    "aside": "exclude_aside",
    "footer": "exclude_footer",
    "form": "exclude_form",
}

_ROLE_RULES: Final = {
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

_WORD_RULES: Final[dict[str, str]] = {}
for _rule, _words in {
    "exclude_nav": "nav navbar navigation menu menubar submenu breadcrumb breadcrumbs crumbs "
                   "pagination pager prev previous skip skiplink toc",
    "exclude_footer": "footer legal legalnotice",
    "exclude_aside": "sidebar aside rail widget widgets",
    "exclude_cookie_banner": "cookie cookies consent gdpr ccpa cmp onetrust",
    "exclude_dialog": "modal popup overlay dialog lightbox interstitial",
    # class/id words in other languages than English are common on European sites
    "exclude_share": "share sharing sharebar social sns teilen partager compartir "
                     "condividi delen partilhar",
    "exclude_subscribe": "subscribe subscription newsletter signup login signin "
                         "registration",
    # not "paywall" or "piano": publishers wrap the article itself in those to gate it
    "exclude_related": "related recommended recommendations recirc recirculation popular "
                       "trending outbrain taboola teaser teasers mostread mostpopular "
                       "verwandt weiterlesen empfehlungen relacionados relacionadas "
                       "correlati relacionadas similaires gerelateerd",
    "exclude_comments": "comment comments disqus respond kommentare kommentar comentarios "
                        "commentaires commenti reacties komentarze",
    "exclude_ads": "ad ads adv advert adverts advertisement advertising adslot adunit dfp "
                   "sponsor sponsored promo promotion promoted anzeige werbung publicidad "
                   "publicite pubblicita publicidade reklame reklama advertentie",
    # who wrote it, and the forum's card beside each post (avatar, rank, post count)
    "exclude_byline": "byline dateline timestamp meta bio authorbox avatar "
                      "usercard userinfo userdetails gravatar",
    # a forum post's signature line; elsewhere a declaration (DocBook's "func_signature",
    # javadoc's "member-signature"): chrome on a thread only (``THREAD_RULES``)
    "exclude_signature": "signature",
    "exclude_tags": "tags tagcloud keywords topics",
    "exclude_feedback": "feedback survey rating vote print",
    "exclude_caption": "caption captions credit credits copyright attribution",
}.items():
    for _word in _words.split():
        _WORD_RULES[_word] = _rule

_WHOLE_RULES: Final = {
    "sr-only": "exclude_screen_reader_text",
    "visually-hidden": "exclude_screen_reader_text",
    "visuallyhidden": "exclude_screen_reader_text",
    "screen-reader-text": "exclude_screen_reader_text",
    "off-screen": "exclude_screen_reader_text",
    "offscreen": "exclude_screen_reader_text",
    "hidden": "exclude_hidden",
    "hide": "exclude_hidden",
    "d-none": "exclude_hidden",
}

# "content-with-sidebar", "main-nav-wrapper"? Layout words next to a content word in
# the same class name describe a wrapper, not chrome (readability's "okMaybe" idea).
_POSITIVE: Final = frozenset(("content", "article", "body", "story", "entry", "post",
                              "text", "column", "recipe"))
# An API reference's "member-signature", "type-signature", "method-signature": the
# declaration of what the page documents, not a forum post's signature line
# (not "field": Drupal names every field so, "field-name-field-byline")
_CODE_WORDS: Final = frozenset(("member", "type", "method", "function", "constructor", "api"))
_LAYOUT_RULES: Final = frozenset(("exclude_aside", "exclude_nav", "exclude_footer",
                                  "exclude_byline", "exclude_tags"))

# Rules that name a *place* on the page (a sidebar, an overlay, the footer) rather than a
# kind of content (comments, ads, share buttons): single-page apps open whole articles
# in a "modal" and themes call the article column "aside". Such a place that holds much
# of the page's prose is the content's container, whatever its name (``_select``).
PLACE_RULES: Final = frozenset(("exclude_aside", "exclude_nav", "exclude_footer",
                                "exclude_dialog", "exclude_byline", "exclude_site_header"))

# Rules whose word means chrome on a thread only: a forum post's signature line is the
# post's chrome, while a reference page's "signature" is the declaration it documents.
# Selection weighs such elements as content; pruning drops them on a thread (``_prune``).
THREAD_RULES: Final = frozenset(("exclude_signature",))

_MODIFIERS: Final = frozenset(("has", "with", "without", "no", "is"))
_RELATED: Final = "exclude_related"  # any word opening with "related"
_PROFILE: Final = "exclude_byline"   # a long word ending "profile" or "avatar"
PROFILE_WORD: Final = 7  # chars: a word longer than "profile" that ends so names a user card
_SPLIT: Final = LazyPattern(r"[^A-Za-z0-9]+")
_CAMEL: Final = LazyPattern(r"(?<=[a-z0-9])(?=[A-Z])")


SLUG_WORDS: Final = 4  # an id of this many words is a heading's slug ("sharing-with-a-team")


# The memos: class strings repeat a lot within a site and across a batch's pages, and
# each element's are read twice (the tree copy's chrome check, then the weighing). Plain
# dicts, emptied when full: compiled code reads a dict directly, where a function
# behind ``functools.lru_cache`` takes a generic call every time.
MEMO_SIZE: Final = 8192
_WORDS_SEEN: Final[dict[str, str | None]] = {}
_IDS_SEEN: Final[dict[str, str | None]] = {}


def words_rule(value: str) -> str | None:
    """The rule the first of a ``class`` value's names calls for, if any: its whole
    lower-cased self (``_WHOLE_RULES``), else its words (see ``_name_rule``)."""
    return _remembered(_WORDS_SEEN, value, 0)


def id_rule(value: str) -> str | None:
    """``words_rule`` for an ``id``, except that an id made from a heading is no signal.

    Documentation generators and CMSs give each section the slug of its heading
    (``id="sharing-with-a-single-developer"``); its words describe the text, not
    a page component, so a slug of ``SLUG_WORDS`` words or more matches nothing.
    """
    known = _IDS_SEEN.get(value, "")
    if known != "":
        return known
    if _composed(value):
        if len(_IDS_SEEN) >= MEMO_SIZE:
            _IDS_SEEN.clear()
        _IDS_SEEN[value] = None
        return None
    return _remembered(_IDS_SEEN, value, SLUG_WORDS)


def _composed(value: str) -> bool:
    """An id joined from identifiers, each camelCase, into ``SLUG_WORDS`` words or more
    (``operations-user-loginUser``: an API explorer's tag and operation): data naming
    the content, as a heading's slug is, not a page component."""
    # (ids are unique on a page, so most are read once: an id without a capital, most,
    # is spared the regular expression's look-behind at every character)
    if value.lower() == value or not _CAMEL.get().search(value) \
            or _SPLIT.get().search(value) is None:
        return False
    return len([w for w in _SPLIT.get().split(_CAMEL.get().sub(" ", value)) if w]) >= SLUG_WORDS


def _remembered(memo: dict[str, str | None], value: str, slug_words: int) -> str | None:
    known = memo.get(value, "")  # "" names no rule: not read yet
    if known != "":
        return known
    rule = _read_words(value, slug_words)
    if len(memo) >= MEMO_SIZE:
        memo.clear()
    memo[value] = rule
    return rule


def read_words_in_python(value: str, slug_words: int) -> str | None:
    """The reading of ``words_rule`` (``slug_words`` 0) and ``id_rule``, in Python.

    ``_native_words.c`` reads the same way in C (the tests hold the two to each other);
    this one stands in when the C module was not built.
    """
    if slug_words and len([w for w in _SPLIT.get().split(value) if w]) >= slug_words:
        return None
    for name in value.split():
        rule = _name_rule(name)
        if rule is not None:
            return rule
    return None


@functools.lru_cache(maxsize=8192)
def _name_rule(name: str) -> str | None:
    """The rule one class (or id) word names, if any.

    Its words are its runs of ASCII letters and digits, cut again where a small
    letter or a digit meets a capital ("shareBar": share, bar), lower-cased.
    """
    low = name.lower()
    whole = _WHOLE_RULES.get(low)
    if whole is not None:
        return whole
    if low != name:  # camelCase words ("shareBar") only when there is a capital
        words: list[str] = [w.lower() for w in _SPLIT.get().split(_CAMEL.get().sub(" ", name)) if w]
    elif name.isascii() and (dashed := name.replace("_", "-")).replace("-", "").isalnum():
        # the commonest shapes ("story", "post-content", "entry_title": lowercase ASCII
        # letters and digits, "-" and "_"; no capital, as ``low == name``): split by hand,
        # as ``_SPLIT`` would split them, with string methods only
        words = [w for w in dashed.split("-") if w] if "-" in dashed else [name]
    else:
        words = [w for w in _SPLIT.get().split(name) if w]
    if words and words[0] in _MODIFIERS:
        return None  # "has-sidebar", "no-comments": a state of the element, not what it is
    for word in words:
        found = _WORD_RULES.get(word)
        if found is None and word.startswith("related"):
            found = _RELATED  # run together: "relatedposts", "relatedStories"
        # two plain tests: compiled, each is a C call, where a tuple argument is a
        # generic method call
        elif found is None and len(word) > PROFILE_WORD and (word.endswith("profile")  # noqa: PIE810
                                                  or word.endswith("avatar")):
            found = _PROFILE  # "postprofile", "useravatar"
        if found is not None and _stands(found, words):
            return found
    if len(words) > 1:  # "user-info", "most-read", "tag-cloud": a compound of the list
        found = _WORD_RULES.get("".join(words))
        if found is not None and _stands(found, words):
            return found
    return None


def _stands(rule: str, words: list[str]) -> bool:
    """A layout rule does not stand beside a content word ("sidebar-content"), nor the
    byline rule beside a code word ("member-signature")."""
    if rule in _LAYOUT_RULES and _POSITIVE.intersection(words):
        return False
    return not (rule == _PROFILE and _CODE_WORDS.intersection(words))


def _load_reader() -> Callable[[str, int], str | None]:
    """The C reading when it was built, bound to this module's tables; else Python's."""
    try:
        from pressmark.markdown import _native_words  # noqa: PLC0415 - optional, built in C
    except ImportError:  # built without a C compiler
        return read_words_in_python
    _native_words.bind_word_rules(_WORD_RULES, _WHOLE_RULES, _MODIFIERS, _POSITIVE,
                                  _LAYOUT_RULES, _RELATED, _PROFILE, _CODE_WORDS)
    return _native_words.word_rule


# A page brings hundreds of class strings no memo has seen, and the Python reading of
# each (a lower-cased copy, regular-expression calls, a list per name) cost a twentieth
# of a conversion; in C, a tenth of that.
_read_words: Final = _load_reader()


def landmark_chrome(node: Node) -> bool:
    """Chrome by the page's own structure: a ``nav``, ``aside``, ``footer`` or ``form``
    element or a chrome landmark role; stronger than a class word, which may describe a
    listing's own table of contents ("toc") or menu."""
    if node.tag in TAG_RULES:
        return True
    role = node.attrs.get("role") if node.attrs else None
    return role is not None and role.strip().lower() in _ROLE_RULES


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
    value = attrs.get("id")
    if value and (rule := id_rule(value)) is not None:
        return rule
    value = attrs.get("class")
    rule = words_rule(value) if value else None
    if rule == "exclude_caption" and node.tag == "figcaption":
        return None  # a figure's caption is content ("wp-element-caption"); credits go
    return rule
