"""Permalinks: the links a heading or a definition term carries to itself.

Documentation generators and client-side routers link every heading to its own
anchor so a reader can copy the address: Sphinx and MkDocs append ``¶``, GitHub
prepends an icon, docsify wraps the text in ``<a href="/page?id=usage">`` (history
router) or ``<a href="#/page?id=usage">`` (hash router). In Markdown such a link
is noise (``## [Usage](http://host/page?id=usage)``, ``open(file)[¶](#open)``).
``Converter._link`` asks here whether a link in a heading or term is one:

* a link whose text is only a permalink symbol (``¶ § # 🔗 ⚓``) goes, whatever its
  target; anywhere else too when its ``title`` or ``aria-label`` says it is one
  ("Permalink to this image", "Link to this code": Sphinx's captions);
* a link to the page itself: a fragment only (``#x``, ``#/route?id=x``), the
  page's URL (with a fragment or not: a blog post's title linked to the post), or
  a ``?id=`` naming the heading (the page's path, or any path when the page's own
  URL is not known): its text stays, unlinked.

What names the heading: its ``id`` or ``name``, those of elements inside it, the
``id`` of the section it opens (``<section id=x><h2>``: Sphinx, docutils), and its
slug (its text lower-cased, runs of other characters as ``-``; GitHub's
``user-content-`` prefix aside), compared in that same normal form.
"""

from __future__ import annotations

from pressmark.markdown._tree import Node

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

# (variation selectors ask for the emoji or text form of the symbol before them)
_SYMBOLS: Final = frozenset(("¶", "§", "#", "🔗", "⚓"))
_PREFIX: Final = "user-content-"


def is_symbol(text: str) -> bool:
    """Only a permalink symbol (``¶``, ``#``, ``🔗`` ...), whitespace aside."""
    return text.replace("\ufe0e", "").replace("\ufe0f", "").strip() in _SYMBOLS


_LABELS: Final = ("permalink", "permanent link", "link to this")


def labelled(link: Node) -> bool:
    """The link's ``title`` or ``aria-label`` calls it a permalink."""
    for key in ("title", "aria-label"):
        value = link.attrs.get(key)
        if value:
            low = value.lower()
            if any(label in low for label in _LABELS):
                return True
    return False


def query_id(href: str) -> str | None:
    """The ``id`` parameter of a link's query (``/page?id=usage``), decoded."""
    head = href.split("#", 1)[0]
    if "?" not in head:
        return None
    for pair in head.split("?", 1)[1].split("&"):
        key, _, value = pair.partition("=")
        if key == "id" and value:
            if "%" not in value:
                return value
            # (loaded here: a ``pressmark md`` start-up imports no urllib.parse, tests/unit/
            # test_imports.py)
            from urllib.parse import unquote  # noqa: PLC0415

            return unquote(value)
    return None


def names(heading: Node, plain: str) -> set[str]:
    """The normal forms of what names ``heading`` (see the module docstring)."""
    found: set[str] = set()
    for node in heading.iter():
        for key in ("id", "name"):
            value = node.attrs.get(key)
            if value:
                found.add(normal(value))
    parent = heading.parent
    if parent is not None and parent.elems and parent.elems[0] is heading:
        value = parent.attrs.get("id")
        if value:
            found.add(normal(value))
    slug = normal(plain)
    if slug:
        found.add(slug)
    found.discard("")
    return found


def normal(name: str) -> str:
    """Lower case, runs of characters other than letters and digits as one ``-``."""
    low = name.strip().lower().removeprefix(_PREFIX)
    out: list[str] = []
    gap = False
    for char in low:
        if char.isalnum():
            if gap and out:
                out.append("-")
            out.append(char)
            gap = False
        else:
            gap = True
    return "".join(out)
