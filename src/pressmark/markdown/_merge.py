"""Widening the pick to the whole body: sibling parts, headed parts, data beside it.

Scoring (``_select``) picks the tightest high-scoring block; a body is often cut into
siblings that each score alone: sections, a lead and a body block, a reference page's
headed tables, a product's specifications beside its description. These steps join
them to the pick, each named in the evidence (``merged_siblings``, ``joined_data``);
what they leave out of the new region is marked ``outside_main``.
"""

from __future__ import annotations

from pressmark.markdown import _text_rules
from pressmark.markdown._score import PROSE_BLOCK
from pressmark.markdown._sections import heading_of
from pressmark.markdown._tree import Node

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

SIBLING_SHARE: Final = 0.2    # a sibling scoring this share of the pick's score joins it
SIBLING_PROSE: Final = 0.6    # ... as does one whose text is at least this share prose
SIBLING_MIN: Final = 300      # chars of prose a sibling needs to join at all
HEADED_LINKS: Final = 0.5     # link share below which a block under a heading is a part, not a menu
_ENTRY_TAGS: Final = frozenset(("dl", "table", "ul", "ol"))
DATA_LINKS: Final = 0.2  # link share up to which a sibling's table or list of terms is data
DATA_SHARE: Final = 0.5  # share of a sibling's text in tables and term lists that makes it data
NOTES_MIN: Final = 2     # ids the body links to that make a block its notes, not a "top" anchor
TEXT_BLOCKS: Final = 2   # prose blocks side by side that make text going on, not a box


def merge_siblings(chosen: Node, scale: float, story: bool = False) -> Node:
    """The parent, when ``chosen``'s siblings carry more of the same body.

    An article split into sibling sections (``<section>`` per heading, a lead block
    and a body block, text interrupted by a figure wrapper) scores as several blocks,
    and only the best one wins. A sibling joins when it scores well against the pick
    or is itself mostly prose; the parent becomes the region. Two kinds of sibling
    that are not prose belong to the body all the same: whatever sits between joined
    parts (a list or table in mid-article, a section heading), and a block holding two
    or more of the ids the body links to by fragment (footnotes, a reference list: a
    reader follows the body's own links there). The rest, and any sibling a
    boilerplate rule matched, is left out (``outside_main``), so widening adds no chrome.

    ``story``: the pick holds the page's headline and its longest run of prose, or it is
    the story ``_select`` picked out of the column of boxes beside it. A prose
    sibling then joins only when its text goes on as a story's does, two paragraphs side
    by side (``goes_on_as_text``): a sidebar's column of teasers, a bio and a disclaimer
    is prose in boxes of one paragraph each, beside the story, not part of it.
    """
    if chosen.score <= 0:
        return chosen
    floor = SIBLING_SHARE * chosen.score
    # wrappers that add no prose ("<div class=inner><div class=body>") are looked through
    base = chosen
    kinds = _kind(chosen)
    while base.parent is not None and base.parent.parent is not None \
            and base.parent.prose == chosen.prose and not is_article(base):
        base = base.parent
        kinds |= _kind(base)
    parent = base.parent
    if parent is None:
        return chosen
    # a document going on in headed parts joins them where they sit: inside the wrappers
    # looked through, when a part holds no prose (so the wrapper's prose is the pick's)
    node = chosen
    while node is not base and node.parent is not None:
        parts = _headed_parts(node.parent.elems, node)
        if parts:
            return _join(node.parent, node, parts)
        node = node.parent
    # across wrappers only a block of the same kind joins: "story-body-1" beside the
    # wrapper of "story-body-2", not a list of recent articles further along
    kind = kinds if base is not chosen else None
    joined: list[Node] = []
    # a document cut into <section>s: a short section beside the picked one is another
    # part of it (a one-paragraph "Overview" between long ones)
    sections = base.tag == "section"
    for node in parent.elems:
        least = PROSE_BLOCK if sections and node.tag == "section" else SIBLING_MIN
        if node is base or node.bad is not None or node.prose * scale < least:
            continue  # headers, standfirsts, author boxes: short, and not the body
        if kind is not None and not (kind & _kind(node)):
            continue
        if (node.score >= floor or node.prose >= SIBLING_PROSE * node.text_len) \
                and not (story and not goes_on_as_text(node)):
            joined.append(node)
    joined.extend(_headed_parts(parent.elems, base))
    if not joined:
        return chosen
    return _join(parent, base, joined)


def goes_on_as_text(node: Node) -> bool:
    """Some element of the subtree has two prose blocks among its children: paragraphs
    side by side (a block's own prose: its prose less its children's)."""
    for inner in node.iter():
        blocks = 0
        for child in inner.elems:
            below = 0
            for grandchild in child.elems:
                below += grandchild.prose
            if child.prose > below:
                blocks += 1
        if blocks >= TEXT_BLOCKS:
            return True
    return False


def _join(parent: Node, base: Node, joined: list[Node]) -> Node:
    """``parent`` as the region: ``base``, the ``joined`` siblings, the notes they link
    to and what sits between them kept, its other children marked ``outside_main``."""
    keep = {base.idx, *(n.idx for n in joined)}
    elems = parent.elems
    candidates = [n for n in elems if n.idx not in keep and n.bad is None and n.text_len]
    if candidates:  # notes the body links to: footnotes, references, endnotes
        targets = _fragment_targets([n for n in elems if n.idx in keep])
        if targets:
            keep.update(n.idx for n in candidates if _targeted(n, targets))
    kept_at = [i for i, n in enumerate(elems) if n.idx in keep]
    # what sits between parts of the body is the body's too: a list, a table, the
    # heading of the notes (chrome among them matched a rule and stays out)
    keep.update(n.idx for n in elems[kept_at[0]:kept_at[-1]] if n.bad is None)
    return _leave_out(parent, keep)


def _leave_out(parent: Node, keep: set[int]) -> Node:
    """``parent`` as the region, its children not in ``keep`` (by index) ``outside_main``."""
    for node in parent.elems:
        if node.idx not in keep and node.text_len:
            node.removed = "outside_main"
    return parent


def _headed_parts(elems: list[Node], base: Node) -> list[Node]:
    """The blocks after ``base`` that each follow a heading of their own, the document
    going on in headed parts: a reference page's "Modules", "Functions" and "Macros",
    each a table of names with a line of description (no prose to weigh, so neither
    score nor prose would join them). A part is such a table or list of entries, and
    link-poor: a list of links under a heading is a menu, and an author's bio or a
    thread of comments is prose in blocks, which the scoring judges. Up to the first
    chrome heading ("Related", "Most read", "12 Comments")."""
    found: list[Node] = []
    headed = False
    for node in elems[elems.index(base) + 1:]:
        heading = heading_of(node)
        if heading is not None:
            if _text_rules.chrome_heading(heading.text()):
                break
            headed = True
        elif headed and node.bad is None and node.text_len >= PROSE_BLOCK \
                and node.link_len < HEADED_LINKS * node.text_len and _entries(node):
            found.append(node)
            headed = False
        else:
            headed = False
    return found


def _entries(node: Node) -> bool:
    """A table, a list or a definition list, or a wrapper holding only one."""
    while node.tag not in _ENTRY_TAGS:
        if len(node.elems) != 1 or node.elems[0].text_len != node.text_len:
            return False
        node = node.elems[0]
    return True


def _fragment_targets(blocks: list[Node]) -> set[str]:
    """The fragments the blocks' links name (``href="#cite-1"``, or the page's own URL
    with one, as saved pages have them): the ids of the notes they point to."""
    found: set[str] = set()
    for block in blocks:
        for node in block.iter():
            if node.tag == "a":
                fragment = node.attr("href").partition("#")[2]
                if fragment:
                    found.add(fragment)
    return found


def _targeted(block: Node, targets: set[str]) -> bool:
    """Two or more of ``targets`` inside: notes, not one "back to top" anchor."""
    hits = 0
    for node in block.iter():
        if node.attrs and node.attr("id") in targets:
            hits += 1
            if hits >= NOTES_MIN:
                return True
    return False


def _kind(node: Node) -> set[str]:
    """Tag and class attribute: two blocks of one body share both (no class: no kind)."""
    name = " ".join(node.attr("class").split())
    return {f"{node.tag}.{name}"} if name else set()


def is_article(node: Node) -> bool:
    return node.tag == "article" or (
        bool(node.attrs) and node.attr("itemprop").strip() == "articleBody")


def join_data(chosen: Node) -> Node:
    """The parent, when a sibling right beside ``chosen`` is a data table or term list.

    A product's specifications, a recipe's nutrition facts, a report's figures: a
    ``<table>`` or ``<dl>`` block (with its heading) beside the prose has no prose of
    its own, so sibling merging passes it by. Only adjacent siblings join, link-poor,
    outside chrome; the rest of the parent is left out (``outside_main``).
    """
    parent = chosen.parent
    if parent is None or parent.parent is None or chosen.score <= 0:
        return chosen
    elems = parent.elems
    at = next(i for i, n in enumerate(elems) if n is chosen)
    keep = {chosen.idx}
    for step in (1, -1):
        i = at + step
        while 0 <= i < len(elems) and _is_data(elems[i]):
            keep.add(elems[i].idx)
            i += step
    if len(keep) == 1:
        return chosen
    return _leave_out(parent, keep)


def _is_data(node: Node) -> bool:
    if node.bad is not None or not node.text_len or node.link_len > DATA_LINKS * node.text_len:
        return False
    data = sum(n.text_len for n in node.iter() if n.tag in ("table", "dl"))
    return data >= DATA_SHARE * node.text_len
