"""Small loopback servers for the browser tests: test pages, a canary, a forward proxy.

The page server serves hand-written pages for each behaviour under test. The
canary accepts TCP connections and records every one (and the first line sent),
so "zero connections" proves nothing reached it by any protocol.
"""

from __future__ import annotations

import json
import socket
import socketserver
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LONG = " ".join(
    f"Sentence {i} of the article explains something worth reading about harbours."
    for i in range(12)
)


def _page(body: str, head: str = "") -> str:
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"{head}</head><body>{body}</body></html>"
    )


SHELL = _page(
    '<div id="root">Loading...</div><script>'
    "setTimeout(() => fetch('/api/article.json').then(r => r.json()).then(d => {"
    "  const m = document.createElement('main');"
    "  m.innerHTML = '<h1>' + d.title + '</h1><p>' + d.body + '</p>';"
    "  document.getElementById('root').replaceChildren(m);"
    "}), 150);</script>"
)

SETTLING = _page(  # content at once, then two edits inside the window, then a no-op edit
    "<main><h1>Settling</h1><p>" + LONG + "</p></main><script>"
    "const mark = () => document.documentElement.setAttribute("
    "  'data-last-change', performance.now().toFixed(1));"
    "mark();"
    "setTimeout(() => { document.querySelector('main').insertAdjacentHTML("
    "  'beforeend', '<p>First late paragraph.</p>'); mark(); }, 250);"
    "setTimeout(() => { document.querySelector('main').insertAdjacentHTML("
    "  'beforeend', '<p>Second late paragraph.</p>'); mark(); }, 600);"
    "setTimeout(() => { const p = document.querySelector('main p');"
    "  p.replaceChildren(document.createTextNode(p.textContent)); }, 800);"
    "</script>"
)

LAZY = _page(
    '<main><h1>Lazy page</h1><section style="min-height:1500px"><p>' + LONG + "</p></section>"
    '<div id="more"></div><div id="sentinel" style="height:10px"></div></main>'
    '<footer style="height:200px">footer</footer>'
    "<script>let n = 1; const more = document.getElementById('more');"
    "const io = new IntersectionObserver((entries) => {"
    "  if (!entries.some(e => e.isIntersecting) || n >= 5) return;"
    "  n++; const k = n;"
    "  fetch('/api/lazy/' + k + '.json').then(r => r.json()).then(d => {"
    "    const s = document.createElement('section');"
    "    s.innerHTML = '<h2>' + d.heading + '</h2><p>' + d.text + '</p>';"
    "    s.style.minHeight = '1500px';"
    "    more.appendChild(s);"
    "    const sen = document.getElementById('sentinel'); more.after(sen);"
    "    io.unobserve(sen); io.observe(sen);"
    "  });"
    "});"
    "const sen = document.getElementById('sentinel');"
    "window.addEventListener('load', () => { window.scrollTo(0, 0); });"
    "setTimeout(() => io.observe(sen), 0);</script>"
)

LIVE = _page(
    "<main><h1>Live</h1><p>" + LONG + '</p><p>Visitors: <span id="live-counter">0</span></p></main>'
    "<script>let c = 0; setInterval(() => {"
    "document.getElementById('live-counter').textContent = String(++c); }, 250);</script>"
)

STATIC = _page("<main><h1>Static</h1><p>" + LONG + "</p></main>")

HEADING = _page(
    "<main><h1>Guide</h1><h2>What you will learn</h2><p>" + LONG + "</p></main>"
)

DIVS = _page(
    "<header><nav>" + " ".join(f"<a href=/s{i}>Section {i}</a>" for i in range(30)) + "</nav>"
    '</header><div class="wrap"><div class="post"><h1>Only divs</h1><p>' + LONG + "</p></div>"
    "</div><footer>" + LONG + "</footer>"
)

CHROME_ONLY = _page(  # plenty of text, all of it navigation and footer
    "<header><nav>" + " ".join(f"<a href=/s{i}>Section {i}</a>" for i in range(30)) + "</nav>"
    '</header><div class="post"><h1>Stub</h1><p>Short.</p></div><footer>' + LONG + "</footer>"
)

LATE_MAIN = _page(  # a slow shell: its teaser is long enough for the fallback, then main
    '<div id="root"><p>' + LONG + "</p></div><script>setTimeout(() => {"
    "  const m = document.createElement('main');"
    "  m.innerHTML = '<h1>Late main</h1><p>' + document.querySelector('#root p').textContent"
    "    + ' And the rest of it.</p>';"
    "  document.getElementById('root').replaceChildren(m);"
    "}, Math.max(0, 1300 - performance.now()));</script>"  # 1300 ms after navigation start
)

SHORT = _page("<main><h1>Short</h1><p>Too little text.</p></main>")

LOOP = _page(
    "<main><h1>Loop</h1><p>" + LONG + "</p></main>"
    "<script>setTimeout(() => { while (true) {} }, 50);</script>"
)

BOMB = _page(
    "<main><h1>Bomb</h1></main><script>const keep = [];"
    "setTimeout(() => { while (true) { keep.push(new Array(1e6).fill(Math.random())); } }, 20);"
    "</script>"
)

POPUPS = _page(
    "<main><h1>Pop-ups</h1><p>" + LONG + "</p>"
    '<a id="a" href="/static" target="_blank">x</a></main><script>'
    "for (let i = 0; i < 20; i++) { try { window.open('/static?' + i); } catch (e) {} }"
    "document.getElementById('a').click();"
    "const f = document.createElement('iframe'); document.body.appendChild(f);"
    "try { f.contentWindow.open('/static?frame'); } catch (e) {}"
    "</script>"
)

JS_REDIRECT = _page(
    "<main><h1>Stay</h1><p>" + LONG + "</p></main>"
    "<script>setTimeout(() => { location.href = '/static?moved'; }, 30);</script>"
)

CONSENT = _page(
    '<div class="cookie-dialog">We use cookies. Accept?</div>'
    "<main><h1>Consent</h1><p>" + LONG + '</p><p id="state"></p></main>'
    "<script>document.getElementById('state').textContent ="
    " document.cookie.includes('consent=yes') ? 'consent given' : 'no consent';</script>"
)

NETWORK = _page(
    "<main><h1>Network</h1><p>" + LONG + '</p><p id="late"></p></main>'
    "<script>fetch('/api/slow.json').then(r => r.json()).then(d => {"
    "document.getElementById('late').textContent = d.text; });</script>"
)


def canary_page(canary: str, evil: str) -> str:
    """A page that tries every channel we know to reach ``canary`` and ``evil``."""
    tries = []
    for origin in (canary, evil):
        ws = origin.replace("http://", "ws://")
        tries.append(
            f'<img src="{origin}/img.png"><script src="{origin}/s.js"></script>'
            f'<link rel="stylesheet" href="{origin}/s.css"><link rel="prefetch" href="{origin}/p">'
            f'<link rel="preconnect" href="{origin}"><link rel="dns-prefetch" href="{origin}">'
            f'<link rel="preload" as="fetch" href="{origin}/preload">'
            f"<style>@import url('{origin}/import.css');"
            f" body {{ background: url('{origin}/bg.png'); }}"
            f"@font-face {{ font-family: x; src: url('{origin}/f.woff2'); }}"
            " h1 { font-family: x; }</style>"
            f'<iframe src="{origin}/frame"></iframe><video src="{origin}/v.mp4" autoplay></video>'
            f'<form method="post" action="{origin}/form" class="auto"><input name=a value=b></form>'
            f'<script>(() => {{ const o = "{origin}"; const w = "{ws}";'
            "try { fetch(o + '/fetch', {mode: 'no-cors'}).catch(() => {}); } catch (e) {}"
            "try { const x = new XMLHttpRequest(); x.open('GET', o + '/xhr'); x.send(); }"
            " catch (e) {}"
            "try { new WebSocket(w + '/ws'); } catch (e) {}"
            "try { new EventSource(o + '/sse'); } catch (e) {}"
            "try { navigator.sendBeacon(o + '/beacon', 'x'); } catch (e) {}"
            "try { new Worker(o + '/worker.js'); } catch (e) {}"
            "try { new Worker(URL.createObjectURL(new Blob(["
            "`fetch('${o}/from-worker').catch(() => {})`]))); } catch (e) {}"
            "try { navigator.serviceWorker.register(o + '/sw.js').catch(() => {}); } catch (e) {}"
            "try { navigator.serviceWorker.register('/sw.js').catch(() => {}); } catch (e) {}"
            "try { const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:' + "
            "new URL(o).host}]}); pc.createDataChannel('x');"
            " pc.createOffer().then(d => pc.setLocalDescription(d)); } catch (e) {}"
            "})();</script>"
        )
    body = (
        "<main><h1>Canary</h1><p>" + LONG + "</p></main>" + "".join(tries)
        + f'<meta http-equiv="refresh" content="0;url={canary}/refresh">'
        "<script>setTimeout(() => { document.querySelectorAll('form.auto')"
        ".forEach(f => { try { f.submit(); } catch (e) {} }); }, 10);"
        f"setTimeout(() => {{ window.location = '{canary}/location'; }}, 20);"
        f"setTimeout(() => {{ window.open('{canary}/popup'); }}, 30);</script>"
    )
    return _page(body)


class PageServer:
    """Serves the pages above on 127.0.0.1 in a thread; records request paths."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.paths: list[str] = []
        self.extra: dict[str, str] = {}
        self.redirects: dict[str, str] = {}
        pages: dict[str, Callable[[], tuple[int, str, str]]] = {
            "/shell": lambda: (200, "text/html", SHELL),
            "/static": lambda: (200, "text/html", STATIC),
            "/heading": lambda: (200, "text/html", HEADING),
            "/short": lambda: (200, "text/html", SHORT),
            "/divs": lambda: (200, "text/html", DIVS),
            "/late-main": lambda: (200, "text/html", LATE_MAIN),
            "/chrome-only": lambda: (200, "text/html", CHROME_ONLY),
            "/lazy": lambda: (200, "text/html", LAZY),
            "/settling": lambda: (200, "text/html", SETTLING),
            "/live": lambda: (200, "text/html", LIVE),
            "/loop": lambda: (200, "text/html", LOOP),
            "/bomb": lambda: (200, "text/html", BOMB),
            "/popups": lambda: (200, "text/html", POPUPS),
            "/js-redirect": lambda: (200, "text/html", JS_REDIRECT),
            "/consent": lambda: (200, "text/html", CONSENT),
            "/network": lambda: (200, "text/html", NETWORK),
            "/api/article.json": lambda: (
                200, "application/json", json.dumps({"title": "Rendered shell", "body": LONG})
            ),
            "/sw.js": lambda: (200, "text/javascript", "self.onfetch = () => {};"),
            "/dl.bin": lambda: (200, "application/octet-stream", "binary"),
            "/cdn.js": lambda: (
                200,
                "text/javascript",
                "document.querySelector('main').insertAdjacentHTML('beforeend',"
                f" '<p>From the CDN: {LONG}</p>');",
            ),
        }
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                path = self.path
                if path.startswith("http://"):  # absolute form, from a proxy
                    path = "/" + path.split("/", 3)[3]
                server.paths.append(path)
                bare = path.split("?")[0]
                if bare in server.redirects:
                    self.send_response(302)
                    self.send_header("Location", server.redirects[bare])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if bare == "/hang":
                    time.sleep(2.5)  # longer than the test timeout, short enough to drain
                    return
                if bare.startswith("/api/lazy/"):
                    k = bare.rsplit("/", 1)[1].split(".")[0]
                    status, ctype, body = 200, "application/json", json.dumps(
                        {"heading": f"Section {k}", "text": f"Lazy section {k}. " + LONG}
                    )
                elif bare in ("/api/slow.json", "/api/late.json"):
                    time.sleep(0.4 if bare == "/api/slow.json" else 1.6)
                    status, ctype, body = 200, "application/json", json.dumps({"text": "late text"})
                elif bare in server.extra:
                    status, ctype, body = 200, "text/html", server.extra[bare]
                elif bare in pages:
                    status, ctype, body = pages[bare]()
                else:
                    status, ctype, body = 404, "text/html", _page("<main>not found</main>")
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", f"{ctype}; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_POST = do_GET

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer((host, 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.origin = f"http://{host}:{self.port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def start(self) -> PageServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class Canary:
    """Records every TCP connection made to it, and the first bytes of each."""

    def __init__(self) -> None:
        self.hits: list[bytes] = []
        canary = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                self.request.settimeout(1.0)
                try:
                    first = self.request.recv(200)
                except OSError:
                    first = b""
                canary.hits.append(first or b"<connect>")

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def start(self) -> Canary:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
