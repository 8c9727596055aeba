"""The one HTML parse entry: a linear pre-scan bounds what Lexbor sees, then Lexbor parses.

WHY: Lexbor's tree construction is quadratic in two places an attacker controls.
Every block start tag looks for an open ``<p>`` down the whole stack of open
elements (100k nested ``<div>`` took 52 s), and every attribute is compared with
the element's earlier ones (300k distinct attributes took minutes). pressmark
parses pages from people it does not trust, so every HTML parse in the codebase
(Markdown, link extraction, shell classification, the review app) goes through
:func:`parse_html`.

The pre-scan walks the tags once with C-level regular expressions and keeps an
approximate stack of open elements, bounded by :data:`MAX_DEPTH`: it applies the
HTML tree-construction rules that close elements implicitly (``<p>``, ``<li>``,
table cells ...), so ordinary pages are never touched, and it errs towards a
deeper estimate where it simplifies. Past a cap the page is changed in a named
way, never refused:

- deeper than :data:`MAX_DEPTH`: the extra tags are dropped, their text kept
  (flattened; a block's tag leaves a line break, so blocks' words do not run together) ->
  warning ``parse-limit:depth``;
- more than :data:`MAX_ATTRIBUTES` on one element: the rest are dropped ->
  ``parse-limit:attributes`` (so are those a second ``<html>`` or ``<body>`` start tag
  would merge into the first's element past the cap: Lexbor compares each with the
  element's own, 100,000 ``<body a_i>`` took minutes);
- a ``<select>`` past :data:`MAX_SELECT_WORK`: the further tags inside it are dropped,
  their text kept -> ``parse-limit:select`` (a lone select keeps 2,048 elements);
- more than :data:`MAX_ELEMENTS` start tags: the page is cut there ->
  ``parse-limit:elements``;
- more than :data:`MAX_TEXT_CHARS` outside its script and style bodies, or more than
  :data:`MAX_PAGE_CHARS` in all: the page is cut -> ``parse-limit:text``.

The scan costs O(page) time and at most one copy of the page in memory; a page
within the caps is returned as the very same string.
"""

from __future__ import annotations

import functools
import re

from selectolax.lexbor import LexborHTMLParser

from pressmark.markdown._dom import Tree
from pressmark.markdown._rawcut import NO_CUT, RawCut
from pressmark.markdown._screen import (
    MAX_ATTRIBUTES,
    MAX_DEPTH,
    MAX_ELEMENTS,
    MAX_FORMATTING,
    MAX_PAGE_CHARS,
    MAX_SELECT_WORK,
    MAX_TEXT_CHARS,
    NATIVE,
    RAW_TEXT,
    SCREEN_STARTS,
    screen,
    screened_starts,
    script_end,
)

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import ClassVar

PARSE_LIMIT = "parse-limit"
"""The warning family (and error ``kind``) of everything this module caps."""

_WS = "\t\n\f\r "
_COMMENT = r"<!--(?:-?>|.*?(?:--!?>|\Z))"   # ends where the tokenizer ends it
_ONE_ATTR = (r"[\t\n\f\r /]*[^\t\n\f\r />][^\t\n\f\r /=>]*"
             r"(?:[\t\n\f\r ]*=[\t\n\f\r ]*(?:\"[^\"]*\"?|'[^']*'?|[^\t\n\f\r >]*))?")
_TAG_CLOSE = r"[\t\n\f\r ]*(/?)[\t\n\f\r /]*>?"


class _Patterns:
    """The full scan's regular expressions, compiled on its first use (:func:`_patterns`).

    WHY not at import: nearly every page passes the screen and never reaches the scan,
    and these cost about a tenth of the Markdown layer's regex compiling at start-up.
    """

    __slots__ = ("attrs_more", "one_attr", "raw_end", "tag_close", "token")

    def __init__(self) -> None:
        # A tag is one match: its name (group 2), up to MAX_ATTRIBUTES attributes (group
        # 3) and its close (the slash is group 4). The close always matches, so the head
        # matches as it would alone; one match per tag, not two, is most of the scan's
        # time on a long page.
        self.token = re.compile(
            _COMMENT +
            r"|<[!?][^>]*>?|</(?![A-Za-z])[^>]*>?"     # doctype, bogus comments
            r"|<(/?)([A-Za-z][^\t\n\f\r />]*)"
            rf"((?:{_ONE_ATTR}){{0,{MAX_ATTRIBUTES}}}){_TAG_CLOSE}",
            re.S,
        )
        # Attributes are matched in bounded runs: one regex repeat over 300k attributes
        # would hold a backtracking frame for each of them (memory, not just time).
        self.attrs_more = re.compile(rf"(?:{_ONE_ATTR}){{1,1024}}")
        self.one_attr = re.compile(_ONE_ATTR)  # counts a merged element's attributes
        self.tag_close = re.compile(_TAG_CLOSE)
        self.raw_end = {name: re.compile(rf"</{name}[\t\n\f\r />]", re.I | re.A)
                        for name in RAW_TEXT}


@functools.cache
def _patterns() -> _Patterns:
    return _Patterns()


# the tokenizer lowercases ASCII letters only ("\u212a".lower() is "k")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

_VOID = frozenset((
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
    "track", "wbr", "param", "keygen", "basefont", "bgsound", "frame", "image"))
_MERGED = frozenset(("html", "head", "body", "frameset"))  # never pushed a second time
_DEAD = ""  # a stack slot whose element the adoption agency took out from under others
# "has an element in scope" stops at these (and "button scope" at button too)
_BARRIER = frozenset((
    "applet", "caption", "html", "table", "td", "th", "marquee", "object", "template",
    "foreignobject", "desc", "mi", "mo", "mn", "ms", "mtext", "annotation-xml"))
_FORMATTING = frozenset((
    "a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong",
    "tt", "u"))
_SPECIAL = frozenset((
    "address", "applet", "area", "article", "aside", "base", "basefont", "bgsound",
    "blockquote", "body", "br", "button", "caption", "center", "col", "colgroup", "dd",
    "details", "dir", "div", "dl", "dt", "embed", "fieldset", "figcaption", "figure",
    "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head",
    "header", "hgroup", "hr", "html", "iframe", "img", "input", "keygen", "li", "link",
    "listing", "main", "marquee", "menu", "meta", "nav", "noembed", "noframes", "noscript",
    "object", "ol", "p", "param", "plaintext", "pre", "script", "search", "section",
    "select", "source", "style", "summary", "table", "tbody", "td", "template", "textarea",
    "tfoot", "th", "thead", "title", "tr", "track", "ul", "wbr", "xmp"))
_CLOSES_P = frozenset((
    "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div",
    "dl", "fieldset", "figcaption", "figure", "footer", "header", "hgroup", "main", "menu",
    "nav", "ol", "p", "search", "section", "summary", "ul", "h1", "h2", "h3", "h4", "h5",
    "h6", "pre", "listing", "form", "hr", "xmp", "plaintext", "li", "dd", "dt"))
_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
# a dropped tag of these names leaves a line break in the text, where a browser would
# start a line: the words of two blocks must not run together ("word one</p><p>word two"
# kept as "word oneword two"). Text, not a ``<br>``: the parser reconstructs the open
# formatting elements before each element it inserts, and a hostile page drops tens of
# thousands of tags (82,850 nested ``<div>``: 11 s of CPU with ``<br>``, 0.4 s with text).
_BREAKS = _CLOSES_P | {"td", "th", "tr", "caption", "table", "tbody", "thead", "tfoot"}
_BREAK = "\n"
# start tag -> the open elements it closes (up to the nearest table-ish boundary)
_SIBLINGS = {
    "li": ("li",), "dd": ("dd", "dt"), "dt": ("dd", "dt"), "td": ("td", "th"),
    "th": ("td", "th"), "tr": ("tr", "td", "th"), "tbody": ("tbody", "thead", "tfoot"),
    "thead": ("tbody", "thead", "tfoot"), "tfoot": ("tbody", "thead", "tfoot"),
    "option": ("option",), "optgroup": ("option", "optgroup"), "rb": ("rb", "rt", "rp"),
    "rt": ("rb", "rt", "rp"), "rp": ("rb", "rt", "rp"), "rtc": ("rb", "rt", "rp", "rtc"),
}
_SIBLING_STOP = frozenset(("table", "ol", "ul", "dl", "select", "ruby", "template", "html"))


class BoundedHtml:
    """The text Lexbor may parse, and the caps it took to get there.

    A plain slotted class, not a dataclass: nothing compares or prints one, and a
    dataclass compiles its generated methods at import (some 3.5 M instructions of every
    ``pressmark md`` start-up, as much as a page's Lexbor parse).
    """

    __slots__ = ("text", "warnings")

    def __init__(self, *, text: str, warnings: tuple[str, ...] = ()) -> None:
        self.text = text
        self.warnings = warnings

    @property
    def limited(self) -> bool:
        return bool(self.warnings)


class _Stack:
    """Open elements, as far as a linear scan can tell; every operation is O(1) amortised."""

    __slots__ = ("barriers", "foreign", "names", "positions", "specials")

    def __init__(self) -> None:
        self.names: list[str] = []
        self.positions: dict[str, list[int]] = {}
        self.barriers: list[int] = [-1]
        self.specials: list[int] = [-1]
        self.foreign = 0

    def top_of(self, name: str) -> int:
        where = self.positions.get(name)
        return where[-1] if where else -1

    def push(self, name: str) -> None:
        index = len(self.names)
        self.names.append(name)
        self.positions.setdefault(name, []).append(index)
        if name in _BARRIER:
            self.barriers.append(index)
        if name in _SPECIAL:
            self.specials.append(index)
        if name in ("svg", "math"):
            self.foreign += 1

    def pop_to(self, index: int) -> None:
        """Pop the element at ``index`` and everything above it (and dead slots below)."""
        names = self.names
        while len(names) > index or (names and names[-1] == _DEAD):
            name = names.pop()
            if name == _DEAD:
                continue
            self.positions[name].pop()
            if name in ("svg", "math"):
                self.foreign -= 1
        while self.barriers[-1] >= index:
            self.barriers.pop()
        while self.specials[-1] >= index:
            self.specials.pop()

    def close_any(self, names: tuple[str, ...], floor: int) -> None:
        """Close the lowest of ``names`` open above ``floor`` (``<tr>`` closes its cell too)."""
        lowest = -1
        positions = self.positions
        for name in names:  # top_of, inlined: this runs for every cell and list item
            where = positions.get(name)
            if where and where[-1] > floor and (lowest < 0 or where[-1] < lowest):
                lowest = where[-1]
        if lowest >= 0:
            self.pop_to(lowest)

    def end_tag(self, name: str) -> None:
        where = self.positions.get(name)
        index = where[-1] if where else -1
        # Special and formatting end tags need the element "in scope" (no barrier above
        # it); any other end tag is ignored when a special element sits above it.
        floor = self.barriers[-1] if name in _SPECIAL or name in _FORMATTING else self.specials[-1]
        if index < 0 or index < floor:
            return
        if name in _FORMATTING and self.specials[-1] > index:
            # The adoption agency: a block above the formatting element stays open (the
            # element is cloned inside it); only the formatting element leaves the stack.
            # ``<a><div>x</a>`` repeated nests its <div>s, one deeper each time. Its slot
            # stays, dead, until what sits above it is popped (a deeper estimate, in O(1)).
            self.names[index] = _DEAD
            self.positions[name].pop()
            return
        self.pop_to(index)

    def start_tag(self, name: str) -> None:
        if name in _CLOSES_P:
            p = self.top_of("p")
            if p > self.barriers[-1] and p > self.top_of("button"):
                self.pop_to(p)
            if name in _HEADINGS and self.names and self.names[-1] in _HEADINGS:
                self.pop_to(len(self.names) - 1)
        siblings = _SIBLINGS.get(name)
        if siblings is not None:
            floor = -1  # the nearest boundary open (top_of each, inlined)
            positions = self.positions
            for stop in _SIBLING_STOP:
                where = positions.get(stop)
                if where and where[-1] > floor:
                    floor = where[-1]
            if name in ("li", "dd", "dt"):
                floor = max(floor, self.barriers[-1])
            self.close_any(siblings, floor)


class _Memo:
    """The last page this process bounded: the converter re-enters :func:`bound_html` with
    the very text the crawl's page work just bounded, and need not scan it twice."""

    last: ClassVar[BoundedHtml | None] = None


def bound_html(text: str) -> BoundedHtml:
    """Apply the caps; a page within them comes back as the same ``str`` object."""
    last = _Memo.last
    if last is not None and last.text is text:
        return BoundedHtml(text=text)
    result = _bound(text)
    _Memo.last = result  # holds one page's text: the page being worked on
    return result


def _bound(text: str, *, screened_out: bool = False) -> BoundedHtml:
    """``screened_out``: the caller has just seen :func:`screen` fail on this text."""
    warnings: list[str] = []
    if len(text) > MAX_PAGE_CHARS:
        text = text[:MAX_PAGE_CHARS]
        warnings.append(f"{PARSE_LIMIT}:text")
    elif not screened_out and screen(text):
        return BoundedHtml(text=text)
    pieces: list[str] = []
    kept_from = 0
    stack = _Stack()
    dropped: dict[str, int] = {}
    formatting: dict[str, int] = {}
    unclosed_formatting = 0
    merged: dict[str, int] = {}  # attributes merged into <html> and <body>
    select_entries = select_work = 0
    elements = 0
    pos = 0
    hit: set[str] = set()
    patterns = _patterns()
    search = patterns.token.search
    attrs_more = patterns.attrs_more.match
    tag_close = patterns.tag_close.match
    length = len(text)
    in_bodies = 0  # characters of the script and style bodies passed (not counted)
    while pos < length:
        m = search(text, pos)
        if m is None or m.start() - in_bodies > MAX_TEXT_CHARS:
            break
        close_mark, raw_name, _, tag_slash = m.groups()
        if raw_name is None:  # comment, doctype, processing instruction
            pos = m.end()
            continue
        name = raw_name.lower() if raw_name.isascii() else raw_name.translate(_ASCII_LOWER)
        closing = bool(close_mark)
        head_start, head_end = m.span(3)
        extra_from = head_end
        # Fewer than MAX_ATTRIBUTES characters hold fewer attributes (each takes one at
        # least), and then the head stopped where no further attribute matches: only a
        # head this long can have more after it.
        if head_end - head_start >= MAX_ATTRIBUTES:
            more = attrs_more(text, head_end)
            while more is not None:  # attributes past the cap: skipped in bounded runs
                extra_from = more.end()
                more = attrs_more(text, extra_from)
        if extra_from > head_end:
            tail = tag_close(text, extra_from)
            assert tail is not None
            end, slash, tail_start = tail.end(), tail.group(1), tail.start()
        else:
            end, slash, tail_start = m.end(), tag_slash, head_end
        if closing:
            if dropped.get(name):
                dropped[name] -= 1
                pieces.append(text[kept_from:m.start()])
                if name in _BREAKS:
                    pieces.append(_BREAK)
                kept_from = end
            else:
                if name in _FORMATTING and formatting.get(name):
                    formatting[name] -= 1
                    unclosed_formatting -= 1
                stack.end_tag(name)
            pos = end
            continue
        elements += 1
        if elements > MAX_ELEMENTS:
            pieces.append(text[kept_from:m.start()])
            kept_from = length
            hit.add("elements")
            break
        self_closing = bool(slash) and stack.foreign > 0
        pos = end
        if stack.positions.get("select"):
            select_work += select_entries
            select_entries += 1
            if select_work > MAX_SELECT_WORK:
                if not (name in _VOID or name in _MERGED or self_closing):
                    dropped[name] = dropped.get(name, 0) + 1
                pieces.append(text[kept_from:m.start()])
                kept_from = end
                hit.add("select")
                continue
        else:
            select_entries = 0
        if name in ("html", "body"):
            count = MAX_ATTRIBUTES if extra_from > head_end \
                else len(patterns.one_attr.findall(text, head_start, head_end))
            held = merged.get(name, 0)
            if count and held and held + count > MAX_ATTRIBUTES:
                pieces.append(text[kept_from:head_start])  # the tag, without attributes
                kept_from = tail_start
                hit.add("attributes")
                continue
            merged[name] = held + count
        if not (name in _VOID or name in _MERGED or self_closing):
            stack.start_tag(name)
            too_deep = len(stack.names) >= MAX_DEPTH
            if too_deep or (name in _FORMATTING and unclosed_formatting >= MAX_FORMATTING):
                dropped[name] = dropped.get(name, 0) + 1
                pieces.append(text[kept_from:m.start()])
                if name in _BREAKS:
                    pieces.append(_BREAK)
                kept_from = end
                hit.add("depth" if too_deep else "formatting")
                continue
        if extra_from > head_end:
            pieces.append(text[kept_from:head_end])
            kept_from = tail_start
            hit.add("attributes")
        if name in _VOID or name in _MERGED or self_closing:
            continue
        stack.push(name)
        if name in _FORMATTING:
            formatting[name] = formatting.get(name, 0) + 1
            unclosed_formatting += 1
        if name == "plaintext" and stack.foreign == 0:
            break  # the rest of the page is text
        raw_end = patterns.raw_end.get(name) if stack.foreign == 0 else None
        if name == "script" and raw_end is not None:
            body_end = script_end(text, pos)
        elif raw_end is not None:
            found = raw_end.search(text, pos)
            body_end = length if found is None else found.start()
        else:
            continue
        in_bodies += body_end - pos
        pos = body_end
    # the markup and text past MAX_TEXT_CHARS (bodies not counted) are cut, never a body
    end = max(pos, in_bodies + MAX_TEXT_CHARS)
    if end < length and not warnings and "elements" not in hit:
        warnings.append(f"{PARSE_LIMIT}:text")
    if not hit:
        return BoundedHtml(text=text if end >= length else text[:end],
                           warnings=tuple(warnings))
    pieces.append(text[kept_from:end])
    warnings.extend(f"{PARSE_LIMIT}:{what}" for what in sorted(hit))
    return BoundedHtml(text="".join(pieces), warnings=tuple(warnings))


PARSE_FIRST_STARTS = 4 * SCREEN_STARTS
"""A page past :data:`SCREEN_STARTS` but within every other cap, with at most this many
start tags, is parsed first and its tree checked for depth (see :func:`parse_html`)."""
_TEMPLATE = re.compile(r"<template", re.I | re.A)  # template contents escape the query
_TEMPLATE_UTF8 = re.compile(rb"<template", re.I)


def parse_html(text: str, *, screened: bool = False, utf8: bytes | None = None,
               ) -> tuple[LexborHTMLParser, tuple[str, ...]]:
    """Lexbor's tree of the bounded page, and the ``parse-limit:*`` warnings it took.

    ``screened``: the caller has just seen :func:`screen` pass on this very text.
    ``utf8``: ``text`` encoded as UTF-8, when the caller holds those bytes (a body that
    decoded cleanly): Lexbor parses them as they are, where text would be encoded first.

    A page that fails the screen only on its number of start tags (up to
    :data:`PARSE_FIRST_STARTS`) is parsed as it is, then kept when no element sits
    deeper than half of :data:`MAX_DEPTH`. Lexbor's quadratic paths cost such a page at
    most ~1.4 ns x 8192^2 (8,192 nested ``<div>`` took 114 ms on the 2-core machine the
    suite runs on), the depth query a few ms, while the full scan of a real page that
    size (a long reference article, a long thread) costs 40-80 ms: the worst case of a
    hostile page is bounded, and the common big page is not scanned. A deeper tree is
    dropped and the page scanned.
    """
    parser, limits, _ = parse_page(text, screened=screened, utf8=utf8, cut=False)
    return parser, limits


def parse_page(text: str | None, *, screened: bool = False, utf8: bytes | None = None,
               cut: bool = True) -> tuple[LexborHTMLParser, tuple[str, ...], RawCut]:
    """:func:`parse_html`, and with ``cut`` the script and style bodies left out of
    what Lexbor parses (``_rawcut``): the caller must :meth:`RawCut.verify` the tree and
    read those elements' text through the cut. ``text`` may be None when ``utf8`` holds
    it (valid UTF-8): it is decoded only for a page the screen cannot pass."""
    source: str | bytes
    if text is None:
        assert utf8 is not None, "parse_page needs the text or its UTF-8 bytes"
        source = utf8
    else:
        source = text if utf8 is None else utf8
    native = NATIVE if cut else None
    cuts: list[int] | None = [] if native is not None else None
    last = _Memo.last
    if screened or (last is not None and text is not None and last.text is text):
        if native is not None:  # bounded just now (``_Memo``): the C pass, for the cuts
            native(source, MAX_ATTRIBUTES, MAX_FORMATTING, cuts, MAX_SELECT_WORK)
        raw = RawCut(source, cuts) if cuts else NO_CUT
        return LexborHTMLParser(raw.cut_source() if raw.count else source), (), raw
    starts = screened_starts(text, source=source, cuts=cuts)
    raw = RawCut(source, cuts) if cuts else NO_CUT
    parsed = raw.cut_source() if raw.count else source
    if 0 <= starts <= SCREEN_STARTS:
        return LexborHTMLParser(parsed), (), raw
    if 0 <= starts <= PARSE_FIRST_STARTS and not _has_template(text, utf8):
        tree = LexborHTMLParser(parsed)
        if not Tree(tree).deeper_than(MAX_DEPTH // 2):
            return tree, (), raw
    if text is None:
        assert utf8 is not None
        text = utf8.decode("utf-8")
    bounded = _bound(text, screened_out=True)
    _Memo.last = bounded
    return LexborHTMLParser(bounded.text), bounded.warnings, NO_CUT


def _has_template(text: str | None, utf8: bytes | None) -> bool:
    if text is not None:
        return _TEMPLATE.search(text) is not None
    assert utf8 is not None
    return _TEMPLATE_UTF8.search(utf8) is not None
