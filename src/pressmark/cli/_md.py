"""``pressmark md``: HTML files to deterministic Markdown.

``pressmark md page.html --url https://example.com/a`` prints Markdown (or, with
``--json``, the whole result). ``pressmark md --batch IN_DIR OUT_DIR`` converts
every ``*.html`` in IN_DIR to ``OUT_DIR/<name>.md`` (plus ``<name>.json`` with
``--json``, and ``<name>.chunks.jsonl``, the page's citable chunks as ``pressmark chunks``
writes them, with ``--chunks``); ``--jobs auto`` (the default) uses a process pool only
when there are enough pages to pay for the workers. Exit status 0 when every page
converted, 5 when any page raised, 2 for usage errors.

Start-up is most of what a small ``pressmark md`` costs (a page converts in a few
milliseconds, the interpreter and the converter take some 50 to load), so this command
reads its own arguments with ``argparse`` and ``pressmark.cli.run`` calls ``main`` before
click is imported: click, with the ``uuid``, ``platform`` and ``datetime`` it loads, is
a fifth of that start-up. The click group reaches the same ``main`` (``pressmark.cli._main``
passes the arguments through), so there is one definition of the command. Paths are plain
``str`` and ``os`` calls for the same reason: ``pathlib`` (with the ``urllib.parse`` and
``ipaddress`` it imports) would cost more than the rest of this module.
"""

from __future__ import annotations

import gc
import os
import sys

from pressmark.cli._hints import EXIT_CODES_EPILOG, EXIT_FAILURE, EXIT_USAGE, command_prefix

TYPE_CHECKING = False  # mypy reads it; ``typing`` loads with the converter, not before
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence


def _read(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


def _write(directory: str, name: str, text: str | bytes) -> None:
    """Atomic: a temp file beside the target, renamed over it (raw ``os`` calls, no text
    layer); ``str`` is written as UTF-8."""
    path = os.path.join(directory, name)
    tmp = os.path.join(directory, f".{name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, text.encode("utf-8") if isinstance(text, str) else text)
    finally:
        os.close(fd)
    try:
        os.replace(tmp, path)
    except OSError:
        os.unlink(tmp)
        raise


# (source file, OUT_DIR, --json, --chunks max_chars or 0 for none, --overlap)
Job = tuple[str, str, bool, int, int]


def _chunk_lines(result: object, max_chars: int, overlap: int) -> bytes:
    """The page's chunks, one JSON object a line (``pressmark.cite.chunk``), as UTF-8;
    imported only when ``--chunks`` asks, so a batch without it pays nothing."""
    from pressmark.cite._chunks import chunk_lines_utf8  # noqa: PLC0415

    return chunk_lines_utf8(result, max_chars=max_chars,  # type: ignore[arg-type]
                            overlap=overlap)


def _convert_one(job: Job) -> str | None:
    source, out_dir, with_json, max_chars, overlap = job
    from pressmark.markdown import to_markdown  # noqa: PLC0415 - `--help` stays fast

    name = os.path.basename(source)
    stem = os.path.splitext(name)[0]
    try:
        data = _read(source)
        refusal = refuse_input(data, name)
        if refusal is not None:
            return f"{name}: {refusal[0]}: {refusal[1]}"
        result = to_markdown(data)  # bytes: read as a snapshot of them is
        _write(out_dir, f"{stem}.md", result.markdown)
        if with_json:
            _write(out_dir, f"{stem}.json", result.to_json() + "\n")
        if max_chars:
            _write(out_dir, f"{stem}.chunks.jsonl", _chunk_lines(result, max_chars, overlap))
    except Exception as exc:  # reading, converting or writing: reported per page
        return f"{name}: {type(exc).__name__}: {exc}"
    return None


# Input codes ``pressmark md`` refuses with (the user guide lists them with every error kind).
EMPTY_INPUT = "empty-input"
BINARY_INPUT = "binary-input"


def refuse_input(data: bytes, name: str) -> tuple[str, str] | None:
    """``(code, message)`` when ``data`` is no HTML to convert: empty (or only whitespace),
    or binary (a PDF, an image, a gzip file: NUL bytes or undecodable control bytes in its
    first KiB, as the snapshot layer sniffs content). ``None`` for anything to convert."""
    if not data.strip():
        what = "nothing" if not data else "only whitespace"
        return EMPTY_INPUT, f"{name} holds {what}: no HTML to convert"
    from pressmark.snapshot import classify_content_type  # noqa: PLC0415 - loaded on use

    if classify_content_type(None, data[:1024]) == "binary":
        return BINARY_INPUT, (f"{name} is binary data, not HTML (starts {data[:8]!r}); "
                              "pressmark md converts HTML pages")
    return None


# A forked worker costs ~20 ms of CPU (its copy-on-write page faults, ~4,000 on a 2-core
# machine), about what 5 or 6 pages cost to convert: with 64 pages a worker, a second
# worker adds under 5 % to a batch's CPU, and halves the wall time of every batch big
# enough for it to matter (a 60-page batch takes ~0.2 s on one core).
PAGES_PER_WORKER = 64

# Allocations between young-generation collections while pages convert (CPython's default
# is 700). A page's tree is freed by reference counting once converted (``Document.release``
# breaks its only cycle), so the collector finds next to nothing: at the default it ran 74
# times over the 63 dev pages, each walking the tree being built (1.4 % of the batch's CPU);
# at this threshold 14 times, freeing the same 140 objects, for the same peak memory.
GC_YOUNG_THRESHOLD = 20_000


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def auto_jobs(pages: int, cores: int) -> int:
    """Workers for ``--jobs auto``: one per core, but only with enough pages to pay for it."""
    return max(1, min(cores, pages // PAGES_PER_WORKER))


def _run_forked(work: list[Job], jobs: int) -> list[str]:
    """Pages ``i, i + jobs, ...`` go to worker ``i``; this process is worker 0.

    Plain ``fork`` after the converter is imported (and frozen, see ``_run_batch``): a
    worker starts with it loaded and
    costs little more than the fork, with no pool, queues or pickling. A worker sends
    its failure lines back through a pipe; one that dies unreported counts as failed.
    """
    children: list[tuple[int, int]] = []
    for index in range(1, jobs):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: convert its share, report, exit without cleanup
            status = 1
            try:
                os.close(read_end)
                lines = [e for e in map(_convert_one, work[index::jobs]) if e is not None]
                with os.fdopen(write_end, "wb") as pipe:
                    pipe.write("\n".join(lines).encode("utf-8", "replace"))
                status = 0
            finally:  # a worker never returns into the caller, whatever happened
                os._exit(status)
        os.close(write_end)
        children.append((pid, read_end))
    failed = [e for e in map(_convert_one, work[0::jobs]) if e is not None]
    for index, (pid, read_end) in enumerate(children, start=1):
        with os.fdopen(read_end, "rb") as pipe:
            report = pipe.read().decode("utf-8", "replace")
        _, status = os.waitpid(pid, 0)
        if status != 0:
            failed.append(f"worker {index} failed (wait status {status}); its pages may be "
                          "missing")
        failed.extend(line for line in report.split("\n") if line)
    return failed


def _load_converter(*, chunks: bool = False) -> None:
    """Import the converter, and the snapshot layer every page is decoded with.

    The imported modules never become garbage: frozen, the collector stops walking them
    after every page, and a forked worker's collections do not touch (and copy) them.
    Nor need it walk them while they load: collection is off for the import. From then
    on it runs less often (``GC_YOUNG_THRESHOLD``).
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        import pressmark.markdown  # noqa: PLC0415 - `--help` stays fast
        import pressmark.snapshot  # noqa: PLC0415 - as above

        if chunks:  # before the fork too: every worker would import it again
            import pressmark.cite._chunks  # noqa: F401, PLC0415 - only with --chunks
    finally:
        gc.freeze()
        gc.set_threshold(GC_YOUNG_THRESHOLD)
        if collecting:
            gc.enable()


def _run_batch(in_dir: str, out_dir: str, jobs: int | None, with_json: bool, *,
               max_chars: int = 0, overlap: int = 0) -> int:
    with os.scandir(in_dir) as entries:
        sources = sorted(e.path for e in entries
                         if os.path.splitext(e.name)[1] == ".html" and e.is_file())
    os.makedirs(out_dir, exist_ok=True)
    work = [(path, out_dir, with_json, max_chars, overlap) for path in sources]
    if jobs is None:
        jobs = auto_jobs(len(work), _cores())
    jobs = min(jobs, len(work))
    _load_converter(chunks=max_chars > 0)  # once, before any fork
    if jobs > 1 and hasattr(os, "fork"):
        failed = _run_forked(work, jobs)
    elif jobs > 1:
        from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415 - no fork here

        with ProcessPoolExecutor(max_workers=jobs) as pool:
            failed = [e for e in pool.map(_convert_one, work, chunksize=4) if e is not None]
    else:
        failed = [e for e in map(_convert_one, work) if e is not None]
    report = [*sorted(failed),  # the same report whatever the --jobs
              f"converted {len(work) - len(failed)} of {len(work)} *.html file(s) from "
              f"{in_dir} into {out_dir}"]
    sys.stderr.write("\n".join(report) + "\n")
    sys.stderr.flush()
    return EXIT_FAILURE if failed else 0


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def _jobs(value: str) -> int | None:
    """``--jobs``: ``auto`` (None) or a worker count from 1 to 64."""
    import argparse  # noqa: PLC0415 - loaded by ``_parser`` already

    if value == "auto":
        return None
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if not 1 <= jobs <= 64:
        raise argparse.ArgumentTypeError(f"{value!r}: expected 'auto' or a number from 1 to 64")
    return jobs


def _columns() -> int:
    """The terminal's width, as ``shutil.get_terminal_size`` reads it ($COLUMNS first)."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


def _parser(prog: str) -> argparse.ArgumentParser:
    import argparse  # noqa: PLC0415 - only once the command is run

    class Formatter(argparse.RawDescriptionHelpFormatter):
        """Told the width: ``argparse``'s own asks ``shutil`` (and so loads ``bz2`` and
        ``lzma``, a tenth of this command's start-up) every time a parser is built."""

        def __init__(self, prog: str) -> None:
            super().__init__(prog, width=max(_columns(), 40) - 2)

    parser = argparse.ArgumentParser(
        prog=prog, formatter_class=Formatter,
        description="Convert HTML to deterministic Markdown (FILE, or - / nothing for stdin).",
        epilog=EXIT_CODES_EPILOG.removeprefix("\b\n"))
    parser.add_argument("source", nargs="?", metavar="FILE|-",
                        help="an HTML file, - for stdin; with --batch a directory")
    parser.add_argument("out_dir", nargs="?", metavar="OUT_DIR",
                        help="with --batch: where <name>.md (and <name>.json) go")
    parser.add_argument("--url",
                        help="the page's URL: links resolve against it, canonical is checked")
    parser.add_argument("--json", dest="as_json", action="store_true",
                        help="print (or write) the full result as JSON")
    parser.add_argument("--batch", action="store_true",
                        help="FILE is a directory: convert every *.html in it into OUT_DIR "
                             "(exit 5 if any fails)")
    parser.add_argument("--chunks", action="store_true",
                        help="with --batch: also write <name>.chunks.jsonl, the page's "
                             "citable chunks (as pressmark chunks writes them)")
    parser.add_argument("--max-chars", type=int, default=2000, metavar="N",
                        help="with --chunks: the chunks' size (default 2000)")
    parser.add_argument("--overlap", type=int, default=0, metavar="N",
                        help="with --chunks: characters a chunk repeats of the one before")
    parser.add_argument("--keep-hidden-text", action="store_true",
                        help="keep text a reader would not see (display:none, off-screen, "
                             "aria-hidden, ...) in the Markdown; by default it is left out "
                             "(the evidence's hidden_text lists it either way)")
    parser.add_argument("--jobs", default="auto", type=_jobs, metavar="N|auto",
                        help="worker processes for --batch; auto (the default): one per core, "
                             f"at most one per {PAGES_PER_WORKER} pages")
    return parser


def main(argv: Sequence[str], prog: str = "pressmark md") -> int:
    """Run ``pressmark md`` with ``argv`` (the arguments after ``md``); the exit status.

    Usage errors print the usage and raise ``SystemExit(2)`` (``argparse``'s code, the
    CLI's ``EXIT_USAGE``).
    """
    parser = _parser(prog)
    args = parser.parse_args(list(argv))
    try:
        return _run(parser, args)
    except KeyboardInterrupt:
        sys.stderr.write("Aborted!\n")
        return 1


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    source: str | None = args.source
    if args.batch:
        if not source or not args.out_dir:
            parser.error("--batch needs a directory of *.html files and OUT_DIR")
        if not os.path.isdir(source):
            parser.error(f"not a directory: {source}")
        if args.chunks and not (args.max_chars >= 64 and 0 <= args.overlap < args.max_chars):
            parser.error("--max-chars must be at least 64, --overlap from 0 to --max-chars - 1")
        if args.keep_hidden_text:
            parser.error("--keep-hidden-text converts one page (FILE or -), not --batch")
        return _run_batch(source, args.out_dir, args.jobs, args.as_json,
                          max_chars=args.max_chars if args.chunks else 0, overlap=args.overlap)
    if args.chunks:
        parser.error("--chunks is only valid with --batch (pressmark chunks OUT_DIR reads a "
                     "crawl's)")
    if source is not None and source != "-" and os.path.isdir(source):
        out = args.out_dir or "OUT_DIR"
        parser.error(f"{source} is a directory: to convert every *.html in it, run "
                     f"{command_prefix()} md --batch {source} {out}")
    if args.out_dir is not None:
        parser.error("OUT_DIR is only valid with --batch")
    if source is None and _stdin_is_terminal():
        # Nothing piped in: waiting silently for HTML typed at a terminal helps nobody.
        parser.error("give an HTML FILE, or pipe HTML in (pressmark md - reads a terminal too)")
    _load_converter()
    from pressmark.markdown import (  # noqa: PLC0415 - loaded above
        ConversionPolicy,
        MarkdownError,
        to_markdown,
    )

    if source in (None, "-"):
        data = sys.stdin.buffer.read()
    else:
        try:
            data = _read(source)
        except OSError as exc:
            parser.error(f"cannot read {source}: {exc.strerror}")
    refusal = refuse_input(data, "stdin" if source in (None, "-") else source)
    if refusal is not None:
        sys.stderr.write(f"error: {refusal[0]}: {refusal[1]}\n")
        return EXIT_USAGE
    try:
        if args.keep_hidden_text:
            result = to_markdown(data, url=args.url,
                                 policy=ConversionPolicy(keep_hidden_text=True))
        else:
            result = to_markdown(data, url=args.url)
    except MarkdownError as exc:  # a conversion budget (conversion-limit:*): no Markdown
        sys.stderr.write(f"error: {exc.code}: {exc.message}\n")
        return EXIT_FAILURE
    # bytes the charset could not read, caps the page was cut to: say so
    for warning in result.warnings:
        sys.stderr.write(f"warning: {warning}\n")
    sys.stderr.flush()
    out = result.to_json() + "\n" if args.as_json else result.markdown
    sys.stdout.buffer.write(out.encode("utf-8"))
    sys.stdout.flush()
    return 0

