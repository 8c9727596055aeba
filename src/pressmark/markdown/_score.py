"""The scoring function of selection: a few named signals per block, one weight each.

Every element that owns text (its *own* text: what no child block holds) is a block, and
a block is weighed by what it is, in this order (the first that applies):

=====================  ===========================================================
the block is           its weight (``own``: its own chars)
=====================  ===========================================================
inside chrome          ``-own``, and never positive (a boilerplate rule named it or
                       an ancestor: ``chrome_rule``; or its text is a browser notice
                       or script code: ``said_chrome``)
a heading              0 (it says what follows; the following text decides), unless
                       it holds ``LONG_BLOCK`` chars of its own: a paragraph set in a
                       heading's type (``reads_as_prose``), weighed as one
a code block           ``+own`` however short (``$ pip install x`` is content)
link-heavy             ``-own`` (a menu, a list of other pages), 0 when long: a long
                       paragraph dense with links is still prose
short                  ``+SENTENCE_GAIN * own`` for a one-line paragraph that ends a
                       sentence, else ``-LABEL_COST * own`` (a label, a date, a button)
anything else          ``own * (1 - LINK_COST * link share)``
=====================  ===========================================================

An element's score is the sum over its subtree, less ``CHROME_WEIGHT`` times the text
of the chrome skipped while the tree was copied (``_tree``): navigation weighs against
the container it sits in. Beside the score each element carries its positive part
(``pos``), its prose (``prose``: chars of link-poor blocks of sentence length outside
chrome, the recall yardstick) and its entries (``entry``: chars of short link-heavy
blocks outside chrome, what a listing is made of).

Lengths are in alphabetic characters: on a page written in a dense script (Chinese,
Japanese; Korean less so) each character counts ``script_scale`` times.

Why these values: they were chosen on the whole dev corpus (the three shared sets,
news and blogs, Readability's test pages and CleanEval's general web) and the page-kind
fixtures, each the value around which the corpus F1 is flat; the comment beside each
says what it measures.
"""

from __future__ import annotations

from collections import Counter

from pressmark.markdown import _boilerplate, _text_rules
from pressmark.markdown._tree import BLOCK_TAGS, HEADINGS, Document, Node

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Final

# (``Final``: compiled code reads a constant directly, a module global is a dictionary
# look-up at every use, and the loops below run per element of every page)
SHORT_BLOCK: Final = 60       # chars: shorter text blocks look like labels, not prose
SENTENCE_MIN: Final = 25      # chars: a paragraph this long that ends a sentence is prose
SENTENCE_GAIN: Final = 0.5    # ... and weighs half its length (a one-line paragraph of a story)
LABEL_COST: Final = 0.3       # a short line that is no sentence costs this share of its length
LINK_HEAVY: Final = 0.5       # own link share above which a block counts as navigation
LINK_COST: Final = 1.5        # each unit of link share costs this much of a block's weight
# chars: a block this long is prose even when dense with links, or set as a heading (a
# heading names what follows in a line; pages that set their text in <h4>-<h6> for its
# size, or never close a heading over the rest of the page, hold paragraphs in one: of
# the dev corpus's headings holding this much text of their own, 11 on 7 pages, 9 are
# reference text; of those holding 150-300 chars, 22 of 36, many real headings' titles)
LONG_BLOCK: Final = 300
PROSE_BLOCK: Final = 80       # chars: a block this long, and link-poor, is prose (recall measure)
PROSE_LINKS: Final = 0.35     # own link share up to which a block counts as prose
# chrome skipped while copying weighs against its container at a quarter of its size:
# a navbox or a script-heavy widget under the article must not outweigh the article
CHROME_WEIGHT: Final = 0.25
# A chrome-named element is still content when it wraps what the page says, in child
# blocks (not as one text of its own): this share of the page's text, or nearly all of
# its prose (a mega-menu of thousands of links must not make the article's wrapper look
# small; a comment thread or a footer blurb holding more prose than a short story is no
# wrapper, hence "nearly all")
WRAPPER_SHARE: Final = 0.6
WRAPPER_PROSE: Final = 0.9
# The story's run of prose: paragraphs side by side in one parent (names ignored), in the
# nearest container of the page's headline (its ``<h1>`` that the title names) holding a
# run this long, an article's body (two or three paragraphs; ``_kinds`` reads an article
# by it too). A chrome-named element around that run is the story's wrapper: a class word
# that is a post's taxonomy term ("topics-markets") or a layout's ("rail-tall__side")
# must not make chrome of the story, whatever share of the page's prose a sidebar, a
# footer's disclaimer or teasers beside it hold. A landmark (``<aside>``, ``<nav>``,
# ``<footer>``, their roles) is the page's own word: it stays chrome.
ARTICLE_RUN: Final = 600
# A chrome-named "place" (a sidebar, an overlay, a footer: ``_boilerplate.PLACE_RULES``)
# holding this share of the page's prose, and at least PLACE_MIN chars of it, is the
# content's container (single-page apps open whole articles in a "modal")
PLACE_SHARE: Final = 0.5
PLACE_MIN: Final = 1000
# ... but a navigation or side landmark by the page's own markup (``<nav>``, ``<aside>``,
# ``role=navigation`` / ``complementary``) without prose wraps no content: on a short
# page a sidebar of every page's link holds most of the text. It stays chrome while the
# page holds this many chars besides it (else it is all the page has: a site map)
SIDE_REST: Final = 100
_SIDE_RULES: Final = frozenset(("exclude_nav", "exclude_aside"))
# Chinese and Japanese say in one character what alphabetic scripts say in several: a
# 30-character paragraph is a full sentence. Length thresholds are in alphabetic
# characters, so on a page written mostly in those scripts every character counts this
# many times. A Hangul syllable block spells two or three letters, and Korean separates
# words: a smaller factor.
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
UTF8_WIDE: Final = 2          # extra UTF-8 bytes of a character above U+0800


def _count(counts: dict[str, int], ranges: tuple[tuple[str, str], ...]) -> int:
    """How many of the counted characters fall in ``ranges``."""
    total = 0
    for char, n in counts.items():
        for low, high in ranges:
            if low <= char <= high:
                total += n
                break
    return total


def spread_in_python(text: str) -> tuple[int, int]:
    """Of ``text`` without its whitespace, the characters and the bytes UTF-8 spends on
    them beyond one each (``_native_screen.spread`` reads the same in C; the tests hold
    the two to each other)."""
    kept = "".join(text.split())
    return len(kept), len(kept.encode("utf-8", "surrogatepass")) - len(kept)


def _load_spread() -> Callable[[str], tuple[int, int]]:
    try:
        from pressmark.markdown._native_screen import spread  # noqa: PLC0415 (optional)
    except ImportError:  # built without a C compiler
        return spread_in_python
    return spread


# the sample's two sizes counted where they lie, when the C module is there: most pages
# are decided by them, and the split, join and encoding built three copies to count
_spread: Final = _load_spread()


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
    joined = "".join(sample)
    chars, wide = _spread(joined)
    if not chars:
        return 1.0
    floor = DENSE_SHARE * chars
    # Both classes lie above U+0800, and from there a character takes three bytes in
    # UTF-8: with fewer extra bytes than twice the floor, fewer than ``floor`` characters
    # can be in either (two sizes instead of ``max`` and a count per character).
    if wide < UTF8_WIDE * floor:
        return 1.0
    counts = Counter("".join(joined.split()))
    if _count(counts, _DENSE) >= floor:
        return DENSE_SCALE
    return HANGUL_SCALE if _count(counts, _HANGUL) >= floor else 1.0


def weigh(doc: Document, scale: float, headline: Node | None = None) -> list[bool]:
    """Score every element (``Node.score``, ``pos``, ``prose``, ``entry``, ``bad``);
    returns, by node index, whether the element is chrome or inside chrome.
    ``headline`` is the page's headline (``_select._headline``), if found."""
    inchrome = _mark_chrome(doc, scale, headline)
    for node in reversed(doc.nodes):  # children first
        weight = 0.0
        positive = 0.0
        prose = 0
        entry = 0
        own = node.own_len
        if own and node.tag in BLOCK_TAGS:
            said = said_chrome(node) if not inchrome[node.idx] and node.tag != "pre" \
                and own * scale >= SHORT_BLOCK else None  # (code shown as code is content)
            if said is not None and not node.blocky:
                node.bad = said  # a leaf block: pruned as chrome too (``_prune``)
            if inchrome[node.idx] or said is not None:
                weight = -float(own)  # (a wrapper's own text weighs against it, no more)
            else:
                weight, prose, entry = block_weight(node, own, scale)
                if weight > 0:
                    positive = weight
        score = weight - CHROME_WEIGHT * node.chrome
        for child in node.elems:
            score += child.score
            positive += child.pos
            prose += child.prose
            entry += child.entry
        node.score = score
        node.pos = positive
        node.prose = prose
        node.entry = entry
    return inchrome


def block_weight(node: Node, own: int, scale: float) -> tuple[float, int, int]:
    """The weight of one block outside chrome (the table of the module docstring), its
    prose chars and its entry chars."""
    tag = node.tag
    if tag in HEADINGS and own < LONG_BLOCK:
        return 0.0, 0, 0
    if tag == "pre":
        return float(own), 0, 0
    density = node.own_link / own
    size = own * scale
    if density > LINK_HEAVY:
        if size >= LONG_BLOCK:
            return 0.0, 0, 0
        return -float(own), 0, own
    if size < SHORT_BLOCK:
        if tag == "p" and size >= SENTENCE_MIN and density <= PROSE_LINKS \
                and _ends_sentence(node):
            return SENTENCE_GAIN * own, 0, 0
        return -LABEL_COST * own, 0, 0
    weight = own * (1.0 - LINK_COST * density)
    prose = own if size >= PROSE_BLOCK and density <= PROSE_LINKS else 0
    return weight, prose, 0


def reads_as_prose(node: Node) -> bool:
    """A block's own text may be prose: it is no heading, or a heading that holds a
    paragraph (``LONG_BLOCK`` chars of its own: text set in a heading's type)."""
    return node.tag not in HEADINGS or node.own_len >= LONG_BLOCK


def said_chrome(node: Node) -> str | None:
    """A block whose own text is chrome whatever its markup: a notice about the reader's
    browser, or script code a broken ``<head>`` turned into text (``_text_rules``).

    Read cheaply, as it runs for every block: a notice is short, holds few links and
    opens with one of the notices' first letters; script code holds no links and shows a
    ";" or a "{" in a text child of the block itself. The own text of a block holding
    other blocks is read from its text children alone.
    """
    own = node.own_len
    if own < _text_rules.PAYWALL_MAX and not node.blocky and node.own_link <= LINK_HEAVY * own \
            and _text_rules.may_open_a_notice(_first_char(node)):
        text = node.text()
        if _text_rules.is_browser_notice(text):
            return "browser_notice"
    if node.own_link or not _code_marks(node.children):
        return None  # (a script's text holds no links)
    text = " ".join("".join(c for c in node.children if isinstance(c, str)).split()) \
        if node.blocky else node.text()
    return "script_text" if _text_rules.reads_as_script(text) else None


def _code_marks(children: list[Node | str]) -> bool:
    """A text child holds a ";" or a "{"."""
    return any(isinstance(child, str) and (";" in child or "{" in child) for child in children)


def _first_char(node: Node) -> str:
    """The first character of the subtree's text that is no space ("" if none), read
    down the first children only."""
    stack: list[Node | str] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            stripped = item.lstrip()
            if stripped:
                return stripped[0]
            continue
        children = item.children
        at = len(children)
        while at > 0:  # reversed, so that they pop in document order
            at -= 1
            stack.append(children[at])
    return ""


def _mark_chrome(doc: Document, scale: float, headline: Node | None) -> list[bool]:
    """``Node.bad`` for every element (the boilerplate rule it stands for, if any) and,
    by node index, whether it is chrome or inside chrome."""
    inchrome: list[bool] = [False] * len(doc.nodes)
    tag_rules = _boilerplate.TAG_RULES
    raw = _raw_prose(doc, scale)
    page = _Page(doc.body, raw, headline)
    for node in doc.nodes:  # parents first
        # ``match`` reads the tag, then role, id and class only: links and images carry
        # other attributes, and most are spared the call
        attrs = node.attrs
        # (a direct call: compiled code calls a function held in a local generically)
        rule = _boilerplate.match(node) if node.tag in tag_rules or (attrs and (
            "class" in attrs or "id" in attrs or "role" in attrs)) else None
        if rule is not None:
            rule = chrome_rule(node, rule, raw[node.idx], page, scale)
        node.bad = rule
        parent = node.parent
        inchrome[node.idx] = rule is not None or (parent is not None and inchrome[parent.idx])
    return inchrome


class _Page:
    """The page-wide yardsticks ``chrome_rule`` measures an element against."""

    __slots__ = ("headline", "prose", "raw", "story", "text")

    def __init__(self, body: Node, raw: list[int], headline: Node | None) -> None:
        self.prose = raw[0]                            # raw prose chars (names ignored)
        self.text = body.text_len
        self.raw = raw  # each subtree's raw prose chars, by node index
        self.headline = headline
        self.story: Node | bool | None = False  # ``_story_run``, read once when needed


def chrome_rule(node: Node, rule: str, raw: int, page: _Page, scale: float) -> str | None:
    """``rule``, unless the element named so is content after all.

    - a wrapper: it holds ``WRAPPER_SHARE`` of the page's text or ``WRAPPER_PROSE`` of its
      prose in its child blocks, not as a text of its own (a footer's one long copyright
      line wraps nothing), unless it is a navigation or side landmark without prose
      beside ``SIDE_REST`` chars of the page (a short page's sidebar);
    - the story's wrapper: it holds the story's run of prose (``_story_run``: under the
      page's headline, as long as an article's body), unless a landmark or hidden;
    - a place full of prose (``PLACE_SHARE``, ``PLACE_MIN``), for the rules that name a
      place rather than a kind of content, unless the story is elsewhere (a footer's
      disclaimer or a sidebar's bio outweighing a short post is still chrome);
    - an inline element that is a few words of a sentence (``_in_running_text``);
    - a rule that means chrome on a thread only (``_boilerplate.THREAD_RULES``).
    """
    if rule in _boilerplate.THREAD_RULES:
        return None  # chrome on a thread only: pruning decides (``_prune``)
    if node.own_len < WRAPPER_SHARE * node.text_len and (
            node.text_len > WRAPPER_SHARE * page.text
            or (page.prose > 0 and raw >= WRAPPER_PROSE * page.prose)) and not (
                raw == 0 and rule in _SIDE_RULES and page.text - node.text_len >= SIDE_REST
                and _boilerplate.landmark_chrome(node)):
        return None
    if page.headline is not None and raw * scale >= ARTICLE_RUN and rule not in _NAMED_HIDDEN:
        if page.story is False:
            page.story = _story_run(page, ARTICLE_RUN / scale)
        story = page.story
        if isinstance(story, Node):
            if _holds(node, story):
                if not _boilerplate.landmark_chrome(node):
                    return None
            elif not _holds(story, node):
                return rule  # beside the story: a place full of prose is no container
    if rule in _boilerplate.PLACE_RULES and raw >= PLACE_SHARE * page.prose \
            and raw * scale >= PLACE_MIN:
        return None
    if node.tag not in BLOCK_TAGS and _in_running_text(node, rule):
        return None
    return rule


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
INLINE_SHARE: Final = 0.5     # an inline element in running text holds at most this share of it


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
        block.own_len >= PROSE_BLOCK and node.text_len <= INLINE_SHARE * block.own_len)


def _holds(node: Node, inner: Node) -> bool:
    """``inner`` is in ``node``'s subtree (itself included)."""
    while inner.depth > node.depth and inner.parent is not None:
        inner = inner.parent
    return inner is node


def _raw_prose(doc: Document, scale: float) -> list[int]:
    """Prose chars per subtree, chrome names ignored (by node index; body first)."""
    raw = [0] * len(doc.nodes)
    floor = PROSE_BLOCK / scale
    for node in reversed(doc.nodes):
        own = node.own_len
        value = own if (own >= floor and node.tag in BLOCK_TAGS
                        and reads_as_prose(node) and node.own_link <= PROSE_LINKS * own) \
            else 0
        for child in node.elems:
            value += raw[child.idx]
        raw[node.idx] = value
    return raw


def _run(node: Node, raw: list[int]) -> int:
    """Prose chars of the prose blocks among ``node``'s children (a block's own prose: its
    subtree's less its children's), names ignored: a run of paragraphs side by side."""
    run = 0
    for child in node.elems:
        own = raw[child.idx]
        for grandchild in child.elems:
            own -= raw[grandchild.idx]
        run += own
    return run


def _story_run(page: _Page, floor: float) -> Node | None:
    """The parent of the story's run of prose: the longest run (prose blocks side by side
    in one parent, names ignored) of at least ``floor`` chars inside the nearest ancestor
    of the headline below ``<body>`` that holds one; None without such a run.

    Each step up reads only the subtrees it adds (the siblings of the previous step), so
    the climb reads each element once at most.
    """
    raw = page.raw
    prev = page.headline
    step = prev.parent if prev is not None else None
    while step is not None and step.parent is not None:  # (never the body)
        best: Node | None = None
        best_run = 0
        for top in step.elems:
            if top is prev:
                continue
            for inner in top.iter():
                run = _run(inner, raw)
                if run > best_run and run >= floor:  # (">": the first among equals)
                    best, best_run = inner, run
        run = _run(step, raw)
        if run > best_run and run >= floor:
            best = step
        if best is not None:
            return best
        prev = step
        step = step.parent
    return None
