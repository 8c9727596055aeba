"""Compare two captures of one source: the block-level diff ``pressmark diff`` reports
(:func:`pressmark.cite.diff_pages`, each side citable), a line diff of their Markdown and
the stability score.

Older captures have no Markdown file of their own (``DIR/markdown/`` holds the
latest conversion per source), so both sides are converted afresh from the
stored snapshots with :func:`pressmark.markdown.to_markdown`. Conversion is
deterministic, so this is the Markdown the crawl produced for that capture
(given the same policy version), and the two sides are comparable.

The work is bounded whatever the captures (a diff of two 0.9 MB captures took 131 s of
CPU per request): each side is diffed over its first :data:`MAX_DIFF_INPUT_LINES` lines,
and lines that recur in more than 1 % of a long side (blank lines, table rules) are not
used as anchors (difflib's ``autojunk``; with every such line an anchor the matcher is
quadratic in them: 4,000 lines of Markdown took 210 s).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pressmark._errors import PressmarkError
from pressmark.web._evidence import public_fields

if TYPE_CHECKING:
    from pressmark.cite._diff import CaptureDiff
    from pressmark.snapshot import Snapshot

MAX_DIFF_LINES = 5000
"""Diff lines shown at most."""
MAX_DIFF_INPUT_LINES = 20_000
"""Lines of each side's Markdown that are diffed at most."""
MAX_BLOCK_CHANGES = 500
"""Block changes shown at most (the counts are of all of them)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffLine:
    kind: Literal["same", "add", "del", "hunk"]
    text: str
    old: int | None = None
    new: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Comparison:
    lines: list[DiffLine]
    added: int
    removed: int
    truncated: bool
    stability: dict[str, Any] | None
    note: str | None
    blocks: CaptureDiff | None = None
    """The block-level diff (``pressmark diff``'s); the page shows its first
    :data:`MAX_BLOCK_CHANGES` changes."""


def convert(snapshot: Snapshot) -> tuple[str, Any]:
    """Markdown of one capture, and the full result (``None`` for non-HTML bodies): the
    conversion a crawl and a citation run (``pressmark.cite``'s ``convert_snapshot``)."""
    if snapshot.content_type != "html":
        return snapshot.body if snapshot.content_type != "binary" else "", None
    from pressmark.cite._pages import convert_snapshot  # noqa: PLC0415 - loads the parser

    result = convert_snapshot(snapshot)
    return result.markdown, result


def block_diff(old: Snapshot, new: Snapshot, old_result: Any, new_result: Any,
               ) -> CaptureDiff | None:
    """``pressmark diff``'s block-level diff of two captures from their conversions
    (``None`` unless both are HTML)."""
    if old_result is None or new_result is None:
        return None
    from pressmark.cite._diff import diff_pages  # noqa: PLC0415 - with the converter
    from pressmark.cite._pages import cited_page  # noqa: PLC0415
    from pressmark.snapshot import build_source_ref  # noqa: PLC0415

    return diff_pages(cited_page(old, build_source_ref(old), old_result),
                      cited_page(new, build_source_ref(new), new_result))


def compare(old: Snapshot, new: Snapshot) -> Comparison:
    try:
        old_md, old_result = convert(old)
        new_md, new_result = convert(new)
    except (ImportError, PressmarkError) as exc:
        return Comparison(
            lines=[], added=0, removed=0, truncated=False, stability=None,
            note=f"Markdown conversion unavailable: {exc}",
        )
    stability: dict[str, Any] | None = None
    if old_result is not None and new_result is not None:
        from pressmark.markdown import stability as stability_of  # noqa: PLC0415 - as above

        stability = public_fields(stability_of(old_result, new_result))
    blocks = block_diff(old, new, old_result, new_result)
    lines, added, removed, truncated = diff_lines(old_md, new_md)
    note = None if lines else "The Markdown of both captures is identical."
    longest = max(old_md.count("\n"), new_md.count("\n")) + 1
    if longest > MAX_DIFF_INPUT_LINES:
        note = (f"Only the first {MAX_DIFF_INPUT_LINES:,} lines of each side are compared "
                f"(the longer has {longest:,}).")
        truncated = True
    return Comparison(
        lines=lines, added=added, removed=removed, truncated=truncated,
        stability=stability, note=note, blocks=blocks,
    )


def diff_lines(old: str, new: str, context: int = 3) -> tuple[list[DiffLine], int, int, bool]:
    """A unified diff as typed lines with line numbers on both sides."""
    a = old.splitlines()[:MAX_DIFF_INPUT_LINES]
    b = new.splitlines()[:MAX_DIFF_INPUT_LINES]
    out: list[DiffLine] = []
    added = removed = 0
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=True)  # see the module docstring
    for group in matcher.get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        old_span = f"-{first[1] + 1},{last[2] - first[1]}"
        new_span = f"+{first[3] + 1},{last[4] - first[3]}"
        out.append(DiffLine(kind="hunk", text=f"@@ {old_span} {new_span} @@"))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(
                    DiffLine(kind="same", text=a[i], old=i + 1, new=j1 + (i - i1) + 1)
                    for i in range(i1, i2)
                )
                continue
            if tag in ("replace", "delete"):
                out.extend(DiffLine(kind="del", text=a[i], old=i + 1) for i in range(i1, i2))
                removed += i2 - i1
            if tag in ("replace", "insert"):
                out.extend(DiffLine(kind="add", text=b[j], new=j + 1) for j in range(j1, j2))
                added += j2 - j1
    truncated = len(out) > MAX_DIFF_LINES
    return out[:MAX_DIFF_LINES], added, removed, truncated
