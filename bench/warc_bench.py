"""WARC import cost: pressmark's fail-closed import beside warcio reading the same archive.

The peers are warcio itself, read the way a tool without checks reads it
(``ArchiveIterator`` and ``content_stream().read()`` per record, which is what
pressmark's import did before it checked anything) and with ``check_digests``
(what ``warcio check`` does). pressmark's import does that reading and digesting
plus bounded decoding, target, status and truncation checks, the charset decision,
snapshot hashing and a put into an in-memory store. All three run interleaved in
one process on one archive; the table gives medians and the ratio to plain warcio.

    .venv/bin/python bench/warc_bench.py --records 400 --rounds 7
"""

from __future__ import annotations

import argparse
import gzip
import io
import statistics
import time
from collections.abc import Callable

from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from pressmark.store import MemorySnapshotStore, import_warc


def build(records: int) -> bytes:
    """A gzipped WARC of ``records`` HTML responses (~20 KB; every other one gzip-encoded)."""
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True)
    for n in range(records):
        body = (f"<!doctype html><title>Page {n}</title><main>".encode()
                + f"<p>Paragraph {n} of a demo article, with words enough. </p>".encode() * 300
                + b"</main>")
        headers = [("Content-Type", "text/html; charset=utf-8")]
        if n % 2:
            body = gzip.compress(body, 6)
            headers.append(("Content-Encoding", "gzip"))
        http = StatusAndHeaders("200 OK", headers, protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record(
            f"http://bench.test/page/{n}", "response", payload=io.BytesIO(body),
            length=len(body), http_headers=http,
            warc_headers_dict={"WARC-Date": "2026-11-30T12:00:00Z"}))
    return buffer.getvalue()


def warcio_plain(data: bytes) -> int:
    count = 0
    for record in ArchiveIterator(io.BytesIO(data)):
        record.content_stream().read()
        count += 1
    return count


def warcio_checked(data: bytes) -> int:
    count = 0
    for record in ArchiveIterator(io.BytesIO(data), check_digests=True):
        record.content_stream().read()
        count += 1
    return count


def pressmark_import(data: bytes) -> int:
    report = import_warc(MemorySnapshotStore(), io.BytesIO(data))
    assert report.ok, report.errors
    return report.imported


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    data = build(args.records)
    contenders: dict[str, Callable[[bytes], int]] = {
        "warcio (no checks)": warcio_plain,
        "warcio check_digests": warcio_checked,
        "pressmark import_warc": pressmark_import,
    }
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(args.rounds):
        for name, run in contenders.items():  # interleaved: load noise hits all alike
            started = time.perf_counter()
            assert run(data) == args.records
            times[name].append(time.perf_counter() - started)
    base = statistics.median(times["warcio (no checks)"])
    print(f"{args.records} records, {len(data) / 1e6:.1f} MB gzipped WARC, "
          f"{args.rounds} interleaved rounds")
    print(f"{'contender':24} {'median s':>9} {'records/s':>10} {'x warcio':>9}")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name:24} {median:9.3f} {args.records / median:10.0f} {median / base:9.2f}")


if __name__ == "__main__":
    main()
