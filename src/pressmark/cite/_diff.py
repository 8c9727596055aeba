"""Block-level diff of two captures: which blocks of the Markdown were added, removed or
changed, each side citable.

Both sides are the pages :func:`~pressmark.cite._pages.page_of` re-derives (the Markdown
and its :class:`~pressmark.markdown._blockmap.BlockMap`), so a reported block is exactly a
span a citation can name: ``citation(source_ref, markdown, start, end)`` of its side, which
:meth:`~pressmark.cite.Verifier.verify_citation` finds again at that very span.

The unit compared is the *leaf* block of the block map (a block holding no other block: a
paragraph, a heading, a list item's paragraph, a table, a code block), its text the
Markdown of its span. Leaves are lined up by difflib on their exact text; a run of blocks
that differ is split into pairs that are still alike (``changed``: the words of the two
agree at least :data:`CHANGED_MIN`) and blocks only one side has (``removed``, ``added``).
A moved block is a removal and an addition. The work is bounded: :data:`MAX_BLOCKS` leaves
a side and :data:`MAX_PAIRING` blocks a differing run are compared, the rest said
(``truncated``).
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

from pressmark._errors import PressmarkError
from pressmark.cite._pages import CitationError
from pressmark.cite._verify import Verifier, citation

if TYPE_CHECKING:
    from pressmark.cite._pages import CitedPage
    from pressmark.snapshot import Snapshot
    from pressmark.store import SnapshotRef

Change = Literal["added", "removed", "changed"]
CHANGED_MIN: Final = 0.5
"""Word agreement (difflib's ratio over the two blocks' words) from which a block that
differs is the same block changed rather than one removed and another added."""
MAX_BLOCKS: Final = 20_000
"""Leaf blocks of a side compared at most."""
MAX_PAIRING: Final = 64
"""Blocks of a differing run (each side) paired by likeness; a longer run is removed and
added as a whole (pairing is quadratic in the run)."""
FORMAT: Final = "pressmark-diff/1"
ERROR_STATUS: Final = 400
"""From this HTTP status on, a capture is the server's error page, not the page."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffSide:
    """One side of a reported block: its text, span, element and citation."""

    kind: str
    text: str
    markdown_span: tuple[int, int]
    dom_path: str
    citation: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "markdown_span": list(self.markdown_span),
                "dom_path": self.dom_path, "citation": self.citation}


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockChange:
    """A block only the old side has (``removed``), only the new one (``added``), or both
    in different words (``changed``)."""

    change: Change
    old: DiffSide | None
    new: DiffSide | None

    def to_dict(self) -> dict[str, Any]:
        return {"change": self.change,
                "old": None if self.old is None else self.old.to_dict(),
                "new": None if self.new is None else self.new.to_dict()}


@dataclass(frozen=True, slots=True, kw_only=True)
class CaptureDiff:
    """What :func:`diff_pages` found between two captures."""

    url: str
    old_ref: str
    new_ref: str | None
    """``None`` for a page gone since (:func:`gone_page`): nothing was stored."""
    old_fetched_at: str
    new_fetched_at: str | None
    same_snapshot: bool
    same_markdown: bool
    policy_version: str | None
    changes: tuple[BlockChange, ...]
    truncated: bool = False
    old_status: int | None = None
    new_status: int | None = None
    gone: bool = False
    """The page was there in the old capture and the new one is an HTTP error."""

    def counts(self) -> dict[str, int]:
        out = {"added": 0, "removed": 0, "changed": 0}
        for item in self.changes:
            out[item.change] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "url": self.url,
                "old": {"source_ref": self.old_ref, "fetched_at": self.old_fetched_at,
                        "status": self.old_status},
                "new": {"source_ref": self.new_ref, "fetched_at": self.new_fetched_at,
                        "status": self.new_status},
                "gone": self.gone,
                "same_snapshot": self.same_snapshot, "same_markdown": self.same_markdown,
                "policy_version": self.policy_version, "counts": self.counts(),
                "changes": [c.to_dict() for c in self.changes], "truncated": self.truncated}


@dataclass(frozen=True, slots=True)
class _Leaf:
    kind: str
    start: int
    end: int
    dom_path: str
    text: str


def leaves(page: CitedPage) -> list[_Leaf]:
    """The page's leaf blocks in document order (see the module doc)."""
    entries = sorted(page.block_map.entries(), key=lambda e: (e.start, -e.end))
    out: list[_Leaf] = []
    for index, entry in enumerate(entries):
        if entry.end <= entry.start:
            continue
        following = entries[index + 1] if index + 1 < len(entries) else None
        if following is not None and following.start < entry.end:
            continue  # a container: its blocks are compared instead
        out.append(_Leaf(entry.kind, entry.start, entry.end, entry.dom_path,
                         page.markdown[entry.start:entry.end]))
    if not out and page.markdown.strip():  # no block map (plain text): the whole text
        text = page.markdown
        out.append(_Leaf("paragraph", 0, len(text), "", text))
    return out


def gone_page(old: CitedPage, status: int | None) -> CaptureDiff:
    """The diff of the last capture of a page and its deletion: a recrawl answered
    ``status`` (404, 410) and stored nothing; every block of the old capture is removed."""
    changes = tuple(_one(old, leaf, None, "removed") for leaf in leaves(old)[:MAX_BLOCKS])
    return CaptureDiff(
        url=old.url, old_ref=old.source_ref, new_ref=None, old_fetched_at=old.fetched_at,
        new_fetched_at=None, same_snapshot=False, same_markdown=not old.markdown,
        policy_version=old.policy_version, changes=changes,
        truncated=len(changes) >= MAX_BLOCKS, old_status=old.status, new_status=status,
        gone=True)


def diff_pages(old: CitedPage, new: CitedPage) -> CaptureDiff:
    """The block-level diff of two captures' pages (see the module doc).

    A capture answered with an HTTP error (a deleted page's 404) has no blocks: its
    Markdown is the server's error page, not the page's content; every block of the other
    side is then removed (or added), and ``gone`` says so."""
    a = leaves(old) if not _error(old) else []
    b = leaves(new) if not _error(new) else []
    truncated = len(a) > MAX_BLOCKS or len(b) > MAX_BLOCKS
    a, b = a[:MAX_BLOCKS], b[:MAX_BLOCKS]
    changes: list[BlockChange] = []
    if old.markdown != new.markdown or _error(old) != _error(new):
        matcher = difflib.SequenceMatcher(a=[x.text for x in a], b=[x.text for x in b],
                                          autojunk=True)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            run_a, run_b = a[i1:i2], b[j1:j2]
            if len(run_a) > MAX_PAIRING or len(run_b) > MAX_PAIRING:
                truncated = True
                changes += [_one(old, x, None, "removed") for x in run_a]
                changes += [_one(new, None, y, "added") for y in run_b]
                continue
            changes += _pair(old, new, run_a, run_b)
    return CaptureDiff(
        url=new.url, old_ref=old.source_ref, new_ref=new.source_ref,
        old_fetched_at=old.fetched_at, new_fetched_at=new.fetched_at,
        same_snapshot=old.snapshot_sha256 == new.snapshot_sha256,
        same_markdown=old.markdown == new.markdown,
        policy_version=new.policy_version, changes=tuple(changes), truncated=truncated,
        old_status=old.status, new_status=new.status,
        gone=_error(new) and not _error(old))


def _error(page: CitedPage) -> bool:
    return page.status is not None and page.status >= ERROR_STATUS


def _pair(old: CitedPage, new: CitedPage, run_a: list[_Leaf], run_b: list[_Leaf],
          ) -> list[BlockChange]:
    """A differing run as changes, in order: each old block paired with the first new
    block still to come that is alike (the new blocks skipped before it were added)."""
    out: list[BlockChange] = []
    cursor = 0
    for x in run_a:
        found = next((k for k in range(cursor, len(run_b)) if _alike(x.text, run_b[k].text)),
                     None)
        if found is None:
            out.append(_one(old, x, None, "removed"))
            continue
        out += [BlockChange(change="added", old=None, new=_side(new, y))
                for y in run_b[cursor:found]]
        y = run_b[found]
        if y.text != x.text:  # an equal block autojunk kept from being an anchor
            out.append(BlockChange(change="changed", old=_side(old, x), new=_side(new, y)))
        cursor = found + 1
    out += [BlockChange(change="added", old=None, new=_side(new, y)) for y in run_b[cursor:]]
    return out


def _alike(a: str, b: str) -> bool:
    if a == b:
        return True
    matcher = difflib.SequenceMatcher(a=a.split(), b=b.split(), autojunk=False)
    return matcher.quick_ratio() >= CHANGED_MIN and matcher.ratio() >= CHANGED_MIN


def _one(page: CitedPage, x: _Leaf | None, y: _Leaf | None, change: Change) -> BlockChange:
    leaf = x if x is not None else y
    assert leaf is not None
    side = _side(page, leaf)
    return BlockChange(change=change, old=side if x is not None else None,
                       new=side if y is not None else None)


def _side(page: CitedPage, leaf: _Leaf) -> DiffSide:
    return DiffSide(kind=leaf.kind, text=leaf.text, markdown_span=(leaf.start, leaf.end),
                    dom_path=leaf.dom_path,
                    citation=citation(page.source_ref, page.markdown, leaf.start, leaf.end,
                                      policy_version=page.policy_version))


class _Store(Protocol):
    def get(self, source_id: str, digest: str) -> Snapshot: ...
    def list(self, source_id: str) -> list[SnapshotRef]: ...


def diff_captures(store: _Store, old_ref: str, new_ref: str) -> CaptureDiff:
    """:func:`diff_pages` of the two captures the sourceRefs name, resolved offline in
    ``store``; :class:`~pressmark.cite.CitationError` when one does not resolve."""
    verifier = Verifier(store, cache_pages=2)
    return diff_pages(verifier.page(old_ref), verifier.page(new_ref))


def captures_of(store: _Store, url: str) -> list[str]:
    """The sourceRefs of ``url``'s captures, newest first (``[]``: none).

    The URL is looked up as the crawl names its source (its canonical form: the egress
    parser's origin and target, the fragment dropped), else as given.
    """
    from pressmark.snapshot import source_id_for_url  # noqa: PLC0415  # lazy

    candidates = [url]
    try:
        from pressmark.egress import parse_url  # noqa: PLC0415  # lazy

        parsed = parse_url(url)
        candidates.insert(0, parsed.origin + parsed.target)
    except (PressmarkError, ValueError):
        pass
    for candidate in candidates:
        try:
            history = store.list(source_id_for_url(candidate))
        except (OSError, ValueError, PressmarkError):
            history = []
        if history:
            return [ref.source_ref for ref in history]
    return []


def latest_two(store: _Store, url: str) -> tuple[str, str]:
    """The sourceRefs of the two newest captures of ``url`` (older first).

    CitationError ``not-found`` when the store holds no capture of it, ``one-capture``
    when it holds a single one (nothing to compare).
    """
    history = captures_of(store, url)
    if not history:
        raise CitationError(f"the store holds no capture of {url}", code="not-found")
    if len(history) < 2:  # two sides to a diff
        raise CitationError(f"the store holds one capture of {url}: nothing to compare "
                            f"({history[0]})", code="one-capture")
    return history[1], history[0]


def gone_status(crawl_dir: str | os.PathLike[str], url: str) -> int | None:
    """The status of ``url``'s record in a crawl directory's ``pages.jsonl`` when that
    recrawl found it gone (``change`` ``gone``: a 404 or 410 after a capture), else
    ``None`` (the last record of the URL counts, as a resumed crawl may write two)."""
    pages = Path(crawl_dir) / "pages.jsonl"
    found: int | None = None
    try:
        with pages.open("rb") as fh:
            for raw in fh:
                if url.encode("utf-8") not in raw:
                    continue
                try:
                    record = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(record, dict) and record.get("url") == url:
                    status = record.get("status")
                    found = status if record.get("change") == "gone" \
                        and isinstance(status, int) else None
    except OSError:
        return None
    return found
