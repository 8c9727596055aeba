"""``pressmark chunks OUT_DIR`` and ``pressmark cite verify REF QUOTE``.

``chunks`` writes one JSON object a line for every chunk of every page of a crawl that
has Markdown (the chunk, its page's sourceRef, URL, capture time, title and validation);
``cite verify`` checks a quote against the snapshot a sourceRef names, offline.

Exit codes: 0 the chunks written / the quote found (exact or normalised); 2 usage (not a
crawl directory, an empty quote, a bad ``--max-chars``); 4 a reference that does not
resolve; 5 the quote is not in the page (``not-found``), or the store is damaged.
"""

from __future__ import annotations

import json
import sys
from typing import NoReturn

import click

from pressmark.cli._hints import EXIT_CODES_EPILOG, EXIT_FAILURE, EXIT_UNRESOLVED, EXIT_USAGE

_UNRESOLVED_CODES = frozenset({"invalid-ref", "not-found", "snapshot-store-error"})


def _fail(code: str, message: str, status: int) -> NoReturn:
    click.echo(f"error: {code}: {message}", err=True)
    sys.exit(status)


@click.command("chunks", epilog=EXIT_CODES_EPILOG)
@click.argument("out_dir", type=click.Path(file_okay=False))
@click.option("--max-chars", type=int, default=2000, show_default=True,
              help="Longest chunk, in characters (a table row or code line longer than "
                   "this stays whole).")
@click.option("--overlap", type=int, default=0, show_default=True,
              help="Characters of the previous chunk of the same section to repeat, at a "
                   "block or sentence start.")
def chunks(out_dir: str, max_chars: int, overlap: int) -> None:
    """Write the chunks of every page of the crawl in OUT_DIR as JSON lines on stdout."""
    from pressmark.cite import chunk_markdown  # noqa: PLC0415  # --help stays fast
    from pressmark.cite._crawldir import CrawlDirError, crawl_pages  # noqa: PLC0415

    try:
        chunk_markdown("", max_chars=max_chars, overlap=overlap)
    except ValueError as exc:
        _fail("invalid-config", str(exc), EXIT_USAGE)
    pages = written = 0
    out = sys.stdout
    try:
        for page in crawl_pages(out_dir):
            pages += 1
            meta = page.metadata()
            for piece in chunk_markdown(page.markdown, page.block_map, max_chars=max_chars,
                                        overlap=overlap, source_ref=page.source_ref,
                                        url=meta["url"]):
                line = piece.to_dict()
                line.update(fetched_at=meta["fetched_at"], title=meta["title"],
                            validation=meta["validation"])
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
                written += 1
    except CrawlDirError as exc:
        _fail("invalid-config", str(exc), EXIT_USAGE)
    out.flush()
    click.echo(f"{written} chunk(s) from {pages} page(s)", err=True)


@click.group("cite", epilog=EXIT_CODES_EPILOG)
def cite() -> None:
    """Check citations against captured snapshots, offline."""


@cite.command("verify", epilog=EXIT_CODES_EPILOG)
@click.argument("ref")
@click.argument("quote")
@click.option("--store", "store_dir", required=True, type=click.Path(file_okay=False),
              help="Snapshot store root, or a crawl's output directory (its store).")
@click.option("--policy-version", default=None, metavar="VERSION",
              help="The conversion policy the quote was cited under (a citation's "
                   "policy_version): another version than this build's is warned about.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole answer as JSON.")
def verify(ref: str, quote: str, store_dir: str, policy_version: str | None,
           as_json: bool) -> None:
    """Is QUOTE in the page the sourceRef REF names? exact, normalised or not-found."""
    from pressmark import PressmarkError  # noqa: PLC0415
    from pressmark.cite import CitationError, Verifier  # noqa: PLC0415
    from pressmark.cite._stores import open_any_store  # noqa: PLC0415

    try:
        store = open_any_store(store_dir)
    except PressmarkError as exc:
        _fail("snapshot-store-error", f"{store_dir}: {exc.message}", EXIT_UNRESOLVED)
    try:
        check = Verifier(store, cache_pages=0).verify(ref, quote,
                                                      policy_version=policy_version)
    except CitationError as exc:
        status = EXIT_USAGE if exc.code in ("empty-quote", "quote-too-long") else \
            EXIT_UNRESOLVED if exc.code in _UNRESOLVED_CODES else EXIT_FAILURE
        _fail(exc.code, exc.message, status)
    if as_json:
        click.echo(json.dumps(check.to_dict(), ensure_ascii=False, indent=2))
    else:
        click.echo(_describe(check))
    sys.exit(0 if check.found else EXIT_FAILURE)


def _describe(check: object) -> str:
    from pressmark.cite import QuoteCheck  # noqa: PLC0415

    assert isinstance(check, QuoteCheck)
    lines = [f"{check.verdict}: {check.url} captured {check.fetched_at}"]
    if check.match is not None:
        start, end = check.match.markdown_span
        lines.append(f"markdown span: {start}-{end}"
                     + (f" ({check.occurrences} occurrences)" if check.occurrences > 1 else ""))
        lines += [f"element: {path}" for path in check.match.dom_paths]
        if check.differences:
            lines.append("differences: " + ", ".join(check.differences))
    if check.closest is not None:
        start, end = check.closest.markdown_span
        lines.append(f"closest passage ({check.similarity:.0%} similar), markdown span "
                     f"{start}-{end}: {json.dumps(check.closest.text, ensure_ascii=False)}")
    for other in check.other_snapshots:
        lines.append(f"found ({other.verdict}) in another capture of this page, fetched "
                     f"{other.fetched_at}: {other.source_ref}")
    if "policy-changed" in check.warnings:
        lines.append(f"warning: policy-changed: cited under {check.cited_policy_version}, "
                     f"checked against the Markdown of {check.policy_version} (spans and "
                     "wording may differ from the citation's)")
    return "\n".join(lines)
