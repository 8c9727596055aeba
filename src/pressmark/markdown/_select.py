"""Main-content selection and pruning, deterministic and single-pass.

Every block that owns text gets a weight: long, link-poor text counts for its
length; link-heavy text, short labels and text inside chrome (see
``_boilerplate``) count against. An element's score is the sum over its
subtree, and the main region is the element with the highest score (ties go to
the deeper element, the tighter fit). A semantic anchor (``article``, ``main``,
``[role=main]``, ``[itemprop=articleBody]``) inside that element wins when it
keeps nearly all of the score. Inside the region, chrome is then pruned and
every pruning rule that fired is recorded by name: per element (boilerplate
signals, link density, repeated or placeholder text, credit and paywall lines)
and per run of siblings (``teaser_cards``: a row of link-led cards pointing at
other pages; ``chrome_section``: what follows a "Related" / "Most read" /
comments heading, in the major European languages).

Nothing here depends on dict or set iteration order of unordered data, on
hashing or on time: the same tree always yields the same region.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field

from pressmark.markdown import _boilerplate
from pressmark.markdown._tree import BLOCK_TAGS, HEADINGS, Document, Node

ANCHOR_KEEP = 0.9        # an anchor inside the best region must keep this share of its score
WRAPPER_SHARE = 0.6      # a chrome-looking element holding this share of all text is a wrapper
SHORT_BLOCK = 60         # chars: shorter text blocks look like labels, not prose
LONG_BLOCK = 300        # chars: a block this long is prose even when dense with links
LINK_HEAVY = 0.5         # own link density above which a block counts as navigation
_CONTAINERS = BLOCK_TAGS - {"p", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "dt", "hr"}
_CELLS = frozenset(("td", "th", "tr"))
_TABLE_PARTS = frozenset(("tbody", "thead", "tfoot"))
INLINE_LINKS = 3         # links in one inline element that make it a widget
# blocks that may be dropped for repeating: table cells and list items repeat legitimately
_REPEATABLE = frozenset(("p", "div", "section", "header", "footer", "aside", "figcaption",
                         "center", "span", "form", "nav", "figure", "blockquote"))
REPEAT_MIN = 3           # identical short blocks seen this often on a page are chrome
_TEXT_RULE_TAGS = _REPEATABLE - {"blockquote"}  # blocks a credit or paywall line may fill
CARD_MAX = 300           # chars: a teaser card (headline link, a line of text) is short
CARD_MIN_RUN = 3         # sibling cards of one kind that make a teaser row
CARD_LINK_SHARE = 0.1    # a card's link text (its headline) is at least this share of its text
CARD_TAGS = frozenset(("div", "article", "li", "section"))
# a chrome section goes only if the region keeps this much (a region that is itself a
# "Related" box, picked on a page with almost no prose, is left alone)
SECTION_KEEP_CHARS = 200
SECTION_KEEP = 0.2
STREAM_LINK_SHARE = 0.1  # a feed after a "Recommended" heading: links are its headlines
STREAM_CARD = 600        # chars per linked headline at most, in such a feed
HEADING_BOX = 60         # chars: a wrapper this small around one heading stands for it
PROSE_BLOCK = 80         # chars: a block this long, and link-poor, is prose (recall measure)
PROSE_LINKS = 0.35       # own link density up to which a block counts as prose
PROSE_MIN_TOTAL = 400    # chars of prose on the page below which recall is not judged
RECALL_SHARE = 0.6       # the pick must hold this share of the page's prose ...
# chrome skipped while copying weighs against its container at a quarter of its size:
# a navbox or a script-heavy widget under the article must not outweigh the article
CHROME_WEIGHT = 0.25
SIBLING_SHARE = 0.2      # a sibling scoring this share of the pick's score joins it
SIBLING_PROSE = 0.6      # ... as does one whose text is at least this share prose
SIBLING_MIN = 300        # chars of prose a sibling needs to join at all
PLACE_SHARE = 0.5        # a chrome-named "place" holding this share of the prose is content
PLACE_MIN = 1000         # ... and at least this many chars of it
RECALL_TARGET = 0.8      # ... else widen to the first ancestor holding this share
# Chinese and Japanese say in one character what alphabetic scripts say in several: a
# 30-character paragraph is a full sentence. Length thresholds (SHORT_BLOCK, PROSE_BLOCK,
# LONG_BLOCK, SIBLING_MIN, ...) are in alphabetic characters, so on a page written mostly
# in those scripts every character counts this many times.
DENSE_SCALE = 2.5
DENSE_SHARE = 0.3        # share of ideographs and kana (of non-space chars) that makes it so
DENSE_SAMPLE = 2000      # chars of body text sampled, in document order
_DENSE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


_SENTENCE = re.compile(r"\w \w.*[.!?…][\"'”’»)]*$")


def block_hash(text: str) -> str:
    """Stable signature of a block's text (whitespace-collapsed, case-folded).

    The crawler counts these across a host's pages and passes the repeated ones
    back as ``boilerplate_hints``.
    """
    norm = " ".join(text.split()).casefold()
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:16]


@dataclass(slots=True, kw_only=True)
class Selection:
    root: Node
    selectors: list[str]
    rules: list[str] = field(default_factory=list)
    removed_chars: int = 0


def _is_anchor(node: Node) -> bool:
    if node.tag in ("article", "main"):
        return True
    return bool(node.attrs) and (
        node.attr("role").strip().lower() == "main"
        or node.attr("itemprop").strip() == "articleBody"
    )


def script_scale(doc: Document) -> float:
    """How many alphabetic characters one character of this page's text is worth."""
    sample: list[str] = []
    size = 0
    for node in doc.nodes:
        for child in node.children:
            if isinstance(child, str) and not child.isspace():
                sample.append(child)
                size += len(child)
        if size >= DENSE_SAMPLE:
            break
    text = "".join("".join(sample).split())
    if not text:
        return 1.0
    return DENSE_SCALE if len(_DENSE.findall(text)) >= DENSE_SHARE * len(text) else 1.0


def _weigh(doc: Document, scale: float) -> None:
    total = doc.body.text_len or 1
    inbad: list[bool] = [False] * len(doc.nodes)
    match = _boilerplate.match
    tag_rules = _boilerplate.TAG_RULES
    raw = _raw_prose(doc, scale)
    place_floor = PLACE_SHARE * raw[0]
    for node in doc.nodes:  # parents first
        rule = match(node) if node.attrs or node.tag in tag_rules else None
        if rule is not None and (node.text_len > WRAPPER_SHARE * total or (
                rule in _boilerplate.PLACE_RULES and raw[node.idx] >= place_floor
                and raw[node.idx] * scale >= PLACE_MIN)):
            rule = None  # a layout wrapper that happens to be named like chrome
        node.bad = rule
        parent = node.parent
        inbad[node.idx] = rule is not None or (parent is not None and inbad[parent.idx])
    for node in reversed(doc.nodes):  # children first
        weight = 0.0
        positive = 0.0
        prose = 0
        own = node.own_len
        if own and (node.tag in BLOCK_TAGS):
            density = node.own_link / own
            size = own * scale
            if node.tag in HEADINGS:
                weight = 0.0
            elif density > LINK_HEAVY:
                # link lists are chrome; a long paragraph dense with links is still prose
                weight = 0.0 if size >= LONG_BLOCK else -float(own)
            elif size < SHORT_BLOCK:
                weight = -0.3 * own
            else:
                weight = own * (1.0 - 1.5 * density)
                positive = weight
                if size >= PROSE_BLOCK and density <= PROSE_LINKS and not inbad[node.idx]:
                    prose = own
            if inbad[node.idx] and weight > -own:
                weight = -float(own)
        score = weight - CHROME_WEIGHT * node.chrome
        for child in node.elems:
            score += child.score
            positive += child.pos
            prose += child.prose
        node.score = score
        node.pos = positive
        node.prose = prose


def _raw_prose(doc: Document, scale: float) -> list[int]:
    """Prose chars per subtree, chrome names ignored (by node index; body first)."""
    raw = [0] * len(doc.nodes)
    floor = PROSE_BLOCK / scale
    for node in reversed(doc.nodes):
        own = node.own_len
        value = own if (own >= floor and node.tag in BLOCK_TAGS
                        and node.tag not in HEADINGS and node.own_link <= PROSE_LINKS * own) \
            else 0
        for child in node.elems:
            value += raw[child.idx]
        raw[node.idx] = value
    return raw


def select(doc: Document, *, hints: Collection[str] = ()) -> Selection:
    scale = script_scale(doc)
    _weigh(doc, scale)
    best = doc.body
    for node in doc.nodes:
        if node.tag in _CONTAINERS and (node.score > best.score or (
                node.score == best.score and node.depth > best.depth)):
            best = node
    chosen = best
    if best.score <= 0:
        # chrome outweighs prose everywhere (short pages): the tightest container holding
        # the most prose; with no prose at all, the largest semantic anchor, else the body
        for node in doc.nodes:
            if node.tag in _CONTAINERS and (node.pos > chosen.pos or (
                    node.pos == chosen.pos and node.depth > chosen.depth)):
                chosen = node
        if chosen.pos <= 0:
            anchors = [n for n in doc.nodes if _is_anchor(n) and n.text_len]
            chosen = max(anchors, key=lambda n: n.text_len, default=doc.body)
    else:
        floor = ANCHOR_KEEP * best.score
        for node in best.iter():
            if node is not best and _is_anchor(node) and node.score >= floor and (
                chosen is best or node.score > chosen.score
            ):
                chosen = node
    if chosen.tag in _TABLE_PARTS and chosen.parent is not None and chosen.parent.tag == "table":
        chosen = chosen.parent  # a table's body is not a block of its own: the table is
    widened = _widen_for_recall(doc, chosen, scale)
    merged = _merge_siblings(chosen, scale) if widened is chosen else chosen
    widened = merged if widened is chosen else widened
    selection = Selection(root=widened, selectors=[widened.css_path()])
    _prune(doc, selection, hints)
    if merged is not chosen:
        selection.rules.append("merged_siblings")
    if widened is not merged:
        selection.rules.append("widened_for_recall")
    selection.rules.sort()
    if doc.skipped:
        selection.rules = sorted(set(selection.rules) | doc.skipped)
    return selection


def _merge_siblings(chosen: Node, scale: float) -> Node:
    """The parent, when ``chosen``'s siblings carry more of the same body.

    An article split into sibling sections (``<section>`` per heading, a lead block
    and a body block, text interrupted by a figure wrapper) scores as several blocks,
    and only the best one wins. A sibling joins when it scores well against the pick
    or is itself mostly prose; the parent becomes the region and the siblings that do
    not join are left out (``outside_main``), so widening adds no chrome.
    """
    if chosen.score <= 0:
        return chosen
    floor = SIBLING_SHARE * chosen.score
    # wrappers that add no prose ("<div class=inner><div class=body>") are looked through
    base = chosen
    kinds = _kind(chosen)
    while base.parent is not None and base.parent.parent is not None \
            and base.parent.prose == chosen.prose and not _is_article(base):
        base = base.parent
        kinds |= _kind(base)
    parent = base.parent
    if parent is None:
        return chosen
    # across wrappers only a block of the same kind joins: "story-body-1" beside the
    # wrapper of "story-body-2", not a list of recent articles further along
    kind = kinds if base is not chosen else None
    joined: list[Node] = []
    for node in parent.elems:
        if node is base or node.bad is not None or node.prose * scale < SIBLING_MIN:
            continue  # headers, standfirsts, author boxes: short, and not the body
        if kind is not None and not (kind & _kind(node)):
            continue
        if node.score >= floor or node.prose >= SIBLING_PROSE * node.text_len:
            joined.append(node)
    if not joined:
        return chosen
    keep = {base.idx, *(n.idx for n in joined)}
    for node in parent.elems:
        if node.idx not in keep and node.text_len:
            node.removed = "outside_main"
    return parent


def _kind(node: Node) -> set[str]:
    """Tag and class attribute: two blocks of one body share both (no class: no kind)."""
    name = " ".join(node.attr("class").split())
    return {f"{node.tag}.{name}"} if name else set()


def _widen_for_recall(doc: Document, chosen: Node, scale: float) -> Node:
    """The nearest ancestor holding most of the page's prose, when ``chosen`` holds little.

    Scoring picks the tightest high-scoring block; on pages whose body is split into
    many sibling sections (or interleaved with lists and figures that score negative)
    that block can be one section of the article. Prose (link-poor blocks of sentence
    length outside chrome) is the recall yardstick: when the pick keeps less than
    ``RECALL_SHARE`` of it, climb to the first ancestor that keeps ``RECALL_TARGET``.
    """
    total = doc.body.prose
    if total * scale < PROSE_MIN_TOTAL or chosen.prose >= RECALL_SHARE * total \
            or _is_article(chosen):
        return chosen
    node = chosen
    while node.parent is not None:
        node = node.parent
        if node.prose >= RECALL_TARGET * total or _is_article(node):
            return node  # an article element around the pick bounds the body: stop there
    return node


def _is_article(node: Node) -> bool:
    return node.tag == "article" or (
        bool(node.attrs) and node.attr("itemprop").strip() == "articleBody")


def _prune(doc: Document, sel: Selection, hints: Collection[str]) -> None:
    root = sel.root
    keep_share = 0.5 * root.pos
    fired: set[str] = set()
    repeated = _repeated_texts(root)
    marks = _section_marks(root)
    stack: list[Node] = list(reversed(root.elems))
    while stack:
        node = stack.pop()
        rule = marks.get(node.idx) or _prune_rule(node, keep_share, repeated, hints)
        if rule is not None:
            node.removed = rule
            fired.add(rule)
            sel.removed_chars += node.text_len
            continue
        stack.extend(reversed(node.elems))
    sel.rules = sorted(fired)


def _prune_rule(node: Node, keep_share: float, repeated: Collection[str],
                hints: Collection[str]) -> str | None:
    if node.bad is not None and node.pos <= keep_share:
        return node.bad
    text_len = node.text_len
    if text_len == 0:
        return None
    if node.tag not in BLOCK_TAGS:
        # an inline cluster of links inside prose (hover cards, "Tags: a, b, c" runs); the
        # innermost such element goes, so a link wrapped around the card survives
        if _link_cluster(node) and not any(_link_cluster(c) for c in node.elems):
            return "inline_link_cluster"
        parent = node.parent
        if node.tag in ("span", "small") and parent is not None and text_len < \
                _boilerplate.CREDIT_MAX and text_len >= 0.9 * parent.text_len:
            # the only text beside an image: "<div><img><span>Photo: ...</span></div>"
            return _boilerplate.text_rule(node.text())
        return None
    if (node.tag in BLOCK_TAGS and node.tag not in _CELLS and node.score <= 0 and text_len >= 20
            and node.link_len > 0.6 * text_len and node.tag not in HEADINGS
            and not (node.own_len >= LONG_BLOCK and node.own_len >= 0.9 * text_len)
            and not _item_of_prose_list(node)):
        return "link_density"
    if node.tag in _REPEATABLE and text_len <= 100 and (repeated or hints):
        text = node.text()
        if _boilerplate.is_placeholder(text):
            return "ui_label"
        if text in repeated:
            return "repeated_block"
        if hints and block_hash(text) in hints:
            return "cross_page_repetition"
    elif node.tag in BLOCK_TAGS and text_len < 40 and _boilerplate.is_placeholder(node.text()):
        return "ui_label"
    if node.tag in _TEXT_RULE_TAGS and text_len < _boilerplate.PAYWALL_MAX:
        rule = _boilerplate.text_rule(node.text())
        if rule is not None and not any(n.tag == "img" for n in node.iter()):
            return rule  # (with an image inside, the credit's own element goes instead)
    if hints and node.own_len and node.tag in BLOCK_TAGS and block_hash(node.text()) in hints:
        return "cross_page_repetition"
    return None


def _item_of_prose_list(node: Node) -> bool:
    """A linked item in a list whose items are mostly prose ("- [Bug 123](...) fixed").

    A navigation list is links through and through; one linked line among sentences
    (release notes, a reading list with comments) is an entry like the others.
    """
    parent = node.parent
    return node.tag == "li" and parent is not None and parent.text_len > 0 \
        and parent.link_len < 0.5 * parent.text_len


def _link_cluster(node: Node) -> bool:
    return (node.tag != "a" and node.tag not in BLOCK_TAGS and node.text_len >= 40
            and node.link_len >= 0.8 * node.text_len
            and sum(1 for n in node.iter() if n.tag == "a") >= INLINE_LINKS)


def _repeated_texts(root: Node) -> set[str]:
    """Short texts that repeat inside the selected region ("Advertisement" x 3)."""
    counts: Counter[str] = Counter()
    for node in root.iter():
        if node.own_len and node.tag in _REPEATABLE and node.text_len <= 100:
            counts[node.text()] += 1
    # a sentence said three times ("I prefer not.") is dialogue, not a UI label
    return {text for text, n in counts.items()
            if n >= REPEAT_MIN and text and not _SENTENCE.search(text)}


def _section_marks(root: Node) -> dict[int, str]:
    """Sibling-level chrome inside the region, by node index: teaser rows, chrome sections.

    A teaser row is three or more sibling containers of one kind (tag and class), each
    short, opening with a link (usually a linked headline) and carrying a heading or an
    image: cards pointing at other pages. A chrome section is what follows a heading
    such as "Related articles", "Most read" or "Kommentare" (``_boilerplate``): the
    heading, and after it the link lists and short blocks up to the next prose or an
    equal heading; after a comments heading, everything up to the next equal heading.
    """
    marks: dict[int, str] = {}
    budget = 0.5 * root.text_len
    for parent in root.iter():
        elems = parent.elems
        if len(elems) >= CARD_MIN_RUN:
            _teaser_row(elems, marks, budget)
        for index, node in enumerate(elems):
            if node.idx not in marks and _heading_of(node) is not None:
                section = _chrome_section(elems, index)
                left = root.text_len - sum(n.text_len for n in section)
                if section and left >= max(SECTION_KEEP_CHARS, SECTION_KEEP * root.text_len):
                    marks.update((n.idx, "chrome_section") for n in section)
    return marks


def _teaser_row(elems: list[Node], marks: dict[int, str], budget: float) -> None:
    groups: dict[tuple[str, str], list[Node]] = {}
    for node in elems:
        if node.tag in CARD_TAGS:
            groups.setdefault((node.tag, node.attr("class")), []).append(node)
    for group in groups.values():  # insertion order: deterministic
        if len(group) < CARD_MIN_RUN:
            continue
        cards = [n for n in group if _is_card(n)]
        if len(cards) >= CARD_MIN_RUN and 4 * len(cards) >= 3 * len(group) \
                and sum(n.text_len for n in cards) <= budget:
            for node in cards:
                marks[node.idx] = "teaser_cards"


def _is_card(node: Node) -> bool:
    if not 0 < node.text_len <= CARD_MAX or node.link_len < CARD_LINK_SHARE * node.text_len:
        return False
    visual = False
    first_linked: bool | None = None
    stack: list[tuple[Node | str, bool, bool]] = [(node, False, False)]
    while stack:
        item, linked, headed = stack.pop()
        if isinstance(item, str):
            if first_linked is None and item.strip():
                first_linked = linked
                if not linked:
                    return False
            continue
        tag = item.tag
        if tag in ("img", "picture", "figure") or (tag in HEADINGS and (linked or item.link_len)):
            visual = True
        linked = linked or tag == "a"
        headed = headed or tag in HEADINGS
        stack.extend((c, linked, headed) for c in reversed(item.children))
    return bool(first_linked) and visual


def _teaser_stream(node: Node) -> bool:
    """A block of linked headlines, each with a line of summary (a feed of other pages)."""
    linked = sum(1 for n in node.iter()
                 if n.tag in HEADINGS and n.text_len and n.link_len >= 0.5 * n.text_len)
    return linked >= CARD_MIN_RUN and node.link_len >= STREAM_LINK_SHARE * node.text_len \
        and linked * STREAM_CARD >= node.text_len


def _heading_of(node: Node) -> Node | None:
    """The heading a block stands for: itself, or the one heading a small wrapper holds.

    Widgets put their title in a header box beside the body box
    (``<div class=hd><h2>Recommended</h2></div><div class=bd>...``).
    """
    if node.tag in HEADINGS:
        return node
    if node.tag not in BLOCK_TAGS or not 0 < node.text_len < HEADING_BOX:
        return None
    found = [n for n in node.iter() if n.tag in HEADINGS]
    if len(found) == 1 and found[0].text_len == node.text_len:
        return found[0]
    return None


def _chrome_section(elems: list[Node], index: int) -> list[Node]:
    heading = _heading_of(elems[index])
    if heading is None:
        return []
    text = heading.text()
    if not _boilerplate.chrome_heading(text):
        return []
    comments = _boilerplate.comments_heading(text)
    level = int(heading.tag[1])
    section = [elems[index]]
    for node in elems[index + 1:]:
        inner = _heading_of(node)
        if inner is not None and int(inner.tag[1]) <= level:
            break
        if not comments and node.text_len >= 100 and node.link_len < 0.4 * node.text_len \
                and not _teaser_stream(node):
            break  # prose again: the section was only a heading and its links
        section.append(node)
    return section
