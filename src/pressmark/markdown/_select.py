"""Main-content selection, deterministic and single-pass.

1. Every element is weighed by one scoring function over a few named signals
   (``_score``): prose for its length, navigation and labels against it, chrome never
   positive.
2. The page's kind is decided from general signals (``_kinds``): an article, a page of
   documentation, a listing, a thread, a product, an application.
3. The main region is the container with the highest score for that kind (a listing's
   entries count for it); ties go to the deeper element, the tighter fit. A semantic
   anchor (``article``, ``main``, ``[role=main]``, ``[itemprop=articleBody]``) inside
   it wins when it keeps nearly all of the score; when nothing scores (a short page),
   the main landmark is the region.
4. Sibling parts of the same body join the pick (``_merge``), a pick that holds little of
   the page's prose is widened, and the region is pruned (``_prune``).
5. When that first answer is suspiciously small, a simpler extraction is compared with
   it and the better one kept (``_settle``), said in ``Selection.notes``.

Every step is named in the evidence. Nothing here depends on dict or set iteration
order of unordered data, on hashing or on time: the same tree always yields the same
region.
"""

from __future__ import annotations

from collections.abc import Collection

from pressmark.markdown._kinds import PageKind, classify
from pressmark.markdown._merge import goes_on_as_text, is_article, join_data, merge_siblings
from pressmark.markdown._prune import block_hash, drop_comments, prune
from pressmark.markdown._score import LONG_BLOCK, script_scale, weigh
from pressmark.markdown._settle import BETTER, kept, landmark, reset, suspect
from pressmark.markdown._tree import BLOCK_TAGS, HEADINGS, Document, Node, precedes

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

__all__ = ["LONG_BLOCK", "Selection", "block_hash", "script_scale", "select"]

# (``Final``: compiled code reads a constant directly, a module global is a dictionary
# look-up at every use, and the loops below run per element of every page)
ANCHOR_KEEP: Final = 0.9      # an anchor inside the best region must keep this share of its score
_CONTAINERS: Final = BLOCK_TAGS - HEADINGS - {"p", "tr", "dt", "hr", "pre"}
_TABLE_PARTS: Final = frozenset(("tbody", "thead", "tfoot"))
PROSE_MIN_TOTAL: Final = 400  # chars of prose on the page below which recall is not judged
RECALL_SHARE: Final = 0.6     # the pick must hold this share of the page's prose ...
RECALL_TARGET: Final = 0.8    # ... else widen to the first ancestor holding this share
# On a listing its entries are the content: each entry char weighs this much more than
# the navigation cost article scoring gave it (-1 per char), so the list's container
# wins over the prose around it
ENTRY_GAIN: Final = 1.5
# the headline's own body wins over a container elsewhere scoring up to this many times as
# much: a short post under its title beats the longer author bio in the sidebar
HEADLINE_BOOST: Final = 2.0
# a story beside a column of boxes: the column holds at least this many one-paragraph
# boxes (teaser cards, a bio, a disclaimer), where a lead paragraph or a caption beside
# the body is one or two
STORY_BOXES: Final = 3
# a page laid out in tables splits one text across them (a header table, the body's,
# a closing one): a table beside the story is a part of its text, not a column of boxes
_LAYOUT_TABLE: Final = frozenset(("table", "tbody", "tr", "td"))


class Selection:
    """The region picked, how it was found, and what pruning took out of it.

    Plain slots, not a dataclass: internal, and a dataclass costs start-up (``_blocks``).
    """

    __slots__ = ("kept", "kind", "notes", "picked", "removed_chars", "root", "rules",
                 "scale", "selectors")

    def __init__(self, *, root: Node, selectors: list[str], kind: PageKind | None = None,
                 ) -> None:
        self.root = root
        self.picked = root  # the element scoring picked, before the body was widened
        self.kept = 0       # content chars pruning left (``_settle.kept``)
        self.selectors = selectors
        self.rules: list[str] = []
        self.removed_chars = 0
        self.kind = kind
        self.notes: list[str] = []
        self.scale = 1.0    # the page's ``script_scale``, kept for the validation facts


def _is_anchor(node: Node) -> bool:
    if node.tag in ("article", "main"):
        return True
    attrs = node.attrs
    return bool(attrs) and (
        ("role" in attrs and node.attr("role").strip().lower() == "main")
        or ("itemprop" in attrs and node.attr("itemprop").strip() == "articleBody")
    )


def select(doc: Document, *, hints: Collection[str] = (), schema: str = "",
           title: str | None = None) -> Selection:
    """The main region of ``doc``, pruned; ``schema`` the kind the page declares
    (``_kinds.declared_kind``), ``title`` its title (``og:title`` or ``<title>``)."""
    scale = script_scale(doc)
    headline = _headline(doc, title)
    inchrome = weigh(doc, scale, headline)
    kind = classify(doc.nodes, inchrome, scale, schema)
    story = kind.run_at if kind.name == "article" else None
    picked = _pick(doc, kind.name, headline, story)
    within = _story_within(picked, headline) if kind.name == "article" else picked
    selection = _extract(doc, _scope(within, kind.name), hints, scale, kind=kind,
                         headline=headline, beside_boxes=within is not picked)
    selection.kind = kind
    selection.scale = scale
    if "kept_listing" in selection.rules:
        kind.name = "listing"
        selection.notes.append("kind:listing (its entries outweigh what article pruning left)")
    first = selection.kept
    if suspect(first, kind.run, scale):
        _second_opinion(doc, selection, first, hints, scale, kind=kind)
    if doc.skipped:
        selection.rules = sorted(set(selection.rules) | doc.skipped)
    return selection


def _extract(doc: Document, chosen: Node, hints: Collection[str], scale: float, *,
             kind: PageKind, headline: Node | None = None,
             beside_boxes: bool = False) -> Selection:
    """``chosen`` widened to the whole body (``_merge``, ``_widen_for_recall``) and pruned.

    A region that holds the page's headline starts where the article starts: it is not
    widened for recall (the prose elsewhere is a sidebar's, a site description's); nor
    is a story picked out of the column of boxes beside it (``beside_boxes``,
    ``_story_within``): the prose it leaves out is the column's.
    """
    if chosen.tag in _TABLE_PARTS and chosen.parent is not None and chosen.parent.tag == "table":
        chosen = chosen.parent  # a table's body is not a block of its own: the table is
    widened = chosen if beside_boxes or (headline is not None and _inside(headline, chosen)) \
        else _widen_for_recall(doc, chosen, scale)
    # the story under the headline, whole in the pick: what beside it joins must go on as
    # text does (``_merge``), not be a column of one-paragraph boxes
    story = kind.run_at if kind.name == "article" and headline is not None \
        and kind.run_at is not None and _inside(headline, chosen) \
        and _inside(kind.run_at, chosen) else None
    if story is None and beside_boxes:
        story = chosen  # the story picked out of its column: the column does not join it
    merged = merge_siblings(chosen, scale, story is not None) if widened is chosen else chosen
    widened = merged if widened is chosen else widened
    region = join_data(chosen) if widened is chosen else widened
    selection = Selection(root=region, selectors=[region.css_path()])
    selection.picked = chosen
    selection.rules, selection.removed_chars, selection.kept = prune(
        region, hints, kind=kind.name, scale=scale)
    if kind.name != "thread":
        dropped = drop_comments(region, kind.posts_at, kind.run_at)
        if dropped:
            selection.rules.append("comment_thread")
            selection.removed_chars += dropped
            selection.kept = kept(region, scale, entries=kind.name in ENTRY_KINDS)
    if beside_boxes:
        selection.rules.append("story_beside_boxes")
    if merged is not chosen:
        selection.rules.append("merged_siblings")
    if widened is not merged:
        selection.rules.append("widened_for_recall")
    if region is not widened:
        selection.rules.append("joined_data")
    selection.rules.sort()
    return selection


def _second_opinion(doc: Document, selection: Selection, first: int, hints: Collection[str],
                    scale: float, *, kind: PageKind) -> None:
    """Compare the first answer with simpler ones (``_settle``) and keep the best, in place.

    Candidates, in order: the main landmark, the parent of the longest run of prose. Each
    is extracted as the first answer was; one replaces it when it keeps ``BETTER`` times
    as much content. The first answer is pruned again when it stays (the candidates'
    marks undone), so the outcome is the same as if they had never been tried.
    """
    candidates = [landmark(doc.nodes), kind.run_at]
    best: Node | None = None
    best_kept = first
    for at, node in enumerate(candidates):
        if node is None or node is selection.root or any(
                node is c for c in candidates[:at]):
            continue
        reset(selection.root)
        trial = _extract(doc, node, hints, scale, kind=kind)
        value = trial.kept
        reset(trial.root)
        if value > BETTER * best_kept:
            best, best_kept = node, value
    reset(selection.root)
    if best is None:
        again = _extract(doc, selection.picked, hints, scale, kind=kind,
                         beside_boxes="story_beside_boxes" in selection.rules)
        selection.notes.append(f"second-opinion:kept-first ({first} chars)")
    else:
        again = _extract(doc, best, hints, scale, kind=kind)
        name = "main-landmark" if best is candidates[0] else "longest-prose-run"
        selection.notes.append(f"second-opinion:{name} ({best_kept} chars, first {first})")
    selection.root = again.root
    selection.picked = again.picked
    selection.kept = again.kept
    selection.selectors = again.selectors
    selection.rules = again.rules
    selection.removed_chars = again.removed_chars


# kinds whose entries (short link-heavy blocks) are content: a listing's list, an
# application's controls and the lists they sit in
ENTRY_KINDS: Final = frozenset(("listing", "application"))


def region_score(node: Node, kind: str) -> float:
    """What a container is worth as the main region of a page of ``kind``."""
    if kind in ENTRY_KINDS:
        return node.score + ENTRY_GAIN * node.entry
    return node.score


def _pick(doc: Document, kind: str, headline: Node | None, story: Node | None) -> Node:
    """The container with the highest ``region_score`` (ties: the deeper), or the anchor
    inside it that keeps nearly all of it; when nothing scores, the main landmark.

    The page's headline (its ``<h1>`` that the title names) speaks for the text under
    it: when the best container lies elsewhere (a long author bio, a site description,
    another story's teaser beside a short post), the headline's own body wins unless the
    other scores ``HEADLINE_BOOST`` times as much. So it does when the best container
    holds it and gains its score around it (the page's body, summing a short post with
    a sidebar's bio and disclaimer), unless the text goes on beside it (``_goes_on``).
    On an article it wins whatever the other scores when it holds the page's longest run
    of prose (``story``, ``_kinds``): what beside it outscores it is many boxes of a
    paragraph each (teasers, a bio, a disclaimer), none of them a story.
    """
    best = doc.body
    best_score = region_score(best, kind)
    entries = ENTRY_GAIN if kind in ENTRY_KINDS else 0.0
    for node in doc.nodes:
        if node.tag in _CONTAINERS:
            score = node.score + entries * node.entry  # (``region_score``, inline)
            if score > best_score or (score == best_score and node.depth > best.depth):
                best, best_score = node, score
    if best_score <= 0:
        return _weak_pick(doc)
    under = _under(headline)
    if under is not None and not _inside(best, under):
        own = region_score(under, kind)
        # what the pick holds besides the headline's body: all of it, or (around it) the
        # rest: a sidebar's bio and disclaimer, a site description beside a short post
        other = best_score - own if _inside(under, best) else best_score
        if (HEADLINE_BOOST * own >= other or (story is not None and _inside(story, under))) \
                and not _goes_on(under, best):
            best, best_score = under, own
    # the anchor inside the pick that keeps the most of its score, the first in document
    # order among equals. Not a walk of the pick's subtree: its elements were created
    # after it (``idx``), and a score that high rules out all but a few
    chosen = best
    chosen_score = best_score
    floor = ANCHOR_KEEP * best_score
    nodes = doc.nodes
    for at in range(best.idx + 1, len(nodes)):
        node = nodes[at]
        score = region_score(node, kind)
        if score >= floor and _is_anchor(node) and _inside(node, best) and (
            chosen is best or score > chosen_score
            or (score == chosen_score and precedes(node, chosen))
        ):
            chosen, chosen_score = node, score
    return chosen


def _story_within(best: Node, headline: Node | None) -> Node:
    """The child of ``best`` that holds the story, when the rest of it is a column of boxes.

    Scores add up over a subtree, so the parent of an article and of a column beside it
    (teaser cards, an author bio, a disclaimer: prose, with no telling class or landmark)
    outscores either. The story's text goes on (two paragraphs side by side,
    ``goes_on_as_text``); the column's is one paragraph a box. So step down to the one
    scoring child whose text goes on, while another scoring child (the column) holds
    ``STORY_BOXES`` boxes of prose or more, no box beside the story is longer than its
    prose (one long block beside paragraphs, a page set in one cell, is no column of
    boxes) and no child beside it scores ``HEADLINE_BOOST`` times as much (many short
    entries, a page's real body, against one lead-in that goes on), unless the story is
    one of a group of siblings alike (tag and first class name: posts on a blog's front
    page, each a box or two). An anchor (``article``, ``main``) bounds the story: it is
    never stepped out of; so does the page's headline (the story starts there, with its
    standfirst and byline).
    """
    step = best
    while not _is_anchor(step):
        scoring = [child for child in step.elems if child.tag in _CONTAINERS and child.score > 0]
        stories = [child for child in scoring if goes_on_as_text(child)]
        if len(stories) != 1:
            break
        story = stories[0]
        boxes = largest = 0
        rival = 0.0
        for other in scoring:
            if other is not story:
                count, longest = _prose_boxes(other)
                largest = max(largest, longest)
                rival = max(rival, other.score)
                if other.tag not in _LAYOUT_TABLE:
                    boxes = max(boxes, count)
        if boxes < STORY_BOXES or largest > story.prose or rival > HEADLINE_BOOST * story.score \
                or _one_of_a_group(story, step) \
                or (headline is not None and _inside(headline, step)
                    and not _inside(headline, story)):
            break
        step = story
    return step


def _one_of_a_group(node: Node, parent: Node) -> bool:
    """``node`` shares its tag and first class name with another child of ``parent``: one
    post of several (a blog's front page), not a story beside a column. Classless
    siblings are no group."""
    names = node.attr("class").split()
    if not names:  # a plain wrapper beside plain wrappers (an ad slot, a spacer) is no post
        return False
    for sibling in parent.elems:
        if sibling is not node and sibling.tag == node.tag:
            other = sibling.attr("class").split()
            if other and other[0] == names[0]:
                return True
    return False


def _prose_boxes(node: Node) -> tuple[int, int]:
    """The blocks of ``node``'s subtree that hold prose of their own, and the longest
    (a block's own prose: its prose less its children's, as ``goes_on_as_text`` reads)."""
    count = longest = 0
    for inner in node.iter():
        below = 0
        for child in inner.elems:
            below += child.prose
        own = inner.prose - below
        if own > 0:
            count += 1
            longest = max(longest, own)
    return count, longest


def _goes_on(under: Node, best: Node) -> bool:
    """The text under the headline goes on beside its container, inside ``best``: a
    paragraph of prose stands right beside it or beside a wrapper around it (an article
    whose first part a box holds, the rest set as the page's own paragraphs). A column
    of boxes beside it (a sidebar's bio and widgets) is no paragraph."""
    step = under
    while step is not best and step.parent is not None:
        for sibling in step.parent.elems:
            if sibling is not step and sibling.tag in BLOCK_TAGS and sibling.own_len \
                    and sibling.prose >= sibling.own_len and sibling.removed is None:
                return True
        step = step.parent
    return False


def _headline(doc: Document, title: str | None) -> Node | None:
    """The page's headline: the first ``<h1>`` whose text the title names (or that names
    the title)."""
    key = " ".join((title or "").split()).casefold()
    if not key:
        return None
    for node in doc.nodes:
        if node.tag == "h1" and node.text_len:
            text = node.text().casefold()
            if text and (text in key or key in text):
                return node
    return None


def _under(headline: Node | None) -> Node | None:
    """The container of the headline and the text under it: its nearest ancestor that
    holds prose and scores."""
    step = headline.parent if headline is not None else None
    while step is not None and (step.prose <= 0 or step.score <= 0):
        step = step.parent
    return step


def _scope(chosen: Node, kind: str) -> Node:
    """What the kind says the main content spans, from the element scoring picked.

    - documentation: the main landmark around the pick (``main``, ``[role=main]``): a
      documentation page's landmark holds the page (its title, signature, summary
      tables and details) and nothing else, where scoring alone would keep its longest
      part;
    - a listing: its heading and lead-in ("The modules are:") above the list, when the
      parent adds only those.
    """
    if kind == "documentation":
        step = chosen.parent
        while step is not None:
            if step.tag == "main" or (step.attrs and step.attr("role").strip().lower() == "main"):
                return step
            step = step.parent
    elif kind == "listing":
        while chosen.parent is not None and _adds_only_a_head(chosen.parent, chosen):
            chosen = chosen.parent
    return chosen


HEAD_EXTRA: Final = 200       # chars a parent may add around a listing as its heading and lead-in


def _adds_only_a_head(parent: Node, child: Node) -> bool:
    """``parent`` holds ``child`` and, before it, only headings and short lines (at most
    ``HEAD_EXTRA`` chars), and nothing after it."""
    extra = parent.text_len - child.text_len
    if extra <= 0 or extra > HEAD_EXTRA or parent.parent is None:
        return False
    seen = False
    for node in parent.elems:
        if node is child:
            seen = True
        elif seen and node.text_len:
            return False
        elif node.text_len and node.tag not in HEADINGS and node.own_len < node.text_len:
            return False  # a block of blocks beside the list: more than a heading
    return True


def _weak_pick(doc: Document) -> Node:
    """Chrome outweighs prose everywhere (a short page): the tightest container holding
    the most positive weight; with none, the largest semantic anchor, else the body."""
    chosen = doc.body
    for node in doc.nodes:
        if node.tag in _CONTAINERS and (node.pos > chosen.pos or (
                node.pos == chosen.pos and node.depth > chosen.depth)):
            chosen = node
    if chosen.pos <= 0:
        anchors = [n for n in doc.nodes if _is_anchor(n) and n.text_len]
        chosen = max(anchors, key=lambda n: n.text_len, default=doc.body)
    return chosen


def _inside(node: Node, ancestor: Node) -> bool:
    """``node`` is in ``ancestor``'s subtree (itself included)."""
    while node.depth > ancestor.depth and node.parent is not None:
        node = node.parent
    return node is ancestor


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
