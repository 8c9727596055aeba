"""Page kinds: what a page is, decided from general signals, and what its main content is.

A page is one of ``KINDS``. Each kind says what selection must keep:

- ``article``: a run of prose by one author or desk (news, blog post, essay, report);
- ``documentation``: a page of a manual or a reference: prose with signatures, code,
  tables and definition lists, all of them content;
- ``listing``: an index, a table of contents, a category or archive page, search results:
  its list of links and short entries *is* the content;
- ``thread``: posts by several people (a forum thread, a Q&A page), every post kept with
  its author line;
- ``product``: one thing offered, its description and its specification table;
- ``application``: an interactive tool whose content lives inside its controls (an API
  explorer's operations are ``<button>`` elements);
- ``other``: none of these clearly (a home page, a profile, an error page).

Signals, all general (never a host name, a CMS's class name or a page's own threshold),
each counted outside chrome (elements a boilerplate rule named, ``_select``):

``prose``        chars of link-poor blocks of sentence length (the page's running text,
                 ``Node.prose`` of the body as ``_score`` weighs it)
``run``          the longest run of prose: chars of such blocks side by side in one parent
``entries``      chars of short blocks that are mostly links (list items, index entries,
                 menu items alike: ``Node.entry`` of the body; the chrome-named are not
                 counted, so what remains is mostly the page's own lists)
``code``         chars of code blocks, and inline code spans counted by their text (not
                 inside the link of an entry: a name in a table of contents)
``definitions``  definition-list terms (``<dt>``): API entries, glossaries (not a term that
                 is a link with no description: a table of contents set as a ``<dl>``)
``data``         cells of tables with a header row or column
``posts``        the prose chars of the largest group of sibling blocks of one kind (three
                 or more), each holding prose and an author or time mark (``<time>``, a
                 byline-named element)
``cards``        the largest group of sibling blocks of one kind, each a short teaser that
                 opens with a link (a linked headline or image)
``controls``     buttons whose text is content (several parts: a method, a path, a summary)
``schema``       the kind the page declares (JSON-LD ``@type``, microdata ``itemtype``,
                 ``og:type``), mapped onto ``KINDS``, or ``""``

``classify`` turns them into one evidence score per kind (each in [0, 1], documented
beside its constants below); the highest wins, ties in the order of ``KINDS``. A
declared schema adds ``SCHEMA_VOTE`` to its kind: a page's own word is strong, yet not
stronger than its structure (a site may call every page an ``Article``).

Deterministic: fixed iteration order, no hashing, no time.
"""

from __future__ import annotations

from pressmark.markdown._score import (
    ARTICLE_RUN,
    LINK_HEAVY,
    PROSE_BLOCK,
    PROSE_LINKS,
    reads_as_prose,
)
from pressmark.markdown._sections import CARD_MAX
from pressmark.markdown._sections import CARD_MIN_RUN as GROUP_MIN
from pressmark.markdown._tree import BLOCK_TAGS, HEADINGS, Node

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Any, Final

KINDS: Final = ("thread", "listing", "documentation", "product", "application", "article",
                "other")

# --- what one block is -----------------------------------------------------------------
# A prose block: ``_score.PROSE_BLOCK`` chars (alphabetic; scaled by the page's script
# density) and at most ``_score.PROSE_LINKS`` of its text in links, as selection reads it.
# A control with content: a button holding this many text-bearing children (a method, a
# path and a summary), as opposed to a label ("Submit", "Close", an icon)
CONTROL_PARTS: Final = 2
# Repeated siblings: a group needs ``_sections.CARD_MIN_RUN`` members of one tag and first
# class name; a teaser card holds ``_sections.CARD_MAX`` chars at most, as a teaser row's

# --- from signals to evidence (each score is in [0, 1]) ------------------------------
# article: a run of prose ``_score.ARTICLE_RUN`` chars long is an article's body
# listing: entries against running text. A page whose entries outweigh its prose
# ``LISTING_RATIO`` times over is a listing in full; a page of teaser cards too
# (``CARDS_FULL`` of them make it certain)
LISTING_RATIO: Final = 3.0
CARDS_FULL: Final = 6
LISTING_ENTRIES: Final = 250  # chars of entries a listing holds at least (ten short entries)
# documentation: reference structure, measured against the prose it sits in. Code chars
# and definition terms both count; ``DOC_TERMS`` terms or code as long as the prose run
# make it certain. A page of data tables alone is no reference (a product's
# specifications, a results table), so data cells count at a fifth
DOC_TERMS: Final = 4
DATA_WEIGHT: Final = 0.2
# thread: its posts hold this share of the page's prose (an article's comment thread holds
# less than the article; a forum thread's posts hold nearly all of it)
THREAD_SHARE: Final = 0.6
# application: controls with content; ``CONTROLS_FULL`` of them make it certain
CONTROLS_FULL: Final = 6
# a definition term with more than this share of its text in links and no description
# of its own is an entry, not a definition (a table of contents set as nested ``<dl>``)
ENTRY_TERM: Final = 0.5
# product: declared only (a price and a specification table look like many other pages)
# the weight a page's declared kind adds to its structural evidence
SCHEMA_VOTE: Final = 0.6
# below this evidence no kind is clear: "other"
KIND_MIN: Final = 0.5

_IMAGES: Final = frozenset(("img", "picture"))

# JSON-LD / microdata types and og:type values, by kind (lower-cased, last path part)
_SCHEMA_KINDS: Final = {
    "article": "article", "newsarticle": "article", "blogposting": "article",
    "reportagenewsarticle": "article", "report": "article", "analysisnewsarticle": "article",
    "opinionnewsarticle": "article", "scholarlyarticle": "article",
    "techarticle": "documentation", "apireference": "documentation",
    "howto": "documentation", "faqpage": "documentation",
    "product": "product", "offer": "product", "og:product": "product",
    "productgroup": "product", "book": "product", "softwareapplication": "product",
    "discussionforumposting": "thread", "qapage": "thread", "question": "thread",
    "socialmediaposting": "thread",
    "itemlist": "listing", "collectionpage": "listing", "searchresultspage": "listing",
    "webapplication": "application",
}


class PageKind:
    """The kind decided and the signals behind it (for the evidence packet); ``run_at``
    is the parent of the longest run of prose (``_settle`` looks there again),
    ``posts_at`` the parent of the largest group of posts (on a page that is no thread,
    a comment thread: ``_prune.drop_comments``)."""

    __slots__ = ("evidence", "name", "posts_at", "run", "run_at", "signals")

    def __init__(self, name: str, signals: dict[str, int | str],
                 evidence: dict[str, float], run_at: Node | None, run: int) -> None:
        self.name = name
        self.signals = signals
        self.evidence = evidence
        self.run_at = run_at
        self.run = run
        self.posts_at: Node | None = None

    def report(self) -> dict[str, float | int | str]:
        """Signals, then the evidence of each kind that had any, in a fixed order."""
        out: dict[str, float | int | str] = dict(self.signals)
        for kind in KINDS:
            score = self.evidence.get(kind, 0.0)
            if score > 0:
                out[f"evidence_{kind}"] = round(score, 3)
        return out


def classify(doc_nodes: list[Node], inchrome: list[bool], scale: float,
             schema: str) -> PageKind:
    """The page's kind from its tree (``doc_nodes``, parents first), the chrome marks of
    selection (``inchrome`` by node index), the script scale and the declared ``schema``."""
    counts, run_at, posts_at = measure(doc_nodes, inchrome, scale)
    evidence = _evidence(counts, schema)
    signals: dict[str, int | str] = dict(counts)
    signals["schema"] = schema
    best = "other"
    best_score = KIND_MIN
    for kind in KINDS:  # ties go to the earlier kind
        score = evidence.get(kind, 0.0)
        if score > best_score:
            best, best_score = kind, score
    page = PageKind(best, signals, evidence, run_at, counts["run"])
    page.posts_at = posts_at
    return page


def _ratio(value: float, full: float) -> float:
    """``value`` against the amount that makes a kind certain, capped at 1."""
    if full <= 0:
        return 1.0 if value > 0 else 0.0
    return min(1.0, value / full)


def _evidence(signals: dict[str, int], schema: str) -> dict[str, float]:
    """One score per kind in [0, 1] (plus ``SCHEMA_VOTE`` for the declared one)."""
    run = float(signals["run"])
    prose = float(signals["prose"])
    entries = float(signals["entries"])
    code = float(signals["code"])
    terms = float(signals["definitions"])
    data = float(signals["data"])
    posts = float(signals["posts"])
    cards = float(signals["cards"])
    controls = float(signals["controls"])
    article = _ratio(run, ARTICLE_RUN)
    evidence = {
        "article": article,
        # a run of prose speaks against a listing: a blog's sidebar of links can outweigh
        # its posts, an index holds no paragraphs side by side
        "listing": (1.0 - article) * max(
            _ratio(entries, LISTING_RATIO * max(prose, PROSE_BLOCK))
            if entries >= LISTING_ENTRIES else 0.0, _ratio(cards, CARDS_FULL)),
        "documentation": max(_ratio(code, max(run, PROSE_BLOCK)), _ratio(terms, DOC_TERMS),
                             DATA_WEIGHT * _ratio(data, DOC_TERMS)),
        "thread": _ratio(posts, THREAD_SHARE * prose),
        "application": _ratio(controls, CONTROLS_FULL),
    }
    if schema:
        evidence[schema] = evidence.get(schema, 0.0) + SCHEMA_VOTE
    return evidence


def measure(nodes: list[Node], inchrome: list[bool], scale: float,
            ) -> tuple[dict[str, int], Node | None, Node | None]:
    """The structural signals of the module docstring, in one pass, children first, the
    parent of the longest run of prose and the parent of the largest group of posts."""
    run = code = terms = data = posts = cards = controls = 0
    run_at: Node | None = None
    posts_at: Node | None = None
    # by node index, for the subtree: an author or time mark; a link to another page; a
    # linked heading or a linked image (what makes a teaser card a card)
    marked = [False] * len(nodes)
    links_out = [False] * len(nodes)
    visual = [False] * len(nodes)
    prose_floor = PROSE_BLOCK / scale
    for node in reversed(nodes):
        tag = node.tag
        mark = tag == "time" or node.bad == "exclude_byline"
        out = tag == "a" and "href" in node.attrs and not node.attr("href").startswith("#")
        seen = tag in _IMAGES and _linked(node)
        for child in node.elems:
            at = child.idx
            mark = mark or marked[at]
            out = out or links_out[at]
            seen = seen or visual[at]
        marked[node.idx] = mark
        links_out[node.idx] = out
        visual[node.idx] = seen or (tag in HEADINGS and (out or _linked(node)))
        if inchrome[node.idx]:
            continue
        if tag == "pre":
            code += node.own_len
        elif tag == "code" and node.text_len and not _in_entry(node):
            code += node.text_len  # (a name in a table of contents' link is an entry)
        elif tag == "dl":
            terms += _terms(node)
        elif tag == "dt" and (node.parent is None or node.parent.tag != "dl"):
            terms += 1  # (a term in a wrapper inside its list)
        elif tag == "th":
            data += 1
        elif tag == "button" and is_control(node):
            controls += 1
        elems = node.elems
        if elems:
            here = _prose_run(elems, prose_floor, inchrome)
            if here > run or (here == run and here and run_at is not None
                              and node.depth > run_at.depth):
                run, run_at = here, node
            if len(elems) >= GROUP_MIN:
                group_posts, group_cards = _groups(elems, marked, visual, prose_floor,
                                                   inchrome)
                if group_posts > posts:
                    posts, posts_at = group_posts, node
                cards = max(cards, group_cards)
    body = nodes[0]  # (scored by ``_score.weigh``: prose and entries outside chrome)
    return {"prose": int(body.prose * scale), "run": int(run * scale),
            "entries": int(body.entry * scale), "code": int(code * scale), "definitions": terms,
            "data": data, "posts": int(posts * scale), "cards": cards,
            "controls": controls}, run_at, posts_at


def _prose_run(elems: list[Node], floor: float, inchrome: list[bool]) -> int:
    """Chars of the prose blocks among ``elems`` (the children of one parent)."""
    total = 0
    for child in elems:
        own = child.own_len
        if own >= floor and child.tag in BLOCK_TAGS and reads_as_prose(child) \
                and child.own_link <= PROSE_LINKS * own and not inchrome[child.idx]:
            total += own
    return total


def _groups(elems: list[Node], marked: list[bool], visual: list[bool], prose_floor: float,
            inchrome: list[bool]) -> tuple[int, int]:
    """The prose of the largest group of posts, and the number of teaser cards of the
    largest group of cards, among one parent's children.

    A group is siblings of one tag and first class name (three or more); a post holds
    prose and an author or time mark; a card is short, opens with a link and carries a
    linked heading or image (``visual``; ``_sections._is_card`` reads a card the same way).
    """
    groups: dict[tuple[str, str], list[Node]] = {}
    for child in elems:
        if child.tag in BLOCK_TAGS and child.text_len and not inchrome[child.idx]:
            # by the first class name: "post bg1", "post bg2" alternate as one kind
            names = child.attr("class").split()
            groups.setdefault((child.tag, names[0] if names else ""), []).append(child)
    posts = cards = 0
    for group in groups.values():  # insertion order: deterministic
        if len(group) < GROUP_MIN:
            continue
        teasers = [n.text_len <= CARD_MAX and visual[n.idx] and n.link_len > 0
                   and _opens_with_link(n) for n in group]
        members = [n for n, teaser in zip(group, teasers, strict=True)
                   if not teaser and marked[n.idx] and n.prose >= prose_floor]
        if len(members) >= GROUP_MIN:
            posts = max(posts, sum(n.prose for n in members))
        n_cards = sum(1 for teaser in teasers if teaser)
        cards = max(cards, n_cards if n_cards >= GROUP_MIN else 0)
    return posts, cards


def _opens_with_link(node: Node) -> bool:
    """The first words of the block are inside a link to another page (an entry: a name,
    then what it is). Reads down the first children only, past elements without text."""
    stack: list[Node | str] = [node]
    linked: list[bool] = [False]
    while stack:
        item = stack.pop()
        inside = linked.pop()
        if isinstance(item, str):
            if not item.isspace():
                return inside
            continue
        if not item.text_len:
            continue  # an image, an empty span: the words come later
        inside = inside or (item.tag == "a" and "href" in item.attrs
                            and not item.attr("href").startswith("#"))
        children = item.children
        at = len(children)
        while at > 0:  # reversed, so that they pop in document order
            at -= 1
            stack.append(children[at])
            linked.append(inside)
    return False


def _terms(dl: Node) -> int:
    """The definitions among a ``<dl>``'s terms: a term followed (past the terms beside
    it) by a description; one that is mostly a link only when that description has text
    of its own (an API index: a linked name, then what it is). A term followed by
    nothing, or a linked one by a nested list only, is an entry of a table of contents
    or a list of tables set as ``<dl>`` (DocBook's)."""
    count = 0
    elems = dl.elems
    end = len(elems)
    described: Node | None = None  # the description after the current run of terms
    for at in range(end - 1, -1, -1):  # backwards: each term sees the next description
        child = elems[at]
        if child.tag == "dd":
            described = child
        elif child.tag == "dt":
            if described is not None and (child.link_len <= ENTRY_TERM * child.text_len
                                          or described.own_len):
                count += 1
        else:
            described = None
    return count


def _in_entry(node: Node) -> bool:
    """Inside a link, in a block that is mostly links: a ``<code>`` naming an entry of a
    table of contents or an index. (A module list's "``tide.io`` — Readers and writers"
    describes each name: its code is reference.)"""
    linked = False
    step = node.parent
    while step is not None and step.tag not in BLOCK_TAGS:
        linked = linked or (step.tag == "a" and "href" in step.attrs)
        step = step.parent
    return linked and step is not None and step.own_link > LINK_HEAVY * step.own_len


def _linked(node: Node) -> bool:
    """Inside a link to another page (a permalink to a place on this one, ``#p1001``,
    points nowhere else: a forum post's title is no teaser)."""
    step: Node | None = node
    while step is not None:
        if step.tag == "a" and "href" in step.attrs:
            return not step.attr("href").startswith("#")
        step = step.parent
    return False


def is_control(node: Node) -> bool:
    """A button whose text is content: several text-bearing parts."""
    parts = 0
    for child in node.elems:
        if child.text_len:
            parts += 1
    return parts >= CONTROL_PARTS


def declared_kind(json_ld: list[Any], meta_attrs: list[dict[str, str | None]],
                  root_attrs: dict[str, str | None], nodes: list[Node]) -> str:
    """The kind the page declares: its JSON-LD ``@type`` (the first one that maps onto a
    kind, ``@graph`` members included), else a microdata ``itemtype`` on ``<html>`` or
    the shallowest one in the body (``nodes``: parents first), else ``og:type``; ``""``
    if none maps."""
    for item in json_ld:
        found = _ld_kind(item)
        if found:
            return found
    found = _type_kind(root_attrs.get("itemtype"))
    if found:
        return found
    for node in nodes:  # (parents first: ``<body>``, then the shallowest ones)
        if node.attrs and "itemtype" in node.attrs:
            found = _type_kind(node.attrs.get("itemtype"))
            if found:
                return found
            break
    for attrs in meta_attrs:
        if (attrs.get("property") or attrs.get("name") or "").strip().lower() == "og:type":
            value = (attrs.get("content") or "").strip().lower()
            return _SCHEMA_KINDS.get(value, "") or _SCHEMA_KINDS.get(f"og:{value}", "")
    return ""


LD_ITEMS: Final = 200  # JSON-LD objects looked at, at most (a page's own, not a catalogue)


def _ld_kind(item: Any) -> str:
    stack = [item]
    seen = 0
    while stack and seen < LD_ITEMS:
        seen += 1
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(reversed(value))
        elif isinstance(value, dict):
            types = value.get("@type")
            for name in types if isinstance(types, list) else [types]:
                if isinstance(name, str):
                    found = _type_kind(name)
                    if found:
                        return found
            graph = value.get("@graph")
            if isinstance(graph, list):
                stack.extend(reversed(graph))
    return ""


def _type_kind(value: str | None) -> str:
    """``https://schema.org/NewsArticle`` or ``NewsArticle`` -> ``article``."""
    if not value:
        return ""
    for name in value.split():
        found = _SCHEMA_KINDS.get(name.rstrip("/").rsplit("/", 1)[-1].lower())
        if found:
            return found
    return ""
