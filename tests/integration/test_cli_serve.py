"""``pressmark serve``: a clickable URL, a clean stop on Ctrl-C, a clear busy-port error."""

from __future__ import annotations

import http.client
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from pressmark.cli import main
from pressmark.store import FilesystemSnapshotStore
from pressmark.web._sample import write_sample_crawl


def _get(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_ctrl_c_stops_the_workbench_cleanly(tmp_path: Path) -> None:
    write_sample_crawl(tmp_path, FilesystemSnapshotStore(tmp_path / "store"), filler_pages=1)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pressmark", "serve", str(tmp_path), "--port", "0"],
        stderr=subprocess.PIPE, text=True,
        # a clean default SIGINT disposition, whatever the runner's shell did with it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        match = re.fullmatch(r"pressmark workbench: (http://127\.0\.0\.1:(\d+)/)  "
                             r"\(Ctrl\+C to stop\)\n", line)
        assert match, line
        deadline = time.monotonic() + 15
        while True:
            try:
                assert _get(int(match.group(2)), "/") == 200
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
        rest = proc.stderr.read()
        assert "Aborted" not in rest and "Traceback" not in rest
        assert "pressmark workbench: stopped" in rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stderr is not None:
            proc.stderr.close()


def test_a_busy_port_is_a_clear_failure(tmp_path: Path) -> None:
    write_sample_crawl(tmp_path, FilesystemSnapshotStore(tmp_path / "store"), filler_pages=1)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(main, ["serve", str(tmp_path), "--port", str(port)])
    assert result.exit_code == 5
    assert result.stderr.startswith(f"error: cannot bind 127.0.0.1:{port}: ")
    assert "try --port 0" in result.stderr
