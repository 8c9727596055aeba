"""``pressmark md``: HTML files to deterministic Markdown.

``pressmark md page.html --url https://example.com/a`` prints Markdown (or, with
``--json``, the whole result). ``pressmark md --batch IN_DIR OUT_DIR`` converts
every ``*.html`` in IN_DIR to ``OUT_DIR/<name>.md`` (plus ``<name>.json`` with
``--json``), optionally over a process pool (``--jobs``). Exit status 0 when
every page converted, 1 when any page raised, 2 for usage errors.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path

import click

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)


def decode_html(data: bytes) -> str:
    """UTF-8 (BOM aware) first, then a ``<meta charset>`` in the first 4 KiB, then cp1252."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    m = _META_CHARSET.search(data[:4096])
    if m is not None:
        try:
            return data.decode(m.group(1).decode("ascii"), errors="replace")
        except LookupError:
            pass
    return data.decode("cp1252", errors="replace")


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8", newline="\n")
    tmp.replace(path)


def _convert_one(job: tuple[str, str, bool]) -> str | None:
    source, out_dir, with_json = job
    from pressmark.markdown import to_markdown  # noqa: PLC0415 - imported in the worker

    src = Path(source)
    try:
        result = to_markdown(decode_html(src.read_bytes()))
    except Exception as exc:  # reported per page; the batch goes on
        return f"{src.name}: {type(exc).__name__}: {exc}"
    out = Path(out_dir)
    _write(out / f"{src.stem}.md", result.markdown)
    if with_json:
        _write(out / f"{src.stem}.json", result.to_json() + "\n")
    return None


def _run_batch(in_dir: Path, out_dir: Path, jobs: int, with_json: bool) -> int:
    sources = sorted(p for p in in_dir.iterdir() if p.suffix == ".html" and p.is_file())
    out_dir.mkdir(parents=True, exist_ok=True)
    work = [(str(p), str(out_dir), with_json) for p in sources]
    errors: Iterable[str | None]
    if jobs <= 1 or len(work) < 2:
        errors = [_convert_one(w) for w in work]
    else:
        from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415 - only for --jobs

        with ProcessPoolExecutor(max_workers=jobs) as pool:
            errors = list(pool.map(_convert_one, work, chunksize=max(1, len(work) // (jobs * 4))))
    failed = [e for e in errors if e is not None]
    for line in failed:
        click.echo(line, err=True)
    return 1 if failed else 0


@click.command("md")
@click.argument("source", required=False, metavar="[FILE|-]")
@click.argument("out_dir", required=False, metavar="[OUT_DIR]")
@click.option("--url", help="The page's URL: links resolve against it, canonical is checked.")
@click.option("--json", "as_json", is_flag=True, help="Print (or write) the full result as JSON.")
@click.option("--batch", is_flag=True, help="Convert every *.html in SOURCE into OUT_DIR.")
@click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Worker processes for --batch.")
def md(  # noqa: PLR0917 - click's signature: one parameter per option
    source: str | None, out_dir: str | None, url: str | None, as_json: bool, batch: bool,
    jobs: int,
) -> None:
    """Convert HTML to deterministic Markdown (FILE, or - / nothing for stdin)."""
    if batch:
        if not source or not out_dir:
            raise click.UsageError("--batch needs IN_DIR and OUT_DIR")
        in_path = Path(source)
        if not in_path.is_dir():
            raise click.UsageError(f"not a directory: {source}")
        sys.exit(_run_batch(in_path, Path(out_dir), jobs, as_json))
    if out_dir is not None:
        raise click.UsageError("OUT_DIR is only valid with --batch")
    from pressmark.markdown import to_markdown  # noqa: PLC0415 - keeps `--help` fast

    if source in (None, "-"):
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(source).read_bytes()
        except OSError as exc:
            raise click.UsageError(f"cannot read {source}: {exc.strerror}") from exc
    result = to_markdown(decode_html(data), url=url)
    out = result.to_json() + "\n" if as_json else result.markdown
    sys.stdout.buffer.write(out.encode("utf-8"))
    sys.stdout.flush()
