"""Escaping: page text must never turn into Markdown syntax by accident.

Two passes. ``escape_text`` runs on every text node and backslash-escapes the
characters that are syntax anywhere in a line (``\\ ` * [ ] | ~``, ``_`` at a
word edge, ``<`` before a tag-like character, ``&`` before an entity-like
word). ``escape_line_start`` runs on each finished line and neutralises what is
syntax only at the start of a line (ATX ``#``, ``>``, list markers, setext and
thematic-break underlines). Every escape is a CommonMark backslash escape of
ASCII punctuation, so a renderer shows the original character.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pressmark.markdown._lazy_re import LazyPattern

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final


def _load_printable() -> Callable[[str], bool]:
    try:
        from pressmark.markdown._native_screen import printable  # noqa: PLC0415 (optional)
    except ImportError:  # built without a C compiler
        return str.isprintable
    return printable


# ``str.isprintable``, from a table for one-byte text when the C module is there: the
# converter asks it of nearly every text node, and CPython consults the whole Unicode
# database for each character (a tenth of the instructions then, on typical pages)
printable: Final = _load_printable()

_ALWAYS_CHARS: Final = "\\`*[]|~"  # the backslash first (see ``escape_text``)
# "_", "<", "&" and "!" are syntax or not depending on their neighbours, which may sit in
# the next text node ("a_" + "<b>b</b>"). ``escape_text`` marks them with Unicode
# noncharacters (reserved for internal use, removed from input by ``clean``) and
# ``resolve`` decides once the whole run of inline text is assembled.
_MARKS: Final = {"_": "\ufdd0", "<": "\ufdd1", "&": "\ufdd2", "!": "\ufdd3"}
MARKED: Final = frozenset(_MARKS.values())
_UNDERSCORE: Final = LazyPattern("(?<![^\\W_\ufdd0])\ufdd0|\ufdd0(?![^\\W_\ufdd0])")
# "<" starts a tag or URI autolink before a letter, "/", "!" or "?", and an email
# autolink ("<0@0>") before a run of the local part's characters and "@"; the marked
# "_", "&" and "!" are among them, the backslash-escaped ones break the run
_LT: Final = LazyPattern(
    "\ufdd1(?=[A-Za-z/!?\ufdd3]|[A-Za-z0-9.#$%'+/=?^{}\\-\ufdd0\ufdd2\ufdd3]+@)")
_AMP: Final = LazyPattern("\ufdd2(?=#?[A-Za-z0-9]+;)")
_BANG: Final = LazyPattern("\ufdd3(?=\\[)")  # "!" right before a link would make it an image
# C0 controls but tab/LF/CR, DEL, zero-width space, BOM and the noncharacters (the marks).
# A regex, not str.translate with a dict, which looks up every character of every text.
_CONTROL: Final = LazyPattern("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b\ufeff\ufdd0-\ufdef]+")

_LINE_START: Final = LazyPattern(
    r"^(?:(#{1,6})(?=[ \t]|$)|([>+=-])|(\d{1,9})([.)])(?=[ \t]|$))"
)


def clean(text: str) -> str:
    """Drop control characters and zero-width spaces; NBSP becomes a space."""
    if printable(text):
        # every character this removes or replaces is unprintable to Python (Cc, Cf, Cn,
        # Zs), and this C-level check is ~15x faster than the regex scan below
        return text
    if "\xa0" in text:
        text = text.replace("\xa0", " ")
    if _no_controls(text):
        return text
    return _CONTROL.get().sub("", text)


# the ASCII characters ``_CONTROL`` removes (tab, LF and CR stay)
_ASCII_CONTROLS: Final = bytes((*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F))


def _no_controls(text: str) -> bool:
    """True when ``text`` holds nothing ``_CONTROL`` removes (False may be wrong: a hint).

    WHY: most unprintable text is printable but for its line breaks and indentation
    (a text node of pretty-printed HTML), and the regex scan costs some 30 times this
    C-level test per character (a character class is tried at every position).
    """
    if text.isascii():
        data = text.encode("ascii")
        return len(data.translate(None, _ASCII_CONTROLS)) == len(data)
    # with tab, LF and CR gone, printable text holds no control, no zero-width or
    # byte-order mark and no noncharacter (Cc, Cf, Cn all fail ``isprintable``)
    return printable(text.replace("\n", "").replace("\t", "").replace("\r", ""))


def holds_no_controls(text: str, words: str) -> bool:
    """``text`` holds nothing ``clean`` removes, given ``words``: its words joined.

    Then ``clean`` would only turn NBSP into a space, which splitting into words treats
    alike. WHY: a text node of several lines is split into words anyway, and its words
    are all that is left to look at but for the whitespace controls, which the split
    took for spaces (cheaper than ``clean``'s test of the whole text).
    """
    return printable(words) and not (
        "\x0b" in text or "\x0c" in text or "\x1c" in text or "\x1d" in text
        or "\x1e" in text or "\x1f" in text)


def escape_text(text: str) -> str:
    """Escape what is syntax anywhere; mark what needs ``resolve`` later."""
    # str.replace per character (backslash first, so no escape is escaped twice) gives
    # what one regex substitution of the set gives, and the ``in`` checks cost a fraction of the
    # regex scan on the common text that holds none of them. Written out, for the ~93%
    # of text runs that hold none at all, they cost less again than the loops below.
    t = text
    if not ("\\" in t or "`" in t or "*" in t or "[" in t or "]" in t or "|" in t
            or "~" in t or "_" in t or "<" in t or "&" in t or "!" in t):
        return text
    for char in _ALWAYS_CHARS:
        if char in text:
            text = text.replace(char, "\\" + char)
    for char, mark in _MARKS.items():
        if char in text:
            text = text.replace(char, mark)
    return text


def resolve(text: str) -> str:
    """Settle marked ``_ < & !`` in assembled inline Markdown (see ``escape_text``)."""
    if text.isascii():
        return text  # the marks are not ASCII (and ``isascii`` is O(1) in CPython)
    # each mark is settled and restored before the next is looked at, in the old order:
    # no later lookaround tells a restored mark from the mark (``_`` and U+FDD0 both fail
    # ``_LT``'s and ``_AMP``'s lookaheads, ``<`` and U+FDD1 ``_AMP``'s and ``_BANG``'s)
    if "\ufdd0" in text:
        text = _UNDERSCORE.get().sub(r"\\_", text).replace("\ufdd0", "_")
    if "\ufdd1" in text:
        text = _LT.get().sub(r"\\<", text).replace("\ufdd1", "<")
    if "\ufdd2" in text:
        text = _AMP.get().sub(r"\\&", text).replace("\ufdd2", "&")
    if "\ufdd3" in text:
        text = _BANG.get().sub(r"\\!", text).replace("\ufdd3", "!")
    return text


def escape_line_start(line: str) -> str:
    first = line[:1]
    if not first or (first not in "#>+=-" and not first.isdecimal()):
        return line  # (``\d`` is any decimal digit, ``isdecimal`` the same class)
    m = _LINE_START.get().match(line)
    if m is None:
        return line
    if m.group(1):
        return "\\" + line
    if m.group(2):
        return "\\" + line
    digits = m.group(3)
    return digits + "\\" + line[len(digits):]


def escape_heading_end(text: str) -> str:
    """A heading ending in `` #`` would lose it as a closing sequence."""
    stripped = text.rstrip("#")
    if stripped != text and (not stripped or stripped.endswith(" ")):
        return stripped + "\\" + text[len(stripped):]
    return text


def escape_url(url: str) -> str:
    """Make a URL safe inside ``(...)``: no spaces, parentheses or angle brackets."""
    if (" " in url or "(" in url or ")" in url or "<" in url or ">" in url or "\n" in url
            or "\t" in url or "\\" in url):  # (written out: a generator costs more)
        url = (url.replace("\\", "%5C").replace(" ", "%20").replace("(", "%28")
               .replace(")", "%29").replace("<", "%3C").replace(">", "%3E")
               .replace("\n", "").replace("\t", ""))
    return url


_BACKTICKS: Final = LazyPattern("`+")


def code_span(text: str) -> str:
    """Inline code fenced by the shortest backtick string no run inside has.

    A code span ends at the first backtick string as long as its opening one
    (CommonMark), so any length the text holds no run of will do. WHY not one longer
    than the longest run: that fence grows with the text (a span holding a 2,000-long
    run of backticks took 4,000 more), the shortest free one stays short.
    """
    fence = "`"
    if "`" in text:
        lengths = {len(run) for run in _BACKTICKS.get().findall(text)}
        size = 1
        while size in lengths:
            size += 1
        fence = "`" * size
    if text.startswith("`") or text.endswith("`") or (
        text.startswith(" ") and text.endswith(" ") and text.strip()
    ):
        text = f" {text} "
    return f"{fence}{text}{fence}"


def code_fence(text: str) -> str:
    longest = 0
    for run in re.findall(r"`{3,}", text):
        longest = max(longest, len(run))
    return "`" * max(3, longest + 1)
