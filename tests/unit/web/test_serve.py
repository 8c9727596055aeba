"""``pressmark serve`` really serves, on loopback, read-only."""

from __future__ import annotations

import http.client
import re
import subprocess
import sys
import time
from pathlib import Path

from pressmark.store import FilesystemSnapshotStore
from pressmark.web._sample import write_sample_crawl


def request(port: int, method: str, path: str, host: str | None = None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, headers={"Host": host} if host else {})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_serve_binds_loopback_and_answers(tmp_path: Path) -> None:
    write_sample_crawl(tmp_path, FilesystemSnapshotStore(tmp_path / "store"), filler_pages=3)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pressmark", "serve", str(tmp_path), "--port", "0"],
        stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, line
        port = int(match.group(1))
        deadline = time.monotonic() + 15
        while True:
            try:
                status = request(port, "GET", "/")
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert status == 200
        assert request(port, "GET", "/page/1") == 200
        assert request(port, "POST", "/") == 405
        assert request(port, "GET", "/static/../_app.py") == 404
        assert request(port, "GET", "/", host="rebound.example") == 400
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stderr is not None:
            proc.stderr.close()
