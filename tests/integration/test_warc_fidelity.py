"""WARC fidelity against tools nobody here wrote: warcio, pywb and wget, on the demo site.

The segment store's segments are WARC files themselves: warcio checks each one and pywb
replays the crawl from them as they lie on disk, without an export.

A crawl of the demo site (301/302/307/308 chains included) is exported and then:

* ``warcio check`` validates every digest;
* every response record names the loopback address that served it, every hop of
  a redirect chain is its own record, and request records carry what was sent;
* pywb (a real replay tool, installed in a throwaway venv: see ``_pywb_bin``)
  replays a redirecting URL to its final page, byte-identical to ``pressmark replay``;
* a WARC that wget writes of the same site imports and replays byte-identical.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from warcio.archiveiterator import ArchiveIterator

from pressmark.cli import main
from pressmark.crawl import CrawlPolicy, Politeness, crawl
from pressmark.demo import DemoServer
from pressmark.egress import EgressPolicy
from pressmark.snapshot import resolve_source_ref
from pressmark.store import FilesystemSnapshotStore, SegmentStore, export_warc, import_warc

CHAINS = ("/redirect/chain", "/redirect/301", "/redirect/302", "/redirect/to-article")


@pytest.fixture(scope="module")
def exported(demo_server: DemoServer, tmp_path_factory: pytest.TempPathFactory,
             ) -> tuple[FilesystemSnapshotStore, Path]:
    root = tmp_path_factory.mktemp("warc")
    store = FilesystemSnapshotStore(root / "store", durability="flush")
    origin = demo_server.url
    policy = CrawlPolicy(egress=EgressPolicy().allow_loopback(origin), markdown=False,
                         workers=0, render="never", store=store, max_pages=40, max_depth=1,
                         politeness=Politeness(per_host_concurrency=8, concurrency=16))
    asyncio.run(crawl([origin + "/", *(origin + path for path in CHAINS)], policy))
    out = root / "demo.warc.gz"
    assert export_warc(store, out) >= 20
    return store, out


@pytest.fixture(scope="module")
def segmented(demo_server: DemoServer, tmp_path_factory: pytest.TempPathFactory,
              ) -> SegmentStore:
    root = tmp_path_factory.mktemp("segments")
    store = SegmentStore(root / "store", durability="flush")
    origin = demo_server.url
    policy = CrawlPolicy(egress=EgressPolicy().allow_loopback(origin), markdown=False,
                         workers=0, render="never", store=store, max_pages=40, max_depth=1,
                         politeness=Politeness(per_host_concurrency=8, concurrency=16))
    asyncio.run(crawl([origin + "/", *(origin + path for path in CHAINS)], policy))
    return store


def test_every_segment_passes_warcio_check_and_holds_the_hops(
    segmented: SegmentStore, demo_server: DemoServer
) -> None:
    segments = sorted((segmented.root / "segments").iterdir())
    assert segments
    check = subprocess.run([str(Path(sys.executable).parent / "warcio"), "check", "-v",
                            *map(str, segments)], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout[-2000:] + check.stderr[-2000:]
    records = [r for segment in segments for r in _records(segment)]
    hops = {h["WARC-Target-URI"].removeprefix(demo_server.url): http.get_statuscode()
            for kind, h, http, _ in records
            if kind == "response" and "WARC-Pressmark-Redirect-Hop" in h}
    assert hops.get("/redirect/chain") == "301" and hops.get("/redirect/chain/4") == "308"
    assert segmented.verify().ok


def _records(path: Path) -> Iterator[tuple[str, dict[str, str], object, bytes]]:
    with path.open("rb") as fh:
        for record in ArchiveIterator(fh):
            headers = dict(record.rec_headers.headers)
            body = record.content_stream().read()
            yield record.rec_type, headers, record.http_headers, body


def test_warcio_check_passes(exported: tuple[FilesystemSnapshotStore, Path]) -> None:
    check = subprocess.run([str(Path(sys.executable).parent / "warcio"), "check", "-v",
                            str(exported[1])], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout[-2000:] + check.stderr[-2000:]


def test_hops_are_records_and_every_response_names_who_answered(
    exported: tuple[FilesystemSnapshotStore, Path], demo_server: DemoServer
) -> None:
    records = list(_records(exported[1]))
    responses = [(h, http) for kind, h, http, _ in records if kind == "response"]
    assert responses
    assert all(h.get("WARC-IP-Address") == "127.0.0.1" for h, _ in responses)
    hops = {h["WARC-Target-URI"].removeprefix(demo_server.url): http.get_statuscode()
            for h, http in responses if "WARC-Pressmark-Redirect-Hop" in h}
    assert {path: hops.get(path) for path in ("/redirect/chain", "/redirect/chain/2",
                                              "/redirect/chain/3", "/redirect/chain/4")} == {
        "/redirect/chain": "301", "/redirect/chain/2": "302", "/redirect/chain/3": "307",
        "/redirect/chain/4": "308"}
    dates = [h["WARC-Date"] for h, _ in responses
             if h["WARC-Target-URI"].startswith(demo_server.url + "/redirect/chain")]
    assert dates == sorted(dates)  # each hop has its own date, in the order it answered
    requests = [http for kind, _, http, _ in records if kind == "request"]
    assert len(requests) == len(responses)
    assert all(http.get_header("user-agent", "").startswith("pressmark/") for http in requests)


def _pywb_bin() -> Path:
    """pywb's scripts: $PRESSMARK_PYWB, else ~/.cache/pressmark-test/pywb/bin.

    pywb pins old dependencies, so it lives in a venv of its own, never in ours;
    ``make test`` installs it there (scripts/ensure-pywb.sh, once). Missing, the test
    skips, except under CI (``CI`` set): there a missing pywb is a failure, since the
    store's replay by a real tool is what these tests are for.
    """
    configured = os.environ.get("PRESSMARK_PYWB")
    candidates = [Path(configured)] if configured else []
    candidates.append(Path.home() / ".cache/pressmark-test/pywb/bin")
    found = next((c for c in candidates if (c / "wayback").exists()), None)
    if found is None:
        message = "pywb is not installed (`make test` installs it: scripts/ensure-pywb.sh)"
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(f"{message}; under CI these tests must run")
        pytest.skip(message)
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_listening(port: int, proc: subprocess.Popen[bytes], deadline_s: float) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError("pywb exited before it listened")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)  # polling a port that is not open yet; the condition is the port
    raise AssertionError("pywb did not listen in time")


def _get(url: str) -> tuple[str, bytes]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only
    with opener.open(url, timeout=30) as response:
        return response.geturl(), response.read()


@pytest.mark.slow
def test_pywb_replays_a_redirecting_url_to_its_final_page(
    exported: tuple[FilesystemSnapshotStore, Path], demo_server: DemoServer, tmp_path: Path
) -> None:
    pywb = _pywb_bin()
    store, warc = exported
    subprocess.run([str(pywb / "wb-manager"), "init", "demo"], cwd=tmp_path, check=True,
                   capture_output=True)
    subprocess.run([str(pywb / "wb-manager"), "add", "demo", str(warc)], cwd=tmp_path,
                   check=True, capture_output=True)
    port = _free_port()
    proc = subprocess.Popen([str(pywb / "wayback"), "-p", str(port), "-b", "127.0.0.1"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_listening(port, proc, 60)
        replay = f"http://127.0.0.1:{port}/demo"
        for path, final in (("/redirect/chain", "/special/redirect-target"),
                            ("/redirect/302", "/special/redirect-target")):
            url, page = _get(f"{replay}/2mp_/{demo_server.url}{path}")
            assert url == f"{replay}/2mp_/{demo_server.url}{final}", url
            assert b"You have arrived" in page
            # the final page itself, unrewritten (id_), is exactly what pressmark replays
            _, raw = _get(f"{replay}/2id_/{demo_server.url}{final}")
            snapshot = store.latest(next(
                sid for sid in store.sources()
                if store.list(sid)[0].url == demo_server.url + final))
            assert snapshot is not None and raw == snapshot.bytes
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.slow
def test_a_wget_warc_of_the_demo_site_imports_and_replays_byte_identical(
    demo_server: DemoServer, tmp_path: Path
) -> None:
    wget = shutil.which("wget")
    if wget is None:
        pytest.skip("wget is not installed")
    urls = [demo_server.url + path for path in ("/", "/special/redirect-target", *CHAINS)]
    subprocess.run([wget, "--quiet", "--no-proxy", f"--warc-file={tmp_path / 'wget'}",
                    "--output-document", str(tmp_path / "ignored"), *urls],
                   check=True, timeout=120)
    warc = tmp_path / "wget.warc.gz"
    store = FilesystemSnapshotStore(tmp_path / "store", durability="flush")
    report = import_warc(store, warc)
    assert report.ok, report.errors
    kinds = dict(report.skipped_by_type)
    assert kinds.get("request", 0) >= len(urls) and kinds.get("warcinfo") == 1
    assert kinds.get("resource (metadata:)", 0) >= 1  # wget's manifest and log
    payloads = [(h["WARC-Target-URI"], body) for kind, h, _, body in _records(warc)
                if kind == "response"]
    assert report.imported == len(payloads)
    for ref, (uri, body) in zip(report.source_refs, payloads, strict=True):
        restored = resolve_source_ref(store, ref)
        assert restored.ok and restored.snapshot is not None
        assert restored.snapshot.url == uri and restored.snapshot.bytes == body
        out = tmp_path / "replayed"
        result = CliRunner().invoke(main, ["replay", ref, "--store", str(tmp_path / "store"),
                                           "--out", str(out)])
        assert result.exit_code == 0, result.output
        assert out.read_bytes() == body
    _, page = _get(demo_server.url + "/special/redirect-target")
    assert page in [body for _, body in payloads]  # and the archive holds what was served


@pytest.mark.slow
def test_pywb_replays_the_segments_as_they_lie(
    segmented: SegmentStore, demo_server: DemoServer, tmp_path: Path
) -> None:
    """No export: pywb indexes the store's own segment files and replays them, the final
    page of a redirect chain byte-identical to what the store resolves."""
    pywb = _pywb_bin()
    subprocess.run([str(pywb / "wb-manager"), "init", "store"], cwd=tmp_path, check=True,
                   capture_output=True)
    segments = sorted((segmented.root / "segments").iterdir())
    subprocess.run([str(pywb / "wb-manager"), "add", "store", *map(str, segments)],
                   cwd=tmp_path, check=True, capture_output=True)
    port = _free_port()
    proc = subprocess.Popen([str(pywb / "wayback"), "-p", str(port), "-b", "127.0.0.1"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_listening(port, proc, 60)
        replay = f"http://127.0.0.1:{port}/store"
        url, page = _get(f"{replay}/2mp_/{demo_server.url}/redirect/chain")
        assert url == f"{replay}/2mp_/{demo_server.url}/special/redirect-target", url
        assert b"You have arrived" in page
        for ref in (r for sid in segmented.sources() for r in segmented.list(sid)):
            if ref.url.startswith(demo_server.url) and "robots.txt" not in ref.url:
                snapshot = segmented.get(ref.source_id, ref.snapshot_sha256)
                _, raw = _get(f"{replay}/2id_/{ref.url}")
                assert raw == snapshot.bytes, ref.url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
