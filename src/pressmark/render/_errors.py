"""Errors of the rendering layer.

::

    PressmarkError
    └── RenderError                 .code, .url
            playwright-missing      the ``pressmark[render]`` extra is not installed
            browser-not-found       no Chromium on this machine (the message says what to install)
            browser-launch-failed   Chromium did not start
            browser-crashed         the browser died or hung while this page was rendering
            page-crashed            the page's renderer process died (out of memory, ...)
            render-timeout          ``timeout_ms`` passed and nothing usable was captured
            navigation-refused      not an http(s) URL, or the page ended on a refused scheme
            navigation-failed       Chromium could not load the page (the proxy refused it, ...)
            html-too-large          the serialised DOM exceeded ``max_html_bytes``
            robots-denied           a top-level navigation (redirect hop, client-side
                                    redirect) was refused by ``RenderOptions.navigation_guard``
            renderer-closed         ``render()`` after ``close()``

A page that renders but never becomes ready is *not* an error: the result carries
``readiness.passed=False`` and a warning.
"""

from __future__ import annotations

from pressmark._errors import PressmarkError

PLAYWRIGHT_MISSING = "playwright-missing"
BROWSER_NOT_FOUND = "browser-not-found"
BROWSER_LAUNCH_FAILED = "browser-launch-failed"
BROWSER_CRASHED = "browser-crashed"
PAGE_CRASHED = "page-crashed"
RENDER_TIMEOUT = "render-timeout"
NAVIGATION_REFUSED = "navigation-refused"
NAVIGATION_FAILED = "navigation-failed"
HTML_TOO_LARGE = "html-too-large"
RENDERER_CLOSED = "renderer-closed"
ROBOTS_DENIED = "robots-denied"


class RenderError(PressmarkError):
    """A page could not be rendered at all; ``code`` says why."""

    code = "render-failed"

    def __init__(self, message: str, *, code: str | None = None, url: str | None = None) -> None:
        super().__init__(message, code=code)
        self.url = url
