"""Security boundary of the review workbench.

Snapshot HTML is hostile: it was fetched from URLs nobody vetted. The workbench
shows it, so the rules below are what keep "show" from becoming "run".

Snapshot documents
    Served only from the snapshot store (``/raw/...``), never fetched from the
    network, with :data:`SNAPSHOT_CSP`: ``default-src 'none'`` blocks scripts,
    frames, fonts, fetches and remote styles; inline styles are allowed so the
    capture still looks like the page; images only as ``data:`` URLs (the store
    keeps page documents, not their images, so there is nothing else to load).
    The CSP ``sandbox`` directive applies the same sandbox as the iframe even if
    someone opens the snapshot URL directly in a tab. An HTML capture is never served
    as HTML: ``/raw/...`` is an empty shell, and the page view's own script builds the
    captured tree in it from data (``/raw/.../tree``) with DOM calls, every URL,
    handler and refresh moved out of reach first (see ``_inert``): re-parsed markup
    can mutate into live elements (mXSS), and Chromium opens a connection to a frame's
    origin before CSP blocks the load. The exact bytes are served only as an
    ``attachment`` download (``/bytes/...``).

The iframe: ``sandbox="allow-same-origin"`` and nothing else
    No ``allow-scripts``, so nothing in the snapshot ever executes (inline
    scripts, event handlers, ``javascript:`` URLs). No ``allow-forms``,
    ``allow-popups`` or ``allow-top-navigation``. ``allow-same-origin`` is what
    lets the *parent's* script (our own ``static/app.js``) reach into the
    document to outline the element a provenance span points at, by its CSS
    path. The usual warning about ``allow-same-origin`` is that a same-origin
    frame *with scripts* can remove its own sandbox; without ``allow-scripts``
    the frame has no way to do that. The alternative (an opaque origin plus
    ``postMessage``) needs a script inside the snapshot, which is exactly what we
    refuse to run. The parent also cancels link clicks inside the frame, so
    reading a capture never navigates to the live site.

Application pages
    :data:`APP_CSP` allows only the workbench's own scripts and styles (no inline
    script, no CDN), frames only from itself, and forbids being framed.

Paths
    No request carries a file path. Pages are addressed by their row in
    ``pages.jsonl``, snapshots by a 64-hex digest of a source listed there. The
    Markdown and evidence paths that ``pages.jsonl`` names are resolved with
    :func:`contained_path`, which refuses anything (``..``, absolute paths,
    symlinks) that lands outside its directory.

Host
    The app answers only to loopback host names (a guard against DNS rebinding),
    binds 127.0.0.1 by default, and is read-only: every route is GET/HEAD. The one
    costly route, the Markdown diff, refuses another site's subresource requests
    (Fetch Metadata), computes at most one diff at a time and keeps the last few.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from starlette.types import ASGIApp, Message, Receive, Scope, Send

SNAPSHOT_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox allow-same-origin"
)
"""Content-Security-Policy of archived snapshot documents."""

APP_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
"""Content-Security-Policy of the workbench's own pages."""

IFRAME_SANDBOX = "allow-same-origin"
"""The ``sandbox`` attribute of the snapshot iframe: no scripts, forms or popups."""

DEFAULT_ALLOWED_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")

_COMMON_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-dns-prefetch-control", b"off"),  # no DNS look-ups for hosts a snapshot names
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
)

_DIGEST = re.compile(r"[0-9a-f]{64}")


def is_digest(value: str) -> bool:
    """True for a lower-case SHA-256 hex digest, the only digest form routes accept."""
    return _DIGEST.fullmatch(value) is not None


def contained_path(root: Path, relative: str | None) -> Path | None:
    """Resolve ``relative`` under ``root``; ``None`` if it would escape or is not a file.

    Symlinks are resolved before the check, so a link pointing outside the
    output directory is refused like ``../``.
    """
    if not relative or "\x00" in relative:
        return None
    candidate = Path(relative)
    if candidate.is_absolute():
        return None
    try:
        base = root.resolve(strict=True)
        target = (base / candidate).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if not target.is_relative_to(base) or not target.is_file():
        return None
    return target


class SecurityHeadersMiddleware:
    """Adds the CSP and hardening headers to every HTTP response.

    A response that already set its own ``content-security-policy`` (the
    snapshot route) keeps it; everything else gets :data:`APP_CSP` and
    ``X-Frame-Options: DENY``.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", APP_CSP.encode()))
                    headers.append((b"x-frame-options", b"DENY"))
                headers.extend(h for h in _COMMON_HEADERS if h[0] not in names)
                message = {**message, "headers": headers}
            await send(message)

        started = False

        async def send_tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send_with_headers(message)

        try:
            await self.app(scope, receive, send_tracked)
        except Exception:
            # A bug must not answer without the headers (Starlette's error page sits
            # outside this middleware): a plain 500 with them, and the error is logged.
            logging.getLogger("pressmark.web").exception("request failed")
            if not started:
                await send_with_headers({"type": "http.response.start", "status": 500,
                                         "headers": [(b"content-type",
                                                      b"text/plain; charset=utf-8")]})
                await send({"type": "http.response.body", "body": b"internal error"})
