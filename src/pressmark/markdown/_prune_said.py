"""Pruning by what an element says and how it sits: the rules after the name and the link
rule (``_prune`` steps 3 and 5).

- an inline element: a button that is a label, a cluster of links in running text, a
  section's edit link, a button-like link between blocks, a credit beside an image;
- a block by what its short text says (``_text_rules``): UI labels, a paid box,
  consent, paywall, survey and follow prompts, credits, captions, tag lines; a short
  block repeated inside the region, or across the host's pages (``boilerplate_hints``).

``Pass`` holds what one pruning of a region reads besides the element judged (the
region's repeated texts, the host's hints, texts built once); ``_prune`` walks the
region and asks these rules in turn.

Deterministic: no hashing or unordered iteration decides anything.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from pressmark.markdown import _kinds, _text_rules
from pressmark.markdown._lazy_re import LazyPattern
from pressmark.markdown._tree import BLOCK_TAGS, HEADINGS, Node

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

# CPython's own SHA-256 (as ``random`` takes its SHA-512): the same digest, and no OpenSSL
# loaded by every start-up of the command line, as hashlib would. (Not behind
# ``TYPE_CHECKING``: compiled code takes such an ``else`` branch for dead code.)
try:
    from _sha256 import sha256  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - a build without it
    from hashlib import sha256

# (``Final``: compiled code reads a constant directly, a module global is a dictionary
# look-up at every use, and the loops below run per element of every page)
KEEP_SHARE: Final = 0.5       # a chrome-named element holding this share of the region's
#                               positive weight is content all the same
CAPTION_MAX: Final = 80       # chars: an italic line under an image this short is its caption
INLINE_LINKS: Final = 3       # links in one inline element that make it a widget
CLUSTER_MIN: Final = 40       # chars: an inline cluster of links is at least this long ...
CLUSTER_LINKS: Final = 0.8    # ... and this much of it is links
CREDIT_SHARE: Final = 0.9     # share of its parent's text an inline credit beside an image fills
HEADING_DEPTH: Final = 3      # inline levels between a heading and an edit link inside it
REPEAT_MAX: Final = 100       # chars: only blocks this short are judged for repeating
REPEAT_MIN: Final = 3         # identical short blocks seen this often on a page are chrome
_ENTRY_TAGS: Final = frozenset(("td", "th", "li", "dt", "dd"))  # they repeat legitimately
# blocks that may be dropped for repeating: table cells and list items repeat legitimately
_REPEATABLE: Final = frozenset(("p", "div", "section", "header", "footer", "aside", "figcaption",
                                "center", "span", "form", "nav", "figure", "blockquote"))
_TEXT_RULE_TAGS: Final = _REPEATABLE - {"blockquote"}  # blocks a credit or paywall line may fill
# boxes a paid block is set in, and how long it is at most: a label, a linked headline, a
# line of teaser
_BOXES: Final = frozenset(("div", "section", "aside", "article", "li"))
SPONSORED_MAX: Final = 400
_SENTENCE: Final = LazyPattern(r"\w \w.*[.!?…][\"'”’»)]*$")


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


class Pass:
    """What one pruning of a region reads besides the element judged.

    Plain slots, not a dataclass: internal, built once per pass.
    """

    __slots__ = ("authors", "hints", "keep", "listing", "repeated", "scale", "sections",
                 "texts", "thread")

    def __init__(self, root: Node, order: list[Node], hints: Collection[str],
                 kind: str, scale: float) -> None:
        self.scale = scale
        self.keep = KEEP_SHARE * root.pos
        self.hints = hints
        self.listing = kind == "listing"
        self.thread = kind == "thread"
        self.texts: dict[int, str] = {}  # Node.text() by node index, for the rules that read it
        self.repeated = _repeated_texts(order, self.texts)
        self.sections: dict[int, bool] = {}  # lists kept as sections (``_links``), by index
        self.authors: set[int] = set()  # author lines kept on a thread, by node index

    def text(self, node: Node) -> str:
        """``node.text()``, built once per element: the rules ask for nested blocks' texts
        again and again, and each build walks the subtree."""
        text = self.texts.get(node.idx)
        if text is None:
            text = self.texts[node.idx] = node.text()
        return text


def inline_rule(node: Node, ctx: Pass) -> str | None:
    """An inline element's rule: buttons, link clusters, edit links, button links, credits."""
    text_len = node.text_len
    if node.tag == "button" and _ui_control(node):
        return "ui_control"
    # an inline cluster of links inside prose (hover cards, "Tags: a, b, c" runs); the
    # innermost such element goes, so a link wrapped around the card survives
    if _link_cluster(node) and not any(_link_cluster(c) for c in node.elems):
        return "inline_link_cluster"
    parent = node.parent
    if parent is None:
        return None
    if text_len < _text_rules.EDIT_LABEL_MAX and _beside_heading_text(node) \
            and _text_rules.is_edit_label(ctx.text(node)):
        return "exclude_edit_link"
    if node.tag == "a" and text_len < _text_rules.LABEL_MAX and parent.tag in BLOCK_TAGS \
            and parent.tag not in HEADINGS and parent.own_link >= parent.own_len \
            and _text_rules.is_placeholder(ctx.text(node)):
        # a button between blocks, alone or in a row of them ("Edit this page",
        # "Share | Improve this answer"), not a link at the end of a sentence
        return "ui_label"
    if node.tag in ("small", "cite") and parent.tag == "figcaption" \
            and text_len < _text_rules.CREDIT_MAX:
        return "image_credit"  # the small print after a caption: "Getty", "AP Photo"
    if node.tag in ("span", "small") and text_len < _text_rules.CREDIT_MAX \
            and text_len >= CREDIT_SHARE * parent.text_len:
        # the only text beside an image: "<div><img><span>Photo: ...</span></div>"
        return _text_rules.text_rule(ctx.text(node))
    return None


def _ui_control(node: Node) -> bool:
    """A button that is a label ("Share", "Next", "Copy item path"): short, one part, not
    a heading's whole text (an accordion's question). A button of several parts (an
    operation's method, path and summary) or as long as a sentence is content."""
    if node.text_len >= _text_rules.LABEL_MAX or _kinds.is_control(node):
        return False
    block = node.parent
    while block is not None and block.tag not in BLOCK_TAGS:
        block = block.parent
    return block is None or block.tag not in HEADINGS or block.text_len > node.text_len


def said_rule(node: Node, ctx: Pass) -> str | None:
    """A block's rule by what its short text says (``_text_rules``), or by repetition."""
    text_len = node.text_len
    if node.tag in _BOXES and text_len <= SPONSORED_MAX and node.link_len and _sponsored(node, ctx):
        return "sponsored_block"
    text: str | None = None  # the subtree's text, built once for the rules below
    norm: str | None = None  # ... and its normal form, which several of them read
    if node.tag in _REPEATABLE and text_len <= REPEAT_MAX and (ctx.repeated or ctx.hints):
        text = ctx.text(node)
        norm = _text_rules.normalise(text)
        if _text_rules.is_placeholder(text, norm):
            return "ui_label"
        if text in ctx.repeated and not _has_image(node):
            return "repeated_block"  # (beside an image it is a credit: the image stays)
        if ctx.hints and block_hash(text) in ctx.hints:
            return "cross_page_repetition"
    elif text_len < _text_rules.LABEL_MAX:
        text = ctx.text(node)
        norm = _text_rules.normalise(text)
        if _text_rules.is_placeholder(text, norm):
            return "ui_label"
    if node.tag in _TEXT_RULE_TAGS and (text_len < _text_rules.PAYWALL_MAX or (
            node.tag != "p" and text_len < _text_rules.COOKIE_MAX)):
        if text is None:
            text = ctx.text(node)
        rule = _prompt_rule(node, text, _text_rules.normalise(text) if norm is None else norm)
        if rule is not None:
            return rule
    if ctx.hints and node.own_len and block_hash(
            ctx.text(node) if text is None else text) in ctx.hints:
        return "cross_page_repetition"
    if node.tag in _TEXT_RULE_TAGS and text_len < CAPTION_MAX and _caption_line(node):
        return "exclude_caption"
    if node.link_len and text_len < _text_rules.TAG_LINE_MAX and node.tag in _TEXT_RULE_TAGS \
            and _text_rules.is_tag_line(_strings_outside_links(node)):
        return "exclude_tags"
    return None


def _sponsored(node: Node, ctx: Pass) -> bool:
    """The box opens with a paid-content label ("Paid content", "Sponsored", "Anzeige")."""
    for child in node.elems:
        if child.text_len:
            return _text_rules.is_sponsored_label(ctx.text(child))
    return False


def _prompt_rule(node: Node, text: str, norm: str) -> str | None:
    """Consent banners, paywall, survey and follow prompts, credits: a short block that
    opens like one (``_text_rules``)."""
    if node.tag != "p" and _text_rules.is_cookie_notice(text, norm):
        # the banner's box, not a paragraph: a cookie policy's first sentence stays
        return "exclude_cookie_banner"
    rule = _text_rules.text_rule(text, norm) if node.text_len < _text_rules.PAYWALL_MAX \
        else None
    if rule == "social_prompt" and not node.link_len:
        return None  # it names a network but links to none: a sentence about it
    if rule is not None and _has_image(node):
        return None  # (with an image inside, the credit's own element goes instead)
    return rule


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


def _beside_heading_text(node: Node) -> bool:
    """Inside a heading (a few inline levels down at most) that has text of its own too:
    a section titled "Edit" (an API reference's) keeps its title."""
    parent = node.parent
    for _ in range(HEADING_DEPTH):
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


def _link_cluster(node: Node) -> bool:
    if node.tag == "a" or node.tag in BLOCK_TAGS or node.text_len < CLUSTER_MIN \
            or node.link_len < CLUSTER_LINKS * node.text_len:
        return False
    links = 0
    for inner in node.iter():
        if inner.tag == "cite":
            return False  # a reference to a work, its author, title and publisher linked
        if inner.tag == "a":
            links += 1
    return links >= INLINE_LINKS


def _in_entry(node: Node) -> bool:
    """Inside a table cell or a list entry, through inline wrappers and blocks that hold
    only it: cells and entries repeat legitimately ("==" in an operator table, "N/A"),
    and so does the paragraph a generator wraps each cell's text in."""
    step = node.parent
    while step is not None and step.text_len == node.text_len:
        if step.tag in _ENTRY_TAGS:
            return True
        step = step.parent
    return step is not None and step.tag in _ENTRY_TAGS


def _repeated_texts(order: list[Node], texts: dict[int, str]) -> set[str]:
    """Short texts that repeat inside the selected region (its elements in ``order``)."""
    counts: Counter[str] = Counter()
    counted: set[int] = set()
    for node in order:
        if node.own_len and node.tag in _REPEATABLE and node.text_len <= REPEAT_MAX \
                and not _in_entry(node):
            parent = node.parent
            counted.add(node.idx)
            if parent is not None and parent.idx in counted \
                    and parent.text_len == node.text_len:
                continue  # "<p><span><span>x</span></span></p>" says x once, not three times
            text = texts.get(node.idx)
            if text is None:
                text = texts[node.idx] = node.text()
            counts[text] += 1
    # a sentence said three times ("I prefer not.") is dialogue, not a UI label
    return {text for text, n in counts.items()
            if n >= REPEAT_MIN and text and not _SENTENCE.get().search(text)}
