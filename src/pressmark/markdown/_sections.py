"""Sibling-level chrome inside the selected region: teaser rows and chrome sections.

``_prune`` judges one element at a time; these rules judge a run of siblings, which
no single element shows: three or more short cards of one kind that each open with a
link (``teaser_cards``), and what follows a heading such as "Related" or "Most read"
(``chrome_section``). Their marks, by node index, are taken before the per-element rules.
"""

from __future__ import annotations

from pressmark.markdown import _text_rules
from pressmark.markdown._tree import BLOCK_TAGS, HEADINGS, Node

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

# (``Final``: compiled code reads a constant directly, where a module global is a dictionary
# look-up at every use)
CARD_MAX: Final = 300         # chars: a teaser card (headline link, a line of text) is short
CARD_MIN_RUN: Final = 3       # sibling cards of one kind that make a teaser row
CARD_LINK_SHARE: Final = 0.1  # a card's link text (its headline) is at least this share of its text
CARD_TAGS: Final = frozenset(("div", "article", "li", "section", "figure"))
CARD_SHARE: Final = 0.75      # share of a run of siblings that must be cards (or slides)
GALLERY_TEXT: Final = 100     # chars: a gallery's frame holds a line of caption at most
# a chrome section goes only if the region keeps this much (a region that is itself a
# "Related" box, picked on a page with almost no prose, is left alone)
SECTION_KEEP_CHARS: Final = 200
SECTION_KEEP: Final = 0.2
STREAM_LINK_SHARE: Final = 0.1  # a feed after a "Recommended" heading: links are its headlines
STREAM_CARD: Final = 600      # chars per linked headline at most, in such a feed
HEADING_BOX: Final = 60       # chars: a wrapper this small around one heading stands for it
TEASER_SHARE: Final = 0.5     # teaser rows take at most this share of the region's text
LINKED_HEADING: Final = 0.5   # link share of a heading that makes it a linked headline
# after a chrome heading, a block this long with less than this share in links is prose
# again: the section was only the heading and its links
SECTION_PROSE: Final = 100
SECTION_PROSE_LINKS: Final = 0.4


def section_marks(root: Node, order: list[Node]) -> dict[int, str]:
    """Sibling-level chrome inside the region, by node index: teaser rows, chrome sections.

    A teaser row is three or more sibling containers of one kind (tag and class), each
    short, opening with a link (usually a linked headline) and carrying a heading or an
    image: cards pointing at other pages. A chrome section is what follows a heading
    such as "Related articles", "Most read" or "Kommentare" (``_text_rules``): the
    heading, and after it the link lists and short blocks up to the next prose or an
    equal heading; after a comments heading, everything up to the next equal heading.
    """
    marks: dict[int, str] = {}
    budget = TEASER_SHARE * root.text_len
    for parent in order:
        elems = parent.elems
        if len(elems) >= CARD_MIN_RUN:
            _teaser_row(elems, marks, budget)
        for index, node in enumerate(elems):
            if node.idx not in marks and heading_of(node) is not None:
                section = _chrome_section(elems, index)
                left = root.text_len - sum(n.text_len for n in section)
                if section and left >= max(SECTION_KEEP_CHARS, SECTION_KEEP * root.text_len):
                    marks.update((n.idx, "chrome_section") for n in section)
    return marks


def _teaser_row(elems: list[Node], marks: dict[int, str], budget: float) -> None:
    """Teaser cards, and the slides of a gallery: a run of siblings of one kind, each an
    image with a line of caption at most (``GALLERY_TEXT``), no prose: a slideshow's
    frames ("The bridge at dawn. 1 of 5") beside the story, not part of it."""
    groups: dict[tuple[str, str], list[Node]] = {}
    for node in elems:
        if node.tag in CARD_TAGS:
            groups.setdefault((node.tag, node.attr("class")), []).append(node)
    for group in groups.values():  # insertion order: deterministic
        if len(group) < CARD_MIN_RUN:
            continue
        cards = [n for n in group if _is_card(n)]
        if len(cards) >= CARD_MIN_RUN and CARD_SHARE * len(group) <= len(cards) \
                and sum(n.text_len for n in cards) <= budget:
            for node in cards:
                marks[node.idx] = "teaser_cards"
        slides = [n for n in group if _is_slide(n)]
        if len(slides) >= CARD_MIN_RUN and CARD_SHARE * len(group) <= len(slides) \
                and _side_by_side(elems, slides):
            for node in slides:
                marks[node.idx] = "gallery"


def _side_by_side(elems: list[Node], run: list[Node]) -> bool:
    """``run`` (in document order) follow one another among ``elems``, nothing with text
    between them: a slideshow's frames, not figures spread through a story."""
    first = elems.index(run[0])
    last = elems.index(run[-1])
    members = {n.idx for n in run}
    return all(n.idx in members or not n.text_len for n in elems[first:last + 1])


def _is_slide(node: Node) -> bool:
    """An image with a line of caption at most, and no link out (a gallery's frame)."""
    if node.text_len > GALLERY_TEXT or node.link_len or node.prose:
        return False
    return any(n.tag in ("img", "picture") for n in node.iter())


def _is_card(node: Node) -> bool:
    if not 0 < node.text_len <= CARD_MAX or node.link_len < CARD_LINK_SHARE * node.text_len:
        return False
    visual = False
    first_linked: bool | None = None
    # document order, each item with whether a link holds it (two stacks: no tuples)
    stack: list[Node | str] = [node]
    in_link: list[bool] = [False]
    while stack:
        item = stack.pop()
        linked = in_link.pop()
        if isinstance(item, str):
            if first_linked is None and item.strip():
                first_linked = linked
                if not linked:
                    return False
            continue
        tag = item.tag
        if tag in ("img", "picture", "figure") or (tag in HEADINGS and (linked or item.link_len)):
            visual = True
        if first_linked and visual:
            return True  # (neither can change any more)
        linked = linked or tag == "a"
        children = item.children
        at = len(children)
        while at > 0:  # reversed, so that they pop in document order
            at -= 1
            stack.append(children[at])
            in_link.append(linked)
    return bool(first_linked) and visual


def _teaser_stream(node: Node) -> bool:
    """A block of linked headlines, each with a line of summary (a feed of other pages)."""
    linked = sum(1 for n in node.iter()
                 if n.tag in HEADINGS and n.text_len and n.link_len >= LINKED_HEADING * n.text_len)
    return linked >= CARD_MIN_RUN and node.link_len >= STREAM_LINK_SHARE * node.text_len \
        and linked * STREAM_CARD >= node.text_len


def heading_of(node: Node) -> Node | None:
    """The heading a block stands for: itself, or the one heading a small wrapper holds.

    Widgets put their title in a header box beside the body box
    (``<div class=hd><h2>Recommended</h2></div><div class=bd>...``).
    """
    if node.tag in HEADINGS:
        return node
    if node.tag not in BLOCK_TAGS or not 0 < node.text_len < HEADING_BOX:
        return None
    # the one heading of the subtree, if there is only one: the order of the search does
    # not matter, and it stops at a second one
    found: Node | None = None
    stack = list(node.elems)
    while stack:
        item = stack.pop()
        if item.tag in HEADINGS:
            if found is not None:
                return None
            found = item
        for child in item.elems:
            stack.append(child)
    return found if found is not None and found.text_len == node.text_len else None


def _chrome_section(elems: list[Node], index: int) -> list[Node]:
    heading = heading_of(elems[index])
    if heading is None:
        return []
    text = heading.text()
    if not _text_rules.chrome_heading(text):
        return []
    comments = _text_rules.comments_heading(text)
    level = int(heading.tag[1])
    section = [elems[index]]
    for node in elems[index + 1:]:
        inner = heading_of(node)
        if inner is not None and int(inner.tag[1]) <= level:
            break
        if not comments and node.text_len >= SECTION_PROSE \
                and node.link_len < SECTION_PROSE_LINKS * node.text_len \
                and not _teaser_stream(node):
            break  # prose again: the section was only a heading and its links
        section.append(node)
    return section
