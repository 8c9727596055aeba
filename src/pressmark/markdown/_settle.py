"""A second opinion when the first answer looks wrong.

Scoring picks one region; pruning then takes the chrome out of it. When what is left is
suspiciously little next to what the page holds (a long run of prose elsewhere, a main
landmark full of text), simpler extractions are tried and the one that keeps the most
content wins: the main landmark as it stands, and the parent of the page's longest run
of prose. The idea is trafilatura's ``compare_extraction``: a baseline that cannot be
fooled the way the clever one was, kept when it does better; the choice is said in the
evidence (``Selection.notes``).

Content is measured the one way throughout (``kept``): chars of prose blocks, code blocks
and, on a listing, its entries, in what pruning left. Deterministic: candidates are tried
in a fixed order and a tie keeps the earlier one.
"""

from __future__ import annotations

from pressmark.markdown._score import LINK_HEAVY, PROSE_BLOCK, PROSE_LINKS, reads_as_prose
from pressmark.markdown._tree import BLOCK_TAGS, Node

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

# The first answer is suspect when it keeps less than this share of the page's longest run
# of prose (navigation mass must never outweigh a long run of prose: if one was passed
# over, it is looked at again) ...
SUSPECT_SHARE: Final = 0.5
# ... or less than this many chars of content at all (a footer, a lone heading)
SUSPECT_MIN: Final = 150
# A candidate replaces the first answer when it keeps this much more content: a clear
# gain, not a tie broken by a few characters
BETTER: Final = 1.5


def kept(root: Node, scale: float, *, entries: bool) -> int:
    """Content chars left in ``root`` after pruning: prose blocks, code blocks and (with
    ``entries``) a listing's link entries, in blocks not removed."""
    total = 0
    floor = PROSE_BLOCK / scale
    stack = [root]
    while stack:
        node = stack.pop()
        if node.removed is not None:
            continue
        own = node.own_len
        if own and node.tag in BLOCK_TAGS and reads_as_prose(node):
            links = node.own_link
            if node.tag == "pre" or (own >= floor and links <= PROSE_LINKS * own) or (
                    entries and links > LINK_HEAVY * own):
                total += own
        stack.extend(node.elems)
    return total


def suspect(kept_chars: int, run: int, scale: float) -> bool:
    """The first answer keeps too little: under ``SUSPECT_MIN`` chars, or under
    ``SUSPECT_SHARE`` of the longest run of prose (``run``, in scaled chars)."""
    size = kept_chars * scale
    return size < SUSPECT_MIN or size < SUSPECT_SHARE * run


def reset(root: Node) -> None:
    """Undo pruning below ``root`` (every mark, ``outside_main`` included)."""
    stack = [root]
    while stack:
        node = stack.pop()
        node.removed = None
        stack.extend(node.elems)


def landmark(nodes: list[Node]) -> Node | None:
    """The main landmark with the most text: ``main``, ``[role=main]``, else the largest
    ``article`` (a page of several articles has no one landmark: then none)."""
    found: Node | None = None
    articles: list[Node] = []
    for node in nodes:
        if not node.text_len:
            continue
        if node.tag == "main" or (node.attrs and node.attr("role").strip().lower() == "main"):
            if found is None or node.text_len > found.text_len:
                found = node
        elif node.tag == "article":
            articles.append(node)
    if found is not None:
        return found
    outer = [a for a in articles if not any(_inside(a, b) for b in articles if b is not a)]
    return outer[0] if len(outer) == 1 else None


def _inside(node: Node, ancestor: Node) -> bool:
    step = node.parent
    while step is not None:
        if step is ancestor:
            return True
        step = step.parent
    return False
