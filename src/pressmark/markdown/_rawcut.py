"""Script and style bodies cut out before Lexbor parses a page, and put back where read.

WHY: on a typical page most of the bytes are script and style (three fifths on the
news pages of the dev set), which Lexbor tokenizes character by character and copies
into text nodes, and which the Markdown never shows. The parse screen's C pass
(``_native_screen.c``) already walks the page as the tokenizer does; it reports where
each script and style body lies, and the page Lexbor parses has each body replaced by
a short marker (``U+FDD0``, the cut's number, ``U+FDD1``).

The cut must not change the tree: only the text inside those elements may differ.
Two things make that hold:

- every cut is checked against the parsed tree (:meth:`RawCut.verify`): its marker must
  be the whole text of a ``<script>`` or ``<style>`` element. Then the tokenizer was in
  that element's raw-text state right after its start tag, in the cut page and (the
  text before being the same, or differing only inside elements checked the same way)
  in the page itself; the body ends where the C pass says, since it follows the
  tokenizer's end-tag rules (and the script escape states). A page that fails the
  check is parsed again, whole;
- the readers that look at such text get the page's own: sizes of a subtree's text
  (:meth:`RawCut.restored_len`), a subtree flattened to text (:meth:`RawCut.restore`)
  and the bodies the embedded-state reader parses (:meth:`RawCut.body`).

So a page's Markdown and evidence are the same bytes with or without the cut, which
the pure-Python build (no C pass, no cut) relies on.
"""

from __future__ import annotations

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Final

MARK_OPEN = "\ufdd0"
MARK_CLOSE = "\ufdd1"
_KINDS = {1: "script", 2: "style"}
_FIELDS = 4  # the C pass's values per cut: start, end, characters, kind
HOLDS_MAX: Final = 8  # needles ``_native_screen.holds_any`` takes at once


def _load_holds_any() -> Callable[[bytes, int, int, tuple[str, ...]], bool] | None:
    try:
        from pressmark.markdown._native_screen import holds_any  # noqa: PLC0415 (optional)
    except ImportError:  # built without a C compiler
        return None
    return holds_any


# ``RawCut.holds`` on a body held as bytes: the needles looked for in one pass in C (the
# embedded-state reader asks it of every inline script: two searches went over them all)
_HOLDS_ANY: Final = _load_holds_any()


class RawCut:
    """The cuts of one page: where each body lay in ``source`` and how long it reads."""

    __slots__ = ("count", "sizes", "source", "values")

    def __init__(self, source: str | bytes, values: list[int]) -> None:
        self.source = source
        self.values = values
        self.count = len(values) // _FIELDS
        # each body's length as the page reads it, by cut (the C reader's ``sizes``)
        self.sizes: list[int] | None = values[2::_FIELDS] if values else None

    def cut_source(self) -> str | bytes:
        """``source`` with every body replaced by its marker (the page Lexbor parses)."""
        source = self.source
        values = self.values
        kept = 0
        if isinstance(source, bytes):
            # views of the page between the bodies: its bytes are copied once, by the join
            # (sliced, they were copied twice; most of a page lies between its scripts)
            whole = memoryview(source)
            pieces: list[bytes | memoryview] = []
            for index in range(self.count):
                start = values[index * _FIELDS]
                pieces.append(whole[kept:start])
                pieces.append(_marker(index).encode("utf-8"))
                kept = values[index * _FIELDS + 1]
            pieces.append(whole[kept:])
            return b"".join(pieces)
        texts: list[str] = []
        for index in range(self.count):
            start = values[index * _FIELDS]
            texts.append(source[kept:start])
            texts.append(_marker(index))
            kept = values[index * _FIELDS + 1]
        texts.append(source[kept:])
        return "".join(texts)

    def verify(self, elements: list[tuple[str, str]]) -> bool:
        """True when each cut's marker is the whole text of one element of its kind.

        ``elements``: (tag, text) of every ``<script>`` and ``<style>`` of the tree.
        """
        if not self.count:
            return True
        found = [False] * self.count
        seen = 0
        for tag, text in elements:
            if not text.startswith(MARK_OPEN):
                continue
            index = _whole(text)
            if index < 0 or index >= self.count or found[index] \
                    or _KINDS.get(self.values[index * _FIELDS + 3]) != tag:
                return False
            found[index] = True
            seen += 1
        return seen == self.count

    def restored_len(self, text: str) -> int:
        """``len`` of ``text`` as the page itself reads: each marker counts as its body."""
        if not self.count:
            return len(text)
        index = _whole(text)
        if 0 <= index < self.count:
            return self.values[index * _FIELDS + 2]  # (most texts asked: a body's marker)
        size = len(text)
        at = text.find(MARK_OPEN)
        while at >= 0:
            index = _index(text, at)
            if 0 <= index < self.count:
                end = _end(text, at)
                size += self.values[index * _FIELDS + 2] - (end - at)
                at = text.find(MARK_OPEN, end)
            else:
                at = text.find(MARK_OPEN, at + 1)
        return size

    def restore(self, text: str) -> str:
        """``text`` with every marker replaced by its body."""
        if not self.count or MARK_OPEN not in text:
            return text
        pieces: list[str] = []
        kept = 0
        at = text.find(MARK_OPEN)
        while at >= 0:
            index = _index(text, at)
            if 0 <= index < self.count:
                pieces.append(text[kept:at])
                pieces.append(self._body(index))
                kept = _end(text, at)
                at = text.find(MARK_OPEN, kept)
            else:
                at = text.find(MARK_OPEN, at + 1)
        pieces.append(text[kept:])
        return "".join(pieces)

    def body(self, text: str) -> str:
        """An element's text as the page has it: the body, when ``text`` is a marker."""
        index = _whole(text) if self.count else -1
        return self._body(index) if 0 <= index < self.count else text

    def holds(self, text: str, needles: tuple[str, ...]) -> bool:
        """A needle is in ``self.body(text)``: found without decoding a body held as bytes,
        and the marker read once for all the needles."""
        index = _whole(text) if self.count else -1
        if not 0 <= index < self.count:
            return any(needle in text for needle in needles)
        start, end = self.values[index * _FIELDS], self.values[index * _FIELDS + 1]
        source = self.source
        if isinstance(source, bytes):
            native = _HOLDS_ANY
            if native is not None and len(needles) <= HOLDS_MAX:
                return native(source, start, end, needles)
            return any(source.find(needle.encode("utf-8"), start, end) >= 0
                       for needle in needles)
        return any(source.find(needle, start, end) >= 0 for needle in needles)

    def piece(self, text: str) -> str | tuple[bytes, int, int]:
        """An element's text as the page has it, for a reader that takes UTF-8 bytes
        (the stylesheet scan, ``_sheet``): ``(source, start, end)`` when ``text`` is one
        body held as bytes (:func:`body_text` reads it), else :meth:`restore`'s text.
        WHY: a MB-size sheet is then never decoded (into UCS-2, when it holds one
        non-ASCII character) nor copied into a str."""
        if self.count and isinstance(self.source, bytes) and text.startswith(MARK_OPEN) \
                and _end(text, 0) == len(text):
            index = _index(text, 0)
            if 0 <= index < self.count:
                return self.source, self.values[index * _FIELDS], \
                    self.values[index * _FIELDS + 1]
        return self.restore(text)

    def _body(self, index: int) -> str:
        """Cut ``index``'s body as the tokenizer's input stream reads it (newlines
        normalised, NUL replaced), the text its element holds in the uncut tree."""
        start, end = self.values[index * _FIELDS], self.values[index * _FIELDS + 1]
        source = self.source
        if isinstance(source, bytes):
            return body_text(source[start:end])
        text = source[start:end]
        return _normalised(text, "\r" in text, "\x00" in text)


def body_text(raw: bytes) -> str:
    """A body held as UTF-8 as the tokenizer's input stream reads it (newlines normalised,
    NUL replaced). CR and NUL are looked for in the bytes (a byte search; in the decoded
    text, a sheet with one non-ASCII character is searched two or four bytes a
    character): in UTF-8 a CR or a NUL byte is that character and nothing else."""
    return _normalised(raw.decode("utf-8"), b"\r" in raw, b"\x00" in raw)


def _normalised(text: str, carriage: bool, nul: bool) -> str:
    if carriage:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if nul:
        text = text.replace("\x00", "\ufffd")
    return text


NO_CUT = RawCut("", [])
"""A page parsed whole."""


def _marker(index: int) -> str:
    return f"{MARK_OPEN}{index}{MARK_CLOSE}"


_MAX_DIGITS = 20  # as the C reader reads them (``_native_dom.c``)


def _end(text: str, at: int) -> int:
    """Just past the marker opening at ``at`` (its close), or ``at + 1`` if none."""
    close = text.find(MARK_CLOSE, at + 1, at + 2 + _MAX_DIGITS)
    return close + 1 if close > at + 1 else at + 1


# The markers read whole so far, by text: a script's or style's text is its marker, and
# the same few markers come back on every page (reading one took two searches, a slice
# and an int(), for each of the three or four times each is asked about)
_WHOLE: dict[str, int] = {}
_WHOLE_MAX = 4096
_MARKER_MAX = _MAX_DIGITS + 2  # characters: the open, the digits, the close


def _whole(text: str) -> int:
    """The number of the marker ``text`` is whole (its open, its digits, its close, and
    nothing else), or -1 when it is not one."""
    if len(text) > _MARKER_MAX:
        return -1
    index = _WHOLE.get(text, -1)
    if index >= 0:
        return index
    if not text.startswith(MARK_OPEN) or _end(text, 0) != len(text):
        return -1
    index = _index(text, 0)
    if index >= 0 and len(_WHOLE) < _WHOLE_MAX:
        _WHOLE[text] = index
    return index


def _index(text: str, at: int) -> int:
    """The number of the marker opening at ``at`` (one to twenty ASCII digits, then the
    close), or -1 when none is there."""
    close = text.find(MARK_CLOSE, at + 1, at + 2 + _MAX_DIGITS)
    digits = text[at + 1:close] if close > at + 1 else ""
    return int(digits) if digits.isascii() and digits.isdigit() else -1
