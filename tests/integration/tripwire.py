"""Tripwires and an open redirector: proof that a denied address was never dialled.

A :class:`Tripwire` listens where pressmark must never connect and logs every
connection it accepts; its first connection is its own probe, so a test knows it
would have seen a dial. A :class:`Redirector` is the hostile page: an allowed origin
that answers ``/to/<name>`` with a 302 to a denied address.

Run as a script inside a fresh network namespace (``unshare -n python tripwire.py
REPORT -- COMMAND...``) it brings up ``lo``, puts the cloud-metadata address
169.254.169.254 on it with a tripwire on port 80, another tripwire on 127.0.0.1:80,
a redirector on 127.0.0.1:8081, then runs COMMAND (the MCP server) on this stdio. In
that namespace nothing but loopback exists, so no packet can leave the machine even
if pressmark were wrong; the tripwires say whether it tried.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import IO


class Tripwire:
    """Accepts and logs connections on (host, port); ``dials`` excludes its own probe."""

    def __init__(self, host: str, port: int = 0, log: IO[str] | None = None) -> None:
        self.sock = socket.create_server((host, port))
        self.host, self.port = self.sock.getsockname()[:2]
        self.log = log
        self.accepted: list[str] = []
        self._probed = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()
        socket.create_connection((self.host, self.port), timeout=5).close()
        assert self._probed.wait(5), "the tripwire did not see its own probe"

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def dials(self) -> list[str]:
        return self.accepted[1:]

    def _serve(self) -> None:
        while True:
            try:
                conn, peer = self.sock.accept()
            except OSError:
                return
            event = "probe" if not self.accepted else "dial"
            self.accepted.append(peer[0])
            if self.log is not None:
                self.log.write(json.dumps({"event": event, "target": self.origin,
                                           "peer": peer[0]}) + "\n")
                self.log.flush()
            conn.close()
            self._probed.set()

    def close(self) -> None:
        self.sock.close()


class Redirector:
    """``GET /to/<name>`` answers 302 to ``targets[name]``; robots.txt is a 404 (allow all)."""

    def __init__(self, targets: dict[str, str], host: str = "127.0.0.1", port: int = 0) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                name = self.path.removeprefix("/to/")
                if self.path.startswith("/to/") and name in targets:
                    self.send_response(302)
                    self.send_header("Location", targets[name])
                else:
                    self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.host, self.port = self.server.server_address[:2]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _in_namespace(report: str, command: list[str]) -> int:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "addr", "add", "169.254.169.254/32", "dev", "lo"], check=True)
    with open(report, "a", encoding="utf-8") as log:
        Tripwire("169.254.169.254", 80, log)
        Tripwire("127.0.0.1", 80, log)
        Redirector({"metadata": "http://169.254.169.254/latest/meta-data/",
                    "loopback": "http://127.0.0.1/admin"}, port=8081)
        return subprocess.run(command, check=False).returncode


if __name__ == "__main__":
    sep = sys.argv.index("--")
    sys.exit(_in_namespace(sys.argv[1], sys.argv[sep + 1:]))
