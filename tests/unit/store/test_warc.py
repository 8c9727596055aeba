"""WARC export/import: standard records that round-trip every sourceRef exactly."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from pressmark.snapshot import RedirectRecord, new_snapshot, resolve_source_ref
from pressmark.store import (
    FilesystemSnapshotStore,
    MemorySnapshotStore,
    export_warc,
    import_warc,
)
from pressmark.testing import make_snapshot

T = "2026-11-30T12:00:00.000Z"


@pytest.fixture
def populated(tmp_path: Path) -> tuple[FilesystemSnapshotStore, list[str]]:
    store = FilesystemSnapshotStore(tmp_path / "store", durability="flush")
    shots = [
        new_snapshot(source_id="a", requested_url="http://a.test/old", url="http://a.test/x?q=1",
                     status=200, fetched_at=T,
                     headers=[("Content-Type", "text/html; charset=latin1"),
                              ("Content-Encoding", "gzip"), ("Set-Cookie", "a=1"),
                              ("Set-Cookie", "b=2")],
                     body=b"<p>caf\xe9</p>",
                     redirects=[RedirectRecord(301, "/x?q=1", "93.184.216.34")]),
        make_snapshot("a", "http://a.test/x?q=1", b"<p>v2</p>",
                      fetched_at="2026-11-30T12:00:01.000Z"),
        make_snapshot("bin", "http://b.test/logo.png", bytes(range(256)), content_type="binary",
                      fetched_at=T),
        new_snapshot(source_id="r", requested_url="http://r.test/", url="http://r.test/app",
                     status=200, headers={}, body="<p>rendered ✓</p>".encode(), rendered=True,
                     fetched_at=T),
        make_snapshot("nm", "http://n.test/", b"", status=304, fetched_at=T),
    ]
    return store, [store.put(s).source_ref for s in shots]


def test_export_is_standard_warc(populated: tuple[FilesystemSnapshotStore, list[str]],
                                 tmp_path: Path) -> None:
    store, refs = populated
    out = tmp_path / "out.warc.gz"
    assert export_warc(store, out) == len(refs)
    with out.open("rb") as fh:
        records = list(_records(fh))
    types = [r[0] for r in records]
    assert types[0] == "warcinfo"
    # one redirect hop of its own, then four final responses, each with its request
    assert types.count("response") == 5 and types.count("request") == 5
    assert types.count("conversion") == 1 and types.count("metadata") == 1
    assert "resource" not in types
    assert all(r[1] == "WARC/1.1" for r in records)
    by_ref = {r[2]: r for r in records if r[2]}
    assert set(by_ref) == set(refs)
    for _, _, _, payload_digest, body in by_ref.values():
        assert payload_digest is not None and payload_digest.startswith("sha1:")
        assert body is not None
    rendered = next(r for r in records if r[0] == "conversion")
    assert rendered[4] == "<p>rendered ✓</p>".encode()
    # warcio's own checker validates every block and payload digest
    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", str(out)],
                           capture_output=True, text=True, check=False)
    if "No module named" in check.stderr:
        check = subprocess.run([str(Path(sys.executable).parent / "warcio"), "check", str(out)],
                               capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr


def _records(fh: object) -> object:
    for record in ArchiveIterator(fh):
        body = record.content_stream().read() if record.rec_type != "warcinfo" else None
        yield (record.rec_type, record.rec_headers.protocol,
               record.rec_headers.get_header("WARC-Pressmark-Source-Ref"),
               record.rec_headers.get_header("WARC-Payload-Digest"), body)


def test_import_restores_every_reference_exactly(
    populated: tuple[FilesystemSnapshotStore, list[str]], tmp_path: Path
) -> None:
    store, refs = populated
    out = tmp_path / "out.warc.gz"
    export_warc(store, out)
    for target in (FilesystemSnapshotStore(tmp_path / "copy"), MemorySnapshotStore()):
        report = import_warc(target, out)
        assert report.ok and report.imported == len(refs)
        assert set(report.source_refs) == set(refs)
        for ref in refs:
            original, restored = resolve_source_ref(store, ref), resolve_source_ref(target, ref)
            assert restored.ok and original.snapshot == restored.snapshot
        again = import_warc(target, out)  # idempotent
        assert again.ok
        assert len(target.list("a")) == 2


def test_uncompressed_export_and_selected_sources(
    populated: tuple[FilesystemSnapshotStore, list[str]],
) -> None:
    store, _ = populated
    buffer = io.BytesIO()
    assert export_warc(store, buffer, sources=["bin"], gzip=False) == 1
    assert buffer.getvalue().startswith(b"WARC/1.1\r\n")


def test_tampered_payload_is_refused(populated: tuple[FilesystemSnapshotStore, list[str]],
                                     tmp_path: Path) -> None:
    store, _ = populated
    buffer = io.BytesIO()
    export_warc(store, buffer, sources=["bin"], gzip=False)
    tampered = buffer.getvalue().replace(bytes(range(200, 256)), b"x" * 56)
    target = MemorySnapshotStore()
    report = import_warc(target, io.BytesIO(tampered))
    assert not report.ok and report.imported == 0
    assert target.sources() == []


def test_foreign_warc_records_become_snapshots(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True)
    http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")],
                            protocol="HTTP/1.0")
    record = writer.create_warc_record(
        "http://f.test/", "response", payload=io.BytesIO(b"<p>foreign</p>"), length=14,
        http_headers=http, warc_headers_dict={"WARC-Date": "2026-11-30T12:00:00Z"})
    writer.write_record(record)
    target = MemorySnapshotStore()
    report = import_warc(target, io.BytesIO(buffer.getvalue()))
    assert report.ok and report.imported == 1
    snap = resolve_source_ref(target, report.source_refs[0]).snapshot
    assert snap is not None and snap.body == "<p>foreign</p>"
    assert snap.fetched_at == "2026-11-30T12:00:00.000Z"
    skipped = import_warc(MemorySnapshotStore(), io.BytesIO(buffer.getvalue()), foreign=False)
    assert skipped.imported == 0 and skipped.skipped == 1


def test_garbage_is_reported_not_raised() -> None:
    report = import_warc(MemorySnapshotStore(), io.BytesIO(gzip.compress(b"not a warc")))
    assert not report.ok


def test_edge_snapshots_round_trip_through_a_standard_warc(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path / "store", durability="flush")
    shots = [
        new_snapshot(source_id="nm", requested_url="http://n.test/", url="http://n.test/",
                     status=304, headers={"etag": '"v1"'}, body=b"", not_modified=True,
                     fetched_at=T),
        new_snapshot(source_id="empty-render", requested_url="http://e.test/",
                     url="http://e.test/", status=200, headers={}, body=b"", rendered=True,
                     fetched_at=T),
        make_snapshot("sjis", "http://j.test/", "<p>日本語</p>".encode("shift_jis"),
                      headers={"content-type": "text/html; charset=shift_jis"}, fetched_at=T),
        make_snapshot("bad-utf8", "http://u.test/", b"<p>\xff\xfe\xc3(</p>", fetched_at=T),
        # an IRI and a header value no HTTP block can hold: the export must still be a
        # standard WARC, and the import must still restore the exact snapshot
        new_snapshot(source_id="iri", requested_url="http://i.test/ü?q=✓",
                     url="http://i.test/ü?q=✓ x", status=200,
                     headers=[("x-note", "café ✓"), ("x-split", "a\r\nx-injected: 1")],
                     body=b"<p>i</p>", fetched_at=T),
    ]
    refs = [store.put(s).source_ref for s in shots]
    out = tmp_path / "edge.warc.gz"
    assert export_warc(store, out) == len(shots)
    check = subprocess.run([str(Path(sys.executable).parent / "warcio"), "check", str(out)],
                           capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    with out.open("rb") as fh:
        uris = [r.rec_headers.get_header("WARC-Target-URI") for r in ArchiveIterator(fh)]
    assert all(uri is None or (uri.isascii() and " " not in uri) for uri in uris)
    copy = FilesystemSnapshotStore(tmp_path / "copy")
    report = import_warc(copy, out)
    assert report.ok and report.imported == len(shots)
    for original, ref in zip(shots, refs, strict=True):
        restored = resolve_source_ref(copy, ref)
        assert restored.snapshot == original
        assert restored.snapshot.bytes == original.bytes
    assert copy.verify().ok


def test_hops_render_metadata_and_ids_in_the_export(tmp_path: Path) -> None:
    store = MemorySnapshotStore()
    plain = new_snapshot(
        source_id="p", requested_url="http://p.test/a", url="http://p.test/c", status=200,
        headers={"content-type": "text/html"}, body=b"<p>c</p>", fetched_at=T,
        peer_ip="127.0.0.3", request_headers=[("user-agent", "pressmark/x"),
                                              ("authorization", "[redacted]")],
        redirects=[RedirectRecord(301, "/b", "127.0.0.1", "http://p.test/a",
                                  "2026-11-30T11:59:59.000Z"),
                   RedirectRecord(302, "http://p.test/c", "127.0.0.2", None, None)])
    rendered = new_snapshot(
        source_id="p", requested_url="http://p.test/a", url="http://p.test/c", status=200,
        headers={}, body=b"<p>dom</p>", rendered=True, fetched_at="2026-11-30T12:00:05.000Z",
        render_info=[("renderer", "PlaywrightRenderer"), ("readiness_passed", "true"),
                     ("readiness_reason", "main-selector+stable"),
                     ("page_state.viewport_width", "1280")])
    store.put(plain)
    store.put(rendered)
    first, second = io.BytesIO(), io.BytesIO()
    export_warc(store, first)
    export_warc(store, second)
    assert first.getvalue() != b""
    records = [(r.rec_type, dict(r.rec_headers.headers), r.http_headers,
                r.content_stream().read()) for r in ArchiveIterator(io.BytesIO(first.getvalue()))]
    ids = [h["WARC-Record-ID"] for _, h, _, _ in records[1:]]
    again = [dict(r.rec_headers.headers)["WARC-Record-ID"]
             for r in ArchiveIterator(io.BytesIO(second.getvalue()))][1:]
    assert ids == again  # the same store exports the same record ids
    responses = [(h, http) for kind, h, http, _ in records if kind == "response"]
    assert [(h["WARC-Target-URI"], http.get_statuscode(), http.get_header("Location"),
             h.get("WARC-IP-Address"), h["WARC-Date"]) for h, http in responses] == [
        ("http://p.test/a", "301", "/b", "127.0.0.1", "2026-11-30T11:59:59.000Z"),
        ("http://p.test/b", "302", "http://p.test/c", "127.0.0.2", T),  # url re-derived
        ("http://p.test/c", "200", None, "127.0.0.3", T)]
    requests = [http for kind, _, http, _ in records if kind == "request"]
    assert [http.get_header("authorization") for http in requests] == [
        "[redacted]", "[redacted]", "[redacted]"]  # same origin throughout
    final_id = responses[-1][0]["WARC-Record-ID"]
    conversion = next(h for kind, h, _, _ in records if kind == "conversion")
    assert conversion["WARC-Refers-To"] == final_id
    meta_headers, meta = next((h, body) for kind, h, _, body in records if kind == "metadata")
    assert meta_headers["WARC-Refers-To"] == conversion["WARC-Record-ID"]
    assert meta_headers["Content-Type"] == "application/warc-fields"
    fields = dict(line.split(": ", 1) for line in meta.decode().splitlines())
    assert fields["renderer"] == "PlaywrightRenderer"
    assert fields["readiness_reason"] == "main-selector+stable"
    assert fields["page_state.viewport_width"] == "1280"
    copy = MemorySnapshotStore()
    report = import_warc(copy, io.BytesIO(first.getvalue()))
    assert report.ok and report.imported == 2
    assert dict(report.skipped_by_type)["response (redirect hop)"] == 2
    assert copy.get("p", plain.snapshot_sha256) == plain
