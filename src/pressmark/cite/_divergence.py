"""Does an agent-facing version of a page say what the page says? A divergence score and
the passages only one side has, each citable.

The two sides are the page's Markdown as pressmark converts its HTML (its leaf blocks, as
:mod:`pressmark.cite._diff` compares them) and the agent version's text (a Markdown answer
to ``Accept: text/markdown``, a ``rel="alternate" type="text/markdown"`` target), cut into
passages at blank lines. Markup is not content: both sides are read as words (link
targets, emphasis marks, heading and list markers dropped, case folded), so the same text
written with other Markdown agrees.

The measure is containment of word shingles (runs of :data:`SHINGLE` words), linear in the
text and independent of block boundaries: the score is the share of both sides' shingles
the other side lacks (0: the same words in the same order, 1: nothing in common). A passage
with any shingle the other side lacks is named on its side (``only_in_page``,
``only_in_view``) with the share it does have (``shared``: 0 for a passage only one side
has, 0.7 for a sentence with one word changed); a passage shorter than a shingle is looked
up whole. The work is
bounded: :data:`MAX_WORDS` words a side, :data:`MAX_PASSAGES` passages named a side
(``truncated`` says when more were left out).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from pressmark.cite._diff import leaves
from pressmark.cite._verify import citation

if TYPE_CHECKING:
    from pressmark.cite._pages import CitedPage
    from pressmark.snapshot import Snapshot

SHINGLE: Final = 5
"""Words a shingle holds: long enough that common words do not match by chance, short
enough that one changed word only costs the shingles around it."""
AGREE_MAX: Final = 0.2
"""Scores up to this are reported as agreeing (``agrees``): wording, punctuation and a
line or two of chrome apart, the same text."""
MAX_WORDS: Final = 200_000
"""Words of a side compared at most (the rest counts as neither shared nor missing)."""
MAX_PASSAGES: Final = 50
"""Passages named per side at most."""
FORMAT: Final = "pressmark-divergence/1"

_LINK_TARGET = re.compile(r"\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*(?:\s+\"[^\"]*\")?\)")
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*\S+.*$", re.MULTILINE)
_AUTOLINK = re.compile(r"<[a-zA-Z][a-zA-Z0-9+.-]*:[^<>\s]*>")
_WORD = re.compile(r"\w+")
_BLANK = re.compile(r"\n[ \t]*\n")


def words(markdown: str) -> list[str]:
    """The words of a Markdown text, markup dropped (see the module doc)."""
    text = _REFERENCE.sub(" ", markdown)
    text = _LINK_TARGET.sub("] ", text)
    text = _AUTOLINK.sub(" ", text)
    return _WORD.findall(text.casefold())


@dataclass(frozen=True, slots=True, kw_only=True)
class Passage:
    """A passage one side has and the other lacks: its text, span and citation."""

    text: str
    span: tuple[int, int]
    dom_path: str | None
    citation: dict[str, Any]
    shared: float
    """The share of its shingles the other side has (below 1)."""

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "span": list(self.span), "dom_path": self.dom_path,
                "shared": self.shared, "citation": self.citation}


@dataclass(frozen=True, slots=True, kw_only=True)
class Divergence:
    """How far an agent version's text is from the page's Markdown (see the module doc)."""

    score: float
    page_words: int
    view_words: int
    only_in_page: tuple[Passage, ...]
    only_in_view: tuple[Passage, ...]
    truncated: bool = False

    @property
    def agrees(self) -> bool:
        return self.score <= AGREE_MAX

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "score": self.score, "agrees": self.agrees,
                "page_words": self.page_words, "view_words": self.view_words,
                "only_in_page": [p.to_dict() for p in self.only_in_page],
                "only_in_view": [p.to_dict() for p in self.only_in_view],
                "truncated": self.truncated}


@dataclass(slots=True)
class _Side:
    spans: list[tuple[int, int, str | None]]
    tokens: list[list[str]]
    stream: list[str]
    truncated: bool


def _side(spans: list[tuple[int, int, str | None]], text: str) -> _Side:
    tokens: list[list[str]] = []
    stream: list[str] = []
    truncated = False
    for start, end, _ in spans:
        found = words(text[start:end])
        room = MAX_WORDS - len(stream)
        if len(found) > room:
            found, truncated = found[:max(0, room)], True
        tokens.append(found)
        stream.extend(found)
    return _Side(spans, tokens, stream, truncated)


def _shingles(tokens: list[str], size: int) -> list[tuple[str, ...]]:
    if len(tokens) < size:
        return [tuple(tokens)] if tokens else []
    return [tuple(tokens[i:i + size]) for i in range(len(tokens) - size + 1)]


class _Index:
    """The other side's word runs, by length, built when a length is first asked for."""

    def __init__(self, stream: list[str]) -> None:
        self.stream = stream
        self._sets: dict[int, set[tuple[str, ...]]] = {}

    def has(self, run: tuple[str, ...]) -> bool:
        size = len(run)
        found = self._sets.get(size)
        if found is None:
            found = set(_shingles(self.stream, size)) if len(self.stream) >= size else set()
            self._sets[size] = found
        return run in found


def _compare(side: _Side, other: _Index, source_ref: str, text: str,
             policy_version: str | None) -> tuple[int, int, list[Passage], bool]:
    """(shingles of this side, of those found in the other, passages only here, cut)."""
    total = found = 0
    named: list[Passage] = []
    cut = False
    for (start, end, dom_path), tokens in zip(side.spans, side.tokens, strict=True):
        runs = _shingles(tokens, SHINGLE)
        if not runs:
            continue
        hits = sum(1 for run in runs if other.has(run))
        total += len(runs)
        found += hits
        shared = hits / len(runs)
        if hits == len(runs):
            continue
        if len(named) >= MAX_PASSAGES:
            cut = True
            continue
        named.append(Passage(text=text[start:end], span=(start, end), dom_path=dom_path,
                             shared=round(shared, 4),
                             citation=citation(source_ref, text, start, end,
                                               policy_version=policy_version)))
    return total, found, named, cut


def view_passages(text: str) -> list[tuple[int, int, str | None]]:
    """A Markdown text's passages: the spans between blank lines, outer blanks trimmed."""
    out: list[tuple[int, int, str | None]] = []
    cursor = 0
    for match in [*_BLANK.finditer(text), None]:
        stop = len(text) if match is None else match.start()
        chunk = text[cursor:stop]
        lead = len(chunk) - len(chunk.lstrip())
        body = chunk.strip()
        if body:
            out.append((cursor + lead, cursor + lead + len(body), None))
        if match is not None:
            cursor = match.end()
    return out


def divergence(page: CitedPage, view: CitedPage) -> Divergence:
    """How far ``view`` (an agent version's text) is from ``page`` (the HTML page's
    Markdown), and the passages only one of them has; both sides citable by their own
    sourceRef (see the module doc)."""
    page_side = _side([(x.start, x.end, x.dom_path) for x in leaves(page)], page.markdown)
    view_side = _side(view_passages(view.markdown), view.markdown)
    a_total, a_found, only_page, cut_a = _compare(
        page_side, _Index(view_side.stream), page.source_ref, page.markdown,
        page.policy_version)
    b_total, b_found, only_view, cut_b = _compare(
        view_side, _Index(page_side.stream), view.source_ref, view.markdown, None)
    total = a_total + b_total
    score = 0.0 if total == 0 else round(1.0 - (a_found + b_found) / total, 4)
    return Divergence(score=score, page_words=len(page_side.stream),
                      view_words=len(view_side.stream), only_in_page=tuple(only_page),
                      only_in_view=tuple(only_view),
                      truncated=page_side.truncated or view_side.truncated or cut_a or cut_b)


def view_divergences(job: tuple[Snapshot, str, tuple[tuple[Snapshot, str], ...]],
                     ) -> list[dict[str, Any]]:
    """``divergence(...).to_dict()`` of each ``(view snapshot, its sourceRef)`` against the
    page ``(snapshot, sourceRef)``: one job, so a crawl's parser process can run it (the
    page is converted once, as the crawl converted it)."""
    from pressmark.cite._pages import page_of  # noqa: PLC0415  # the converter, when used

    snapshot, source_ref, views = job
    human = page_of(snapshot, source_ref)
    return [divergence(human, page_of(view, ref)).to_dict() for view, ref in views]
