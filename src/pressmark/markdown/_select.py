"""Main-content selection and pruning, deterministic and single-pass.

Every block that owns text gets a weight: long, link-poor text counts for its
length; link-heavy text, short labels and text inside chrome (see
``_boilerplate``) count against. An element's score is the sum over its
subtree, and the main region is the element with the highest score (ties go to
the deeper element, the tighter fit). A semantic anchor (``article``, ``main``,
``[role=main]``, ``[itemprop=articleBody]``) inside that element wins when it
keeps nearly all of the score. Sibling blocks of the same body then join the
pick (``_merge``: parts that score, headed parts, a data table or term list right
beside it), and a pick that holds little of the page's prose is widened (each step
is named in the evidence).
Inside the region, chrome is pruned by ``_prune``, which names every rule that
fired.

Nothing here depends on dict or set iteration order of unordered data, on
hashing or on time: the same tree always yields the same region.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from typing import Final

from pressmark.markdown import _boilerplate, _text_rules
from pressmark.markdown._merge import is_article, join_data, merge_siblings
from pressmark.markdown._prune import LONG_BLOCK, PROSE_BLOCK, block_hash, prune
from pressmark.markdown._tree import BLOCK_TAGS, HEADINGS, Document, Node

__all__ = ["LONG_BLOCK", "Selection", "block_hash", "script_scale", "select"]

# (``Final``: compiled code reads a constant directly, a module global is a dictionary
# look-up at every use, and the loops below run per element of every page)
ANCHOR_KEEP: Final = 0.9      # an anchor inside the best region must keep this share of its score
WRAPPER_SHARE: Final = 0.6    # a chrome-looking element holding this share of all text is a wrapper
SHORT_BLOCK: Final = 60       # chars: shorter text blocks look like labels, not prose
LINK_HEAVY: Final = 0.5       # own link density above which a block counts as navigation
_CONTAINERS: Final = BLOCK_TAGS - {"p", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "dt", "hr", "pre"}
_TABLE_PARTS: Final = frozenset(("tbody", "thead", "tfoot"))
PROSE_LINKS: Final = 0.35     # own link density up to which a block counts as prose
PROSE_MIN_TOTAL: Final = 400  # chars of prose on the page below which recall is not judged
RECALL_SHARE: Final = 0.6     # the pick must hold this share of the page's prose ...
# chrome skipped while copying weighs against its container at a quarter of its size:
# a navbox or a script-heavy widget under the article must not outweigh the article
CHROME_WEIGHT: Final = 0.25
PLACE_SHARE: Final = 0.5      # a chrome-named "place" holding this share of the prose is content
PLACE_MIN: Final = 1000       # ... and at least this many chars of it
RECALL_TARGET: Final = 0.8    # ... else widen to the first ancestor holding this share
# Chinese and Japanese say in one character what alphabetic scripts say in several: a
# 30-character paragraph is a full sentence. Length thresholds (SHORT_BLOCK, PROSE_BLOCK,
# LONG_BLOCK, SIBLING_MIN, ...) are in alphabetic characters, so on a page written mostly
# in those scripts every character counts this many times. A Hangul syllable block
# spells two or three letters, and Korean separates words: a smaller factor.
DENSE_SCALE: Final = 2.5
HANGUL_SCALE: Final = 1.8
DENSE_SHARE: Final = 0.3      # share of such characters (of non-space chars) that makes it so
DENSE_SAMPLE: Final = 2000    # chars of body text sampled, in document order
# Character ranges (inclusive): kana and the CJK ideographs, then Hangul jamo and syllables.
# Counted over the sample's distinct characters: a regex class spanning tens of thousands
# of code points takes milliseconds to compile, in every process that meets such a page.
_DENSE: Final = (("\u3040", "\u30ff"), ("\u3400", "\u4dbf"), ("\u4e00", "\u9fff"),
                 ("\uf900", "\ufaff"))
_HANGUL: Final = (("\u1100", "\u11ff"), ("\u3130", "\u318f"), ("\uac00", "\ud7a3"))


def _count(counts: dict[str, int], ranges: tuple[tuple[str, str], ...]) -> int:
    """How many of the counted characters fall in ``ranges``."""
    total = 0
    for char, n in counts.items():
        for low, high in ranges:
            if low <= char <= high:
                total += n
                break
    return total


class Selection:
    """The region picked, how it was found, and what pruning took out of it.

    Plain slots, not a dataclass: internal, and a dataclass costs start-up (``_blocks``).
    """

    __slots__ = ("removed_chars", "root", "rules", "selectors")

    def __init__(self, *, root: Node, selectors: list[str]) -> None:
        self.root = root
        self.selectors = selectors
        self.rules: list[str] = []
        self.removed_chars = 0


def _is_anchor(node: Node) -> bool:
    if node.tag in ("article", "main"):
        return True
    attrs = node.attrs
    return bool(attrs) and (
        ("role" in attrs and node.attr("role").strip().lower() == "main")
        or ("itemprop" in attrs and node.attr("itemprop").strip() == "articleBody")
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
    floor = DENSE_SHARE * len(text)
    # Both classes lie above U+0800, and from there a character takes three bytes in
    # UTF-8: with fewer extra bytes than twice the floor, fewer than ``floor`` characters
    # can be in either (one C-level encode instead of ``max`` and a count per character).
    if len(text.encode("utf-8", "surrogatepass")) - len(text) < 2 * floor:
        return 1.0
    counts = Counter(text)
    if _count(counts, _DENSE) >= floor:
        return DENSE_SCALE
    return HANGUL_SCALE if _count(counts, _HANGUL) >= floor else 1.0


def _weigh(doc: Document, scale: float) -> None:
    total = doc.body.text_len or 1
    inbad: list[bool] = [False] * len(doc.nodes)
    tag_rules = _boilerplate.TAG_RULES
    raw = _raw_prose(doc, scale)
    place_floor = PLACE_SHARE * raw[0]
    for node in doc.nodes:  # parents first
        # ``match`` reads the tag, then role, id and class only: links and images carry
        # other attributes, and most are spared the call
        attrs = node.attrs
        # (a direct call: compiled code calls a function held in a local generically)
        rule = _boilerplate.match(node) if node.tag in tag_rules or (attrs and (
            "class" in attrs or "id" in attrs or "role" in attrs)) else None
        if rule is not None and (node.text_len > WRAPPER_SHARE * total or (
                rule in _boilerplate.PLACE_RULES and raw[node.idx] >= place_floor
                and raw[node.idx] * scale >= PLACE_MIN)):
            rule = None  # a layout wrapper that happens to be named like chrome
        elif rule is not None and node.tag not in BLOCK_TAGS and _in_running_text(node, rule):
            rule = None
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
            elif node.tag == "pre":
                # a code block, however short ("$ pip install x"), is content: never a
                # label or a menu (its links are cross-references, ``_tree``)
                weight = positive = float(own)
            elif density > LINK_HEAVY:
                # link lists are chrome; a long paragraph dense with links is still prose
                weight = 0.0 if size >= LONG_BLOCK else -float(own)
            elif size < SHORT_BLOCK:
                weight = 0.5 * own if (node.tag == "p" and size >= SENTENCE_MIN
                                       and density <= PROSE_LINKS and _ends_sentence(node)) \
                    else -0.3 * own
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


SENTENCE_MIN: Final = 25         # chars: a paragraph this long that ends a sentence is prose


def _ends_sentence(node: Node) -> bool:
    """The paragraph's text ends like a sentence: a one-line paragraph of a story written
    a sentence per paragraph, not a label (tabloids, and many scripts' news style)."""
    children = node.children
    while children:
        last = children[-1]
        if isinstance(last, str):
            tail = last.rstrip()
            if tail:
                return tail[-1] in _text_rules.SENTENCE_END
        elif last.text_len:
            children = last.children
            continue
        children = children[:-1]
    return False


_NAMED_HIDDEN: Final = frozenset(("exclude_hidden", "exclude_screen_reader_text"))


def _in_running_text(node: Node, rule: str) -> bool:
    """An inline element that is a few words of a sentence around it.

    Its class names how it looks or behaves (``<a class=popup>`` opening a note,
    ``<span class=tooltip>``), not a page component: dropping it would cut words
    out of the sentence. Inside a heading it is the heading's text (``<h2><a
    class=toc-backref>Setup</a></h2>``); inside a code block it is a highlighter's token
    (``<span class="hljs-meta">#include</span>``), as a ``<span class=comment>`` is
    anywhere (readers' comments come in blocks; a listing may be lines of ``<div>``s).
    Hidden and screen-reader text still goes.
    """
    if rule in _NAMED_HIDDEN:
        return False
    if rule == "exclude_comments" and node.tag == "span":
        return True
    block = node.parent
    while block is not None and block.tag not in BLOCK_TAGS:
        block = block.parent
    if block is None:
        return False
    return block.tag in HEADINGS or block.tag == "pre" or (
        block.own_len >= PROSE_BLOCK and 2 * node.text_len <= block.own_len)


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
        # the anchor inside the pick that keeps the most of its score, the first in
        # document order among equals. Not a walk of the pick's subtree: its elements were
        # created after it (``idx``), and a score that high rules out all but a few
        floor = ANCHOR_KEEP * best.score
        nodes = doc.nodes
        for at in range(best.idx + 1, len(nodes)):
            node = nodes[at]
            if node.score >= floor and _is_anchor(node) and _inside(node, best) and (
                chosen is best or node.score > chosen.score
                or (node.score == chosen.score and _precedes(node, chosen))
            ):
                chosen = node
    if chosen.tag in _TABLE_PARTS and chosen.parent is not None and chosen.parent.tag == "table":
        chosen = chosen.parent  # a table's body is not a block of its own: the table is
    widened = _widen_for_recall(doc, chosen, scale)
    merged = merge_siblings(chosen, scale) if widened is chosen else chosen
    widened = merged if widened is chosen else widened
    region = join_data(chosen) if widened is chosen else widened
    selection = Selection(root=region, selectors=[region.css_path()])
    selection.rules, selection.removed_chars = prune(region, hints)
    if merged is not chosen:
        selection.rules.append("merged_siblings")
    if widened is not merged:
        selection.rules.append("widened_for_recall")
    if region is not widened:
        selection.rules.append("joined_data")
    selection.rules.sort()
    if doc.skipped:
        selection.rules = sorted(set(selection.rules) | doc.skipped)
    return selection


def _inside(node: Node, ancestor: Node) -> bool:
    """``node`` is in ``ancestor``'s subtree (itself included)."""
    while node.depth > ancestor.depth and node.parent is not None:
        node = node.parent
    return node is ancestor


def _precedes(a: Node, b: Node) -> bool:
    """``a`` comes before ``b`` in document order (an ancestor before its descendants).

    Siblings were created in document order, so their ``idx`` orders them.
    """
    a_path = _path(a)
    b_path = _path(b)
    for a_node, b_node in zip(a_path, b_path, strict=False):
        if a_node is not b_node:
            return a_node.idx < b_node.idx
    return len(a_path) < len(b_path)


def _path(node: Node) -> list[Node]:
    """The ancestors of ``node`` from the root down, and ``node``."""
    path: list[Node] = []
    step: Node | None = node
    while step is not None:
        path.append(step)
        step = step.parent
    path.reverse()
    return path


def _widen_for_recall(doc: Document, chosen: Node, scale: float) -> Node:
    """The nearest ancestor holding most of the page's prose, when ``chosen`` holds little.

    Scoring picks the tightest high-scoring block; on pages whose body is split into
    many sibling sections (or interleaved with lists and figures that score negative)
    that block can be one section of the article. Prose (link-poor blocks of sentence
    length outside chrome) is the recall yardstick: when the pick keeps less than
    ``RECALL_SHARE`` of it, climb to the first ancestor that keeps ``RECALL_TARGET``.
    """
    # too little prose to judge by (a reference page: code, tables, one-line notes): the
    # text blocks' positive weight is the yardstick then
    by_weight = doc.body.prose * scale < PROSE_MIN_TOTAL
    total = _held(doc.body, by_weight)
    if total <= 0 or _held(chosen, by_weight) >= RECALL_SHARE * total or is_article(chosen):
        return chosen
    node = chosen
    while node.parent is not None:
        node = node.parent
        if _held(node, by_weight) >= RECALL_TARGET * total or is_article(node):
            return node  # an article element around the pick bounds the body: stop there
    return node


def _held(node: Node, by_weight: bool) -> float:
    """What ``_widen_for_recall`` measures a subtree by: its prose, or its positive weight."""
    return node.pos if by_weight else float(node.prose)
