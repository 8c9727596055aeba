"""Crafted archives: WARC import refuses what an evidence tool must not take, clearly.

Each archive is built byte by byte (or with warcio's writer, then damaged), imported,
and must come back with a named error and a non-zero CLI exit; what came before
the damage stays imported.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from pressmark.cli import main
from pressmark.crawl._canonical import canonicalize_url
from pressmark.snapshot import resolve_source_ref, source_id_for_url
from pressmark.store import MemorySnapshotStore, export_warc, import_warc
from pressmark.store._warc import WarcImportReport
from pressmark.testing import make_snapshot

DATE = "2026-11-30T12:00:00Z"


def _digest(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def record(uri: str, body: bytes = b"<p>hi</p>", *, status_line: str = "HTTP/1.1 200 OK",
           http_headers: tuple[str, ...] = ("Content-Type: text/html",), rec_type: str = "response",
           digests: bool = True, extra: tuple[str, ...] = ()) -> bytes:
    """One uncompressed WARC/1.1 record, written by hand so that anything can be wrong in it."""
    if rec_type == "response":
        head = "\r\n".join((status_line, *http_headers, f"Content-Length: {len(body)}", "", ""))
        block = head.encode("latin-1") + body
        content_type = "application/http; msgtype=response"
    else:
        block = body
        content_type = "text/html"
    lines = ["WARC/1.1", f"WARC-Type: {rec_type}", f"WARC-Target-URI: {uri}",
             f"WARC-Date: {DATE}", f"WARC-Record-ID: <urn:uuid:{hashlib.md5(block).hexdigest()}>",
             f"Content-Type: {content_type}", f"Content-Length: {len(block)}", *extra]
    if digests:
        lines += [f"WARC-Block-Digest: {_digest(block)}", f"WARC-Payload-Digest: {_digest(body)}"]
    return "\r\n".join([*lines, "", ""]).encode("latin-1") + block + b"\r\n\r\n"


def gz(*records: bytes) -> bytes:
    return b"".join(gzip.compress(r) for r in records)


def _import(data: bytes) -> tuple[MemorySnapshotStore, WarcImportReport]:
    store = MemorySnapshotStore()
    return store, import_warc(store, io.BytesIO(data))


def test_truncated_warc_gz_is_an_error_after_the_records_before_it() -> None:
    data = gz(*(record(f"http://t.test/{n}", b"<p>%d</p>" % n * 200) for n in range(3)))
    cut = data[: len(data) - 40]  # inside the last gzip member
    _, report = _import(cut)
    assert not report.ok
    assert report.imported == 2  # records before the damage are imported, and reported
    assert any("truncated" in e for e in report.errors), report.errors
    halfway = data[: len(gzip.compress(record("http://t.test/0", b"<p>0</p>" * 200))) + 30]
    _, report = _import(halfway)  # cut inside the second member's header
    assert not report.ok and report.imported == 1


def test_record_cut_mid_payload_is_not_imported_as_complete() -> None:
    whole = record("http://c.test/a") + record("http://c.test/b", b"x" * 5000)
    store, report = _import(whole[:-2000])
    assert report.imported == 1 and not report.ok
    assert "record 2 is truncated" in report.errors[0]
    assert store.sources() == [source_id_for_url("http://c.test/a")]


def test_record_edited_after_its_digests_were_written_is_refused() -> None:
    data = record("http://d.test/", b"<p>the original words</p>")
    edited = data.replace(b"original", b"doctored")  # same length: only the digests can tell
    store, report = _import(edited)
    assert report.imported == 0 and not report.ok
    assert "does not match its WARC digests" in report.errors[0]
    assert "payload digest failed" in report.errors[0] or "block digest" in report.errors[0]
    assert store.sources() == []


# Peak RSS of this process image: VmHWM, not ru_maxrss, which Linux carries over exec from
# the forked parent (a pytest process that is already large would be measured instead).
PEAK = """
def peak_mb():
    with open("/proc/self/status") as fh:
        line = next(l for l in fh if l.startswith("VmHWM:"))
    return int(line.split()[1]) // 1024
"""
BOMB = PEAK + """
import io, sys, zlib
from pressmark.store import MemorySnapshotStore, import_warc
sys.path.insert(0, {here!r})
from test_warc_import_refusals import gz, record
raw = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
bomb = b"".join(raw.compress(b"\\0" * (1 << 20)) for _ in range(1024)) + raw.flush()
data = record("http://b.test/", bomb, http_headers=("Content-Type: text/html",
                                                     "Content-Encoding: gzip"))
if sys.argv[1] == "chunked":
    data = record("http://b.test/", b"%x\\r\\n" % len(bomb) + bomb + b"\\r\\n0\\r\\n\\r\\n",
                  http_headers=("Content-Encoding: gzip", "Transfer-Encoding: chunked"))
del bomb
report = import_warc(MemorySnapshotStore(), io.BytesIO(data))
del data
print(len(report.errors), report.imported, report.errors[0])
print(peak_mb())
"""


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["http", "chunked", "member"])
def test_gzip_bomb_is_refused_in_bounded_memory(kind: str, tmp_path: Path) -> None:
    script = tmp_path / "bomb.py"
    script.write_text(BOMB.format(here=str(Path(__file__).parent)))
    if kind == "member":
        # a 90 MiB record (under the record limit, over the body cap) in one gzip member;
        # building it needs the memory the import must not: write it in another process
        build = tmp_path / "build.py"
        build.write_text(f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
                         "from test_warc_import_refusals import gz, record\n"
                         f"open({str(tmp_path / 'm.warc.gz')!r}, 'wb').write("
                         "gz(record('http://b.test/', b'\\0' * (90 << 20), digests=False)))\n")
        subprocess.run([sys.executable, str(build)], check=True)
        script.write_text(
            PEAK + "from pressmark.store import MemorySnapshotStore, import_warc\n"
            f"r = import_warc(MemorySnapshotStore(), {str(tmp_path / 'm.warc.gz')!r})\n"
            "print(len(r.errors), r.imported, r.errors[0])\n"
            "print(peak_mb())\n")
    done = subprocess.run([sys.executable, str(script), kind], capture_output=True, text=True,
                          check=True, timeout=240)
    first, peak = done.stdout.strip().splitlines()[-2:]
    errors, imported, message = first.split(" ", 2)
    assert errors == "1" and imported == "0", done.stdout
    assert "limit" in message, message
    print(f"bomb {kind}: peak RSS {peak} MB")  # shown with -s: the figure in the report
    assert int(peak) < 200, f"peak RSS {peak} MB"


@pytest.mark.parametrize(
    ("uri", "scheme"),
    [("file:///etc/passwd", "file"), ("javascript:alert(1)", "javascript"),
     ("ftp://f.test/x", "ftp"), ("data:text/html,hi", "data")],
)
def test_non_web_targets_are_refused(uri: str, scheme: str) -> None:
    for rec_type in ("response", "resource"):
        store, report = _import(record(uri, rec_type=rec_type))
        assert report.imported == 0 and not report.ok
        assert f"target URI scheme {scheme!r} is not http or https" in report.errors[0]
        assert store.sources() == []


def test_tool_metadata_records_are_skipped_and_counted_by_type() -> None:
    data = (record("metadata://gnu.org/software/wget/warc/wget.log", b"log", rec_type="resource")
            + record("http://s.test/", rec_type="request", digests=False)
            + record("http://s.test/", rec_type="revisit", digests=False)
            + record("http://s.test/"))
    _, report = _import(data)
    assert report.ok and report.imported == 1
    assert dict(report.skipped_by_type) == {"resource (metadata:)": 1, "request": 1,
                                            "revisit": 1}
    assert report.skipped == 3


def test_credentials_are_stripped_and_never_reach_a_citation() -> None:
    store, report = _import(record("http://user:s3cret@k.test/page"))
    assert report.ok and report.imported == 1
    ref = report.source_refs[0]
    assert "s3cret" not in ref and "user" not in ref
    snap = resolve_source_ref(store, ref).snapshot
    assert snap is not None and snap.url == "http://k.test/page"
    assert snap.warnings[0].startswith("import-credentials-stripped")


@pytest.mark.parametrize(
    "status_line", ["HTTP/1.1", "HTTP/1.1 0 Zero", "HTTP/1.1 999 Nine", "HTTP/1.1 2x0 OK",
                    "HTTP/1.1 -20 X", "ICY 200 OK"],
)
def test_bad_status_lines_are_refused_clearly(status_line: str) -> None:
    store, report = _import(record("http://s.test/", status_line=status_line))
    assert report.imported == 0 and not report.ok, report
    assert "status line" in report.errors[0].lower(), report.errors
    assert "ValueError" not in report.errors[0]
    assert store.sources() == []


def test_a_body_that_does_not_decode_as_its_content_encoding_says_is_refused() -> None:
    data = record("http://g.test/", b"<p>not gzip at all</p>",
                  http_headers=("Content-Type: text/html", "Content-Encoding: gzip"))
    _, report = _import(data)
    assert report.imported == 0
    assert "does not decode as its Content-Encoding 'gzip' says" in report.errors[0]
    _, report = _import(record("http://g.test/", b"x", http_headers=("Content-Encoding: lzma",)))
    assert "Content-Encoding 'lzma' is not one pressmark can decode" in report.errors[0]


def test_a_decodable_body_is_stored_decoded() -> None:
    packed = zlib.compress(b"<p>inflated</p>")
    store, report = _import(record("http://g.test/", packed,
                                   http_headers=("Content-Encoding: deflate",)))
    assert report.ok
    snap = resolve_source_ref(store, report.source_refs[0]).snapshot
    assert snap is not None and snap.bytes == b"<p>inflated</p>"
    assert snap.header("content-encoding") is None


def test_rewritten_target_uri_of_a_pressmark_record_is_refused() -> None:
    source = MemorySnapshotStore()
    source.put(make_snapshot("e", "http://e.test/page", b"<p>e</p>",
                             fetched_at="2026-11-30T12:00:00.000Z"))
    buffer = io.BytesIO()
    export_warc(source, buffer, gzip=False)
    rewritten = buffer.getvalue().replace(b"WARC-Target-URI: http://e.test/page",
                                          b"WARC-Target-URI: http://x.test/page")
    _, report = _import(rewritten)
    assert report.imported == 0
    assert "WARC-Target-URI does not match the URL in the pressmark envelope" in report.errors[0]


@pytest.mark.parametrize(
    ("uri", "canonical"),
    [("HTTP://Example.TEST/a#frag", "http://example.test/a"),
     ("http://example.test:80/a?", "http://example.test/a"),
     ("http://example.test/caf\u00e9 x", "http://example.test/caf%C3%A9%20x"),
     ("https://EXAMPLE.test", "https://example.test/"),
     ("http://example.test/%7euser/%2f?q=%e2%9c%93", "http://example.test/~user/%2F?q=%E2%9C%93")],
)
def test_target_uris_are_filed_under_the_crawlers_canonical_source_id(
    uri: str, canonical: str
) -> None:
    assert canonicalize_url(uri) == canonical  # what crawl --replay looks up
    _, report = _import(record(uri.encode("utf-8").decode("latin-1"), digests=True))
    if not uri.isascii():  # WARC headers are UTF-8: a raw IRI must still be filed canonically
        _, report = _import(record(uri, digests=True).replace(
            uri.encode("latin-1", "replace"), uri.encode("utf-8")))
    assert report.ok, report.errors
    assert f"source_id={source_id_for_url(canonical)}" in report.source_refs[0]


def test_warcio_warnings_carry_the_record_number() -> None:
    good = record("http://w.test/a")
    # Content-Length one short: warcio notices stray bytes where the next record starts
    broken = record("http://w.test/b", digests=False)
    declared = int(broken.split(b"Content-Length: ", 1)[1].split(b"\r\n", 1)[0])
    broken = broken.replace(b"Content-Length: %d" % declared,
                            b"Content-Length: %d" % (declared - 1), 1)
    _, report = _import(good + broken + good)
    assert any(w.startswith("record 2: warcio:") for w in report.warnings), report


def test_cli_refuses_with_a_clear_message_and_exit_5(tmp_path: Path) -> None:
    warc = tmp_path / "bad.warc"
    warc.write_bytes(record("http://ok.test/") + record("file:///etc/passwd"))
    result = CliRunner().invoke(main, ["store", "import-warc", str(warc), str(tmp_path / "s")])
    assert result.exit_code == 5
    assert "record 2: target URI scheme 'file' is not http or https" in result.output
    assert "imported 1 snapshot(s)" in result.output


@pytest.mark.parametrize(
    ("uri", "url", "stripped"),
    [("http://u:p@k.test/a", "http://k.test/a", True),
     ("HTTP://a:b@c@K.test:8080/x?y@z#f", "http://k.test:8080/x?y@z", True),
     ("http://evil.test\\@good.test/", "http://evil.test/@good.test/", False),  # as browsers
     ("http://k.test/@x", "http://k.test/@x", False)],
)
def test_user_info_is_found_where_the_egress_parser_finds_the_authority(
    uri: str, url: str, stripped: bool
) -> None:
    from pressmark.store._warc_import import web_url

    assert web_url(uri) == (url, stripped)
