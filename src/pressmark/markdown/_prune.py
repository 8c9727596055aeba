"""Pruning inside the selected region: every rule that fires is named.

Per element: boilerplate signals (``_boilerplate``, ``_text_rules``), link density,
repeated or placeholder text, credit and paywall lines, inline link clusters; per run of
siblings, the marks of ``_sections`` (teaser rows, chrome sections) come first.
Selection (``_select``) decides *where* the content is; this module decides what
inside it is still chrome. Deterministic: no hashing or unordered iteration
decides anything.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection
from typing import Final

from pressmark.markdown import _text_rules
from pressmark.markdown._sections import heading_of, section_marks
from pressmark.markdown._tree import BLOCK_TAGS, HEADINGS, Node

# CPython's own SHA-256 (as ``random`` takes its SHA-512): the same digest, and no OpenSSL
# loaded by every start-up of the command line, as hashlib would. (Not behind
# ``TYPE_CHECKING``: compiled code takes such an ``else`` branch for dead code.)
try:
    from _sha256 import sha256  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - a build without it
    from hashlib import sha256

# (``Final``: compiled code reads a constant directly, a module global is a dictionary
# look-up at every use, and the loops below run per element of every page)
LONG_BLOCK: Final = 300       # chars: a block this long is prose even when dense with links
LINK_DENSE: Final = 0.6       # link share of a block's text above which the link rule weighs it
PROSE_BLOCK: Final = 80       # chars: a block this long, and link-poor, is prose (recall measure)
CAPTION_MAX: Final = 80       # chars: an italic line under an image this short is its caption
CAPTION_LINKS: Final = 0.5    # link share of a figcaption that makes it a promotion, not a caption
PROSE_ITEM: Final = 120       # chars of prose that make a link-heavy list release notes, not a menu
_LISTS: Final = frozenset(("ul", "ol"))
_CELLS: Final = frozenset(("td", "th", "tr"))
# what a listing's entries are set in: kept from the link rule in a listing (``prune``),
# as are the blocks that wrap them; a link-dense line of its own ("Next: a, Previous: b")
# still goes
_LIST_PARTS: Final = frozenset(("ul", "ol", "li", "dl", "dt", "dd", "table", "tbody", "thead"))
INLINE_LINKS: Final = 3       # links in one inline element that make it a widget
# blocks that may be dropped for repeating: table cells and list items repeat legitimately
_REPEATABLE: Final = frozenset(("p", "div", "section", "header", "footer", "aside", "figcaption",
                                "center", "span", "form", "nav", "figure", "blockquote"))
REPEAT_MIN: Final = 3         # identical short blocks seen this often on a page are chrome
_TEXT_RULE_TAGS: Final = _REPEATABLE - {"blockquote"}  # blocks a credit or paywall line may fill
# a region whose blocks hold this much text, of which the link rule leaves under this
# share, is a listing (``prune``)
LISTING_MIN: Final = 100
LISTING_BARE: Final = 0.1
_SENTENCE: Final = re.compile(r"\w \w.*[.!?…][\"'”’»)]*$")


def block_hash(text: str) -> str:
    """Stable signature of a block's text (whitespace-collapsed, case-folded).

    The crawler counts these across a host's pages and passes the repeated ones
    back as ``boilerplate_hints``.
    """
    return collapsed_hash(" ".join(text.split()))


def collapsed_hash(text: str) -> str:
    """``block_hash`` of text already whitespace-collapsed (a block's ``plain``): the
    evidence hashes every block, and collapsing it again would only repeat the work."""
    digest: str = sha256(text.casefold().encode("utf-8")).hexdigest()
    return digest[:16]


def prune(root: Node, hints: Collection[str]) -> tuple[list[str], int]:
    """Mark the chrome inside ``root`` removed: the rules that fired, and the chars they took.

    A region that the link rule strips (nearly) bare is a listing: an index, an archive,
    a catalogue, whose links are what the page holds. Empty Markdown would keep none of
    it, so such a region is pruned again with its lists and tables of links kept
    (``kept_listing``); chrome named by its tag, role or class still goes.
    """
    order = root.iter()
    shown = _block_chars(order)
    fired, removed, marked = _prune_pass(root, order, hints, listing=False)
    if "link_density" in fired and shown >= LISTING_MIN \
            and _block_chars(order) < LISTING_BARE * shown:
        for node, before in marked:
            node.removed = before
        fired, removed, _ = _prune_pass(root, order, hints, listing=True)
        fired.add("kept_listing")
    return sorted(fired), removed


def _block_chars(order: list[Node]) -> int:
    """The text of the blocks not removed (their own text: a block's inline elements'
    included), ``order`` being a subtree in document order."""
    total = 0
    at = 0
    end = len(order)
    while at < end:
        node = order[at]
        at += 1
        if node.removed is not None:
            depth = node.depth
            while at < end and order[at].depth > depth:
                at += 1
        elif node.tag in BLOCK_TAGS:
            total += node.own_len
    return total


def _prune_pass(root: Node, order: list[Node], hints: Collection[str], *, listing: bool,
                ) -> tuple[set[str], int, list[tuple[Node, str | None]]]:
    """One pruning of ``root`` (``order``: its subtree in document order): the rules that
    fired, the chars they took, and each element marked with its mark before."""
    keep_share = 0.5 * root.pos
    fired: set[str] = set()
    removed = 0
    marked: list[tuple[Node, str | None]] = []
    # document order, walked once for both surveys below and for the pruning itself: an
    # element's subtree is the run of deeper elements right after it, so a pruned one
    # is passed over by depth instead of being walked
    texts: dict[int, str] = {}  # Node.text() by node index, for the rules that read it
    repeated = _repeated_texts(order, texts)
    sections: dict[int, bool] = {}  # lists kept as sections, by node index (_is_section)
    marks = section_marks(root, order)
    at = 1  # (order[0] is the root itself)
    end = len(order)
    while at < end:
        node = order[at]
        at += 1
        rule = marks.get(node.idx) or _prune_rule(node, keep_share, repeated, hints, sections,
                                                   texts, listing)
        if rule is not None:
            marked.append((node, node.removed))
            node.removed = rule
            fired.add(rule)
            removed += node.text_len
            depth = node.depth
            while at < end and order[at].depth > depth:
                at += 1
    return fired, removed, marked


def _text(node: Node, texts: dict[int, str]) -> str:
    """``node.text()``, built once per element: the rules ask for nested blocks' texts
    again and again, and each build walks the subtree."""
    text = texts.get(node.idx)
    if text is None:
        text = texts[node.idx] = node.text()
    return text


def _prune_rule(  # noqa: PLR0917 - once per element: positional calls are cheaper
    node: Node, keep_share: float, repeated: Collection[str], hints: Collection[str],
    sections: dict[int, bool], texts: dict[int, str], listing: bool,
) -> str | None:
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
        if text_len < _text_rules.EDIT_LABEL_MAX and _beside_heading_text(node) \
                and _text_rules.is_edit_label(_text(node, texts)):
            return "exclude_edit_link"
        if node.tag == "a" and text_len < 40 and parent is not None \
                and parent.tag in BLOCK_TAGS and parent.tag not in HEADINGS \
                and parent.own_link >= parent.own_len \
                and _text_rules.is_placeholder(_text(node, texts)):
            # a button between blocks, alone or in a row of them ("Edit this page",
            # "Share | Improve this answer"), not a link at the end of a sentence
            return "ui_label"
        if node.tag in ("small", "cite") and parent is not None \
                and parent.tag == "figcaption" and text_len < _text_rules.CREDIT_MAX:
            return "image_credit"  # the small print after a caption: "Getty", "AP Photo"
        if node.tag in ("span", "small") and parent is not None and text_len < \
                _text_rules.CREDIT_MAX and text_len >= 0.9 * parent.text_len:
            # the only text beside an image: "<div><img><span>Photo: ...</span></div>"
            return _text_rules.text_rule(_text(node, texts))
        return None
    if node.tag == "figcaption" and node.link_len >= CAPTION_LINKS * text_len:
        return "exclude_caption"  # a link set as a caption: a promotion or a credit
    if (not (listing and (node.tag in _LIST_PARTS or node.own_link <= LINK_DENSE * node.own_len))
            and node.tag in BLOCK_TAGS
            and node.tag not in _CELLS and node.score <= 0 and text_len >= 20
            and node.link_len > LINK_DENSE * text_len and node.tag not in HEADINGS
            and not (node.own_len >= LONG_BLOCK and node.own_len >= 0.9 * text_len)
            and not _item_of_prose_list(node) and not _item_of_section(node, sections)
            and not (node.tag in _LISTS and node.prose >= PROSE_ITEM)
            and not _is_section(node, sections) and not _labelled_value(node)
            and not _described_sublist(node) and not _defined_term(node)):
        return "link_density"
    text: str | None = None  # the subtree's text, built once for the rules below
    norm: str | None = None  # ... and its normal form, which several of them read
    if node.tag in _REPEATABLE and text_len <= 100 and (repeated or hints):
        text = _text(node, texts)
        norm = _text_rules.normalise(text)
        if _text_rules.is_placeholder(text, norm):
            return "ui_label"
        if text in repeated and not _has_image(node):
            return "repeated_block"  # (beside an image it is a credit: the image stays)
        if hints and block_hash(text) in hints:
            return "cross_page_repetition"
    elif node.tag in BLOCK_TAGS and text_len < 40:
        text = _text(node, texts)
        norm = _text_rules.normalise(text)
        if _text_rules.is_placeholder(text, norm):
            return "ui_label"
    if node.tag in _TEXT_RULE_TAGS and (text_len < _text_rules.PAYWALL_MAX or (
            node.tag != "p" and text_len < _text_rules.COOKIE_MAX)):
        if text is None:
            text = _text(node, texts)
        if norm is None:
            norm = _text_rules.normalise(text)
        if node.tag != "p" and _text_rules.is_cookie_notice(text, norm):
            # the banner's box, not a paragraph: a cookie policy's first sentence stays
            return "exclude_cookie_banner"
        rule = _text_rules.text_rule(text, norm) if text_len < _text_rules.PAYWALL_MAX else None
        if rule == "social_prompt" and not node.link_len:
            rule = None  # it names a network but links to none: a sentence about it
        if rule is not None and not _has_image(node):
            return rule  # (with an image inside, the credit's own element goes instead)
    if hints and node.own_len and node.tag in BLOCK_TAGS and block_hash(
            _text(node, texts) if text is None else text) in hints:
        return "cross_page_repetition"
    if node.tag in _TEXT_RULE_TAGS and text_len < CAPTION_MAX and _caption_line(node):
        return "exclude_caption"
    if node.link_len and text_len < _text_rules.TAG_LINE_MAX and node.tag in _TEXT_RULE_TAGS \
            and _text_rules.is_tag_line(_strings_outside_links(node)):
        return "exclude_tags"
    return None


def _strings_outside_links(node: Node) -> list[str]:
    """The block's text outside its links: what precedes the first link, then what
    follows each link (a link's own text left out)."""
    parts = [""]
    stack: list[Node | str] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            parts[-1] += item
        elif item.tag == "a":
            parts.append("")
        else:
            _push_reversed(stack, item.children)
    return parts


def _push_reversed(stack: list[Node | str], children: list[Node | str]) -> None:
    """``stack.extend(reversed(children))``, which compiled code pays ~1.5k instructions
    for (the builtin looked up, an iterator, a slice assignment); popped in document order."""
    at = len(children)
    while at > 0:
        at -= 1
        stack.append(children[at])


def _section_list(node: Node) -> bool:
    """A list of links that is a section of its own, right under a heading of the body.

    A README's "Documentation" or "Plugins" section is such a list, and so is a
    reference page's "See also": the heading says what the links are, it follows some
    of the body's prose, and it is not one that opens chrome ("Related", "Most read":
    those sections go as ``chrome_section``). A table of contents (links to this page's
    own sections) is navigation still.
    """
    parent = node.parent
    if node.tag not in _LISTS or parent is None:
        return False
    elems = parent.elems
    at = elems.index(node)
    if at == 0:
        return False
    heading = heading_of(elems[at - 1])
    if heading is None or heading.tag == "h1" or _text_rules.chrome_heading(heading.text()):
        return False
    if not any(n.prose for n in elems[:at - 1]):
        return False  # above the body's first prose: a sidebar's list ("Mac Apps")
    links = [a for a in node.iter() if a.tag == "a"]
    return bool(links) and sum(a.attr("href").startswith("#") for a in links) * 2 < len(links)


def _is_section(node: Node, sections: dict[int, bool]) -> bool:
    """``_section_list``, remembered for the items below it (parents are pruned first)."""
    found = sections.get(node.idx)
    if found is None:
        found = sections[node.idx] = _section_list(node)
    return found


def _item_of_section(node: Node, sections: dict[int, bool]) -> bool:
    """An item of a list kept as a section ("New contributors": a name and a linked fix);
    not one with a heading of its own, which is a teaser card pointing elsewhere."""
    parent = node.parent
    return node.tag == "li" and parent is not None and _is_section(parent, sections) \
        and not any(n.tag in HEADINGS for n in node.iter())


def _labelled_value(node: Node) -> bool:
    """A list that is the value of a labelled row ("Official languages | English, Māori"):
    an infobox's data, however linked, not a menu set in a table."""
    cell = node.parent
    for _ in range(2):  # through a wrapper or two that hold only this ("plainlist")
        if cell is None or cell.tag == "td" or cell.text_len != node.text_len:
            break
        cell = cell.parent
    if cell is None or cell.tag != "td" or cell.parent is None:
        return False
    return any(c.tag == "th" and c.text_len for c in cell.parent.elems)


def _defined_term(node: Node) -> bool:
    """A definition list's term that has a definition of prose: a reference page's
    ``<dt><a>Array.prototype.at()</a></dt><dd>Returns the item at ...</dd>``. The link
    names what the definition describes; a list of links set as terms and definitions
    alike (a menu) goes whole, by its own link density."""
    parent = node.parent
    if node.tag != "dt" or parent is None:
        return False
    return any(n.tag == "dd" and n.text_len and n.link_len < 0.5 * n.text_len
               for n in parent.elems)


def _beside_heading_text(node: Node) -> bool:
    """Inside a heading (a few inline levels down at most) that has text of its own too:
    a section titled "Edit" (an API reference's) keeps its title."""
    parent = node.parent
    for _ in range(3):
        if parent is None or parent.tag in BLOCK_TAGS:
            return parent is not None and parent.tag in HEADINGS \
                and parent.text_len > node.text_len
        parent = parent.parent
    return False


def _has_image(node: Node) -> bool:
    return any(n.tag == "img" for n in node.iter())


def _caption_line(node: Node) -> bool:
    """A short line set in italics right under an image: a caption without the markup."""
    parent = node.parent
    if parent is None or not _all_emphasis(node):
        return False
    elems = parent.elems
    at = elems.index(node)
    if at == 0:
        return False
    before = elems[at - 1]
    return before.text_len == 0 and _has_image(before)


def _all_emphasis(node: Node) -> bool:
    """Every character of the text sits inside an ``em`` / ``i`` element."""
    stack: list[Node | str] = list(node.children)
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item.strip():
                return False
        elif item.tag not in ("em", "i"):
            stack.extend(item.children)
    return True


def _item_of_prose_list(node: Node) -> bool:
    """A linked item in a list whose items are mostly prose ("- [Bug 123](...) fixed").

    A navigation list is links through and through; one linked line among sentences
    (release notes, a reading list with comments) is an entry like the others.
    """
    parent = node.parent
    return node.tag == "li" and parent is not None and parent.text_len > 0 \
        and parent.link_len < 0.5 * parent.text_len


DESCRIBED_ITEM: Final = 45  # chars: a link this long, on average, describes what it links to


def _described_sublist(node: Node) -> bool:
    """A list nested in an item of the body's own list, whose links read as sentences.

    Release notes and status reports list their bugs and pull requests as links whose
    text says what changed ("Bug 1677080 - Fullscreen PiP window is affected by ..."),
    under an item that introduces them ("In progress:"). A menu's sub-list holds short
    labels instead ("Pricing", "Careers"). An item of such a list is kept with it.
    """
    if node.tag == "li" and node.parent is not None:
        node = node.parent
    if node.tag not in _LISTS or node.parent is None or node.parent.tag != "li":
        return False
    items = [item for item in node.elems if item.tag == "li" and item.text_len]
    return bool(items) and node.text_len >= DESCRIBED_ITEM * len(items)


def _link_cluster(node: Node) -> bool:
    if node.tag == "a" or node.tag in BLOCK_TAGS or node.text_len < 40 \
            or node.link_len < 0.8 * node.text_len:
        return False
    links = 0
    for inner in node.iter():
        if inner.tag == "cite":
            return False  # a reference to a work, its author, title and publisher linked
        if inner.tag == "a":
            links += 1
    return links >= INLINE_LINKS


def _repeated_texts(order: list[Node], texts: dict[int, str]) -> set[str]:
    """Short texts that repeat inside the selected region (its elements in ``order``)."""
    counts: Counter[str] = Counter()
    counted: set[int] = set()
    for node in order:
        if node.own_len and node.tag in _REPEATABLE and node.text_len <= 100:
            parent = node.parent
            counted.add(node.idx)
            if parent is not None and parent.idx in counted \
                    and parent.text_len == node.text_len:
                continue  # "<p><span><span>x</span></span></p>" says x once, not three times
            counts[_text(node, texts)] += 1
    # a sentence said three times ("I prefer not.") is dialogue, not a UI label
    return {text for text, n in counts.items()
            if n >= REPEAT_MIN and text and not _SENTENCE.search(text)}
