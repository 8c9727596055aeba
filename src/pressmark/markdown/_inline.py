"""The inline buffer: a block's inline Markdown, its emphasis runs, and CommonMark's flanking.

Separate from the converter because it is the one delicate piece of the conversion:
which emphasis runs CommonMark reads back as written (``*a*``), and which must be
written as inline HTML (``<em>a</em>``) because a marker touching punctuation or
another run would pair up differently. The round-trip property test holds it to that.
"""

from __future__ import annotations

import unicodedata

from pressmark.markdown import _escape
from pressmark.markdown._lazy_re import LazyPattern

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

_HTML_TAG: Final = {"*": "em", "**": "strong", "~~": "del"}
_BREAKS: Final = LazyPattern(r"\n[ \n]*\n")


class InlineBuf:
    """One block's inline Markdown in pieces, with the emphasis runs it holds.

    Adjacent code spans, and adjacent emphasis runs of one kind, merge into one
    (``<code>a</code><code>b</code>`` is one span). WHY the merged piece is written
    late (:meth:`settle`): a merge rewrites the whole merged piece, and rewriting it at
    every merge costs the square of the run (1,998 adjacent code spans of a 2 MB page
    took 6 s and 2.6 GB); kept as the merged parts until read, each part is joined once.
    """

    __slots__ = ("code", "md", "merging", "plain", "run", "runs")

    def __init__(self) -> None:
        self.md: list[str] = []
        self.plain: list[str] = []
        # (len(md), marker) right after a closed emphasis run with nothing after it
        self.run: tuple[int, str] | None = None
        # (len(md), its parts, pipes escaped) right after a code span
        self.code: tuple[int, list[str], bool] | None = None
        # md index -> (marker, html tag, lead, core, trail) of each emphasis run
        self.runs: dict[int, tuple[str, str, str, str, str]] = {}
        # md index and parts of the one merged run or span not yet written there, and for
        # a span whether its pipes are escaped (None for an emphasis run)
        self.merging: tuple[int, list[str], bool | None] | None = None

    def add_code(self, text: str, in_cell: bool) -> None:
        """Append a code span of ``text``; one right after a code span joins it."""
        code = self.code
        if code is not None and code[0] == len(self.md):
            # <code>a</code><code>b</code>: one span, "`a``b`" would read as one
            code[1].append(text)
            self._pending(code[0] - 1, code[1], code[2])
        else:
            self.md.append(_code_span(text, in_cell))
            self.code = (len(self.md), [text], in_cell)
        self.plain.append(text)

    def _pending(self, index: int, parts: list[str], in_cell: bool | None) -> None:
        merging = self.merging
        if merging is not None and merging[0] != index:
            self.settle()
        self.merging = (index, parts, in_cell)

    def settle(self) -> None:
        """Write the merged run or span not yet written (see the class doc)."""
        merging = self.merging
        if merging is None:
            return
        self.merging = None
        index, parts, in_cell = merging
        if in_cell is not None:
            self.md[index] = _code_span("".join(parts), in_cell)
            return
        marker, tag, lead, _, trail = self.runs[index]
        core = "".join(parts)
        self.md[index] = f"{lead}{marker}{core}{marker}{trail}"
        self.runs[index] = (marker, tag, lead, core, trail)

    def text(self, edge: str) -> str:
        """The finished Markdown of a block's inline content."""
        return _escape.resolve(self.raw(edge))

    def raw(self, edge: str) -> str:
        """The Markdown, with runs CommonMark would not read as emphasis in HTML form.

        A ``*`` run opens only if the character after it is not punctuation or the one
        before it is space/punctuation (and the mirror rule for closing), so
        ``a<em>"q"</em>b`` cannot be ``a*"q"*b``; a marker that can both open and
        close pairs up depending on its neighbours. So a run is Markdown only when its
        opening marker follows a space (or punctuation, with a word character inside)
        and its closing marker mirrors that. ``edge`` stands for what surrounds the
        buffer (a space for a block, punctuation for nested inline content).
        """
        if self.merging is not None:
            self.settle()
        if not self.runs:
            return "".join(self.md)  # no emphasis run: nothing to decide
        md = list(self.md)
        for index in self.fallbacks(edge):
            _, tag, lead, core, trail = self.runs[index]
            md[index] = f"{lead}<{tag}>{core}</{tag}>{trail}"
        return "".join(md)

    def fallbacks(self, edge: str) -> list[int]:
        """Indices of the runs that must be written as inline HTML (see ``raw``)."""
        out: list[int] = []
        runs = self.runs
        for index, (_, _, lead, core, trail) in runs.items():
            # space at the very edge of the buffer is moved outside by whoever wraps it
            before = (lead[-1:] if not _blank_beyond(self.md, index, -1) else "") \
                or _neighbour(self.md, runs, index, -1, edge)
            after = (trail[:1] if not _blank_beyond(self.md, index, 1) else "") \
                or _neighbour(self.md, runs, index, 1, edge)
            following = runs.get(index + 1)
            if not trail and following is not None and not following[2]:
                after = "<"  # the next run touches this one, so it is written as HTML
            previous = runs.get(index - 1)
            touching = not lead and previous is not None and not previous[4]
            open_ok = before.isspace() or (_punct(before) and _word(_first(core)))
            close_ok = after.isspace() or (_punct(after) and _word(_last(core)))
            if touching or not (open_ok and close_ok):
                # two runs touching ("*a***b**") make one ambiguous delimiter run, and a
                # marker that could both open and close ("a**b**c", "(**(b)**)") pairs
                # up by rules that depend on its neighbours
                out.append(index)
        return out


def add_run(buf: InlineBuf, inner: InlineBuf, marker: str) -> None:
    """Append ``inner`` to ``buf`` as one emphasis run (``*``, ``**`` or ``~~``).

    Runs of one kind that touch merge (``<em>a</em><em>b</em>`` is ``*ab*``, since
    ``*a**b*`` reads as nested); a run CommonMark would pair up differently is written
    as inline HTML instead.
    """
    # resolved with the enclosing text; a paragraph break cannot sit inside a run
    md = _one_break(inner.raw("*"))
    buf.plain.append(_one_break("".join(inner.plain)))
    core = md.strip(" \n")
    if not core:
        if md:
            buf.md.append(md)
        return
    start = md.index(core[0])
    lead, trail = md[:start], md[start + len(core):]
    tag = _HTML_TAG[marker]
    if _ambiguous_edges(inner):
        # "***1**1**1***": a run whose content starts or ends with several other
        # runs is ambiguous; only a single nested run ("***1***") is safe
        buf.md.append(f"{lead}<{tag}>{core}</{tag}>{trail}")
        buf.run = None
        return
    if not lead and buf.run == (len(buf.md), marker):
        # <em>a</em><em>b</em>: one run "*ab*", since "*a**b*" reads as nested
        index = len(buf.md) - 1
        merging = buf.merging
        parts = merging[1] if merging is not None and merging[0] == index \
            else [buf.runs[index][3]]
        if parts[-1].endswith(("`", "*", "~", ">")) or core.startswith(("`", "*", "~", "<")) \
                or core.endswith(("*", "~")):
            # merging would glue two code spans into one, or put nested runs at an
            # edge of the merged run: keep this run apart
            buf.md.append(f"<{tag}>{core}</{tag}>{trail}")
            buf.run = None
            return
        # written once the run is complete (InlineBuf.settle): the new trail goes with it
        parts.append(core)
        first_marker, first_tag, first_lead, first_core, _ = buf.runs[index]
        buf.runs[index] = (first_marker, first_tag, first_lead, first_core, trail)
        buf._pending(index, parts, None)
        buf.run = None if trail else (len(buf.md), marker)
        return
    index = len(buf.md)
    buf.md.append(f"{lead}{marker}{core}{marker}{trail}")
    buf.runs[index] = (marker, tag, lead, core, trail)
    buf.run = None if trail else (len(buf.md), marker)


def _code_span(text: str, in_cell: bool) -> str:
    span = _escape.code_span(text)
    # GFM splits table rows on every unescaped "|", code spans included
    return span.replace("|", "\\|") if in_cell else span


# The ``in`` check first: C-level and several times cheaper than a regex scan of text
# that, as most text does, holds nothing to replace.
def squeeze(text: str) -> str:
    """Runs of spaces as one space."""
    # halving every run per pass (a run of n spaces takes log2(n) passes) beats the
    # regex, which tries its pattern at every position of the paragraph
    while "  " in text:
        text = text.replace("  ", " ")
    return text


def _one_break(text: str) -> str:
    """A blank line (a paragraph break), which cannot sit inside an inline run, as one break."""
    return _BREAKS.get().sub("\n", text) if "\n" in text else text


def _ambiguous_edges(inner: InlineBuf) -> bool:
    """Would wrapping ``inner`` put two delimiter runs together ambiguously?

    A nested run at the very start or end is fine when it is the whole content
    ("***a***") or when a space separates it from the rest ("*a **b***"); glued to
    more text ("*1**1***") CommonMark pairs the asterisks differently.
    """
    pieces = [(i, p) for i, p in enumerate(inner.md) if p.strip(" \n")]
    if not pieces or not inner.runs:
        return False
    first, last = pieces[0][0], pieces[-1][0]
    if first == last:
        return False
    md = inner.md
    html = set(inner.fallbacks("*"))  # those start and end with "<"/">": no delimiter
    start = inner.runs.get(first) if first not in html else None
    if start is not None and not start[2].strip():
        after = start[4][:1] or _raw_neighbour(md, first, 1)
        if not after.isspace():
            return True
    end = inner.runs.get(last) if last not in html else None
    if end is not None and not end[4].strip():
        before = end[2][-1:] or _raw_neighbour(md, last, -1)
        if not before.isspace():
            return True
    return False


def _raw_neighbour(md: list[str], index: int, step: int) -> str:
    i = index + step
    while 0 <= i < len(md):
        if md[i]:
            return md[i][-1] if step < 0 else md[i][0]
        i += step
    return " "


def _neighbour(md: list[str], runs: dict[int, tuple[str, str, str, str, str]], index: int,
               step: int, edge: str) -> str:
    """The character a delimiter run at ``md[index]`` touches on one side.

    Touching delimiter runs merge in CommonMark (``*a***b**``), so next to another
    run's marker the character that counts is that run's first/last content one.
    """
    i = index + step
    while 0 <= i < len(md):
        if md[i]:
            if not md[i].strip(" \n") and _blank_beyond(md, i, step):
                return edge
            run = runs.get(i)
            if run is not None:
                _, _, lead, core, trail = run
                if step < 0 and not trail:
                    return _last(core)
                if step > 0 and not lead:
                    return _first(core)
            return md[i][-1] if step < 0 else md[i][0]
        i += step
    return edge


def _blank_beyond(md: list[str], index: int, step: int) -> bool:
    i = index + step
    while 0 <= i < len(md):
        if md[i].strip(" \n"):
            return False
        i += step
    return True


def _first(core: str) -> str:
    """First character that counts for flanking: nested markers ("**a**") skipped."""
    return core.lstrip("*~")[:1] or core[0]


def _last(core: str) -> str:
    return core.rstrip("*~")[-1:] or core[-1]


def _word(char: str) -> bool:
    """Neither whitespace nor punctuation (CommonMark's flanking classes)."""
    return bool(char) and not char.isspace() and not _punct(char)


def _punct(char: str) -> bool:
    # marked "_ < &" (see _escape) are punctuation whether or not they get escaped
    return char in _escape.MARKED or unicodedata.category(char)[0] in "PS"
