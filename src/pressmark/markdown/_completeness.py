"""How much of the page's prose the kept region holds: the facts behind ``partial-content``.

Selection can keep the right kind of block from the wrong place: one section of an
article, the intro above a long text, a short sidebar note while the page's main
landmark holds the story. The kept Markdown then looks fine on its own. Validation
compares it with two yardsticks read from the whole page:

* the prose of the page's main landmark (``<main>``, ``role=main``), when the kept region
  lies outside it: where the page says its content is, and selection looked elsewhere
  (a kept region inside the landmark is a choice among what it holds: one story of a
  live feed, the article beside its teasers);
* the page's longest run of prose: the most prose one element holds in its own child
  blocks (consecutive paragraphs of one text, however the page is marked up).

Prose is what selection counts as such (``_select``): a block's own text of sentence
length (``PROSE_CHARS`` letters, fewer in scripts that say more per character) with at
most ``PROSE_LINKS`` of it in links, in no heading but one that holds a paragraph
(``_score.reads_as_prose``). Neither side counts text inside elements selection
read as chrome (``Node.bad``: navigation, footers, comments, ads, related stories) or
pruned from the kept region (``Node.removed``: each with its named rule), so a comment
thread or a disclaimer the page repeats is no yardstick.
"""

from __future__ import annotations

from pressmark.markdown._score import reads_as_prose
from pressmark.markdown._tree import BLOCK_TAGS, Document, Node

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

PROSE_CHARS: Final = 80     # letters: a block of sentence length (``_select``'s PROSE_BLOCK)
PROSE_LINKS: Final = 0.35   # of a block's own text in links, at most, for prose
_OUT: Final = 1             # state bits, inherited down the tree: chrome
_KEPT: Final = 2            # inside the kept region
_MAIN: Final = 4            # inside the main landmark
_PRUNED: Final = 8          # pruned from the kept region


class ProseFacts:
    """Prose chars: kept in the output, in the main landmark, in the longest run."""

    __slots__ = ("kept", "landmark", "run")

    def __init__(self, kept: int, landmark: int, run: int) -> None:
        self.kept = kept
        self.landmark = landmark
        self.run = run


def _is_main(node: Node) -> bool:
    if node.tag == "main":
        return True
    role = node.attrs.get("role") if node.attrs else None
    return role is not None and role.strip().lower() == "main"


def prose_facts(doc: Document, root: Node, scale: float) -> ProseFacts:
    """Walk the page once (parents first) for the three measures (module docstring).

    Reads the weights selection left on every element (``bad``, ``removed``): call it
    only after ``select`` ran on ``doc``.
    """
    nodes = doc.nodes
    state = [0] * len(nodes)  # (a list: compiled, its items are read without a call)
    inside = False  # the kept region lies in the main landmark
    runs = [0] * len(nodes)  # own prose of each element's child blocks, by element index
    floor = PROSE_CHARS / scale
    kept = landmark = 0
    blocks = BLOCK_TAGS
    for node in nodes:
        parent = node.parent
        bits = state[parent.idx] if parent is not None else 0
        if node.bad is not None:
            bits |= _OUT
        elif node.removed is not None:
            bits |= _PRUNED
        if not bits & _MAIN and _is_main(node):
            bits |= _MAIN
        if node is root:
            bits |= _KEPT
            inside = bool(bits & _MAIN)  # (the landmark itself, or inside it)
        state[node.idx] = bits
        own = node.own_len
        if bits & _OUT or own < floor or node.tag not in blocks or not reads_as_prose(node) \
                or node.own_link > PROSE_LINKS * own:
            continue
        runs[parent.idx if parent is not None else node.idx] += own
        if bits & _KEPT and not bits & _PRUNED:
            kept += own
        if bits & _MAIN:
            landmark += own
    return ProseFacts(kept, 0 if inside else landmark, max(runs, default=0))
