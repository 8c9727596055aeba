"""Which rules of a page's ``<style>`` elements may hide: the scan behind ``_hidden``'s
stylesheet rules.

:func:`sheet_candidates` reads the style texts and returns, for each top-level rule whose
declarations hint at hiding (``display:none`` and the like, after a hiding property) and
whose selector list holds a simple selector (:func:`simple_selector`), the stripped
selector list and the declarations; ``_hidden`` then reads each rule's declarations
(``style_reason``) and keeps its simple selectors. None when no declaration hints.

Two readings give the same answers: ``_native_sheet.c`` (built with the package) and
:func:`candidates_in_python`, the fallback without a compiler and the reference the tests
hold the C one to (every corpus page's sheets, shapes, generated sheets).

WHY in C: a page's inline CSS runs to megabytes (two sheets of extraction-dev are 1 MB
each, UCS-2 once decoded: one non-ASCII character makes every character two bytes), and
the Python reading (one str for the page, a regex stopping at each colon, brace counts,
str slices) was 15 % of ``md --batch``'s instructions there. The C reading copies the
texts once into UTF-8 (a body held as bytes, ``_rawcut``, is never decoded) and reads
braces and colons sixteen bytes at a time.

The reading, decision for decision (both readings):

* the texts are joined by ``"\\n"`` and cut at ``max_chars`` characters; with no hint in
  them at all, None;
* comments (``/* ... */``, the first ``*/`` closing) become one space; an unclosed one
  stays;
* a hint (:data:`_SHEET_HINT`) is a colon after one of ``yetphm`` or a space (every hiding
  property ends so), then spaces, then a value that may hide; the first hint after a
  ``{`` whose sixteen characters before the colon end in a hiding property
  (:func:`_names_property`) decides that ``{``'s rule, and later hints in it are passed
  over;
* braces are counted as they come (a brace inside a string counts, as the browser would
  not: the count errs the same way in both readings); a ``{`` with more ``{`` than ``}``
  before it opens a rule inside an at-rule (``@media print``, a phone layout), which
  hides only sometimes and is not read; a hint after a ``}`` with no ``{`` since is in
  no rule's body;
* a rule's selector list runs from the ``}`` before its ``{``, its body to the next ``}``
  (or the end);
* at most ``max_candidates`` rules are returned (:data:`MAX_SHEET_CANDIDATES` in
  ``_hidden``: time and memory stay bounded on a hostile sheet).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pressmark.markdown._lazy_re import LazyPattern
from pressmark.markdown._rawcut import body_text

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

Piece = str | tuple[bytes, int, int]
"""A style element's text: as it is, or a body the page holds as UTF-8 (``_rawcut``)."""
Candidates = list[tuple[str, str]]

_SHEET_HINT: Final = (
    r":(?<=(?-i:[yetphmYETPHM\s]):)"
    r"\s*(?:none|hidden|collapse|0(?![.\d]*[1-9])|-\d{3,}|rect\(\s*0|inset\(|circle\(\s*0"
    r"|scale)")
"""A value that may hide, in a stylesheet: a first look before a rule is read (it starts
with ``:``, which the regex engine finds fast; a hiding property is checked after).

WHY the look behind the colon: every hiding property (:data:`_HIDING_PROPERTIES`) ends in
one of those letters, or a space comes before the colon; ``margin:0``,
``overflow:hidden``, ``border:none`` and the like, most of a stylesheet's hints, are
passed over at once (on the dev sets 26,000 hints became 13,900, of which 9,300 name a
hiding property). The letters are spelt in both cases rather than left to
re.IGNORECASE (the same characters match: only ``i``, ``s`` and ``k`` have other
ones)."""
_SHEET_PROPERTY: Final = (
    r"(?:display|visibility|opacity|font-size|text-indent|left|top|right|clip|clip-path"
    r"|transform)\s*$")
_HIDING_PROPERTIES: Final = ("display", "visibility", "opacity", "font-size", "text-indent",
                              "left", "top", "right", "clip", "clip-path", "transform")
""":data:`_SHEET_PROPERTY`'s names, for the plain-string test of :func:`_names_property`."""
_WINDOW: Final = 16
"""Characters before a hint's colon that may name its property (with spaces)."""
_SIMPLE: Final = LazyPattern(r"^([a-z][a-z0-9-]*)?((?:[.#][A-Za-z0-9_-]+)+)$")
_HINT: Final = LazyPattern(_SHEET_HINT, re.I)
_PROPERTY: Final = LazyPattern(_SHEET_PROPERTY, re.I)
_COMMENT: Final = LazyPattern(r"/\*.*?\*/", re.S)


def simple_selector(selector: str) -> re.Match[str] | None:
    """``.name``, ``#id``, ``tag.name``, compound classes: the selectors ``_hidden`` reads
    (:data:`_SIMPLE` on the stripped selector). One holding a space, ``:``, ``>`` or
    ``[`` (a descendant, a pseudo-class, a child, an attribute: most of a framework's
    selectors) is none of its characters and is passed over before the regex."""
    part = selector.strip()
    if " " in part or ":" in part or ">" in part or "[" in part:
        return None
    return _SIMPLE.get().match(part)


def candidates_in_python(pieces: list[Piece], max_chars: int,
                         max_candidates: int) -> Candidates | None:
    """The rules that may hide (see the module doc): the reference reading."""
    hint = _HINT.get()
    css = "\n".join(piece if isinstance(piece, str) else body_text(piece[0][piece[1]:piece[2]])
                    for piece in pieces)[:max(0, max_chars)]
    if not hint.search(css):
        return None
    if "/*" in css:
        css = _COMMENT.get().sub(" ", css)
    out: Candidates = []
    depth = at = 0  # braces open at ``at`` (counted as the matches move on: one pass)
    last = -1
    for match in hint.finditer(css):
        start = match.start()
        body_start = css.rfind("{", 0, start)
        if body_start <= last or css.find("}", body_start, start) >= 0:
            continue  # a rule already read, or no rule's body
        if not _names_property(css[max(0, start - _WINDOW):start]):
            continue
        depth += css.count("{", at, body_start) - css.count("}", at, body_start)
        at = last = body_start
        if depth != 0:
            continue  # inside an at-rule (@media print, a phone layout): hides sometimes
        body_end = css.find("}", match.end())
        prelude = css[css.rfind("}", 0, body_start) + 1:body_start].strip()
        if len(out) < max_candidates and any(
                simple_selector(part) is not None for part in prelude.split(",")):
            out.append((prelude, css[body_start + 1:body_end if body_end >= 0 else None]))
    return out


def _names_property(window: str) -> bool:
    """Whether ``window``, the text before a hint's colon, ends in a hiding property
    (:data:`_SHEET_PROPERTY`, spaces allowed before the colon).

    ASCII text is tested with string methods; other text keeps the regex, whose case
    folding (``ſ``, ``ı``) ``lower`` does not share. Both ask the same question: an
    ASCII window's whitespace is what ``\\s`` matches."""
    if window.isascii():
        return window.rstrip().lower().endswith(_HIDING_PROPERTIES)
    return _PROPERTY.get().search(window) is not None


def _load() -> Callable[[list[Piece], int, int], Candidates | None]:
    try:
        from pressmark.markdown._native_sheet import candidates  # noqa: PLC0415 (optional)
    except ImportError:  # built without a C compiler
        return candidates_in_python
    return candidates


sheet_candidates: Final = _load()
"""``sheet_candidates(pieces, max_chars, max_candidates)``: the C reading when built,
else :func:`candidates_in_python`."""
