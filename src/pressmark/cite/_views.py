"""Views of a text that keep the way back: each view character knows its source offset.

A quote an agent attributes to a page rarely carries the page's Markdown markup, and
typography drifts when text is copied (curly quotes become straight, an en dash a
hyphen, a line break a space). :func:`reading_view` takes the markup out of pressmark's
Markdown, :func:`normalised_view` folds whitespace, quotes, dashes and ellipses, and both
map every offset of what they produce back to the text they were made from, so a match
found in a view is a span of the Markdown.

The rules, in the order they apply (``docs/citations.md`` says the same):

* markup (``reading_view``): the line prefixes of blocks (heading ``#``, list markers,
  ``>``, a definition's ``:``, indentation), table pipes and separator rows, code fences,
  the ``<!-- -->`` between lists, ``*``/``**``/``~~``/backticks/HTML emphasis tags, the
  ``[`` and ``](url)`` of links, whole images, and the backslash of an escape; the text
  of code (a fenced block's lines, a code span's content) stays as it is;
* ``whitespace``: every run of Unicode whitespace is one space, none at either end;
* ``quotes``: ‘ ’ ‚ ‛ ′ ‹ › are ``'``, “ ” „ ‟ ″ « » are ``"``;
* ``dashes``: ‐ ‑ ‒ – — ― − ﹘ ﹣ － are ``-``;
* ``ellipsis``: … is ``...``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from typing import Final

# Each edit replaces ``source[start:end]`` with ``text``.
Edit = tuple[int, int, str]


class View:
    """``text`` made from ``source`` by edits; ``source_span`` maps a span of it back."""

    __slots__ = ("_out_starts", "_segments", "source", "text")

    def __init__(self, source: str, edits: Iterable[Edit]) -> None:
        self.source = source
        parts: list[str] = []
        # segments: (out_start, src_start, src_end, copied) in output order
        segments: list[tuple[int, int, int, bool]] = []
        out = 0
        at = 0
        for start, end, text in edits:
            if start < at:
                continue  # overlapping edits: the first one wins
            if start > at:
                parts.append(source[at:start])
                segments.append((out, at, start, True))
                out += start - at
            if text or end > start:
                segments.append((out, start, end, False))
                parts.append(text)
                out += len(text)
            at = end
        if at < len(source):
            parts.append(source[at:])
            segments.append((out, at, len(source), True))
        self.text = "".join(parts)
        self._segments = segments
        self._out_starts = [s[0] for s in segments]

    def _segment(self, offset: int) -> tuple[int, int, int, bool]:
        index = bisect.bisect_right(self._out_starts, offset) - 1
        return self._segments[max(0, index)]

    def source_start(self, offset: int) -> int:
        """Where the view character at ``offset`` comes from (its replaced run's start)."""
        if not self._segments:
            return 0
        out, start, _end, copied = self._segment(offset)
        return start + (offset - out) if copied else start

    def source_end(self, offset: int) -> int:
        """Where the view span ending at ``offset`` (exclusive) ends in the source."""
        if offset <= 0 or not self._segments:
            return 0
        out, start, end, copied = self._segment(offset - 1)
        return start + (offset - out) if copied else end

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        return self.source_start(start), self.source_end(end)


class Chain:
    """Two views, one made from the other's text: spans map through both."""

    __slots__ = ("inner", "outer", "text")

    def __init__(self, inner: View, outer: View) -> None:
        self.inner = inner
        self.outer = outer
        self.text = outer.text

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        mid_start, mid_end = self.outer.source_span(start, end)
        return self.inner.source_span(mid_start, mid_end)


# -- markup ---------------------------------------------------------------------------------

# At a line start: indentation, then any number of container prefixes (quote markers,
# list markers, a heading's hashes), or the whole line when it is a fence, a table's
# separator row or the comment that keeps two lists apart.
_LINE_MARKUP: Final = re.compile(
    r"^(?:[ \t>]*(?:`{3,}|~{3,})[^\n]*$"                      # a code fence line
    r"|[ \t>]*\|(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*$"           # a table separator row
    r"|[ \t>]*<!-- -->[ \t]*$"                                  # the list separator
    r"|(?:[ \t]*(?:>[ \t]?|[-+*:][ \t]|\d{1,9}[.)][ \t]|#{1,6}[ \t]))+"  # prefixes
    r"|[ \t]+)",
    re.MULTILINE,
)
_INLINE_MARKUP: Final = re.compile(
    r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)"  # a code span: its text stays as it is
    r"|\\([!-/:-@\[-`{-~])"                 # an escape: the character stays
    r"|\\\n"                                # a hard break
    r"|!\[(?:\\.|[^\]\\\n])*\]\([^)\s]*\)"  # an image, whole
    r"|\]\([^)\s]*\)"                       # the end of a link: "](url)"
    r"|</?(?:em|strong|del|s|code|sub|sup|kbd|mark|br)>"  # emphasis written as HTML
    r"|\*+|~~|`+|\[|\|[ \t]*"               # delimiters, table pipes
)


_FENCE: Final = re.compile(r"^[ \t>]*(`{3,}|~{3,})[^\n]*$", re.MULTILINE)


def _code_blocks(markdown: str) -> list[tuple[int, int]]:
    """The text of each fenced code block (between its fence lines): no inline markup."""
    out: list[tuple[int, int]] = []
    opened: re.Match[str] | None = None
    for m in _FENCE.finditer(markdown):
        if opened is None:
            opened = m
        elif m.group(1)[0] == opened.group(1)[0] and len(m.group(1)) >= len(opened.group(1)):
            out.append((opened.end(), m.start()))
            opened = None
    return out


def _markup_edits(markdown: str) -> list[Edit]:
    edits: list[Edit] = [(m.start(), m.end(), "") for m in _LINE_MARKUP.finditer(markdown)
                         if m.end() > m.start()]
    code = _code_blocks(markdown) if "``" in markdown or "~~~" in markdown else []
    starts = [s for s, _ in code]
    inline: list[Edit] = []
    for m in _INLINE_MARKUP.finditer(markdown):
        if code:
            index = bisect.bisect_right(starts, m.start()) - 1
            if index >= 0 and m.start() < code[index][1]:
                continue  # inside a code block: its text is the page's, as it is
        if m.group(1) is not None:
            text = m.group(2)
            if len(text) > 2 and text.startswith(" ") and text.endswith(" "):
                text = text[1:-1]
            inline.append((m.start(), m.end(), text))
            continue
        escaped = m.group(3)
        if escaped is not None:
            inline.append((m.start(), m.end(), escaped))
        else:
            token = m.group()
            inline.append((m.start(), m.end(), " " if token in ("\\\n",) or "|" in token
                           else ""))
    return _merge(edits, inline)


def _merge(first: list[Edit], second: list[Edit]) -> list[Edit]:
    """Both lists in source order; where two overlap, the earlier-starting one wins."""
    out: list[Edit] = []
    at = 0
    for edit in sorted(first + second, key=lambda e: (e[0], -e[1])):
        if edit[0] < at:
            continue
        out.append(edit)
        at = edit[1]
    return out


def reading_view(markdown: str) -> View:
    """pressmark's Markdown with its markup taken out (the module doc lists what goes)."""
    return View(markdown, _markup_edits(markdown))


# -- typography -----------------------------------------------------------------------------

SINGLE_QUOTES: Final = "‘’‚‛′‹›"
DOUBLE_QUOTES: Final = "“”„‟″«»"
DASHES: Final = "‐‑‒–—―−﹘﹣－"
_FOLDS: Final = {
    **dict.fromkeys(SINGLE_QUOTES, "'"), **dict.fromkeys(DOUBLE_QUOTES, '"'),
    **dict.fromkeys(DASHES, "-"), "…": "...",
}
_TYPOGRAPHY: Final = re.compile(r"\s+|[" + re.escape("".join(_FOLDS)) + "]")
FOLD_KINDS: Final = ("whitespace", "quotes", "dashes", "ellipsis")


def _kind_of(token: str) -> str:
    if token.isspace():
        return "whitespace"
    if token in SINGLE_QUOTES or token in DOUBLE_QUOTES:
        return "quotes"
    if token in DASHES:
        return "dashes"
    return "ellipsis"


def normalised_view(text: str, kinds: tuple[str, ...] = FOLD_KINDS) -> View:
    """``text`` with the folds of ``kinds`` applied (all four unless told)."""
    edits: list[Edit] = []
    for m in _TYPOGRAPHY.finditer(text):
        token = m.group()
        kind = _kind_of(token)
        if kind not in kinds:
            continue
        if kind == "whitespace":
            if token == " " and m.start() > 0 and m.end() < len(text):
                continue  # already what it would become
            at_edge = m.start() == 0 or m.end() == len(text)
            edits.append((m.start(), m.end(), "" if at_edge else " "))
        else:
            edits.append((m.start(), m.end(), _FOLDS[token]))
    return View(text, edits)


def normalise(text: str, kinds: tuple[str, ...] = FOLD_KINDS) -> str:
    return normalised_view(text, kinds).text
