"""One charset decision: a live fetch, a snapshot built in code and a WARC import of the
same bytes with the same Content-Type decode identically.

A real loopback origin serves each case; the same bytes and header are then given
to ``new_snapshot`` and written into a foreign WARC record that ``import_warc``
reads. All three must agree on the label, its source and the decoded text.
"""

from __future__ import annotations

import asyncio
import codecs
import io
from collections.abc import AsyncIterator

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from pressmark.egress import EgressPolicy
from pressmark.fetch import FetchOptions, SourceConfig, fetch_source
from pressmark.snapshot import Snapshot, new_snapshot, resolve_source_ref
from pressmark.store import MemorySnapshotStore, import_warc

CASES: dict[str, tuple[str, bytes, str]] = {
    # name: (Content-Type, body, the text a browser shows)
    "bom-beats-header": ("text/html; charset=iso-8859-1",
                         codecs.BOM_UTF8 + "<p>café</p>".encode(), "<p>café</p>"),
    "header": ("text/html; charset=windows-1252", "<p>café €</p>".encode("cp1252"),
               "<p>café €</p>"),
    "latin1-means-1252": ("text/html; charset=latin1", b"<p>\x93q\x94</p>", "<p>“q”</p>"),
    "meta": ("text/html", b'<meta charset="koi8-r"><p>\xf0\xd2\xc9</p>',
             '<meta charset="koi8-r"><p>При</p>'),
    "utf-7-is-unknown-so-meta": ("text/html; charset=utf-7",
                                 b'<meta charset="windows-1251"><p>\xcf\xf0\xe8</p>',
                                 '<meta charset="windows-1251"><p>При</p>'),
    "python-only-name-is-unknown": ("text/html; charset=latin_1", "<p>naïve</p>".encode(),
                                    "<p>naïve</p>"),
    "utf16-bom-beats-header": ("text/html; charset=utf-8",
                               codecs.BOM_UTF16_LE + "<p>ü</p>".encode("utf-16-le"),
                               "<p>ü</p>"),
}


async def _serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    head = await reader.readuntil(b"\r\n\r\n")
    path = head.split(b" ", 2)[1].decode().lstrip("/")
    content_type, body, _ = CASES[path]
    writer.write(f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: "
                 f"{len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
    await writer.drain()
    writer.close()


@pytest.fixture
async def origin() -> AsyncIterator[str]:
    server = await asyncio.start_server(_serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield f"http://127.0.0.1:{port}"


def _decision(snapshot: Snapshot) -> tuple[str | None, str, str]:
    return snapshot.declared_charset, snapshot.charset_source, snapshot.body


def _imported(url: str, content_type: str, body: bytes) -> Snapshot:
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True)
    http = StatusAndHeaders("200 OK", [("Content-Type", content_type)], protocol="HTTP/1.1")
    writer.write_record(writer.create_warc_record(
        url, "response", payload=io.BytesIO(body), length=len(body), http_headers=http,
        warc_headers_dict={"WARC-Date": "2026-11-30T12:00:00Z"}))
    store = MemorySnapshotStore()
    report = import_warc(store, io.BytesIO(buffer.getvalue()))
    assert report.ok, report.errors
    restored = resolve_source_ref(store, report.source_refs[0]).snapshot
    assert restored is not None
    return restored


@pytest.mark.parametrize("case", sorted(CASES))
async def test_fetch_snapshot_and_import_decide_alike(origin: str, case: str) -> None:
    content_type, body, shown = CASES[case]
    url = f"{origin}/{case}"
    options = FetchOptions(egress=EgressPolicy(test_only_allowed_loopback_origins=(origin,)))
    fetched = (await fetch_source(SourceConfig(url=url, respect_robots=False), options)).snapshot
    assert fetched is not None and fetched.bytes == body
    built = new_snapshot(source_id="s", requested_url=url, url=url, status=200,
                         headers={"content-type": content_type}, body=body)
    imported = _imported(url, content_type, body)
    assert _decision(fetched) == _decision(built) == _decision(imported)
    assert fetched.body == shown
