"""``verify_quote``: is this sentence really in the page this sourceRef names?

The snapshot is resolved offline (its body hash and envelope digest must match the
reference), its Markdown re-derived (:mod:`pressmark.cite._pages`), and the quote looked
for three ways, the first that answers wins:

* ``exact``: the quote is a span of the Markdown, character for character;
* ``normalised``: it is one once the markup is taken out of the Markdown and whitespace,
  quotes, dashes and ellipses are folded on both sides (:mod:`pressmark.cite._views`);
  ``differences`` names each fold the match needed;
* ``not-found``: neither; ``closest`` is the passage of the page most like the quote,
  with its ``similarity`` (difflib's ratio of the two normalised texts, 0 to 1).

A quote that is not in this snapshot but is in another snapshot of the same source (an
earlier or later capture of the URL) stays ``not-found``; ``other_snapshots`` says where
it was found, and how, so an agent citing the wrong capture learns which one it meant.

The Markdown is re-derived with this build's conversion policy (``POLICY_VERSION``). A
citation records the policy its span was made under; when the caller passes it and it is
another version, the answer says so (``cited_policy_version`` and the warning
``policy-changed``): the page's Markdown may have changed since, and with it the spans,
even the verdict, though the snapshot is the same.
"""

from __future__ import annotations

import collections
import dataclasses
import difflib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

from pressmark._errors import PressmarkError
from pressmark.cite._pages import CitationError, CitedPage, page_of
from pressmark.cite._views import FOLD_KINDS, View, normalise, reading_view

if TYPE_CHECKING:
    from pressmark.cite._views import Chain
    from pressmark.snapshot import Snapshot
    from pressmark.store import SnapshotRef

Verdict = Literal["exact", "normalised", "not-found"]
MAX_QUOTE_CHARS: Final = 10_000
CONTEXT_CHARS: Final = 32       # prefix and suffix of a TextQuoteSelector
OTHER_SNAPSHOTS: Final = 8      # other captures of the source looked at, newest first
COMMON_WORD: Final = 64         # a word found more often than this casts no vote
CANDIDATES: Final = 4           # passages compared in full for the closest one
MAX_OCCURRENCES: Final = 64     # normalised matches counted (the first one is the answer)
_WORDS: Final = re.compile(r"\S+")
_NOT_WORD: Final = re.compile(r"\W+")


class _Store(Protocol):
    def get(self, source_id: str, digest: str) -> Snapshot: ...
    def list(self, source_id: str) -> list[SnapshotRef]: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Passage:
    """A span of the Markdown: its text, ``[start, end)`` and the elements it came from."""

    text: str
    markdown_span: tuple[int, int]
    dom_paths: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "markdown_span": list(self.markdown_span),
                "dom_paths": list(self.dom_paths)}


@dataclass(frozen=True, slots=True, kw_only=True)
class OtherSnapshot:
    """Another capture of the same source where the quote was found."""

    source_ref: str
    fetched_at: str
    verdict: Verdict

    def to_dict(self) -> dict[str, Any]:
        return {"source_ref": self.source_ref, "fetched_at": self.fetched_at,
                "verdict": self.verdict}


@dataclass(frozen=True, slots=True, kw_only=True)
class QuoteCheck:
    """The answer of :func:`verify_quote` (see the module doc)."""

    verdict: Verdict
    source_ref: str
    quote: str
    url: str
    fetched_at: str
    policy_version: str | None
    match: Passage | None = None          # exact or normalised: where the quote is
    occurrences: int = 0                  # how often it is there (exact: verbatim)
    differences: tuple[str, ...] = ()     # normalised: the folds the match needed
    similarity: float = 0.0               # 1.0 when exact; the closest passage's otherwise
    closest: Passage | None = None        # not-found: the passage most like the quote
    other_snapshots: tuple[OtherSnapshot, ...] = field(default=())
    cited_policy_version: str | None = None  # the policy the citation was made under
    warnings: tuple[str, ...] = ()          # e.g. policy-changed (see the module doc)

    @property
    def found(self) -> bool:
        return self.verdict != "not-found"

    def citation(self, markdown: str) -> dict[str, Any] | None:
        """The W3C Web Annotation-style target of the match (``None`` when not found)."""
        if self.match is None:
            return None
        return citation(self.source_ref, markdown, *self.match.markdown_span,
                        policy_version=self.policy_version)

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict, "source_ref": self.source_ref, "url": self.url,
            "fetched_at": self.fetched_at, "policy_version": self.policy_version,
            "quote": self.quote,
            "match": None if self.match is None else self.match.to_dict(),
            "occurrences": self.occurrences, "differences": list(self.differences),
            "similarity": self.similarity,
            "closest": None if self.closest is None else self.closest.to_dict(),
            "other_snapshots": [o.to_dict() for o in self.other_snapshots],
            "cited_policy_version": self.cited_policy_version,
            "warnings": list(self.warnings),
        }


def citation(source_ref: str, markdown: str, start: int, end: int, *,
             policy_version: str | None = None) -> dict[str, Any]:
    """A citation of ``markdown[start:end]``: the sourceRef and two selectors (a
    ``TextQuoteSelector`` with ``prefix``/``suffix`` and a ``TextPositionSelector``, in
    characters of the Markdown), after the W3C Web Annotation data model."""
    if not 0 <= start <= end <= len(markdown):
        raise ValueError("the span is not within the Markdown")
    return {
        "source_ref": source_ref,
        "policy_version": policy_version,
        "selector": [
            {"type": "TextQuoteSelector", "exact": markdown[start:end],
             "prefix": markdown[max(0, start - CONTEXT_CHARS):start],
             "suffix": markdown[end:end + CONTEXT_CHARS]},
            {"type": "TextPositionSelector", "start": start, "end": end},
        ],
    }


class Verifier:
    """Checks quotes against one store, keeping the last few pages it converted.

    A conversion is most of an answer's cost; an agent checking several quotes of one page
    (or the MCP server answering it) converts the page once.
    """

    def __init__(self, store: _Store, *, cache_pages: int = 16) -> None:
        self.store = store
        self.cache_pages = max(0, cache_pages)
        self._pages: collections.OrderedDict[str, CitedPage] = collections.OrderedDict()

    def page(self, source_ref: str) -> CitedPage:
        """The page ``source_ref`` names, re-derived; :class:`CitationError` if it cannot be."""
        page = self._pages.get(source_ref)
        if page is not None:
            self._pages.move_to_end(source_ref)
            return page
        from pressmark.snapshot import resolve_source_ref  # noqa: PLC0415  # lazy

        resolved = resolve_source_ref(self.store, source_ref)
        if resolved.snapshot is None:
            assert resolved.error is not None
            raise CitationError(resolved.error.message, code=resolved.error.code)
        page = page_of(resolved.snapshot, source_ref)
        if self.cache_pages:
            self._pages[source_ref] = page
            while len(self._pages) > self.cache_pages:
                self._pages.popitem(last=False)
        return page

    def verify(self, source_ref: str, quote: str, *,
               policy_version: str | None = None) -> QuoteCheck:
        """:func:`verify_quote` with this verifier's store and page cache."""
        if not isinstance(quote, str) or not quote.strip():
            raise CitationError("the quote is empty", code="empty-quote")
        if len(quote) > MAX_QUOTE_CHARS:
            raise CitationError(f"the quote is longer than {MAX_QUOTE_CHARS} characters",
                                code="quote-too-long")
        page = self.page(source_ref)
        check = find_quote(page, quote)
        if check.verdict == "not-found":
            others = tuple(self._elsewhere(page, quote))
            if others:
                check = dataclasses.replace(check, other_snapshots=others)
        if policy_version is not None:
            check = dataclasses.replace(
                check, cited_policy_version=policy_version,
                warnings=_policy_warnings(policy_version, page.policy_version))
        return check

    def verify_citation(self, target: dict[str, Any]) -> QuoteCheck:
        """A citation made by :func:`citation` checked: its ``TextQuoteSelector``'s text as
        the quote, under the policy it records; a match that is no longer at the cited
        position adds the warning ``span-moved``."""
        try:
            source_ref = target["source_ref"]
            selectors = {s["type"]: s for s in target["selector"]}
            quote = selectors["TextQuoteSelector"]["exact"]
        except (KeyError, TypeError) as exc:
            raise CitationError("not a citation: source_ref and a TextQuoteSelector needed",
                                code="invalid-citation") from exc
        cited = target.get("policy_version")
        if not isinstance(source_ref, str) or not isinstance(quote, str) \
                or not isinstance(cited, str | None):
            raise CitationError("not a citation: source_ref, exact and policy_version are "
                                "strings", code="invalid-citation")
        check = self.verify(source_ref, quote, policy_version=cited)
        position = selectors.get("TextPositionSelector")
        if check.match is not None and isinstance(position, dict) \
                and (position.get("start"), position.get("end")) != check.match.markdown_span:
            check = dataclasses.replace(check, warnings=(*check.warnings, "span-moved"))
        return check

    def _elsewhere(self, page: CitedPage, quote: str) -> list[OtherSnapshot]:
        """The other captures of the page's source that hold the quote."""
        from pressmark.snapshot import build_source_ref  # noqa: PLC0415  # lazy

        found: list[OtherSnapshot] = []
        try:
            history = self.store.list(page.source_id)
        except (OSError, ValueError, PressmarkError):
            return found
        looked = 0
        for ref in history:
            if ref.snapshot_sha256 == page.snapshot_sha256 or looked >= OTHER_SNAPSHOTS:
                continue
            looked += 1
            try:
                snapshot = self.store.get(ref.source_id, ref.snapshot_sha256)
                other = page_of(snapshot, build_source_ref(snapshot))
            except (OSError, ValueError, PressmarkError):
                continue
            verdict = find_quote(other, quote, closest=False).verdict
            if verdict != "not-found":
                found.append(OtherSnapshot(source_ref=other.source_ref,
                                           fetched_at=other.fetched_at, verdict=verdict))
        return found


def verify_quote(source_ref: str, quote: str, store: _Store, *,
                 policy_version: str | None = None) -> QuoteCheck:
    """Check ``quote`` against the snapshot ``source_ref`` names in ``store`` (module doc);
    ``policy_version``: the conversion policy the quote was cited under, when known.

    Raises :class:`CitationError` when the reference does not resolve (its ``code`` is the
    replay's: ``invalid-ref``, ``not-found``, ``snapshot-corrupt``,
    ``snapshot-store-error``) or the quote is empty.
    """
    return Verifier(store, cache_pages=0).verify(source_ref, quote,
                                                 policy_version=policy_version)


def _policy_warnings(cited: str, used: str | None) -> tuple[str, ...]:
    """``policy-changed`` when the citation's policy is not the one the Markdown was
    re-derived with (a text snapshot, cited in its own text, has none to differ)."""
    return ("policy-changed",) if used is not None and cited != used else ()


def find_quote(page: CitedPage, quote: str, *, closest: bool = True) -> QuoteCheck:
    """The quote looked for in one page: exact, normalised, or the closest passage."""
    base: dict[str, Any] = {"source_ref": page.source_ref, "quote": quote, "url": page.url,
                            "fetched_at": page.fetched_at,
                            "policy_version": page.policy_version}
    markdown = page.markdown
    wanted = quote.strip()
    at = markdown.find(wanted)
    if at >= 0:
        return QuoteCheck(verdict="exact", **base, similarity=1.0,
                          match=_passage(page, at, at + len(wanted)),
                          occurrences=markdown.count(wanted))
    views = page.views()
    needle = normalise(reading_view(wanted).text)
    if not needle:
        return QuoteCheck(verdict="not-found", **base)
    found = _normalised_matches(markdown, views, needle, wanted)
    if found:
        start, end = found[0]
        return QuoteCheck(verdict="normalised", **base, match=_passage(page, start, end),
                          occurrences=len(found),
                          differences=_differences(markdown[start:end], wanted),
                          similarity=round(difflib.SequenceMatcher(
                              None, wanted, markdown[start:end], autojunk=False).ratio(), 4))
    if not closest:
        return QuoteCheck(verdict="not-found", **base)
    near = _closest(views.text, needle)
    if near is None:
        return QuoteCheck(verdict="not-found", **base)
    (start, end), similarity = near
    span = views.source_span(start, end)
    return QuoteCheck(verdict="not-found", **base, similarity=similarity,
                      closest=_passage(page, *span))


def _normalised_matches(markdown: str, views: Chain, needle: str, wanted: str,
                        ) -> list[tuple[int, int]]:
    """The Markdown spans where the quote reads the same (at most ``MAX_OCCURRENCES``).

    The folds touch no word character (letters, digits, ``_``), but taking the markup out
    does: an image goes whole (its alt text too), a link its destination, a list item its
    number, a fence its language. A quote that carries such markup itself would have a
    word changed inside it vanish with the markup, on both sides, and still read the
    same. So when the quote's own markup held word characters, they must all be the
    page's: the quote's word characters, in order and nothing else, are those of a
    stretch of the Markdown overlapping the match, and the match grows to cover it. A
    normalised match never absorbs a change of a word character.
    """
    strict = _word_chars(wanted) != _word_chars(needle)
    spans: list[tuple[int, int]] = []
    at = views.text.find(needle)
    while at >= 0 and len(spans) < MAX_OCCURRENCES:
        start, end = views.source_span(at, at + len(needle))
        if strict:
            whole = _words_around(markdown, start, end, wanted)
            if whole is not None:
                spans.append(whole)
        else:
            spans.append((start, end))
        at = views.text.find(needle, at + 1)
    return spans


def _word_chars(text: str) -> str:
    return _NOT_WORD.sub("", text)


def _words_around(markdown: str, start: int, end: int, quote: str) -> tuple[int, int] | None:
    """The span holding exactly the quote's word characters that overlaps ``[start,
    end)``, widened to it, or ``None``. Looked for within one quote's length either side:
    the markup the quote carries is at most that long."""
    words = _word_chars(quote)
    if not words:
        return None
    low, high = max(0, start - len(quote)), min(len(markdown), end + len(quote))
    window = View(markdown[low:high], ((m.start() - low, m.end() - low, "")
                                       for m in _NOT_WORD.finditer(markdown, low, high)))
    at = window.text.find(words)
    while at >= 0:
        w_start, w_end = window.source_span(at, at + len(words))
        w_start, w_end = w_start + low, w_end + low
        if w_start < end and w_end > start:
            return min(start, w_start), max(end, w_end)
        at = window.text.find(words, at + 1)
    return None


def _passage(page: CitedPage, start: int, end: int) -> Passage:
    return Passage(text=page.markdown[start:end], markdown_span=(start, end),
                   dom_paths=_innermost_paths(page, start, end))


def _innermost_paths(page: CitedPage, start: int, end: int) -> tuple[str, ...]:
    """The elements of the innermost blocks the span lies in or touches."""
    entries = [e for e in page.block_map.entries() if e.start < max(end, start + 1)
               and e.end > start]
    inner = [e for e in entries
             if not any(o is not e and e.start <= o.start and o.end <= e.end
                        and (o.start, o.end) != (e.start, e.end) for o in entries)]
    paths: list[str] = []
    for entry in inner:
        if entry.dom_path and entry.dom_path not in paths:
            paths.append(entry.dom_path)
    return tuple(paths)


_DIFFERENCE_KINDS: Final = ("markdown", *FOLD_KINDS)


def _differences(span: str, quote: str) -> tuple[str, ...]:
    """Each fold the match needed: without it, the two no longer read the same."""
    needed: list[str] = []
    for kind in _DIFFERENCE_KINDS:
        if kind == "markdown":
            same = normalise(span) == normalise(quote)
        else:
            kinds = tuple(k for k in FOLD_KINDS if k != kind)
            same = normalise(reading_view(span).text, kinds) == \
                normalise(reading_view(quote).text, kinds)
        if not same:
            needed.append(kind)
    return tuple(needed)


def _closest(text: str, needle: str) -> tuple[tuple[int, int], float] | None:
    """The passage of ``text`` most like ``needle``: as many words as the quote, starting
    where most of the quote's words line up (each rare word votes for a start), the best
    few compared in full."""
    quote_words = needle.split(" ")
    spots = [(m.start(), m.end()) for m in _WORDS.finditer(text)]
    if not spots:
        return None
    where: dict[str, list[int]] = collections.defaultdict(list)
    for index, (s, e) in enumerate(spots):
        where[text[s:e]].append(index)
    votes: collections.Counter[int] = collections.Counter()
    for offset, word in enumerate(quote_words):
        hits = where.get(word)
        if hits is None or len(hits) > COMMON_WORD:
            continue
        for index in hits:
            votes[max(0, index - offset)] += 1
    if not votes:
        return None
    best: tuple[tuple[int, int], float] | None = None
    for first, _ in votes.most_common(CANDIDATES):
        last = min(len(spots), first + len(quote_words)) - 1
        span = (spots[first][0], spots[last][1])
        ratio = difflib.SequenceMatcher(None, needle, text[span[0]:span[1]],
                                        autojunk=False).ratio()
        if best is None or ratio > best[1]:
            best = (span, round(ratio, 4))
    return best

