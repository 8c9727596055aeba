"""WARC import with bounded heads, strict framing, checked URLs and dates (red team #34 item 2).

Breaks this file holds to, each built from its description:

* one 800 MB WARC header line in an 815 KB ``.warc.gz``: the import reached 2.4 GB;
* 5 million HTTP header lines in a 58 KB archive: 19 s, exit 0, a 58 MB record;
* a chunked body with no last chunk, a Content-Length larger than the body: imported
  silently;
* pressmark-envelope ``resource`` records with ``javascript:``, ``file:``, ``data:`` or
  credentialed URLs: imported;
* a record dated 2999: it became ``latest()`` for its URL for ever.

Memory is measured in a child process (its peak RSS, VmHWM), each hostile archive
under 1 MB: the acceptance is 200 MB.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pressmark.snapshot import resolve_source_ref
from pressmark.store import MemorySnapshotStore, export_warc
from pressmark.store._warc_read import MAX_WARC_HEAD_BYTES, MAX_WARC_HEAD_LINES
from pressmark.testing import make_snapshot

from .test_warc_import_refusals import DATE, PEAK, _import, gz, record

HERE = Path(__file__).parent


def _peak_of(build: str, tmp_path: Path) -> tuple[str, int, float]:
    """Import the archive ``build`` writes to ``path`` in a fresh process: (report, MB, s).

    Building a hostile archive takes the memory its import must not, so it happens in a
    process of its own first."""
    path = tmp_path / "a.warc.gz"
    maker = tmp_path / "build.py"
    maker.write_text(f"""
import gzip, zlib, sys
sys.path.insert(0, {str(HERE)!r})
from test_warc_import_refusals import gz, record
path = {str(path)!r}
{build}
""")
    subprocess.run([sys.executable, str(maker)], check=True, timeout=280)
    assert path.stat().st_size < 1_000_000, path.stat().st_size
    script = tmp_path / "child.py"
    script.write_text(PEAK + f"""
import json, time
from pressmark.store import FilesystemSnapshotStore, import_warc
started = time.process_time()
report = import_warc(FilesystemSnapshotStore({str(tmp_path / "store")!r}), {str(path)!r})
spent = time.process_time() - started
print(json.dumps({{"errors": report.errors, "imported": report.imported,
                  "warnings": report.warnings[:5]}}))
print(peak_mb(), spent)
""")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          check=True, timeout=280)
    *_, report, figures = done.stdout.strip().splitlines()
    peak, spent = figures.split()
    return report, int(peak), float(spent)


def test_an_800_mb_warc_header_line_stops_the_import_in_bounded_memory(
        tmp_path: Path) -> None:
    build = """
good = record("http://a.test/")
z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
parts = [z.compress(b"WARC/1.1\\r\\nWARC-Type: response\\r\\nX-Bomb: ")]
block = b"A" * (1 << 20)
parts += [z.compress(block) for _ in range(800)]
parts.append(z.compress(b"\\r\\n\\r\\n") + z.flush())
open(path, "wb").write(gzip.compress(good) + b"".join(parts))
"""
    report, peak, _ = _peak_of(build, tmp_path)
    data = json.loads(report)
    assert data["imported"] == 1  # the record before it stays imported
    assert len(data["errors"]) == 1, data
    assert f"over {MAX_WARC_HEAD_BYTES} bytes" in data["errors"][0]
    assert "record 2" in data["errors"][0] and "import stopped" in data["errors"][0]
    print(f"800 MB header line: peak RSS {peak} MB")
    assert peak < 200, f"peak RSS {peak} MB"


def test_five_million_http_header_lines_refuse_their_record_at_once(tmp_path: Path) -> None:
    build = """
head = "HTTP/1.1 200 OK\\r\\n" + "X-A: b\\r\\n" * 5_000_000 + "\\r\\n"
big = record("http://b.test/", http_headers=(), digests=False).replace(
    b"HTTP/1.1 200 OK\\r\\n", head.encode(), 1)
# the WARC Content-Length must cover the longer block
old = big.split(b"Content-Length: ", 1)[1].split(b"\\r\\n", 1)[0]
big = big.replace(b"Content-Length: " + old, b"Content-Length: %d" % (
    int(old) + len(head) - len("HTTP/1.1 200 OK\\r\\n")), 1)
open(path, "wb").write(gz(big, record("http://c.test/")))
"""
    report, peak, spent = _peak_of(build, tmp_path)
    data = json.loads(report)
    assert data["imported"] == 1, data  # the next record still imports
    assert len(data["errors"]) == 1 and "record 1" in data["errors"][0]
    assert "HTTP head has over 257 lines" in data["errors"][0]
    print(f"5M HTTP header lines: peak RSS {peak} MB, {spent:.1f} s CPU")
    assert peak < 200, f"peak RSS {peak} MB"


def test_warc_heads_are_bounded_in_lines_and_http_heads_in_bytes() -> None:
    many = record("http://m.test/", extra=tuple(f"X-{n}: v" for n in range(MAX_WARC_HEAD_LINES)))
    _, report = _import(record("http://ok.test/") + many)
    assert report.imported == 1
    assert f"over {MAX_WARC_HEAD_LINES} lines" in report.errors[0]
    wide = record("http://w.test/", http_headers=("X-Wide: " + "w" * 70_000,))
    store, report = _import(wide)
    assert report.imported == 0 and "HTTP head is over 65536 bytes" in report.errors[0]
    assert store.sources() == []


def _chunked(body: bytes) -> bytes:
    return record("http://t.test/", body, http_headers=("Content-Type: text/html",
                                                          "Transfer-Encoding: chunked"),
                  digests=False)


def test_a_chunked_body_without_its_last_chunk_is_imported_with_a_named_warning() -> None:
    store, report = _import(_chunked(b"5\r\nhello\r\n6\r\n world\r\n"))
    assert report.ok and report.imported == 1
    assert any("import-truncated-body" in w for w in report.warnings), report.warnings
    snap = resolve_source_ref(store, report.source_refs[0]).snapshot
    assert snap is not None and snap.bytes == b"hello world"
    assert any(w.startswith("import-truncated-body") for w in snap.warnings)
    # a whole one carries no such warning
    _, whole = _import(_chunked(b"5\r\nhello\r\n0\r\n\r\n"))
    assert whole.ok and not any("truncated" in w for w in whole.warnings)


def test_broken_chunk_framing_refuses_the_record() -> None:
    _, report = _import(_chunked(b"5\r\nhello\r\nzz\r\nmore\r\n0\r\n\r\n"))
    assert report.imported == 0 and "chunked framing is broken" in report.errors[0]
    _, report = _import(_chunked(b"5\r\nhello\r\n0\r\n\r\n<script>smuggled</script>"))
    assert report.imported == 0 and "bytes follow the last chunk" in report.errors[0]


def test_a_body_shorter_than_its_content_length_is_imported_with_a_named_warning() -> None:
    short = record("http://l.test/", b"<p>cut</p>", http_headers=("Content-Type: text/html",),
                   digests=False).replace(b"Content-Length: 10\r\n\r\n",
                                          b"Content-Length: 99\r\n\r\n", 1)
    store, report = _import(short)
    assert report.ok and report.imported == 1
    assert any("import-truncated-body" in w and "10 of the 99" in w for w in report.warnings)
    snap = resolve_source_ref(store, report.source_refs[0]).snapshot
    assert snap is not None and any(w.startswith("import-truncated-body") for w in snap.warnings)


def test_one_huge_chunk_is_read_in_pieces(tmp_path: Path) -> None:
    """warcio's de-chunker reads a whole chunk at once (up to 2 GiB): a 90 MiB chunk of
    zeros, 90 KB compressed, is refused by the body cap within the memory budget."""
    build = """
body = b"%x\\r\\n" % (90 << 20) + b"\\0" * (90 << 20) + b"\\r\\n0\\r\\n\\r\\n"
data = record("http://h.test/", body, http_headers=("Transfer-Encoding: chunked",),
              digests=False)
del body
open(path, "wb").write(gz(data))
"""
    report, peak, _ = _peak_of(build, tmp_path)
    data = json.loads(report)
    assert data["imported"] == 0 and "limit" in data["errors"][0], data
    print(f"90 MiB chunk: peak RSS {peak} MB")
    assert peak < 200, f"peak RSS {peak} MB"


@pytest.mark.parametrize("text", [
    "a" * ((60 << 20) - 4) + "\U0001f600",  # one astral character: UCS-4 text of 240 MiB
    None,                                    # x-user-defined: a string per byte before
])
def test_a_large_text_body_is_checked_without_holding_its_text(
        tmp_path: Path, text: str | None) -> None:
    if text is None:
        build = """
body = bytes(range(256)) * ((60 << 20) // 256)
data = record("http://x.test/", body, digests=False,
              http_headers=("Content-Type: text/html; charset=x-user-defined",))
del body
open(path, "wb").write(gz(data))
"""
    else:
        build = """
body = ("a" * ((60 << 20) - 4) + "\\U0001f600").encode()
data = record("http://x.test/", body, digests=False,
              http_headers=("Content-Type: text/html; charset=utf-8",))
del body
open(path, "wb").write(gz(data))
"""
    report, peak, _ = _peak_of(build, tmp_path)
    data = json.loads(report)
    assert data["imported"] == 1 and not data["errors"], data
    print(f"60 MiB text body: peak RSS {peak} MB")
    assert peak < 200, f"peak RSS {peak} MB"


def _envelope_record(rec_type: str, **changes: object) -> bytes:
    """A pressmark record whose envelope says what ``changes`` say (all else consistent)."""
    source = MemorySnapshotStore()
    source.put(make_snapshot("e", "http://e.test/page", b"<p>e</p>",
                             fetched_at="2026-11-30T12:00:00.000Z"))
    buffer = io.BytesIO()
    export_warc(source, buffer, gzip=False)
    raw = buffer.getvalue()
    encoded = raw.split(b"WARC-Pressmark-Envelope: ", 1)[1].split(b"\r\n", 1)[0]
    envelope = json.loads(base64.urlsafe_b64decode(encoded + b"=" * (-len(encoded) % 4)))
    envelope.update(changes)
    payload = base64.urlsafe_b64encode(json.dumps(envelope).encode()).decode()
    from pressmark.store._warc import ascii_uri

    uri = ascii_uri(str(envelope["url"]))
    return record(uri, b"<p>e</p>", rec_type=rec_type, digests=False,
                  extra=(f"WARC-Pressmark-Envelope: {payload}",))


@pytest.mark.parametrize("url", [
    "javascript:alert(document.domain)", "file:///etc/passwd", "data:text/html,<p>x</p>",
    "http://user:secret@e.test/page", "ftp://e.test/x",
])
@pytest.mark.parametrize("rec_type", ["resource", "response"])
def test_pressmark_records_go_through_the_url_model(url: str, rec_type: str) -> None:
    if rec_type == "response":
        data = _envelope_record("resource", url=url, requested_url=url).replace(
            b"WARC-Type: resource", b"WARC-Type: response", 1)
    else:
        data = _envelope_record(rec_type, url=url, requested_url=url)
    store, report = _import(data)
    assert report.imported == 0 and not report.ok, report
    assert "pressmark envelope's URL" in report.errors[0] or "HTTP" in report.errors[0]
    assert store.sources() == []
    # the requested URL alone, too
    store, report = _import(_envelope_record("resource", requested_url=url))
    assert report.imported == 0 and "requested URL" in report.errors[0], report
    assert store.sources() == []


def test_a_pressmark_record_with_too_many_headers_is_refused() -> None:
    headers = [[f"x-{n}", "v"] for n in range(300)]
    _, report = _import(_envelope_record("resource", headers=headers))
    assert report.imported == 0 and "exceed the live limits" in report.errors[0]


def test_a_capture_dated_after_its_import_is_refused() -> None:
    future = record("http://f.test/").replace(DATE.encode(), b"2999-01-01T00:00:00Z")
    store, report = _import(record("http://f.test/") + future)
    assert report.imported == 1
    assert "2999-01-01T00:00:00Z" in report.errors[0] and "after the time of this import" in \
        report.errors[0]
    latest = store.latest(store.sources()[0])
    assert latest is not None and latest.fetched_at.startswith("2026")
    _, report = _import(_envelope_record("resource", fetched_at="2999-01-01T00:00:00.000Z"))
    assert report.imported == 0 and "after the time of this import" in report.errors[0]


def test_a_foreign_capture_says_so() -> None:
    store, report = _import(record("http://n.test/", http_headers=(
        "Content-Type: text/html", 'ETag: "forged"')))
    snap = resolve_source_ref(store, report.source_refs[0]).snapshot
    assert snap is not None and snap.etag == '"forged"'
    assert any(w.startswith("import-foreign") for w in snap.warnings)


def test_a_gzip_archive_of_many_small_hostile_records_stays_bounded(tmp_path: Path) -> None:
    """Every kind above at once, many times over, in one archive under 1 MB."""
    build = """
kinds = [
    record("http://k.test/a", http_headers=("X: " + "y" * 70_000,)),
    record("http://k.test/b", b"5\\r\\nhello", http_headers=("Transfer-Encoding: chunked",),
           digests=False),
    record("javascript:alert(1)", rec_type="resource"),
    record("http://k.test/c").replace(b"2026-11-30", b"2999-11-30"),
    record("http://k.test/d"),
]
open(path, "wb").write(gz(*(kinds * 400)))
"""
    report, peak, _ = _peak_of(build, tmp_path)
    data = json.loads(report)
    assert data["imported"] == 800 and len(data["errors"]) > 1000, data["imported"]
    assert data["errors"][-1] == "... further lines left out"
    print(f"2,000 hostile records: peak RSS {peak} MB")
    assert peak < 200, f"peak RSS {peak} MB"


def test_gz_helper_is_what_a_warc_gz_is() -> None:
    assert gzip.decompress(gz(b"a", b"b")) == b"ab"
