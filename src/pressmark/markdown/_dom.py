"""Lexbor's tree as the Markdown layer reads it: one door, two ways through.

WHY a door of its own: selectolax gives every node it hands out a Python wrapper and
reads each tag, text and attribute map through a property call, and the copy of a
page's tree (``_tree``) plus the size and metadata queries spent a third of a
conversion there. ``_native_dom.c`` reads the same tree in C, through the functions
Lexbor exports from selectolax's own extension, and returns plain values. When it
cannot bind (no C compiler at install, a selectolax without those exports), this
module reads through selectolax's API instead, to the same values: the tests hold
the two to each other on every corpus page and on generated markup.

Nodes are opaque handles: the C reader's are addresses (``mem_id``), selectolax's are
its wrappers. A :class:`Tree` keeps its parser alive while its handles are in use.
"""

from __future__ import annotations

from pressmark.markdown._rawcut import NO_CUT, RawCut

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Any, Final

    Child = str | tuple[str, dict[str, str | None], Any]
    """A text child's data, or an element child: (tag, attributes, handle)."""
    Entry = str | tuple[str, dict[str, str | None], Any, int]
    """A text child's data, or an element child: (tag, attributes, handle, info)."""
    HeadElement = tuple[str | None, dict[str, str | None], str | None]
    """(tag, attributes, text): text for ``<title>``, ``<script>`` and ``<style>`` only."""

# What the metadata readers look at (``_metadata``), in one pass; styles are there for
# the raw-text cut's check (``_rawcut``), which needs every script and style.
HEAD_QUERY = ("meta, title, link[rel], script, style, base[href], "
              "[itemprop=datePublished], [itemprop=dateModified]")
_WITH_TEXT = frozenset(("title", "script", "style"))
_DATES = frozenset(("datePublished", "dateModified"))

# ``Tree.level``'s ``info``: which of the names the tree copy tests an element's
# attributes hold (the bits), and above them its place among its listed siblings of its tag
HIDING: Final = 1   # style, hidden, aria-hidden, data-pressmark-hidden (``_hidden``)
NAMED: Final = 2    # class, id
ROLE: Final = 4     # role
INFO_BITS: Final = 3
_HIDING_NAMES = ("style", "hidden", "aria-hidden", "data-pressmark-hidden")


def _bind() -> Any:
    try:
        from selectolax import lexbor  # noqa: PLC0415 - its file is what is bound

        from pressmark.markdown import _native_dom  # noqa: PLC0415 - optional, built in C
    except ImportError:  # built without a C compiler (HATCH_BUILD_NO_HOOKS)
        return None
    if not _native_dom.bind(lexbor.__file__):
        return None
    return _native_dom if _reads_alike(_native_dom, lexbor.LexborHTMLParser) else None


# What selectolax has changed from one release to the next: prefixed and mixed-case
# attribute names, undecodable bytes, names Lexbor does not know, what a text holds.
_PROBE = (b'<html lang=en><title>T\xe9</title><body><svg viewBox="0 0 1 1"><use '
          b'xlink:href="#a" href="#b"/></svg><p class=x data-\xff="\xfe" hidden>a<b>\xc3'
          b'</b>\xe2\x82\xac<x-y z>q</x-y><!-- c --> <i id=y role=z style=w> c \n d </i>'
          b'<i aria-hidden=true>e</i></p><script>s()</script></body>')


def _reads_alike(native: Any, parser_type: Any) -> bool:
    """Does the C reader read the probe as the installed selectolax does? Else the API
    is used: a reader that disagrees would change the Markdown by the build."""
    parser = parser_type(_PROBE)
    body = parser.body
    if body is None:
        return False
    readings = []
    for tree in (Tree(parser, reader=native), Tree(parser, reader=None)):
        node = tree.handle(body)
        readings.append((tree.head_elements(), tree.text(node), tree.text_size(node, NO_CUT),
                         tree.visible_size(node, NO_CUT), _listing(tree, node),
                         _levels(tree, node)))
    return readings[0] == readings[1]


def _levels(tree: Tree, node: Any) -> list[Any]:
    """The subtree's levels (``Tree.level``), each element's own in its place."""
    own, entries = tree.level(node, frozenset())
    return [own, *(kid if isinstance(kid, str) else (*kid[:2], kid[3], _levels(tree, kid[2]))
                   for kid in entries)]


def _listing(tree: Tree, node: Any) -> list[Any]:
    """The subtree's children, each element's own children listed in its place."""
    return [kid if isinstance(kid, str) else (kid[0], kid[1], _listing(tree, kid[2]))
            for kid in tree.children(node)]


class Tree:
    """One parsed page, read through the C reader when it is there."""

    __slots__ = ("document", "level_of", "native", "parser")

    def __init__(self, parser: Any, *, native: bool = True, reader: Any = ...) -> None:
        self.parser = parser
        root = parser.root
        if reader is ...:
            reader = NATIVE if native else None
        self.native: Any = reader if root is not None else None
        # the document node: the C reader frees the text copies Lexbor makes into it
        self.document = root.parent.mem_id if self.native is not None else 0
        # the copy's reader, called once per element copied: looked up once per page
        self.level_of: Any = self.native.level if self.native is not None else None

    def handle(self, node: Any) -> Any:
        """The handle of one of selectolax's nodes of this tree."""
        return node.mem_id if self.native is not None else node

    def children(self, node: Any, skip: frozenset[str] | None = None) -> list[Child]:
        """The text children's data and the element children, in order (comments,
        doctypes, elements Lexbor gives no name and the like left out); elements whose
        tag is in ``skip`` are left out too, before their attributes are read."""
        if self.native is not None:
            out: list[Child] = self.native.children(self.document, node, skip)
            return out
        kids: list[Child] = []
        child = node.child
        while child is not None:
            tag: str | None = child.tag
            if tag == "-text":
                text: str | None = child.text_content
                if text is not None:
                    kids.append(text)
            elif tag is not None and tag[0] != "-" and (skip is None or tag not in skip):
                kids.append((tag, child.attributes, child))
            child = child.next
        return kids

    def level(self, node: Any, skip: frozenset[str]) -> tuple[int, list[Entry]]:
        """``children`` as the tree copy (``_tree._build``) reads them: each element with
        its ``info`` (its place among the listed siblings of its tag, from 1, shifted up
        ``INFO_BITS``; ``HIDING``, ``NAMED``, ``ROLE`` set when its attributes hold those
        names), and the collapsed length of the text children, summed (``own``)."""
        if self.level_of is not None:
            out: tuple[int, list[Entry]] = self.level_of(self.document, node, skip)
            return out
        own = 0
        counts: dict[str, int] = {}
        entries: list[Entry] = []
        for kid in self.children(node, skip):
            if isinstance(kid, str):
                own += len(" ".join(kid.split()))
                entries.append(kid)
                continue
            tag, attrs, handle = kid
            n = counts.get(tag, 0) + 1
            counts[tag] = n
            info = n << INFO_BITS
            if any(name in attrs for name in _HIDING_NAMES):
                info |= HIDING
            if "class" in attrs or "id" in attrs:
                info |= NAMED
            if "role" in attrs:
                info |= ROLE
            entries.append((tag, attrs, handle, info))
        return own, entries

    def text(self, node: Any) -> str:
        """The subtree's text (selectolax's ``text(deep=True)``)."""
        if self.native is not None:
            out: str = self.native.text(self.document, node)
            return out
        deep: str = node.text(deep=True)
        return deep

    def text_size(self, node: Any, cut: RawCut) -> int:
        """The length of the subtree's text as the page reads it (markers restored)."""
        if self.native is not None:
            size: int = self.native.text_size(self.document, node, cut.sizes)
            return size
        return cut.restored_len(node.text(deep=True))

    def prose_size(self, node: Any, paragraph: int, cut: RawCut) -> int:
        """Characters in the ``<p>`` elements of the subtree (itself included, as a CSS
        query matches) that are at least ``paragraph`` long."""
        if self.native is not None:
            size: int = self.native.prose_size(self.document, node, paragraph, cut.sizes)
            return size
        total = 0
        for para in node.css("p"):
            n = cut.restored_len(para.text(deep=True))
            if n >= paragraph:
                total += n
        return total

    def visible_size(self, node: Any, cut: RawCut) -> int:
        """The subtree's text size less that of its scripts, styles, noscripts and
        templates (each match subtracted: one nested in another, twice)."""
        if self.native is not None:
            size: int = self.native.visible_size(self.document, node, cut.sizes)
            return size
        hidden = sum(cut.restored_len(n.text(deep=True))
                     for n in node.css("script, style, noscript, template"))
        return cut.restored_len(node.text(deep=True)) - hidden

    def head_elements(self) -> list[HeadElement]:
        """The matches of :data:`HEAD_QUERY` in document order, with the text of
        titles, scripts and styles; of the links, only those whose ``rel`` holds
        "canonical" (any case), the one link the metadata readers take."""
        root = self.parser.root
        if root is None:
            return []
        if self.native is not None:
            out: list[HeadElement] = self.native.head_elements(self.document, root.mem_id)
            return out
        found: list[HeadElement] = []
        seen: set[int] = set()
        for node in self.parser.css(HEAD_QUERY):
            # Lexbor reports an element once for each selector of the list it matches
            if node.mem_id in seen:
                continue
            seen.add(node.mem_id)
            tag: str | None = node.tag
            attrs = node.attributes
            if tag == "link" and "canonical" not in (attrs.get("rel") or "").lower() \
                    and attrs.get("itemprop") not in _DATES:
                continue  # (the readers take the canonical link only: the C reader's)
            found.append((tag, attrs, node.text(deep=True) if tag in _WITH_TEXT else None))
        return found

    def deeper_than(self, depth: int) -> bool:
        """Does an element sit ``depth`` element levels below ``<html>``?"""
        root = self.parser.root
        if root is None:
            return False
        if self.native is not None:
            deep: bool = self.native.deeper_than(self.document, root.mem_id, depth)
            return deep
        return self.parser.css_first("html" + " > *" * depth) is not None


NATIVE: Any = _bind()
"""The C reader, when it was built, found Lexbor's functions and reads as selectolax
does; else None."""
