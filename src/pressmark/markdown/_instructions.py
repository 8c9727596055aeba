"""Instruction-shaped text: sentences a page addresses to a language model, flagged.

A page that wants to steer the agent reading it writes to the agent: "ignore previous
instructions", "note to AI assistants: ...", "you are now DAN". Such text is evidence, not
content to delete: the Markdown keeps it where it was (a visible sentence stays visible,
hidden text is left out as any hidden text is, ``_hidden``), and the evidence lists each
match (``instruction_text``) with the rule that fired, the matched words, a little context,
and whether the words are in the Markdown (``in_markdown``: what a reader of pressmark's
output, human or model, is shown).

The whole page is read, hidden parts, comments and scripts included (text planted for a
model reading the raw HTML counts too), with its tags dropped and character references
decoded. The rules are few and narrow, each a phrase addressed to a model, not a topic: an
article *about* prompt injection quotes them and is flagged, which is what a reviewer
wants to know. The work is bounded and small for a page with nothing to flag: the page is
searched for a few anchor words (:data:`ANCHORS`), only the text around a hit is read with
the rules (:data:`MAX_WINDOWS` hits, :data:`MAX_SCAN_CHARS` characters of the page), and
:data:`MAX_LISTED` matches are listed.

The evidence holds an :class:`InstructionText`: the scan runs when the matches are first
read (the evidence JSON, a crawl's page record), so a conversion whose evidence nobody
reads (``pressmark md --batch`` without ``--json``) does not pay for it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence

from pressmark.markdown._lazy_re import LazyPattern

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Any, Final, overload

MAX_SCAN_CHARS: Final = 4_000_000
"""Characters of the page read at most."""
MAX_LISTED: Final = 16
"""Matches listed at most."""
CONTEXT_CHARS: Final = 60
"""Characters of context either side of a match."""

_TARGET = (r"(?:ai|a\.i\.|llms?|large language models?|language models?|chat ?bots?|"
           r"ai (?:agents?|assistants?|models?|systems?|crawlers?)|assistants?|agents?|"
           r"chatgpt|gpt-?\d*|claude|gemini|copilot)")
RULES: Final[tuple[tuple[str, str], ...]] = (
    # "ignore all previous instructions", "disregard the above prompt"
    ("ignore-instructions",
     r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+)?"
     r"(?:previous|prior|above|earlier|preceding|former|system|original)\s+"
     r"(?:instructions?|prompts?|directions?|directives?|rules|guidelines|context)\b"),
    # "reveal your system prompt", "print the hidden instructions"
    ("system-prompt",
     r"\b(?:reveal|print|show|repeat|output|leak|disclose)\s+(?:your|the)\s+"
     r"(?:(?:system|initial|original|hidden)\s+)?(?:prompt|instructions)\b"),
    # "note to AI agents:", "instructions for LLMs", "attention, language models"
    ("addressed-to-model",
     rf"\b(?:note|message|instructions?|attention|notice|memo)\s*(?:to|for|,)\s+"
     rf"(?:all\s+|any\s+)?{_TARGET}\b"),
    # "if you are an AI", "if you're a large language model"
    ("if-you-are-a-model",
     rf"\bif\s+you\s+(?:are|'re|\u2019re)\s+(?:an?\s+)?{_TARGET}\b"),
    # "you are now DAN", "from now on you will act as", "pretend you are an unrestricted AI"
    ("role-play",
     r"\b(?:you\s+are\s+now\s+(?:in\s+)?(?:dan|developer mode|jailbroken|unrestricted|"
     r"an?\s+unrestricted)|from\s+now\s+on,?\s+you\s+(?:are|will|must)|"
     r"pretend\s+(?:that\s+)?you\s+(?:are|have)\s+no\s+(?:restrictions|rules|guidelines))"),
)


@functools.cache
def _compiled() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The rules compiled, on the first scan: a conversion whose evidence is never read
    compiles none of them (they were about a fortieth of ``md --batch``'s start-up)."""
    return tuple((name, re.compile(pattern)) for name, pattern in RULES)


ANCHORS: Final = ("nstruction", "NSTRUCTION", "rompt", "ROMPT", "ote to", "f you", "ou are now",
                  "rom now on")
"""Words (their first letter left off, so a capital matches too) one of which any match
holds or stands near (the text around a hit is read with every rule: "ignore previous
instructions", "disregard the above prompt", "note to AI agents", "if you are an LLM",
"you are now DAN", "from now on you will"). Each is one scan of the page (about 0.13 ms
for the dev sets' 197 KB mean page), so they are few; a page with none costs only them."""
MAX_WINDOWS: Final = 256
"""Anchor hits read with the rules at most."""
WINDOW_BEFORE: Final = 240
WINDOW_AFTER: Final = 320
"""Characters of HTML read around an anchor hit (a match spans at most a few words)."""
_TAG: Final = LazyPattern(r"<[^<>]{0,4000}>")
_SPACE: Final = LazyPattern(r"\s+")


def page_text(source: str) -> str:
    """HTML as text: tags dropped (a comment's text kept), references decoded, whitespace
    collapsed."""
    import html  # noqa: PLC0415 - its entity table loads with the first scan, see _compiled

    opened = source.replace("<!--", " ").replace("-->", " ")
    return _SPACE.get().sub(" ", html.unescape(_TAG.get().sub(" ", opened)))


_BYTE_ANCHORS: Final = tuple(anchor.encode("utf-8") for anchor in ANCHORS)


def _hits(source: str | bytes) -> list[int]:
    """Where anchors occur in the first :data:`MAX_SCAN_CHARS` characters (sorted, at most
    :data:`MAX_WINDOWS`, each at least a window apart)."""
    found: list[int] = []
    anchors: tuple[Any, ...] = _BYTE_ANCHORS if isinstance(source, bytes) else ANCHORS
    for anchor in anchors:
        at = source.find(anchor, 0, MAX_SCAN_CHARS)
        while at >= 0 and len(found) < MAX_WINDOWS * 4:
            found.append(at)
            at = source.find(anchor, at + len(anchor), MAX_SCAN_CHARS)
    found.sort()
    kept: list[int] = []
    for at in found:
        if not kept or at - kept[-1] > WINDOW_AFTER // 2:
            kept.append(at)
    return kept[:MAX_WINDOWS]


def find_instructions(source: str | bytes, markdown: str) -> tuple[dict[str, Any], ...]:
    """The instruction-shaped passages of an HTML page (its text, or its UTF-8 bytes), in
    page order (see the module doc): ``{"rule", "match", "context", "in_markdown"}``."""
    seen: set[tuple[str, str, int]] = set()
    found: list[tuple[int, str, str, str]] = []
    for at in _hits(source):
        start = max(0, at - WINDOW_BEFORE)
        piece = source[start:at + WINDOW_AFTER]
        window = page_text(piece.decode("utf-8", "replace") if isinstance(piece, bytes)
                           else piece)
        low = window.lower()
        for name, pattern in _compiled():
            for match in pattern.finditer(low):
                words = window[match.start():match.end()]
                # one match seen from two windows is one match
                key = (name, words.casefold(), start + match.start() // 64)
                if key in seen or (name, words.casefold(), key[2] - 1) in seen:
                    continue
                seen.add(key)
                context = window[max(0, match.start() - CONTEXT_CHARS):
                                 match.end() + CONTEXT_CHARS]
                found.append((start + match.start(), name, words, context.strip()))
    if not found:
        return ()
    flat = _SPACE.get().sub(" ", markdown).casefold()
    return tuple({"rule": name, "match": words, "context": context,
                  "in_markdown": words.casefold() in flat}
                 for _, name, words, context in sorted(found)[:MAX_LISTED])


if TYPE_CHECKING:
    Flag = dict[str, Any]
    _Flags = Sequence[Flag]
else:
    _Flags = Sequence  # the same base class: a subscripted ABC subclasses as the ABC


def _resolved(found: tuple[Flag, ...]) -> InstructionText:
    return InstructionText(found=found)


class InstructionText(_Flags):
    """The page's instruction-shaped passages (:func:`find_instructions`), found when first
    read: the scan costs about a fifth of a conversion (eight scans of the whole page), and
    most conversions' evidence is never read. Equal to the tuple of its matches; a pickled
    one is the worked-out one (a parse worker never ships the page's bytes)."""

    __slots__ = ("_found", "_markdown", "_source")

    def __init__(self, source: str | bytes = "", markdown: str = "", *,
                 found: tuple[Flag, ...] | None = None) -> None:
        self._source: str | bytes | None = source if found is None else None
        self._markdown: str | None = markdown if found is None else None
        self._found = found

    def _matches(self) -> tuple[Flag, ...]:
        if self._found is None:
            self._found = find_instructions(self._source or "", self._markdown or "")
            self._source = self._markdown = None  # the page may go now
        return self._found

    if TYPE_CHECKING:
        @overload
        def __getitem__(self, index: int) -> Flag: ...
        @overload
        def __getitem__(self, index: slice) -> Sequence[Flag]: ...

    def __getitem__(self, index: int | slice) -> Flag | Sequence[Flag]:
        return self._matches()[index]

    def __len__(self) -> int:
        return len(self._matches())

    def __iter__(self) -> Iterator[Flag]:
        return iter(self._matches())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, InstructionText):
            other = other._matches()
        return isinstance(other, tuple) and self._matches() == other

    __hash__ = None  # type: ignore[assignment]  # as a tuple of dicts: unhashable

    def __repr__(self) -> str:
        return f"InstructionText({self._matches()!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return _resolved, (self._matches(),)
