"""Bounded reading of WARC records for import: heads with limits, bodies with strict framing.

warcio reads every head line by line with no limit (one 800 MB header line in an
815 KB ``.warc.gz`` took an import to 2.4 GB; 5 million HTTP header lines in 58 KB
took 19 s and became a 58 MB record). Here every line is read with a cap, *before*
anything is parsed:

* WARC heads: a line, and the whole head, at most :data:`MAX_WARC_HEAD_BYTES`; at most
  :data:`MAX_WARC_HEAD_LINES` lines. Past a WARC head's limit the archive cannot be
  read on (where the record ends is in that head): :class:`HeadTooLarge` stops it.
* HTTP heads inside records: the live limits (``pressmark.egress``: 64 KiB, 256 header
  lines). The record is refused and the import goes on (its length is known).
* Any other line warcio reads (between records) is capped like a WARC head line.

HTTP bodies are read in pieces of :data:`PIECE` bytes, never a whole chunk or record at
once: ``Transfer-Encoding: chunked`` is decoded here, strictly (after the first valid
chunk, bad framing refuses the record; a first line that is no chunk size is a body
stored already de-chunked, as some tools do, and says so), and a body that ends before
its last chunk or before its ``Content-Length`` is imported with a named warning
(:data:`TRUNCATED`), as the recorder captured it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pressmark.egress._http1 import MAX_HEAD_BYTES, MAX_HEADERS  # the live limits

MAX_WARC_HEAD_BYTES = 1024 * 1024
"""A WARC head line and a whole WARC head (pressmark's envelope is one line of it)."""
MAX_WARC_HEAD_LINES = 256
MAX_HTTP_HEAD_BYTES = MAX_HEAD_BYTES
MAX_HTTP_HEAD_LINES = MAX_HEADERS + 1  # the status line and 256 header lines
PIECE = 64 * 1024
_COMPRESSED_READ = 4 * 1024
TRUNCATED = "import-truncated-body"
_CHUNK_LINE = 1024
_CHUNK_SIZE = re.compile(rb"([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\r\n]*)?\r?\n\Z")
_MAX_TRAILER_LINES = 64


class HeadTooLarge(Exception):
    """A WARC head (or a line between records) broke its limit: the archive stops here."""


class FramingError(Exception):
    """The record's HTTP body framing is broken (not just cut short): refuse the record."""


def bounded_reader(fh: Any) -> Any:
    """warcio's reader of ``fh`` whose every line is capped (see the module docstring)."""
    from warcio.bufferedreaders import DecompressingBufferedReader  # noqa: PLC0415

    class _Reader(DecompressingBufferedReader):  # type: ignore[misc]  # warcio is untyped
        def readline(self, length: int | None = None) -> bytes:
            cap = MAX_WARC_HEAD_BYTES + 1 if length is None else min(length,
                                                                     MAX_WARC_HEAD_BYTES + 1)
            line: bytes = super().readline(cap)
            if len(line) > MAX_WARC_HEAD_BYTES:
                raise HeadTooLarge(f"a line of the archive is longer than {MAX_WARC_HEAD_BYTES}"
                                   " bytes")
            return line

    # Compressed bytes are read a few KiB at a time: warcio inflates each read whole, and
    # a gzip member inflates up to ~1,000 times (16 KiB read, 16 MiB held).
    return _Reader(fh, block_size=_COMPRESSED_READ)


class _Lines:
    """``readline`` within one head's limits; ``problem`` once they are broken.

    ``strict``: raise :class:`HeadTooLarge`. Otherwise end the head with an empty line
    (so warcio's parser stops reading at once) and leave ``problem`` for the caller.
    """

    def __init__(self, stream: Any, *, max_bytes: int, max_lines: int, used: int,
                 what: str, strict: bool) -> None:
        self.stream = stream
        self.left = max_bytes - used
        self.lines_left = max_lines - (1 if used else 0)
        self.max_bytes = max_bytes
        self.max_lines = max_lines
        self.what = what
        self.strict = strict
        self.problem: str | None = None

    def readline(self, length: int | None = None) -> bytes:
        if self.problem is not None:
            return b"\r\n"
        want = self.left + 1 if length is None else min(length, self.left + 1)
        line: bytes = self.stream.readline(max(want, 1))
        self.left -= len(line)
        self.lines_left -= 1
        if self.left < 0:
            problem = f"its {self.what} head is over {self.max_bytes} bytes"
        elif self.lines_left < 0:
            problem = f"its {self.what} head has over {self.max_lines} lines"
        else:
            return line
        if self.strict:
            raise HeadTooLarge(problem)
        self.problem = problem
        return b"\r\n"


def bounded_loader() -> Any:
    """warcio's record loader with bounded heads, reading ``HTTP://`` targets' heads too."""
    from warcio.recordloader import ArcWarcRecordLoader  # noqa: PLC0415
    from warcio.statusandheaders import StatusAndHeadersParser  # noqa: PLC0415

    class _Parser(StatusAndHeadersParser):  # type: ignore[misc]  # warcio is untyped
        def __init__(self, statuslist: list[str], verify: bool, *, warc: bool) -> None:
            super().__init__(statuslist, verify)
            self.warc = warc

        def parse(self, stream: Any, full_statusline: Any = None) -> Any:
            used = len(full_statusline or b"")
            if self.warc:
                if used > MAX_WARC_HEAD_BYTES:
                    raise HeadTooLarge(f"a WARC head line is over {MAX_WARC_HEAD_BYTES} bytes")
                lines = _Lines(stream, max_bytes=MAX_WARC_HEAD_BYTES, used=used, what="WARC",
                               max_lines=MAX_WARC_HEAD_LINES, strict=True)
            else:
                lines = _Lines(stream, max_bytes=MAX_HTTP_HEAD_BYTES, used=used, what="HTTP",
                               max_lines=MAX_HTTP_HEAD_LINES, strict=False)
            head = super().parse(lines, full_statusline)
            head.pressmark_problem = lines.problem
            return head

    class _Loader(ArcWarcRecordLoader):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(verify_http=False, arc2warc=False)
            self.warc_parser = _Parser(self.WARC_TYPES, True, warc=True)
            self.http_parser = _Parser(self.HTTP_TYPES, False, warc=False)
            self.http_req_parser = _Parser(self.HTTP_VERBS, False, warc=False)

        def load_http_headers(self, rec_type: Any, uri: Any, stream: Any, length: Any) -> Any:
            # warcio reads the HTTP head only for a lower-case ``http:`` target; a scheme
            # is case-insensitive (RFC 3986 3.1).
            if isinstance(uri, str) and ":" in uri:
                scheme, _, rest = uri.partition(":")
                uri = f"{scheme.lower()}:{rest}"
            return super().load_http_headers(rec_type, uri, stream, length)

    return _Loader()


def head_problem(head: Any) -> str | None:
    """Why a parsed HTTP head broke its limits (``None``: it did not)."""
    problem = getattr(head, "pressmark_problem", None)
    return problem if isinstance(problem, str) else None


def body_pieces(raw: Any, *, chunked: bool, declared: int | None,
                notes: list[str]) -> Iterator[bytes]:
    """The HTTP body's bytes as sent (still content-encoded), in pieces of at most
    :data:`PIECE`; truncation goes to ``notes``; broken framing raises FramingError."""
    if chunked:
        yield from _dechunked(raw, notes)
        return
    size = 0
    while data := raw.read(PIECE):
        size += len(data)
        yield data
    if declared is not None and size < declared:
        notes.append(f"{TRUNCATED}: the body ends after {size} of the {declared} bytes its "
                     "Content-Length declares")
    elif declared is not None and size > declared:
        notes.append(f"import-body-overlong: the body holds {size} bytes, its Content-Length "
                     f"declares {declared}; all are kept, as recorded")


def _dechunked(raw: Any, notes: list[str]) -> Iterator[bytes]:
    first = True
    while True:
        line = raw.readline(_CHUNK_LINE)
        if not line:
            notes.append(f"{TRUNCATED}: the chunked body ends before its last chunk")
            return
        match = _CHUNK_SIZE.match(line)
        if match is None:
            if not first:
                raise FramingError(f"a chunk size line is not valid ({line[:40]!r})")
            # Transfer-Encoding: chunked over a body stored de-chunked (some recorders do)
            notes.append("import-not-chunked: Transfer-Encoding says chunked, the body is "
                         "stored de-chunked; taken as it is")
            yield line
            while data := raw.read(PIECE):
                yield data
            return
        first = False
        size = int(match.group(1), 16)
        if size == 0:
            _trailers(raw)
            return
        while size:
            data = raw.read(min(size, PIECE))
            if not data:
                notes.append(f"{TRUNCATED}: the chunked body ends inside a chunk")
                return
            size -= len(data)
            yield data
        end = raw.readline(_CHUNK_LINE)
        if end not in (b"\r\n", b"\n"):
            if not end:
                notes.append(f"{TRUNCATED}: the chunked body ends before its last chunk")
                return
            raise FramingError("a chunk is not followed by its line break")


def _trailers(raw: Any) -> None:
    """The trailer section after the last chunk: header lines, then an empty line."""
    for _ in range(_MAX_TRAILER_LINES):
        line = raw.readline(_CHUNK_LINE)
        if line in (b"\r\n", b"\n", b""):
            break
        if len(line) >= _CHUNK_LINE:
            raise FramingError("a chunked body's trailer line is too long")
    else:
        raise FramingError("a chunked body has too many trailer lines")
    rest = raw.read(PIECE)
    if rest.strip(b"\r\n"):
        raise FramingError("bytes follow the last chunk of a chunked body")
