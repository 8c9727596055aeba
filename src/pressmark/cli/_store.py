"""``pressmark store``: inspect, verify, repair, prune, export, import and migrate stores.

Every sub-command opens a store in either format (segments or files) by its marker.

Exit codes: 0 success (``verify`` notes on debris of interrupted writes included);
5 when ``verify`` finds damage, an import has errors,
or the store cannot be read or written (``error: <code>: <message>`` on stderr);
4 when ``ls SOURCE_ID`` names a source the store does not have; 2 for usage
errors (a ROOT that does not exist or is no store included: "did you mean OUT/store").
No sub-command creates a store except ``import-warc``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import click

from pressmark._errors import PressmarkError
from pressmark.cli._hints import (
    EXIT_CODES_EPILOG,
    EXIT_FAILURE,
    EXIT_UNRESOLVED,
    EXIT_USAGE,
    not_a_store,
)
from pressmark.store import SegmentStore, export_warc, import_warc, open_store, store_format
from pressmark.store._open import DurableStore, migrate_store
from pressmark.store._protocol import VerifyProblem

_DIR = click.Path(file_okay=False)
_EXISTING_DIR = click.Path(file_okay=False, exists=True)


def _fail(code: str, message: str, status: int = EXIT_FAILURE) -> NoReturn:
    click.echo(f"error: {code}: {message}", err=True)
    sys.exit(status)


@contextmanager
def _errors() -> Iterator[None]:
    try:
        yield
    except BrokenPipeError:
        # `pressmark store ls ROOT | head`: the reader has all it wanted; say nothing more.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):   # no real stdout (tests): nothing left to silence
            pass
        sys.exit(0)
    except PressmarkError as exc:
        _fail(exc.code, exc.message)
    except OSError as exc:
        _fail("snapshot-store-error",
              f"I/O error ({exc.strerror + ', ' if exc.strerror else ''}{type(exc).__name__})")


def _open(root: str) -> DurableStore:
    problem = not_a_store(root)
    if problem is not None:  # a usage slip (a crawl's OUT for OUT/store, most often)
        _fail("not-a-store", problem, EXIT_USAGE)
    try:
        return open_store(root)
    except PressmarkError as exc:
        _fail(exc.code, f"{root}: {exc.message}")
    except OSError as exc:
        _fail("snapshot-store-error", f"{root}: {exc.strerror or type(exc).__name__}")


@click.group("store", epilog=EXIT_CODES_EPILOG)
def store() -> None:
    """Inspect, verify, prune and export snapshot stores."""


@store.command("ls", epilog=EXIT_CODES_EPILOG)
@click.argument("root", type=_EXISTING_DIR)
@click.argument("source_id", required=False)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
def ls(root: str, source_id: str | None, as_json: bool) -> None:
    """List sources, or the history of SOURCE_ID (newest first)."""
    target = _open(root)
    with _errors():
        if source_id is None:
            for sid in target.sources():
                history = target.list(sid)
                row = {"source_id": sid, "snapshots": len(history),
                       "latest": history[0].fetched_at if history else None,
                       "url": history[0].url if history else None}
                click.echo(json.dumps(row) if as_json else
                           f"{sid}\t{row['snapshots']}\t{row['latest']}\t{row['url']}")
            return
        history = target.list(source_id)
        if not history:
            _fail("not-found", f"no snapshots of source {source_id!r} in {root}",
                  EXIT_UNRESOLVED)
        for ref in history:
            row = {"fetched_at": ref.fetched_at, "snapshot_sha256": ref.snapshot_sha256,
                   "body_hash": ref.body_hash, "url": ref.url, "source_ref": ref.source_ref}
            click.echo(json.dumps(row) if as_json else
                       f"{ref.fetched_at}\t{ref.snapshot_sha256[:16]}\t{ref.url}\t{ref.source_ref}")


@store.command("verify", epilog=EXIT_CODES_EPILOG)
@click.argument("root", type=_EXISTING_DIR)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def verify(root: str, as_json: bool) -> None:
    """Read every record and index; exit 5 on damage (debris of interrupted writes is a note)."""
    with _errors():
        report = _open(root).verify()

    def rows(items: tuple[VerifyProblem, ...]) -> list[dict[str, str | None]]:
        return [{"code": p.code, "source_id": p.source_id, "detail": p.detail} for p in items]

    if as_json:
        click.echo(json.dumps({
            "ok": report.ok, "sources": report.sources, "records": report.records,
            "problems": rows(report.problems), "notes": rows(report.notes),
        }, indent=2))
    else:
        for problem in report.problems:
            click.echo(f"{problem.code}\t{problem.source_id}\t{problem.detail}")
        for note in report.notes:
            click.echo(f"note: {note.code}\t{note.source_id}\t{note.detail}")
        status = "ok" if report.ok else f"{len(report.problems)} problem(s)"
        if report.notes:
            status += (f", {len(report.notes)} leftover(s) of interrupted writes "
                       "(`pressmark store repair` removes them)")
        click.echo(f"{report.sources} source(s), {report.records} record(s): {status}")
    if not report.ok:
        sys.exit(EXIT_FAILURE)


@store.command("repair", epilog=EXIT_CODES_EPILOG)
@click.argument("root", type=_EXISTING_DIR)
@click.option("--rebuild-index", is_flag=True,
              help="Segment stores: build the index again from the segments alone (done "
                   "anyway when the index is missing or unreadable).")
def repair(root: str, rebuild_index: bool) -> None:
    """Remove leftovers of interrupted writes and restore missing index entries.

    No snapshot is removed or changed: the filesystem store repairs each source under
    its write lock; the segment store cuts interrupted appends off segments no writer
    holds, and rebuilds its index from the segments when it is missing or unreadable.
    """
    target = _open(root)
    with _errors():
        if rebuild_index:
            if not isinstance(target, SegmentStore):
                _fail("invalid-config", "--rebuild-index applies to segment stores only",
                      EXIT_USAGE)
            click.echo(f"rebuilt the index: {target.rebuild_index()} snapshot(s)")
        report = target.repair()
    for source_id, fixes in report.per_source:
        click.echo(f"{source_id}\tfixed {fixes}")
    click.echo(f"{report.sources} source(s): {report.fixed} fix(es)")


@store.command("prune", epilog=EXIT_CODES_EPILOG)
@click.argument("root", type=_EXISTING_DIR)
@click.option("--keep-last", type=click.IntRange(min=0), required=True,
              help="Keep this many newest snapshots per source (the head is always kept).")
@click.option("--keep", "keep", multiple=True, help="A sourceRef or digest to keep (repeatable).")
@click.option("--source", "sources", multiple=True,
              help="Prune only this source id (repeatable; default: every source).")
def prune(root: str, keep_last: int, keep: tuple[str, ...], sources: tuple[str, ...]) -> None:
    """Apply a retention rule and clean up after interrupted writes."""
    target = _open(root)
    with _errors():
        for sid in sources or tuple(target.sources()):
            report = target.prune(sid, keep_last, keep)
            click.echo(f"{sid}\tkept {len(report.kept)}\tremoved {len(report.removed)}"
                       f"\tcleaned {report.cleaned}")


@store.command("export-warc", epilog=EXIT_CODES_EPILOG)
@click.argument("root", type=_EXISTING_DIR)
@click.argument("out", type=click.Path(dir_okay=False, writable=True))
@click.option("--source", "sources", multiple=True, help="Export only this source id.")
def export(root: str, out: str, sources: tuple[str, ...]) -> None:
    """Write the store (or some sources) as a WARC/1.1 file (.warc.gz is gzipped)."""
    target = _open(root)
    with _errors():
        count = export_warc(target, out, sources=sources or None,
                            gzip=not out.endswith(".warc"))
    click.echo(f"exported {count} snapshot(s) to {out}")


@store.command("import-warc", epilog=EXIT_CODES_EPILOG)
@click.argument("warc", type=click.Path(exists=True, dir_okay=False))
@click.argument("root", type=_DIR)
@click.option("--pressmark-only", is_flag=True,
              help="Skip records that were not exported by pressmark.")
@click.option("--store-format", type=click.Choice(["segments", "files"]), default=None,
              help="Format of a store created here (default: segments).")
def import_(warc: str, root: str, pressmark_only: bool, store_format: str | None) -> None:
    """Put every snapshot of a WARC file into the store (created if missing)."""
    with _errors():
        target = open_store(root, create=True, format=store_format)  # type: ignore[arg-type]
        report = import_warc(target, warc, foreign=not pressmark_only)
    for warning in report.warnings:
        click.echo(f"warning: {warning}", err=True)
    for error in report.errors:
        click.echo(f"error: {error}", err=True)
    kinds = ", ".join(f"{count} {kind}" for kind, count in report.skipped_by_type)
    click.echo(f"imported {report.imported} snapshot(s) into {root}, skipped "
               f"{report.skipped} record(s){f' ({kinds})' if kinds else ''}"
               f"{f', refused or failed: {len(report.errors)}' if report.errors else ''}")
    if not report.ok:
        sys.exit(EXIT_FAILURE)


@store.command("migrate", epilog=EXIT_CODES_EPILOG)
@click.argument("src", type=_EXISTING_DIR)
@click.argument("dst", type=_DIR)
@click.option("--to", "to_format", type=click.Choice(["segments", "files"]), default=None,
              help="Format of DST when it is created (default: the other one of SRC's).")
def migrate(src: str, dst: str, to_format: str | None) -> None:
    """Copy every snapshot of SRC into DST (created if missing), under the same sourceRefs.

    Either format into either; DST may already hold snapshots (those are kept, and
    the ones it holds already are not copied again).
    """
    source = _open(src)
    with _errors():
        if to_format is None:
            to_format = store_format(dst) or (
                "files" if isinstance(source, SegmentStore) else "segments")
        target = open_store(dst, create=True, format=to_format)  # type: ignore[arg-type]
        report = migrate_store(source, target)
        check = target.verify()
    click.echo(f"migrated {report.snapshots} snapshot(s) of {report.sources} source(s) into "
               f"{dst} ({report.already} already there); verify: "
               f"{'ok' if check.ok else f'{len(check.problems)} problem(s)'}")
    if not check.ok:
        sys.exit(EXIT_FAILURE)
