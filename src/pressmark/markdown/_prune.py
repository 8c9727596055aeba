"""Pruning inside the selected region: every rule that fires is named.

Selection (``_select``) decides *where* the content is; this module decides what inside
it is still chrome. Each element is judged once, parents first (a pruned element's
subtree goes with it), by the first of these that applies:

1. the marks of ``_sections`` for runs of siblings (teaser rows, chrome sections);
2. its name (``Node.bad``, ``_boilerplate``), unless it holds much of the region's
   positive weight; on a listing a class-named table of contents stays; on a thread a
   post's signature goes (``_boilerplate.THREAD_RULES``);
3. for an inline element: a cluster of links in running text, a section's edit link, a
   button-like link between blocks, a credit beside an image;
4. the link rule (``_links``): a block dense with links that no content signal claims;
5. what short text says (``_text_rules``): UI labels, repeated short blocks, cookie,
   paywall, survey and follow prompts, credits, captions, tag lines; a block repeated
   across the host's pages (``boilerplate_hints``).

Deterministic: no hashing or unordered iteration decides anything.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection
from typing import Final

from pressmark.markdown import _boilerplate, _kinds, _text_rules
from pressmark.markdown._links import LIST_PARTS, navigation
from pressmark.markdown._score import LINK_HEAVY, LONG_BLOCK, PROSE_BLOCK, PROSE_LINKS
from pressmark.markdown._sections import section_marks
from pressmark.markdown._tree import BLOCK_TAGS, HEADINGS, Node, precedes

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
CAPTION_LINKS: Final = 0.5    # link share of a figcaption that makes it a promotion, not a caption
INLINE_LINKS: Final = 3       # links in one inline element that make it a widget
CLUSTER_MIN: Final = 40       # chars: an inline cluster of links is at least this long ...
CLUSTER_LINKS: Final = 0.8    # ... and this much of it is links
CREDIT_SHARE: Final = 0.9     # share of its parent's text an inline credit beside an image fills
HEADING_DEPTH: Final = 3      # inline levels between a heading and an edit link inside it
LIST_SHARE: Final = 0.5       # share of an element's text in lists that makes it a list
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
# a region whose entries hold this many chars, and outweigh the content article pruning
# leaves of it this many times over, is a listing (``prune``)
LISTING_MIN: Final = 100
LISTING_RATIO: Final = 2.0
THREAD_HEAD: Final = 100      # chars a comment thread's box adds to it: its heading, a count
_SENTENCE: Final = re.compile(r"\w \w.*[.!?…][\"'”’»)]*$")
# a thread keeps each post's author line (``_author_line``): these rules name it, it holds
# at most these many chars in at most these many lines, and a time: a year or a clock time
_AUTHOR_RULES: Final = frozenset(("exclude_byline", "exclude_signature"))
AUTHOR_LINE_MAX: Final = 120
AUTHOR_LINES: Final = 2
_LETTER: Final = re.compile(r"[^\W\d_]")
_WHEN: Final = re.compile(r"\b(?:19|20)\d\d\b|\b\d{1,2}:\d\d\b")


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


def prune(root: Node, hints: Collection[str], *, kind: str = "article", scale: float = 1.0,
          ) -> tuple[list[str], int, int]:
    """Mark the chrome inside ``root`` removed: the rules that fired, the chars they took,
    and the content chars left (``_settle.kept``'s measure, entries counted on a listing).

    ``kind`` is the page's (``_kinds``). On a listing, lists and tables of links are the
    content and stay, even when a class calls them navigation ("toc", "menu"); chrome
    named by its tag or role still goes. A region whose entries (short link-heavy blocks,
    named or not) outweigh what article pruning leaves of it ``LISTING_RATIO`` times over
    is a listing too: a chapter page's table of contents, an index, an archive, a
    catalogue, whose links are what the page holds. It is pruned again as a listing
    (``kept_listing``).
    """
    order = root.iter()
    if kind in ("listing", "application"):  # (an application's controls sit in lists)
        done = _prune_pass(root, order, _Pass(root, order, hints, "listing", scale))
        return sorted(done.fired), done.removed, done.content + done.entries
    entries = _entry_chars(order)
    done = _prune_pass(root, order, _Pass(root, order, hints, kind, scale))
    if entries >= LISTING_MIN and LISTING_RATIO * done.content < entries:
        for node, before in done.marked:
            node.removed = before
        done = _prune_pass(root, order, _Pass(root, order, hints, "listing", scale))
        done.fired.add("kept_listing")
        return sorted(done.fired), done.removed, done.content + done.entries
    return sorted(done.fired), done.removed, done.content


def drop_comments(root: Node, posts: Node | None, body: Node | None) -> int:
    """Mark a comment thread inside ``root`` removed, on a page that is no thread: the
    parent of the page's largest group of posts (``posts``: sibling blocks each holding
    prose and an author or time mark, ``_kinds``), with the heading that opens it, when
    the longest run of prose (``body``) lies outside it. Returns the chars taken."""
    if posts is None or posts is root or not _within(posts, root) or (
            body is not None and (_within(body, posts) or precedes(posts, body))):
        return 0  # (a thread follows the body it comments on)
    step: Node | None = posts
    while step is not None and step is not root:
        if step.removed is not None:
            return 0  # pruned already, or inside what was
        step = step.parent
    thread = posts
    while thread.parent is not None and thread.parent is not root \
            and not (body is not None and _within(body, thread.parent)) \
            and thread.parent.text_len - thread.text_len <= THREAD_HEAD:
        thread = thread.parent  # the thread's box, its heading ("Have your say") with it
    thread.removed = "comment_thread"
    return thread.text_len


def _within(node: Node, ancestor: Node) -> bool:
    """``node`` is ``ancestor`` or lies inside it."""
    step: Node | None = node
    while step is not None:
        if step is ancestor:
            return True
        step = step.parent
    return False


def _entry_chars(order: list[Node]) -> int:
    """Chars of the entries in a subtree (``order``, document order): short blocks mostly
    made of links, whatever their class says; landmark chrome (``<nav>``, ``<footer>``,
    ``role=navigation``, ...) left out."""
    total = 0
    at = 0
    end = len(order)
    while at < end:
        node = order[at]
        at += 1
        if _boilerplate.landmark_chrome(node):
            depth = node.depth
            while at < end and order[at].depth > depth:
                at += 1
            continue
        own = node.own_len
        if own and node.tag in BLOCK_TAGS and node.own_link > LINK_HEAVY * own \
                and own < LONG_BLOCK:
            total += own
    return total


class _Pass:
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


class _Done:
    """What one pruning pass did: the rules that fired, the chars they took, each element
    marked (with its mark before), and the content and entry chars it left."""

    __slots__ = ("content", "entries", "fired", "marked", "removed")

    def __init__(self) -> None:
        self.fired: set[str] = set()
        self.removed = 0
        self.marked: list[tuple[Node, str | None]] = []
        self.content = 0
        self.entries = 0


def _prune_pass(root: Node, order: list[Node], ctx: _Pass) -> _Done:
    """One pruning of ``root`` (``order``: its subtree in document order).

    Walked once in document order: an element's subtree is the run of deeper elements
    right after it, so a pruned one (or one pruned before, ``outside_main``) is passed
    over by depth instead of being walked. What is left is measured on the way, as
    ``_settle.kept`` measures it.
    """
    done = _Done()
    marks = section_marks(root, order)
    floor = PROSE_BLOCK / ctx.scale
    _measure_left(root, floor, done)  # (the root itself is never pruned)
    at = 1  # (order[0] is the root itself)
    end = len(order)
    while at < end:
        node = order[at]
        at += 1
        rule = marks.get(node.idx) or _prune_rule(node, ctx)
        if rule is not None:
            done.marked.append((node, node.removed))
            node.removed = rule
            done.fired.add(rule)
            done.removed += node.text_len
        if node.removed is not None:
            depth = node.depth
            while at < end and order[at].depth > depth:
                at += 1
            continue
        _measure_left(node, floor, done)
    return done


def _measure_left(node: Node, floor: float, done: _Done) -> None:
    """Add a block left in the output to the pass's content or entries."""
    own = node.own_len
    if own and node.tag in BLOCK_TAGS and node.tag not in HEADINGS:
        links = node.own_link
        if node.tag == "pre" or (own >= floor and links <= PROSE_LINKS * own):
            done.content += own
        elif links > LINK_HEAVY * own:
            done.entries += own


def _prune_rule(node: Node, ctx: _Pass) -> str | None:
    """The rule that removes ``node``, if one does (the order of the module docstring)."""
    rule = _named(node, ctx)
    if rule is not None or node.text_len == 0:
        return rule
    if node.tag not in BLOCK_TAGS:
        return _inline_rule(node, ctx)
    if node.tag == "figcaption" and node.link_len >= CAPTION_LINKS * node.text_len:
        return "exclude_caption"  # a link set as a caption: a promotion or a credit
    if navigation(node, ctx.sections, listing=ctx.listing):
        return "link_density"
    return _said_rule(node, ctx)


def _named(node: Node, ctx: _Pass) -> str | None:
    """The boilerplate rule the element's name stands for, when pruning takes it."""
    bad = node.bad
    if bad is None and ctx.thread and node.attrs \
            and _boilerplate.match(node) in _boilerplate.THREAD_RULES:
        bad = "exclude_signature"
    if bad is None:
        return None
    if node.pos > ctx.keep:
        return None  # much of the region's content sits in it: a misnamed wrapper
    if ctx.listing and bad == "exclude_nav" and not _boilerplate.landmark_chrome(node) \
            and _mostly_list(node):
        return None  # a listing's own table of contents, named "toc"
    if ctx.thread and bad in _AUTHOR_RULES and node.text_len and (
            _in_author_line(node, ctx) or _author_line(node, ctx)):
        return None  # a post's author line: who wrote it, and when (its avatar still goes)
    return bad


def _author_line(node: Node, ctx: _Pass) -> bool:
    """A short element that says who wrote a post and when: a link (the author's), a time
    (``<time>``, or a year or a clock time in its text), in two lines of words at most (a
    profile card's rank, post count and join date make more)."""
    if node.text_len > AUTHOR_LINE_MAX or not node.link_len:
        return False
    lines = 0
    timed = False
    for inner in node.iter():
        if inner.own_len and inner.tag in BLOCK_TAGS and _LETTER.search(ctx.text(inner)):
            lines += 1  # (a line of words: a reputation score is no line of its own)
        timed = timed or inner.tag == "time"
    if lines > AUTHOR_LINES or not (timed or _WHEN.search(ctx.text(node))):
        return False
    ctx.authors.add(node.idx)
    return True


def _in_author_line(node: Node, ctx: _Pass) -> bool:
    step = node.parent
    while step is not None:
        if step.idx in ctx.authors:
            return True
        step = step.parent
    return False


def _inline_rule(node: Node, ctx: _Pass) -> str | None:
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


def _said_rule(node: Node, ctx: _Pass) -> str | None:
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


def _sponsored(node: Node, ctx: _Pass) -> bool:
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


def _mostly_list(node: Node) -> bool:
    """Most of the element's text sits in lists and tables (a table of contents with its
    title, an index's columns)."""
    listed = 0
    for inner in node.iter():
        if inner.tag in LIST_PARTS and (inner.parent is None or inner.parent.tag not in
                                        LIST_PARTS):
            listed += inner.text_len
    return LIST_SHARE * node.text_len <= listed


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
            if n >= REPEAT_MIN and text and not _SENTENCE.search(text)}
