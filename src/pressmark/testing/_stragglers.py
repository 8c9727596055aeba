"""A loopback site with stragglers: what a crawl that never waits on one page is tested on.

:class:`StragglerSite` is about 500 article pages: ``/`` links to ``hubs`` hub pages
(depth 1), each hub to ``leaves`` leaf pages (depth 2), every leaf back to ``/`` and its
hub. With ``stragglers=True`` two more pages hang off ``/`` among the hubs:

- ``/never``: a JavaScript shell (an empty mount point, so ``on-shell`` renders it) whose
  script ticks a counter forever and never grows past a line: it never becomes ready, its
  render runs to the deadline;
- ``/slow``: an article that answers after ``slow_s`` seconds, with its own ``5`` leaves.

Every answer waits ``latency_s`` first (a server that takes its time, so a crawl's wall time
is the site's, not the crawler's CPU). The pages are deterministic; :meth:`graph` gives the
link graph the HTML is rendered from, so tests compute the breadth-first order themselves.
:meth:`serve` runs it on a loopback port in a thread; served on a second host too, the
leaves of every other hub live there (a crawl over two hosts, for a sharded crawl).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_WORDS = ("harbour", "ferry", "timetable", "quay", "lighthouse", "tide", "pier", "crane",
          "warehouse", "dock", "pilot", "anchor", "channel", "buoy", "mooring", "cargo")

NEVER_READY = (
    "<!doctype html><html lang=en><head><meta charset=utf-8><title>Live board</title></head>"
    "<body><div id=root></div><script>"
    "const root = document.getElementById('root');"
    "root.innerHTML = '<main><h1>Departures</h1><p id=tick></p></main>';"
    "let n = 0; setInterval(() => { document.getElementById('tick').textContent ="
    " 'Updated ' + (n++) + ' times'; }, 150);"
    "</script></body></html>"
)


def _prose(seed: int) -> str:
    words = [_WORDS[(seed * 7 + i * 3) % len(_WORDS)] for i in range(60)]
    return " ".join(words).capitalize() + "."


class _QuietServer(ThreadingHTTPServer):
    """A client that drops its connection (a crawl closing its pool, a render cut off at
    its deadline) is normal here: no traceback on stderr for it, which buried a bench's
    figures under ``ConnectionResetError`` reports."""

    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class StragglerSite:
    """The site (module docstring); ``origin`` is set by :meth:`serve`."""

    def __init__(self, *, hubs: int = 24, leaves: int = 20, stragglers: bool = True,
                 latency_s: float = 0.0, slow_s: float = 20.0) -> None:
        self.hubs = hubs
        self.leaves = leaves
        self.stragglers = stragglers
        self.latency_s = latency_s
        self.slow_s = slow_s
        self.origins: list[str] = []
        self.requests: list[str] = []

    @property
    def origin(self) -> str:
        return self.origins[0]

    def links(self) -> dict[str, list[str]]:
        """Every page and the paths it links to, in document order."""
        hubs = [f"/h{i:02d}" for i in range(self.hubs)]
        top = list(hubs)
        if self.stragglers:
            top.insert(min(3, len(top)), "/never")
            top.insert(min(10, len(top)), "/slow")
        graph: dict[str, list[str]] = {"/": top}
        for hub in hubs:
            kids = [f"{hub}/l{j:02d}" for j in range(self.leaves)]
            graph[hub] = ["/", *kids]
            for kid in kids:
                graph[kid] = ["/", hub]
        if self.stragglers:
            graph["/never"] = []
            kids = [f"/slow/l{j}" for j in range(5)]
            graph["/slow"] = ["/", *kids]
            for kid in kids:
                graph[kid] = ["/"]
        return graph

    def _href(self, path: str) -> str:
        """Leaves of odd hubs live on the second host when there is one (every link is
        absolute then)."""
        if len(self.origins) < 2:
            return path
        odd_leaf = path.startswith("/h") and "/l" in path and int(path[2:4]) % 2
        return self.origins[1 if odd_leaf else 0] + path

    def graph(self) -> dict[str, list[str]]:
        """The link graph as absolute URLs (served pages only), links in document order."""
        def url(path: str) -> str:
            href = self._href(path)
            return href if href.startswith("http") else self.origin + href

        return {url(page): [url(to) for to in links] for page, links in self.links().items()}

    def page(self, path: str) -> str | None:
        if self.stragglers and path == "/never":
            return NEVER_READY
        graph = self.links()
        if path not in graph:
            return None
        seed = sum(map(ord, path))
        links = "".join(f'<li><a href="{self._href(to)}">{to}</a></li>' for to in graph[path])
        return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{path}</title>"
                f"</head><body><main><h1>Page {path}</h1><p>{_prose(seed)}</p>"
                f"<p>{_prose(seed + 1)}</p><ul>{links}</ul></main></body></html>")

    @contextlib.contextmanager
    def serve(self, host: str = "127.0.0.1") -> Iterator[StragglerSite]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                site.requests.append(path)
                if site.latency_s:
                    time.sleep(site.latency_s)
                if site.stragglers and path == "/slow":
                    time.sleep(site.slow_s)
                body = site.page(path)
                status = 200 if body is not None else 404
                data = (body or "<p>not found</p>").encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                return None

        server = _QuietServer((host, 0), Handler)
        self.origins.append(f"http://{host}:{server.server_address[1]}")
        thread = threading.Thread(target=server.serve_forever, daemon=True,
                                  name="pressmark-stragglers")
        thread.start()
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()
