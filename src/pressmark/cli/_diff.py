"""``pressmark diff REF_A REF_B --store DIR`` and ``pressmark diff URL --store DIR``.

The block-level diff of two captures (:mod:`pressmark.cite._diff`): the blocks of the
Markdown added, removed or changed, each with its span, element and a citation of its side.
With a URL, its two newest captures in the store are compared.

Exit codes: 0 the diff was made (whether or not anything changed; ``--exit-code``: 1 when
something did, like ``git diff``); 2 usage; 4 a reference or URL that does not resolve
(or a URL captured once); 5 a damaged store.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, NoReturn

import click

from pressmark.cli._hints import EXIT_CODES_EPILOG, EXIT_FAILURE, EXIT_UNRESOLVED, EXIT_USAGE

if TYPE_CHECKING:
    from pressmark.cite._diff import CaptureDiff

_UNRESOLVED_CODES = frozenset({"invalid-ref", "not-found", "snapshot-store-error",
                               "one-capture", "unsupported-content"})
_REF_PREFIX = "pressmark:snapshot:"
_SHOWN_CHARS = 240
_SIGNS = {"added": "+", "removed": "-", "changed": "~"}


def _fail(code: str, message: str, status: int) -> NoReturn:
    click.echo(f"error: {code}: {message}", err=True)
    sys.exit(status)


@click.command("diff", epilog=EXIT_CODES_EPILOG)
@click.argument("first")
@click.argument("second", required=False)
@click.option("--store", "store_dir", required=True, type=click.Path(file_okay=False),
              help="Snapshot store root, or a crawl's output directory (its store).")
@click.option("--json", "as_json", is_flag=True, help="Print the whole diff as JSON.")
@click.option("--exit-code", "exit_code", is_flag=True,
              help="Exit with 1 when the captures' Markdown differs.")
def diff(first: str, second: str | None, store_dir: str, as_json: bool,
         exit_code: bool) -> None:
    """Blocks added, removed and changed between two captures: REF_A REF_B (sourceRefs),
    or URL (its two newest captures in the store)."""
    from pressmark import PressmarkError  # noqa: PLC0415  # --help stays fast
    from pressmark.cite import CitationError, diff_captures  # noqa: PLC0415
    from pressmark.cite._stores import open_any_store  # noqa: PLC0415

    if second is None and first.startswith(_REF_PREFIX):
        _fail("invalid-config", "one sourceRef given: diff needs two, or a URL",
              EXIT_USAGE)
    if second is not None and not (first.startswith(_REF_PREFIX)
                                   and second.startswith(_REF_PREFIX)):
        _fail("invalid-config", "give two sourceRefs (pressmark:snapshot:v1?...), or one URL",
              EXIT_USAGE)
    try:
        store = open_any_store(store_dir)
    except PressmarkError as exc:
        _fail("snapshot-store-error", f"{store_dir}: {exc.message}", EXIT_UNRESOLVED)
    try:
        if second is not None:
            result = diff_captures(store, first, second)
        else:
            result = _of_url(store, store_dir, first)
    except CitationError as exc:
        status = EXIT_UNRESOLVED if exc.code in _UNRESOLVED_CODES else EXIT_FAILURE
        _fail(exc.code, exc.message, status)
    if as_json:
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        click.echo(_describe(result))
    sys.exit(1 if exit_code and not result.same_markdown else 0)


def _of_url(store: Any, store_dir: str, url: str) -> CaptureDiff:
    """The URL's two newest captures compared; a URL captured once that the crawl in
    ``store_dir`` found gone (404, 410) is compared with its deletion."""
    from pressmark.cite import Verifier, diff_captures  # noqa: PLC0415
    from pressmark.cite._diff import (  # noqa: PLC0415
        captures_of,
        gone_page,
        gone_status,
        latest_two,
    )

    history = captures_of(store, url)
    status = gone_status(store_dir, url) if len(history) == 1 else None
    if status is not None:
        return gone_page(Verifier(store).page(history[0]), status)
    return diff_captures(store, *latest_two(store, url))


def _describe(result: CaptureDiff) -> str:
    counts = result.counts()
    lines = [f"diff {result.url}",
             f"old: {result.old_fetched_at} {result.old_ref}",
             f"new: {result.new_fetched_at or '-'} {result.new_ref or '(nothing stored)'}"]
    if result.same_markdown:
        lines.append("no change: the Markdown of both captures is identical"
                     + (" (the same snapshot)" if result.same_snapshot else ""))
        return "\n".join(lines)
    if result.gone:
        lines.append(f"gone: the new capture is HTTP {result.new_status}")
    lines.append(f"{counts['changed']} changed, {counts['removed']} removed, "
                 f"{counts['added']} added block(s)"
                 + (" (truncated: the pages are too long to compare whole)"
                    if result.truncated else ""))
    for item in result.changes:
        side = item.new if item.new is not None else item.old
        assert side is not None
        spans = " -> ".join(f"{name} {s.markdown_span[0]}-{s.markdown_span[1]}"
                            for name, s in (("old", item.old), ("new", item.new))
                            if s is not None)
        lines.append(f"{_SIGNS[item.change]} {item.change} {side.kind} at {spans}: "
                     f"{side.dom_path or '(no element)'}")
        if item.old is not None:
            lines.append(f"  - {_short(item.old.text)}")
        if item.new is not None:
            lines.append(f"  + {_short(item.new.text)}")
    return "\n".join(lines)


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _SHOWN_CHARS else flat[:_SHOWN_CHARS - 3] + "..."
