"""Pruning inside the selected region: every rule that fires is named.

Selection (``_select``) decides *where* the content is; this module decides what inside
it is still chrome. Each element is judged once, parents first (a pruned element's
subtree goes with it), by the first of these that applies:

1. the marks of ``_sections`` for runs of siblings (teaser rows, chrome sections);
2. its name (``Node.bad``, ``_boilerplate``), unless it holds much of the region's
   positive weight; on a listing a class-named table of contents stays; on a thread a
   post's signature goes (``_boilerplate.THREAD_RULES``);
3. for an inline element: a cluster of links in running text, a section's edit link, a
   button-like link between blocks, a credit beside an image (``_prune_said``);
4. the link rule (``_links``): a block dense with links that no content signal claims;
5. what short text says (``_prune_said``, ``_text_rules``): UI labels, repeated short
   blocks, cookie, paywall, survey and follow prompts, credits, captions, tag lines; a
   block repeated across the host's pages (``boilerplate_hints``).

This module walks the region and holds the rules that read the page's kind: names, a
listing's own lists, a thread's author lines, a comment thread under an article.

Deterministic: no hashing or unordered iteration decides anything.
"""

from __future__ import annotations

from collections.abc import Collection

from pressmark.markdown import _boilerplate
from pressmark.markdown._lazy_re import LazyPattern
from pressmark.markdown._links import LIST_PARTS, navigation
from pressmark.markdown._prune_said import Pass, block_hash, collapsed_hash, inline_rule, said_rule
from pressmark.markdown._score import (
    LINK_HEAVY,
    LONG_BLOCK,
    PROSE_BLOCK,
    PROSE_LINKS,
    reads_as_prose,
)
from pressmark.markdown._sections import section_marks
from pressmark.markdown._tree import BLOCK_TAGS, HEADINGS, Node, precedes

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

# (the block hashes live beside the rule that reads them; re-exported for their users)
__all__ = ["block_hash", "collapsed_hash", "drop_comments", "prune"]

# (``Final``: compiled code reads a constant directly, a module global is a dictionary
# look-up at every use, and the loops below run per element of every page)
CAPTION_LINKS: Final = 0.5    # link share of a figcaption that makes it a promotion, not a caption
LIST_SHARE: Final = 0.5       # share of an element's text in lists that makes it a list
# a region whose entries hold this many chars (or any, when article pruning leaves no
# content of it and it is no whole body), and outweigh the content article pruning
# leaves of it this many times over, is a listing (``prune``)
LISTING_MIN: Final = 100
LISTING_RATIO: Final = 2.0
THREAD_HEAD: Final = 100      # chars a comment thread's box adds to it: its heading, a count
# a thread keeps each post's author line (``_author_line``): these rules name it, it holds
# at most these many chars in at most these many lines, and a time: a year or a clock time
_AUTHOR_RULES: Final = frozenset(("exclude_byline", "exclude_signature"))
AUTHOR_LINE_MAX: Final = 120
AUTHOR_LINES: Final = 2
_LETTER: Final = LazyPattern(r"[^\W\d_]")
_WHEN: Final = LazyPattern(r"\b(?:19|20)\d\d\b|\b\d{1,2}:\d\d\b")


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
    (``kept_listing``). So is a short one whose entries are all it holds (a module index
    of two modules): below the page's body, nothing but entries is a list, not chrome;
    the body itself holding nothing but links says nothing (a header's are entries too).
    """
    order = root.iter()
    if kind in ("listing", "application"):  # (an application's controls sit in lists)
        done = _prune_pass(root, order, Pass(root, order, hints, "listing", scale))
        return sorted(done.fired), done.removed, done.content + done.entries
    entries = _entry_chars(order)
    done = _prune_pass(root, order, Pass(root, order, hints, kind, scale))
    if entries and (entries >= LISTING_MIN or (not done.content and root.parent is not None)) \
            and LISTING_RATIO * done.content < entries:
        for node, before in done.marked:
            node.removed = before
        done = _prune_pass(root, order, Pass(root, order, hints, "listing", scale))
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


def _prune_pass(root: Node, order: list[Node], ctx: Pass) -> _Done:
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
    if own and node.tag in BLOCK_TAGS and reads_as_prose(node):
        links = node.own_link
        if node.tag == "pre" or (own >= floor and links <= PROSE_LINKS * own):
            done.content += own
        elif links > LINK_HEAVY * own:
            done.entries += own


def _prune_rule(node: Node, ctx: Pass) -> str | None:
    """The rule that removes ``node``, if one does (the order of the module docstring)."""
    rule = _named(node, ctx)
    if rule is not None or node.text_len == 0:
        return rule
    if node.tag not in BLOCK_TAGS and not (ctx.listing and node.blocky and _wraps_section(node)):
        return inline_rule(node, ctx)
    if node.tag == "figcaption" and node.link_len >= CAPTION_LINKS * node.text_len:
        return "exclude_caption"  # a link set as a caption: a promotion or a credit
    if navigation(node, ctx.sections, listing=ctx.listing):
        return "link_density"
    return said_rule(node, ctx)


def _wraps_section(node: Node) -> bool:
    """An inline element around a section (a ``<span>`` around a heading and its entries,
    as client-side frameworks write them, the heading a child or a grandchild) is a
    container: on a listing or an application it is judged as one, the inline rules read
    a phrase, not a section of entries. (A ``<font>`` around a list of links and no
    heading is still read as a cluster of links.)"""
    for child in node.elems:
        if child.tag in HEADINGS:
            return True
        if child.tag in BLOCK_TAGS and any(inner.tag in HEADINGS for inner in child.elems):
            return True
    return False


def _named(node: Node, ctx: Pass) -> str | None:
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


def _author_line(node: Node, ctx: Pass) -> bool:
    """A short element that says who wrote a post and when: a link (the author's), a time
    (``<time>``, or a year or a clock time in its text), in two lines of words at most (a
    profile card's rank, post count and join date make more)."""
    if node.text_len > AUTHOR_LINE_MAX or not node.link_len:
        return False
    lines = 0
    timed = False
    for inner in node.iter():
        if inner.own_len and inner.tag in BLOCK_TAGS and _LETTER.get().search(ctx.text(inner)):
            lines += 1  # (a line of words: a reputation score is no line of its own)
        timed = timed or inner.tag == "time"
    if lines > AUTHOR_LINES or not (timed or _WHEN.get().search(ctx.text(node))):
        return False
    ctx.authors.add(node.idx)
    return True


def _in_author_line(node: Node, ctx: Pass) -> bool:
    step = node.parent
    while step is not None:
        if step.idx in ctx.authors:
            return True
        step = step.parent
    return False


def _mostly_list(node: Node) -> bool:
    """Most of the element's text sits in lists and tables (a table of contents with its
    title, an index's columns)."""
    listed = 0
    for inner in node.iter():
        if inner.tag in LIST_PARTS and (inner.parent is None or inner.parent.tag not in
                                        LIST_PARTS):
            listed += inner.text_len
    return LIST_SHARE * node.text_len <= listed
