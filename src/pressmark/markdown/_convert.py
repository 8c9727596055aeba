"""DOM -> block tree. Pure: the same subtree and options give the same blocks.

Rules (the golden tests pin each one):

* ``h1``-``h6`` become headings of the same level; empty headings vanish, and one that
  holds a paragraph (``_score.reads_as_prose``: text set in a heading's type) is written
  as the paragraphs it holds. A link
  inside a heading that points at this page (``#x``, the page URL, or the page URL
  plus a fragment) is its permalink: the text stays unlinked, a bare symbol (``#``,
  ``¶``) goes.
* Inline runs between blocks become paragraphs; ``<br>`` is a hard break and
  two or more ``<br>`` in a row end the paragraph.
* ``ul``/``ol`` become lists; ordered lists keep their source numbering
  (``start``, ``reversed``, ``li value``); empty items are dropped and counted.
* ``pre`` becomes a fenced block, verbatim, with the language taken from a
  ``language-*`` / ``lang-*`` class on the ``pre`` or its ``code`` child.
* Tables are ``_tables``' (GFM pipe tables with block cells joined by ``<br>``,
  spans laid into a grid, and a fallback to the cells in order).
* ``dl`` becomes ``term`` lines followed by ``: definition`` lines.
* Links become ``[text](absolute-url)`` (resolved against ``<base>`` and the
  page URL; ``javascript:`` and other non-web schemes keep the text only),
  images ``![alt](absolute-url)`` (or the alt text, or nothing, per policy).
* Emphasis is ``*em*``, ``**strong**``, ``~~strike~~``. Adjacent runs of one kind
  merge (``*ab*``), as do adjacent code spans; a run CommonMark could not read as
  emphasis (it touches punctuation inside a word, ``a<em>"q"</em>b``) is written
  as inline HTML (``<em>``, ``<strong>``, ``<del>``) instead.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

from pressmark.markdown import _escape, _permalinks
from pressmark.markdown._blocks import (
    Block,
    Code,
    DefList,
    Heading,
    Item,
    ListBlock,
    Para,
    Quote,
    Rule,
)
from pressmark.markdown._budget import Budget
from pressmark.markdown._inline import InlineBuf, add_run, squeeze
from pressmark.markdown._lazy_re import LazyPattern
from pressmark.markdown._policy import ConversionPolicy
from pressmark.markdown._score import reads_as_prose
from pressmark.markdown._tables import convert_table
from pressmark.markdown._tree import BLOCK_TAGS, HEADINGS, Node

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

# (``Final``: compiled code reads a constant directly, a module global is a dictionary
# look-up at every use, and the loops below run per element of every page)
_LANG: Final = LazyPattern(
    r"(?:^|\s)(language|lang|highlight)-(?:source-)?([A-Za-z0-9_+#.-]+)")
_NO_LANGUAGE: Final = frozenset(("none", "default", "nohighlight", "plain"))
LANG_ANCESTORS: Final = 3  # wrappers above a <pre> that may declare its language
_LISTS: Final = frozenset(("ul", "ol", "menu", "dir"))
# (and a table's parts: only a selected region starts at one, ``block``)
_STRUCTURES: Final = HEADINGS | _LISTS | {"pre", "blockquote", "table", "dl", "hr", "tbody",
                                          "thead", "tfoot", "tr"}
_TABLE_PARTS: Final = frozenset(("tbody", "thead", "tfoot", "tr"))
# the structures whose blocks are converted by a call back into ``blocks``: each level of
# them nested costs the converter (and the writer, ``_render``) a few frames
_NESTING: Final = _LISTS | _TABLE_PARTS | {"blockquote", "table", "dl"}
MAX_NESTING: Final = 48
"""Nesting structures converted as such, one inside another: deeper ones (a hostile page's
thousand nested lists or quotes) give their content in order, as plain containers do.
Real pages nest lists a few levels and quoted replies a dozen or two."""
_CODE: Final = frozenset(("code", "kbd", "samp", "tt"))
_EM: Final = frozenset(("em", "i", "cite", "dfn", "var"))
_STRONG: Final = frozenset(("strong", "b"))
_STRIKE: Final = frozenset(("del", "s", "strike"))
IN_HEADING: Final = 16          # inline state bit: inside a heading (permalinks are unwrapped)
# above the bits, the state counts inline elements entered (``_inline_children``)
_DEEPER: Final = 32
MAX_INLINE: Final = 64
"""Inline elements converted one inside another: the text of deeper ones is written plain
(a page may nest thousands of ``<span>``; each level costs the converter two frames)."""
_INLINE_CAP: Final = _DEEPER * MAX_INLINE
_WORDISH: Final = LazyPattern(r"\w")


class Counts:
    """Anomalies the converter met, for validation (plain slots: see ``_blocks``)."""

    __slots__ = ("broken_tables", "empty_list_items", "layout_tables", "table_limits")

    def __init__(self) -> None:
        self.empty_list_items = 0
        self.broken_tables = 0
        self.layout_tables = 0
        self.table_limits: set[str] = set()  # the table caps that cut in (``_tables``)


class Converter:
    def __init__(self, policy: ConversionPolicy, resolve: Callable[[str], str | None]) -> None:
        self.policy = policy
        self.resolve = resolve
        self.counts = Counts()
        self.in_cell = False
        self.nested = 0  # nesting structures being converted (``MAX_NESTING``)
        self._page: str | None = None  # this page's own URL, resolved on first need
        self._title: Node | None = None  # the heading or term being converted
        self.budget = Budget()  # what links may write (``_budget``: a URL repeats)
        self.done: list[Block] | None = None  # the outermost blocks, for partial output

    # ---- blocks ---------------------------------------------------------------------------

    def blocks(self, node: Node) -> list[Block]:
        return self._blocks_of(node.children, node)

    def _blocks_of(self, children: list[Node | str], node: Node) -> list[Block]:
        """The blocks of ``children`` (``node``'s, or a run of them).

        A plain container among them (``div``, ``section``, ``p``, ``li`` ... anything but
        a structure) is entered in place, its position kept on a stack, not by a call: a
        page may nest wrappers as deep as its parse allows (thousands of ``<div>``), and
        the blocks must not cost a frame per level. Only the structures that hold blocks
        (lists, quotes, tables, definition lists) call back here, and their nesting is
        capped (``MAX_NESTING``).
        """
        out: list[Block] = []
        if self.done is None:
            self.done = out
        # the containers entered and not finished: their children, where they were, the
        # element owning their paragraphs, their inline run
        outer: list[tuple[list[Node | str], int, Node, InlineBuf]] = []
        items = children
        at = 0
        owner = node
        buf = InlineBuf()
        # (methods called as methods: compiled code calls a bound method held in a local
        # generically, through its Python wrapper)
        while True:
            if at == len(items):
                if buf.md:
                    self._flush(buf, owner, out)
                if not outer:
                    return out
                items, at, owner, buf = outer.pop()
                continue
            child = items[at]
            at += 1
            if isinstance(child, str):
                # whitespace before any inline content (the indentation between blocks)
                # is stripped from the paragraph anyway: ``_flush`` would drop it
                if buf.md or not _blank(child):
                    self._text(child, buf)
            elif child.removed is not None:
                continue
            elif child.tag == "button" and child.blocky:
                # a control that pruning kept is content (an API explorer's operation:
                # method, path, summary, each in a block of its own): one line of text
                if buf.md:
                    self._flush(buf, owner, out)
                    buf = InlineBuf()
                control = InlineBuf()
                for part in child.children:  # (its parts are fields: a space between)
                    if isinstance(part, str):
                        self._text(part, control)
                    elif part.removed is None:
                        self._inline(part, control, 0)
                        control.md.append(" ")
                        control.plain.append(" ")
                self._flush(control, child, out)
            elif child.tag in BLOCK_TAGS or child.blocky:
                if buf.md:
                    self._flush(buf, owner, out)
                    buf = InlineBuf()
                elif buf.plain:  # (plain text without Markdown is dropped with it)
                    buf = InlineBuf()
                tag = child.tag
                # (a link wrapped around blocks keeps the blocks: "a" is no block tag; a
                # plain container, or a nesting structure past the cap, is entered here)
                if tag in _STRUCTURES and (self.nested < MAX_NESTING or tag not in _NESTING):
                    out.extend(self.block(child))
                else:
                    outer.append((items, at, owner, buf))
                    items = child.children
                    at = 0
                    owner = child
                    buf = InlineBuf()
            else:
                self._inline(child, buf, 0)

    def block(self, node: Node) -> list[Block]:
        tag = node.tag
        if tag not in _STRUCTURES:  # most blocks (div, p, section, li ...) hold just blocks
            return self.blocks(node)
        if tag not in _NESTING:
            return self._leaf(node, tag)
        if self.nested >= MAX_NESTING:
            return self.blocks(node)  # its content in order, as a plain container's
        self.nested += 1
        try:
            if tag in _LISTS:
                return self._list(node)
            if tag == "blockquote":
                inner = self.blocks(node)
                return [Quote(inner, node)] if inner else []
            if tag == "dl":
                return self._dl(node)
            # a table, or a region selected at a table's body or row: that table's rows
            return self._table(node)
        finally:
            self.nested -= 1

    def _leaf(self, node: Node, tag: str) -> list[Block]:
        """A structure that holds no blocks: a heading, a code block, a rule."""
        if tag in HEADINGS and reads_as_prose(node):
            return self.blocks(node)  # a paragraph set in a heading's type: its text
        if tag in HEADINGS:
            buf = InlineBuf()
            self._titled(node, buf)
            text = squeeze(buf.text(" ").replace("\n", " ")).strip()
            if not text:
                return []
            plain = _collapsed(buf.plain)
            return [Heading(int(tag[1]), _escape.escape_heading_end(text), plain, node)]
        if tag == "pre":
            return self._pre(node)
        return [Rule(node)]

    def _flush(self, buf: InlineBuf, owner: Node, out: list[Block]) -> None:
        if not buf.md:
            return
        md = buf.text(" ")
        if "\n" not in md:
            # one line, the commonest paragraph: what the loop below makes of it, with
            # the plain text collapsed whole (its breaks, if any, collapse all the same)
            line = squeeze(md).strip()
            if line:
                # (a table cell's text opens no line: a "+4%" there needs no escape)
                out.append(Para(line if self.in_cell else _escape.escape_line_start(line),
                                _collapsed(buf.plain), owner))
            return
        md_lines = md.split("\n")
        plain_lines = "".join(buf.plain).split("\n")
        if len(plain_lines) != len(md_lines):  # defensive: keep the pairing total
            plain_lines = [" ".join(plain_lines), *[""] * (len(md_lines) - 1)]
        paras: list[tuple[list[str], list[str]]] = [([], [])]
        for raw, plain in zip(md_lines, plain_lines, strict=True):
            line = squeeze(raw).strip()
            if line:
                paras[-1][0].append(line if self.in_cell else _escape.escape_line_start(line))
                paras[-1][1].append(plain)
            elif paras[-1][0]:
                paras.append(([], []))
        for lines, plains in paras:
            if lines:
                out.append(Para("\\\n".join(lines), " ".join(" ".join(plains).split()), owner))

    # ---- inline ---------------------------------------------------------------------------

    def _text(self, text: str, buf: InlineBuf) -> None:
        if _blank(text):  # the commonest text: indentation between tags
            if text:
                buf.md.append(" ")
                buf.plain.append(" ")
            return
        if _escape.printable(text) and "  " not in text:
            # one line (most inline text): ``clean`` keeps it as it is, and a space is
            # the only whitespace a printable string holds, so collapsing is a strip
            plain = text.strip(" ")
            if plain is text:  # no space at either edge (strip gave the very string back)
                buf.md.append(_escape.escape_text(text))
                buf.plain.append(text)
                return
        else:
            words = text.split()
            plain = " ".join(words)
            if not _escape.holds_no_controls(text, plain):  # rare: let ``clean`` drop them
                text = _escape.clean(text)
                words = text.split()
                plain = " ".join(words)
            if not words:
                if text:
                    buf.md.append(" ")
                    buf.plain.append(" ")
                return
        md = _escape.escape_text(plain)  # the very string when nothing needed escaping
        lead = " " if text[0].isspace() else ""
        trail = " " if text[-1].isspace() else ""
        if lead or trail:
            if md is plain:
                md = plain = lead + plain + trail
            else:
                md = lead + md + trail
                plain = lead + plain + trail
        buf.md.append(md)
        buf.plain.append(plain)

    def _inline_children(self, node: Node, buf: InlineBuf, state: int) -> None:
        state += _DEEPER
        if state >= _INLINE_CAP:
            self._flat(node, buf)
            return
        for child in node.children:
            if isinstance(child, str):
                self._text(child, buf)
            elif child.removed is None:
                self._inline(child, buf, state)

    def _flat(self, node: Node, buf: InlineBuf) -> None:
        """Inline content nested past ``MAX_INLINE``: its text in order, by a walk (a line
        break stays one, a block inside a heading is a space, as ``_inline`` writes them)."""
        stack: list[Node | str] = node.children[::-1]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                self._text(item, buf)
            elif item.removed is None:
                if item.tag == "br":
                    buf.md.append("\n")
                    buf.plain.append("\n")
                    continue
                if item.tag in BLOCK_TAGS:
                    buf.md.append(" ")
                    buf.plain.append(" ")
                    stack.append(" ")  # written after its content
                stack.extend(item.children[::-1])

    # state bits: 1 in link, 2 in emphasis, 4 in strong, 8 in strikethrough, 16 in heading
    def _inline(self, node: Node, buf: InlineBuf, state: int) -> None:
        tag = node.tag
        if tag == "br":
            buf.md.append("\n")
            buf.plain.append("\n")
        elif tag == "img":
            self._image(node, buf)
        elif tag == "a":
            self._link(node, buf, state)
        elif tag in _CODE:
            text = " ".join(_escape.clean(node.text()).split())
            if text:
                buf.add_code(text, self.in_cell)
        elif tag in _EM and not state & 2:
            self._wrap(node, buf, state | 2, "*")
        elif tag in _STRONG and not state & 4:
            self._wrap(node, buf, state | 4, "**")
        elif tag in _STRIKE and not state & 8:
            self._wrap(node, buf, state | 8, "~~")
        elif tag == "q":
            buf.md.append('"')
            self._inline_children(node, buf, state)
            buf.md.append('"')
        else:
            if tag in BLOCK_TAGS:
                buf.md.append(" ")
                buf.plain.append(" ")
            self._inline_children(node, buf, state)
            if tag in BLOCK_TAGS:
                buf.md.append(" ")
                buf.plain.append(" ")

    def _url(self, url: str) -> str:
        self.budget.spend(len(url), "links")
        url = _escape.escape_url(url)
        # a "|" in a link target would end a table cell as well
        return url.replace("|", "%7C") if self.in_cell and "|" in url else url

    def _wrap(self, node: Node, buf: InlineBuf, state: int, marker: str) -> None:
        inner = InlineBuf()
        self._inline_children(node, inner, state)
        add_run(buf, inner, marker)

    def _titled(self, node: Node, buf: InlineBuf) -> None:
        """A heading's or a definition term's inline content: its permalinks go."""
        outer = self._title
        self._title = node
        try:
            self._inline_children(node, buf, IN_HEADING)
        finally:
            self._title = outer

    def _link(self, node: Node, buf: InlineBuf, state: int) -> None:
        if state & 1 or not self.policy.links:
            self._inline_children(node, buf, state)
            return
        inner = InlineBuf()
        self._inline_children(node, inner, state | 1)
        md = inner.raw("[").replace("\n", " ")
        plain = "".join(inner.plain).replace("\n", " ")
        href = node.attrs.get("href")
        url = self.resolve(href) if href is not None else None
        if href is not None and (state & IN_HEADING or _permalinks.is_symbol(plain)) \
                and self._permalink(node, href, url, plain, state):
            # a heading's permalink ("<h2 id=x><a href=#x>Title</a>", "¶", "#"): the
            # heading is the target, so the text stays unlinked and a bare symbol goes
            if _WORDISH.get().search(plain):
                buf.md.append(md)
                buf.plain.append(plain)
            return
        buf.plain.append(plain)
        core = squeeze(md).strip()
        if not core or url is None:
            if md:
                buf.md.append(md)
            return
        lead = " " if md[:1] == " " else ""
        trail = " " if md[-1:] == " " else ""
        buf.md.append(f"{lead}[{core}]({self._url(url)}){trail}")

    def _permalink(self, node: Node, href: str, url: str | None, plain: str,
                   state: int) -> bool:
        """A heading's or term's link to itself, or a permalink symbol (``_permalinks``)."""
        if _permalinks.is_symbol(plain) and (state & IN_HEADING or _permalinks.labelled(node)):
            return True  # "¶", "#", "🔗" beside a title, wherever it points
        if not state & IN_HEADING:
            return False
        if href.strip().startswith("#"):
            return True
        if url is None:
            return False
        if self._page is None:
            page = self.resolve("#") or ""
            # (without a URL of its own the page resolves "#" to "#": not known then)
            self._page = page if page.startswith(("http:", "https:")) else ""
        page = self._page
        if page and url.split("#", 1)[0] == page.split("#", 1)[0]:
            return True  # the page itself: a forum's or a blog's title linked to its page
        named = _permalinks.query_id(href)
        if named is None or self._title is None:
            return False
        if page and url.split("?", 1)[0] != page.split("#", 1)[0].split("?", 1)[0]:
            return False  # another page's section
        # a client-side router's permalink: "/debug?id=usage" on the "usage" heading
        title = self._title
        return _permalinks.normal(named) in _permalinks.names(title, title.text())

    def _image(self, node: Node, buf: InlineBuf) -> None:
        mode = self.policy.images
        if mode == "drop":
            return
        alt = " ".join(_escape.clean(node.attr("alt")).split())
        if mode == "alt":
            if alt:
                buf.md.append(_escape.escape_text(alt))
                buf.plain.append(alt)
            return
        url = None
        # a lazy-loading script swaps the real image in from data-*; ``src`` holds a
        # placeholder (a spinner, a blank gif) until it runs
        for key in ("data-src", "data-lazy-src", "data-original", "src"):
            value = node.attr(key).strip()
            # (a JSON blob of sizes in data-src is some script's, not an address)
            if value and not value.startswith(("data:", "{", "[")):
                url = self.resolve(value)
                if url is not None:
                    break
        if url is not None:
            buf.md.append(f"![{_escape.escape_text(alt)}]({self._url(url)})")

    # ---- structures -----------------------------------------------------------------------

    def _list(self, node: Node) -> list[Block]:
        ordered = node.tag == "ol"
        step = -1 if ordered and "reversed" in node.attrs else 1
        items: list[Item] = []
        empty = 0
        raw_items = [c for c in node.children if not isinstance(c, str) and c.removed is None]
        lis = len([c for c in raw_items if c.tag == "li"])
        if not lis and any(isinstance(c, str) and not _blank(c) for c in node.children):
            # text in a list of no items: old pages indent text with a bare <ul>, and a
            # browser shows what it holds as an indented block
            return self.blocks(node)
        number = _int(node.attrs.get("start")) if ordered else None
        if number is None and ordered:
            number = lis if step < 0 else 1
        loose: list[Node | str] = []  # text and elements between items, in order
        held = False                  # ... other than the whitespace between tags
        for child in [*node.children, _END]:
            if isinstance(child, str):
                loose.append(child)
                held = held or not _blank(child)
                continue
            if child.tag != "li" and child is not _END:
                loose.append(child)
                held = held or child.removed is None
                continue
            if held:
                # what stands between items belongs to the item before it
                blocks = self._blocks_of(loose, node)
                held = False
                if blocks and items:
                    items[-1].blocks.extend(blocks)
                elif blocks:
                    items.append(Item(None, blocks))
            loose = []
            if child is _END or child.removed is not None:
                continue
            if ordered:
                value = _int(child.attrs.get("value"))
                if value is not None:
                    number = value
            blocks = self.blocks(child)
            if not blocks:
                # dropped without using up its number: Markdown cannot skip one, so a
                # gap would not survive a round trip through a renderer. An item that
                # selection emptied on purpose (its chrome pruned) is no anomaly.
                if not any(n.removed is not None or n.chrome for n in child.iter()):
                    empty += 1
                continue
            items.append(Item(_clamp(number) if ordered else None, blocks))
            if number is not None:
                number += step
        if ordered:
            for item in items:
                if item.number is None:
                    item.number = 1
        if items:
            # a list with nothing but empty items is a control (carousel dots, a star
            # rating), not a list that lost its content
            self.counts.empty_list_items += empty
        return [ListBlock(ordered, items, node)] if items else []

    def _pre(self, node: Node) -> list[Block]:
        """A code block, verbatim but for a highlighter's line numbers.

        Highlighters number lines in the markup: an element holding only a number at
        the start of each line (Pygments' inline ``linenos``), or a block of only the
        numbers beside the code (its table form). Written into the Markdown they glue
        to the code ("1from docutils import nodes"), so both go: numbers that open the
        lines and count up by one, on half the lines or more.
        """
        parts: list[str] = []
        numbers: list[tuple[int, int]] = []  # (index in parts, number) of line-opening numbers
        blank = True                         # nothing but whitespace since the last line break
        stack: list[Node | str] = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                parts.append(item)
                if "\n" in item:
                    blank = not item.rsplit("\n", 1)[1].strip()
                elif blank and item.strip():
                    blank = False
            elif item.tag == "br":
                parts.append("\n")
                blank = True
            elif item.removed is None or item is node:
                if blank and item is not node and 0 < item.text_len <= LINE_NUMBER_CHARS \
                        and (digits := item.text()).isdigit() and digits.isascii():
                    numbers.append((len(parts), int(digits)))
                    parts.append(digits)
                    blank = False
                    continue
                stack.extend(reversed(item.children))
        text = _escape.clean("".join(parts).replace("\r\n", "\n").replace("\r", "\n"))
        lines = text.split("\n")
        if _counting(numbers) and 2 * len(numbers) >= len(lines):
            for at, _ in numbers:
                parts[at] = ""
            text = _escape.clean("".join(parts).replace("\r\n", "\n").replace("\r", "\n"))
            lines = text.split("\n")
        text = "\n".join(line.rstrip() for line in lines).strip("\n")
        if not text.strip():
            return []
        gutter = text.split()
        if len(gutter) > 1 and all(n.isdigit() and n.isascii() for n in gutter) \
                and _counting([(0, int(n)) for n in gutter]):
            return []  # the numbers column of a highlighter's table, beside the code
        return [Code(_language(node), text, node)]

    def _dl(self, node: Node) -> list[Block]:
        items: list[tuple[str, list[list[Block]]]] = []
        stack: list[Node] = [c for c in reversed(node.children) if not isinstance(c, str)]
        while stack:
            child = stack.pop()
            if child.removed is not None:
                continue
            if child.tag == "dt":
                buf = InlineBuf()
                self._titled(child, buf)
                term = squeeze(buf.text(" ").replace("\n", " ")).strip()
                items.append((_escape.escape_line_start(term), []))
            elif child.tag == "dd":
                blocks = self.blocks(child)
                if not blocks:
                    continue
                if not items:
                    items.append(("", []))
                items[-1][1].append(blocks)
            elif child.tag == "div":
                stack.extend(c for c in reversed(child.children) if not isinstance(c, str))
        items = [(term, defs) for term, defs in items if term or defs]
        return [DefList(items, node)] if items else []

    def _table(self, node: Node) -> list[Block]:
        return convert_table(self, node)


_BLANKS: Final = str.maketrans("", "", " \t\n\r")  # deletes the four


def _blank(text: str) -> bool:
    """Nothing but spaces, tabs and line breaks, or nothing: ``not text.strip(" \t\n\r")``.

    WHY not that strip: it looks each character up in its argument with a C call, and
    the indentation between tags, a few dozen such characters, is most text nodes. For
    ASCII text ``translate`` looks each distinct character up once.
    """
    if not text.isspace():
        return not text  # (a character that is no whitespace at all is none of the four)
    return not text.translate(_BLANKS)


def _collapsed(pieces: list[str]) -> str:
    """``" ".join("".join(pieces).split())``: a paragraph's plain text, whitespace collapsed.

    The pieces are collapsed already (``Converter._text``), so the paragraph mostly is too
    but for its ends: printable (a space is the only whitespace then) with no double
    space, it only needs stripping, at a fraction of splitting it into words.
    """
    text = "".join(pieces)
    if "  " in text or not _escape.printable(text):
        return " ".join(text.split())
    return text.strip(" ")


_END: Final = Node("li", {}, None, 0, 0, -1)  # the end of a list's children (``_list``)
LINE_NUMBER_CHARS: Final = 6  # digits of a highlighter's line number


def _counting(numbers: list[tuple[int, int]]) -> bool:
    """Two numbers or more, each one more than the one before (a line count)."""
    return len(numbers) > 1 and all(
        b[1] == a[1] + 1 for a, b in pairwise(numbers))


def _language(pre: Node) -> str:
    """The language a code block's markup declares: a ``language-x``, ``lang-x`` or
    ``highlight-x`` class on the ``<pre>`` or an element inside, or a ``language-x`` or
    ``highlight-x`` class on a wrapper up to ``LANG_ANCESTORS`` levels above (Sphinx:
    ``<div class="highlight-python"><div class="highlight"><pre>``; GitHub:
    ``highlight-source-python``), or ``""``. (Not ``lang-x`` above the block: sites
    name the human language of a region so, ``<article class="lang-de">``.)"""
    holders: list[Node] = [pre, *pre.elems]
    inside = len(holders)
    node = pre.parent
    for _ in range(LANG_ANCESTORS):
        if node is None:
            break
        holders.append(node)
        node = node.parent
    for at, holder in enumerate(holders):
        value = holder.attrs.get("class")
        if value and "-" in value:
            for m in _LANG.get().finditer(value):
                if at < inside or m.group(1) != "lang":
                    lang = m.group(2).lower()
                    return "" if lang in _NO_LANGUAGE else lang
    return ""


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    value = value.strip()
    if (value[:1] in "+-" and value[1:].isdigit()) or value.isdigit():
        return int(value[:12])
    return None


def _clamp(number: int | None) -> int:
    if number is None:
        return 1
    return max(0, min(number, 999_999_999))
