"""The page's own document: the guard script that runs before it, its capture, and what that means.

Two scripts run inside every render. :data:`INIT_SCRIPT` runs in every frame before
the page's scripts: it refuses pop-ups and WebRTC, and in the top frame cancels
cross-document navigations except one same-origin client-side redirect, keeping
lists of what it cancelled and followed. :data:`CAPTURE_JS` serialises the DOM at
the end and hands those lists back. The two share a contract (the
``__pressmarkCancelled`` / ``__pressmarkFollowed`` globals and the
``__pressmarkFollowed`` sessionStorage key) that no other module knows of, so they
live together, beside :func:`read_capture`, which turns the captured record and the
navigation response into the result's final URL, status and warnings.

This is apart from :mod:`pressmark.render._playwright` because it is the one place
that decides what the rendered page *is* (which document, which status, which
redirect counted), and :func:`read_capture` decides it as a pure function of data,
with no browser, pool or proxy in sight; the renderer keeps the sequencing (lease,
navigate, readiness, deadlines). The per-tab CDP work (proxy answers, lean-load
refusals, tab reset) is in :mod:`pressmark.render._navigation` and
:mod:`pressmark.render._lean`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from pressmark.egress import EgressDenied, parse_url
from pressmark.render._errors import HTML_TOO_LARGE, NAVIGATION_REFUSED, RenderError
from pressmark.render._hidden import MARK_HIDDEN_JS
from pressmark.render._readiness import NAVIGATING

# Only these can be navigated to, and a page may only end on one of them.
ALLOWED_SCHEMES = ("http", "https")

# Runs in every frame before any of the page's scripts.
INIT_SCRIPT = r"""
(() => {
  const refuse = function () { return null; };
  try {
    Object.defineProperty(window, 'open', { value: refuse, writable: false, configurable: false });
  } catch (e) { window.open = refuse; }
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel']) {
    try {
      delete window[name];
      Object.defineProperty(window, name, { value: undefined });
    } catch (e) {}
  }
  if (window.top === window && window.navigation) {
    // The render is of the URL we were given: later cross-document navigations of the
    // top frame (location, meta refresh, form POST) are cancelled; SPA pushState is not.
    // One exception: the first same-origin client-side redirect (location change or
    // meta refresh, no form data) is followed once, through the proxy like any request;
    // sessionStorage carries "already followed" into the next document.
    const cancelled = [];
    let followed = null;
    try { followed = JSON.parse(sessionStorage.getItem('__pressmarkFollowed') || '[]'); }
    catch (e) { followed = null; }
    if (!Array.isArray(followed)) followed = null;
    Object.defineProperty(window, '__pressmarkCancelled', { value: cancelled });
    Object.defineProperty(window, '__pressmarkFollowed', { value: followed || [] });
    window.navigation.addEventListener('navigate', (event) => {
      if (!event.cancelable || event.destination.sameDocument) return;
      const dest = String(event.destination.url);
      let sameOrigin = false;
      try { sameOrigin = new URL(dest).origin === location.origin; } catch (e) {}
      if (followed !== null && followed.length === 0 && sameOrigin && !event.formData
          && !event.downloadRequest
          && (event.navigationType === 'push' || event.navigationType === 'replace')) {
        try {
          sessionStorage.setItem('__pressmarkFollowed', JSON.stringify([dest.slice(0, 200)]));
          followed.push(dest.slice(0, 200));
          return;
        } catch (e) {}
      }
      event.preventDefault();
      if (cancelled.length < 10) cancelled.push(dest.slice(0, 200));
    });
  }
})();
"""

CAPTURE_JS = r"""
([remove, maxUnits]) => {
  for (const sel of remove) {
    try { document.querySelectorAll(sel).forEach((el) => el.remove()); } catch (e) {}
  }
  try { (MARK_HIDDEN)(); } catch (e) {}  // the browser's verdict on hidden text (_hidden)
  const root = document.documentElement;
  const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
  const html = root ? doctype + root.outerHTML : '';
  const nav = performance.getEntriesByType('navigation')[0];
  // Nothing of this page may reach the next one in a reused tab (see _lean).
  try { sessionStorage.clear(); } catch (e) {}
  try { window.name = ''; } catch (e) {}
  const freeze = window[Symbol.for('pressmark.freeze')];
  if (freeze && (!maxUnits || html.length <= maxUnits)) freeze();
  return {
    html: maxUnits && html.length > maxUnits ? null : html,
    units: html.length,
    url: location.href,
    status: (nav && nav.responseStatus) || null,
    cancelled: Array.isArray(window.__pressmarkCancelled)
      ? window.__pressmarkCancelled.slice(0, 10) : [],
    followed: Array.isArray(window.__pressmarkFollowed)
      ? window.__pressmarkFollowed.slice(0, 1) : [],
  };
}
""".replace("MARK_HIDDEN", MARK_HIDDEN_JS.strip())


def same_origin(a: str, b: str) -> bool:
    """pushState may change the path, never the origin: a new origin means a new document."""
    return _origin(a) == _origin(b)


def _origin(url: str) -> str:
    try:
        return parse_url(url).origin
    except EgressDenied:
        return url  # not an http(s) URL: only equal to itself


async def capture_dom(
    page: Page, remove_selectors: Sequence[str], max_units: int, deadline: float
) -> dict[str, Any]:
    """Serialise the DOM; a followed redirect that commits meanwhile is waited for once."""
    args = [list(remove_selectors), max_units]
    for attempt in range(2):
        try:
            captured = await asyncio.wait_for(
                page.evaluate(CAPTURE_JS, args), max(0.2, deadline - time.monotonic())
            )
            return dict(captured)
        except PlaywrightError as exc:
            if attempt or not any(m in str(exc) for m in NAVIGATING):
                raise
            left_ms = max(100.0, (deadline - time.monotonic()) * 1000)
            with contextlib.suppress(PlaywrightError):
                await page.wait_for_load_state("domcontentloaded", timeout=left_ms)
    raise AssertionError("unreachable")


@dataclass(frozen=True, slots=True, kw_only=True)
class CapturedDocument:
    """What a capture says the render produced; ``warnings`` come in the order found."""

    html: str
    final_url: str
    status: int | None
    warnings: tuple[str, ...]


def read_capture(
    captured: Mapping[str, Any],
    *,
    url: str,
    page_url: str,
    response_url: str | None,
    response_status: int | None,
    max_units: int,
) -> CapturedDocument:
    """Decide the document, its status and what the page did to get there.

    ``response_url`` / ``response_status`` are the navigation response's (``None``
    when there was none); ``page_url`` is the tab's URL, used when the capture did
    not report one. Raises :class:`RenderError` for a DOM over ``max_units`` bytes
    (0: no limit) and for a page that ended on a refused scheme."""
    html = captured.get("html")
    if html is None or (max_units and len(html.encode("utf-8")) > max_units):
        raise RenderError(
            f"rendered DOM larger than max_html_bytes={max_units}", code=HTML_TOO_LARGE, url=url
        )
    final_url = str(captured.get("url") or page_url)
    if urlsplit(final_url).scheme.lower() not in ALLOWED_SCHEMES:
        raise RenderError(
            f"the page ended on a refused URL scheme: {final_url[:80]}",
            code=NAVIGATION_REFUSED,
            url=url,
        )
    warnings: list[str] = []
    for target in captured.get("cancelled") or ():
        warnings.append(f"cancelled a client-side navigation to {str(target)[:200]}")
    followed = False
    for target in captured.get("followed") or ():
        if final_url != (response_url if response_url is not None else url):
            followed = True
            warnings.append(f"followed a same-origin client-side redirect to {final_url[:200]}")
        else:  # a download, an error, or not loaded before the capture
            warnings.append(
                f"a client-side redirect to {str(target)[:200]} did not replace the page"
                " (a download, an error, or too late); captured the page before it"
            )
    # The status is the navigation response's, not the page's say-so, unless the
    # document was replaced after all (then the new document's entry is all we have).
    status = response_status
    nav_status = captured.get("status")
    if response_url is not None and not same_origin(response_url, final_url):
        warnings.append(f"the page ended on another document: {final_url[:200]}")
        status = nav_status if isinstance(nav_status, int) and nav_status > 0 else None
    elif (status is None or followed) and isinstance(nav_status, int) and nav_status > 0:
        status = nav_status
    return CapturedDocument(
        html=html, final_url=final_url, status=status, warnings=tuple(warnings)
    )
