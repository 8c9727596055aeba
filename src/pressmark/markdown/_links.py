"""The link rule: is a block dense with links the page's navigation, or its content?

A block whose text is mostly links (over ``LINK_DENSE``), that scores nothing (``Node.score``
<= 0, ``_score``) and is not a heading or a table cell, is navigation: a menu, a list of
other pages. Unless one of a few content signals says otherwise, each of which looks at
what the links *say* or where they *stand*:

``prose``      the block is a long paragraph (``LONG_BLOCK``), or a list holding
               ``PROSE_IN_LIST`` chars of prose, or an item of a list whose items are mostly
               prose (release notes, a reading list with comments)
``described``  the links read as sentences (``DESCRIBED_ITEM`` chars each on average), in
               a list nested under an item of the body's own list (a status report's bugs)
``headed``     a list of links that is a section of its own: right under a heading of the
               body, after some of its prose, not a table of contents ("See also",
               "Plugins"); and the items of such a list
``data``       the value of a labelled row ("Official languages | English, Maori"), a
               definition list's term whose definition is prose (an API index entry), or
               a table of data: named columns over several rows (a package list)
``titled``     the block holds the page's title (an ``<h1>`` that is no link)
``listing``    the page is a listing or an application (``_kinds``): its lists and
               tables of links are what it holds, and so are the blocks holding a
               control whose text is content, and its entries set a line each

Deterministic: every signal reads the tree only.
"""

from __future__ import annotations

from bisect import bisect_left

from pressmark.markdown import _text_rules
from pressmark.markdown._kinds import is_control
from pressmark.markdown._score import LONG_BLOCK
from pressmark.markdown._sections import heading_of
from pressmark.markdown._tree import BLOCK_TAGS, HEADINGS, Node

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

# (``Final``: compiled code reads a constant directly)
LINK_DENSE: Final = 0.6       # link share of a block's text above which the link rule weighs it
LINK_MIN: Final = 20          # chars: a shorter block is a label, left to the label rules
LONG_SHARE: Final = 0.9       # a long paragraph holds this share of its block's text itself
PROSE_IN_LIST: Final = 120    # chars of prose that make a link-heavy list release notes, not a menu
PROSE_LIST: Final = 0.5       # link share under which a list's items are mostly prose
DESCRIBED_ITEM: Final = 45    # chars: a link this long, on average, describes what it links to
DEFINED: Final = 0.5          # link share under which a definition is prose, not a menu
IN_PAGE: Final = 0.5          # share of in-page ("#...") links making a list a table of contents
LABEL_DEPTH: Final = 2        # wrappers (holding only the list) between a row's cell and its list
DATA_ROWS: Final = 3          # rows below its header that make a table of data
DATA_COLUMNS: Final = 2       # ... and named columns
DATA_SHARE: Final = 0.8       # share of a wrapper's text its table holds (a title beside it)
_TABLE_BOXES: Final = frozenset(("div", "section", "figure", "table", "center"))
_ROW_GROUPS: Final = frozenset(("thead", "tbody", "tfoot"))
_LISTS: Final = frozenset(("ul", "ol"))
_CELLS: Final = frozenset(("td", "th", "tr"))
# what a listing's entries are set in: kept from the link rule on a listing, as are the
# blocks that wrap them; a link-dense line of its own ("Next: a, Previous: b") still goes
LIST_PARTS: Final = frozenset(("ul", "ol", "li", "dl", "dt", "dd", "table", "tbody", "thead"))
# ... unless it is one of this many link lines of one tag side by side: a listing's entries
# set a line each (``<p><a>..</a></p>``), not as a list's items; a pager's lines are two
ENTRY_LINES: Final = 3


def navigation(node: Node, sections: dict[int, bool], *, listing: bool) -> bool:
    """The block is dense with links, scores nothing and no content signal holds.

    ``sections``: ``_section_list`` remembered by node index for the items below a list
    (parents are judged first); ``listing``: the page is a listing.
    """
    text_len = node.text_len
    if node.tag not in BLOCK_TAGS or node.tag in _CELLS or node.tag in HEADINGS \
            or node.score > 0 or text_len < LINK_MIN or node.link_len <= LINK_DENSE * text_len:
        return False
    if listing and (node.tag in LIST_PARTS or node.own_link <= LINK_DENSE * node.own_len
                    or _holds_control(node) or _one_of_lines(node)):
        return False
    return not (_prose(node) or _described_sublist(node) or _headed(node, sections)
                or _labelled_value(node) or _defined_term(node) or _titled(node)
                or _data_table(node))


def _titled(node: Node) -> bool:
    """The block holds the page's title: an ``<h1>`` that is not itself a link (a
    documentation page's heading among its breadcrumbs and buttons). Its links are then
    judged one by one, the title stays."""
    for inner in node.iter():
        if inner.tag == "h1" and inner.text_len and inner.link_len <= LINK_DENSE * inner.text_len:
            return True
    return False


def _one_of_lines(node: Node) -> bool:
    """A line of links, one of ``ENTRY_LINES`` or more of its tag side by side: the
    entries of a listing set a line each (a page of bookmarks in ``<p>`` or ``<div>``
    lines), which the link rule took one by one, all but the few shorter than ``LINK_MIN``.

    Only the siblings next to it are read (found by creation order, ``idx``, in which
    ``elems`` is sorted): a parent of 50,000 lines is not read once a line.
    """
    parent = node.parent
    if parent is None or node.blocky:
        return False
    elems = parent.elems
    at = bisect_left(elems, node.idx, key=_idx)
    first = max(0, at - ENTRY_LINES + 1)
    run = 0
    for sibling in elems[first:at + ENTRY_LINES]:
        if sibling.tag == node.tag and not sibling.blocky and sibling.text_len \
                and sibling.link_len > LINK_DENSE * sibling.text_len:
            run += 1
            if run >= ENTRY_LINES:
                return True
        elif sibling is not node:
            run = 0
    return False


def _idx(node: Node) -> int:
    return node.idx


def _holds_control(node: Node) -> bool:
    """A control whose text is content inside (an operation: method, path, summary)."""
    return any(n.tag == "button" and is_control(n) for n in node.iter())


def _prose(node: Node) -> bool:
    """A long paragraph, a list holding some prose, or an item of a list of prose items."""
    if node.own_len >= LONG_BLOCK and node.own_len >= LONG_SHARE * node.text_len:
        return True
    if node.tag in _LISTS and node.prose >= PROSE_IN_LIST:
        return True
    parent = node.parent
    return node.tag == "li" and parent is not None and parent.text_len > 0 \
        and parent.link_len < PROSE_LIST * parent.text_len


def _headed(node: Node, sections: dict[int, bool]) -> bool:
    """A list kept as a section of the body, or an item of one (``_section_list``)."""
    if _is_section(node, sections):
        return True
    parent = node.parent
    return node.tag == "li" and parent is not None and _is_section(parent, sections) \
        and not any(n.tag in HEADINGS for n in node.iter())


def _is_section(node: Node, sections: dict[int, bool]) -> bool:
    """``_section_list``, remembered for the items below it (parents are pruned first)."""
    found = sections.get(node.idx)
    if found is None:
        found = sections[node.idx] = _section_list(node)
    return found


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
    in_page = sum(1 for a in links if a.attr("href").startswith("#"))
    return bool(links) and in_page < IN_PAGE * len(links)


def _data_table(node: Node) -> bool:
    """A table of data (or its wrapper, its title beside it): a header row of column
    names (``<th>`` cells only, two or more) over ``DATA_ROWS`` rows or more. Its cells
    may all be links (a package list: name, popularity, size, each linked); a menu set
    in a table has no column names, and a navigation bar's one ``<th>`` is its title."""
    if node.tag in _ROW_GROUPS and node.parent is not None:
        node = node.parent  # (a table's body: its table decides)
    if node.tag not in _TABLE_BOXES:
        return False
    table = node
    while table.tag != "table":  # down through the wrappers (an anchor may wrap it all)
        inner = [child for child in table.elems if child.text_len]
        if not inner:
            return False
        table = max(inner, key=_text_size)  # (the first of the largest: deterministic)
        if table.text_len < DATA_SHARE * node.text_len:
            return False
    rows = [row for part in table.elems
            for row in (part.elems if part.tag in _ROW_GROUPS else [part]) if row.tag == "tr"]
    if len(rows) <= DATA_ROWS:
        return False
    head = [cell for cell in rows[0].elems if cell.text_len]
    return len(head) >= DATA_COLUMNS and all(cell.tag == "th" for cell in head)


def _text_size(node: Node) -> int:
    return node.text_len


def _labelled_value(node: Node) -> bool:
    """A list that is the value of a labelled row ("Official languages | English, Maori"):
    an infobox's data, however linked, not a menu set in a table."""
    cell = node.parent
    for _ in range(LABEL_DEPTH):  # through a wrapper or two that hold only this ("plainlist")
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
    return any(n.tag == "dd" and n.text_len and n.link_len < DEFINED * n.text_len
               for n in parent.elems)


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
