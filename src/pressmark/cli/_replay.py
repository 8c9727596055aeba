"""``pressmark replay REF --store DIR [--out FILE]``: the exact bytes a sourceRef names.

Exit 0 with the bytes written; 2 when ``--store`` is no snapshot store (a crawl's OUT
instead of OUT/store is named as such); 4 with ``error: <code>: <message>`` on stderr when
the reference does not resolve (invalid-ref, not-found); 5 when the store holds it damaged
(snapshot-corrupt) or cannot be read, or the output cannot be written (output-error).
``--out`` is written atomically: it holds all the exact bytes, or is left untouched.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from typing import NoReturn

import click

from pressmark.cli._hints import (
    EXIT_CODES_EPILOG,
    EXIT_FAILURE,
    EXIT_UNRESOLVED,
    EXIT_USAGE,
    not_a_store,
)
from pressmark.snapshot import resolve_source_ref
from pressmark.store import StoreError, open_store

# A reference that names nothing is "not found" (4); one the store holds damaged, or a store
# that cannot be read, is a failure of the store (5).
_DAMAGE = frozenset({"snapshot-corrupt", "snapshot-store-error"})


@click.command("replay", epilog=EXIT_CODES_EPILOG)
@click.argument("ref")
@click.option("--store", "store_dir", required=True, type=click.Path(file_okay=False),
              help="Snapshot store root (a crawl's OUT/store; segments or files).")
@click.option("--out", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              show_default=True, help="Where to write the bytes ('-' is stdout).")
@click.option("--text", is_flag=True,
              help="Write the decoded text (UTF-8) instead of the exact bytes.")
def replay(ref: str, store_dir: str, out: str, text: bool) -> None:
    """Write the exact bytes the sourceRef REF names."""
    problem = not_a_store(store_dir)
    if problem is not None:
        _fail("not-a-store", problem, EXIT_USAGE)
    try:
        store = open_store(store_dir)  # either format, by its marker
    except StoreError as exc:
        _fail("snapshot-store-error", f"{store_dir}: {exc.message}", EXIT_FAILURE)
    result = resolve_source_ref(store, ref)
    if result.snapshot is None:
        assert result.error is not None
        _fail(result.error.code, result.error.message,
              EXIT_FAILURE if result.error.code in _DAMAGE else EXIT_UNRESOLVED)
    data = result.snapshot.body.encode("utf-8") if text else result.snapshot.bytes
    try:
        if out == "-":
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            _write_atomically(Path(out), data)
    except OSError as exc:
        _fail("output-error", "could not write the output "
              f"({exc.strerror + ', ' if exc.strerror else ''}{type(exc).__name__})",
              EXIT_FAILURE)
    if out != "-":   # the bytes went to a file: say which, and what they are
        click.echo(f"wrote {len(data)} bytes to {out} ({result.snapshot.url}, captured "
                   f"{result.snapshot.fetched_at})", err=True)


def _write_atomically(path: Path, data: bytes) -> None:
    """All the bytes or none: a half-written file must never pass for the evidence."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with tmp.open("xb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def _fail(code: str, message: str, status: int) -> NoReturn:
    click.echo(f"error: {code}: {message}", err=True)
    sys.exit(status)
