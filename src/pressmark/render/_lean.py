"""Lean page loads and reused tabs: what a render skips, and how a tab is made clean again.

A render needs the DOM's text, nothing else, so a page loads without what cannot
change that text: images, media and fonts (blocked inside Chromium), beacons
(``navigator.sendBeacon`` answers ``true`` and sends nothing; pings are refused),
well-known analytics and tag-manager scripts and pixels, the favicon. Those are
refused inside the browser before they are sent: the tab's Fetch domain pauses only
requests of those types and URLs (:func:`blocked_patterns`) and fails them, one round
trip for each refused request and none for the others. (``Network.setBlockedURLs``
would need the Network domain enabled on our session, which sends about 30 events a
page through Playwright's driver to Python, to be ignored.) A Fetch pattern cannot tell
a prefetch from the page's own ``fetch()``; the renderer's egress proxy refuses plain
HTTP prefetches by their ``Sec-Purpose`` header instead, before any upstream
connection. Unload-time
handlers (``unload``, ``pagehide``, ``beforeunload``) are not registered: they run
only after the capture, and they are how a page would write state for the next one.

The same init script counts what could still change a page's DOM (timers not yet
run, with when each is due; fetch and XHR in flight; sockets, workers and channels ever
opened) for the readiness engine, which ends a page early once nothing is left that is
due soon (:mod:`pressmark.render._readiness`).

A tab is reused for the next page only after its state is gone. The capture itself
clears the top frame's ``sessionStorage`` and ``window.name`` and freezes the document
(its timers are cancelled and no new ones start, loading and navigation stop, storage,
cookie and IndexedDB writes do nothing); then cookies are cleared, every origin the
tab had a frame of loses its storage (local storage, IndexedDB, cache storage, service
workers), and the session history is reset. The frozen document stays until the next
navigation replaces it, in the renderer process the next page of the same site reuses
(a navigation to ``about:blank`` instead would cost that process, about 80 ms of CPU
per page). Not covered: a dedicated worker of the old page writing IndexedDB after the
capture, and ``history.length``, which counts the tab's blank start page.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pressmark.egress import EgressDenied, parse_url

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, CDPSession, Page

# Appended to the init script: runs in every frame before the page's own scripts.
LEAN_SCRIPT = r"""
(() => {
  try {
    if (navigator.sendBeacon) {
      Object.defineProperty(Navigator.prototype, 'sendBeacon', {
        value: function sendBeacon() { return true; }, configurable: true, writable: true,
      });
    }
  } catch (e) {}
  const dropped = new Set(['unload', 'pagehide', 'beforeunload']);
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if ((this === window || this === document) && dropped.has(String(type))) return undefined;
    return add.call(this, type, listener, options);
  };
  for (const name of ['onunload', 'onpagehide', 'onbeforeunload']) {
    try {
      Object.defineProperty(window, name, {
        get() { return null; }, set(v) {}, configurable: true,
      });
    } catch (e) {}
  }
  // What could still change the DOM without a user: timers not yet run, requests in
  // flight (fetch and its body, XHR), and sockets, workers or channels ever opened. The
  // readiness engine asks busy() to end early a page that can no longer become ready,
  // and busyWithin(ms) for what is due within ms (a timer set for a minute from now, a
  // slow interval between its ticks, do not count); it uses the original timers
  // (timers below), so its own waits do not count. Each pending entry keeps its cancel
  // function and when it is next due (frames and idle callbacks: at once).
  const timers = { setTimeout: window.setTimeout, clearTimeout: window.clearTimeout };
  const pending = new Map();
  const idle = new Set();
  let inflight = 0, opened = 0, overflow = false;
  const quiet = () => { for (const notify of Array.from(idle)) { try { notify(); } catch (e) {} } };
  const track = (name, cancelName, kind, siblings) => {
    const original = window[name], cancel = window[cancelName];
    if (typeof original !== 'function' || typeof cancel !== 'function') return;
    window[name] = function (callback, ...rest) {
      let id = 0;
      const delay = kind === 'frame' ? 0 : Math.max(0, Number(rest[0]) || 0);
      let run = callback;
      if (typeof callback === 'function' && kind !== 'interval') {
        run = function (...a) {
          try { return callback.apply(this, a); } finally { pending.delete(name + id); quiet(); }
        };
      } else if (typeof callback === 'function') {
        run = function (...a) {
          const entry = pending.get(name + id);
          if (entry) entry.due = performance.now() + delay;
          try { return callback.apply(this, a); } finally { quiet(); }
        };
      }
      id = original.call(this, run, ...rest);
      // A string callback cannot be wrapped: it is not tracked (nothing would end it).
      if (typeof callback !== 'function') return id;
      if (pending.size < 100000) {
        pending.set(name + id, { cancel: () => cancel(id), due: performance.now() + delay });
      } else {
        overflow = true;
      }
      return id;
    };
    window[cancelName] = function (id) {
      for (const sibling of siblings) pending.delete(sibling + id);
      const out = cancel.call(this, id);
      quiet();
      return out;
    };
  };
  // setTimeout and setInterval share their ids: either clear function clears both.
  track('setTimeout', 'clearTimeout', 'once', ['setTimeout', 'setInterval']);
  track('setInterval', 'clearInterval', 'interval', ['setTimeout', 'setInterval']);
  track('requestAnimationFrame', 'cancelAnimationFrame', 'frame', ['requestAnimationFrame']);
  if (window.requestIdleCallback) {
    track('requestIdleCallback', 'cancelIdleCallback', 'frame', ['requestIdleCallback']);
  }
  const settles = (promise) => {
    inflight++;
    const done = () => { inflight--; quiet(); };
    promise.then(done, done);
    return promise;
  };
  const nativeFetch = window.fetch;
  if (typeof nativeFetch === 'function') {
    window.fetch = function fetch(...a) { return settles(nativeFetch.apply(this, a)); };
  }
  if (window.Response) {
    for (const name of ['json', 'text', 'arrayBuffer', 'blob', 'formData']) {
      const read = Response.prototype[name];
      if (typeof read === 'function') {
        Response.prototype[name] = function (...a) { return settles(read.apply(this, a)); };
      }
    }
  }
  if (window.XMLHttpRequest) {
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (...a) {
      inflight++;
      add.call(this, 'loadend', () => { inflight--; quiet(); }, { once: true });
      try { return send.apply(this, a); } catch (e) { inflight--; throw e; }
    };
  }
  for (const name of ['WebSocket', 'EventSource', 'Worker', 'SharedWorker',
                      'BroadcastChannel', 'MessageChannel']) {
    const Native = window[name];
    if (typeof Native !== 'function') continue;
    try {
      window[name] = new Proxy(Native, {
        construct(target, args, newTarget) {
          opened++;
          return Reflect.construct(target, args, newTarget);
        },
      });
    } catch (e) {}
  }
  Object.defineProperty(window, Symbol.for('pressmark.timers'), { value: timers });
  Object.defineProperty(window, Symbol.for('pressmark.idle'), { value: idle });
  Object.defineProperty(window, Symbol.for('pressmark.busy'), {
    value: () => (overflow || opened ? 1 : 0) + pending.size + inflight,
  });
  Object.defineProperty(window, Symbol.for('pressmark.busyWithin'), {
    value: (ms) => {
      const by = performance.now() + ms;
      let due = 0;
      for (const entry of pending.values()) if (entry.due <= by) due++;
      return (overflow || opened ? 1 : 0) + due + inflight;
    },
  });
  // After the capture the document is frozen: its timers end, it loads and navigates no
  // more, and it can write no state the next page in this tab could read.
  const noop = () => 0;
  Object.defineProperty(window, Symbol.for('pressmark.freeze'), { value: () => {
    for (const entry of pending.values()) { try { entry.cancel(); } catch (e) {} }
    pending.clear();
    for (const name of ['setTimeout', 'setInterval', 'requestAnimationFrame',
                        'requestIdleCallback', 'queueMicrotask']) {
      try { window[name] = noop; } catch (e) {}
    }
    try { window.stop(); } catch (e) {}
    try { Storage.prototype.setItem = noop; Storage.prototype.removeItem = noop; } catch (e) {}
    try { Object.defineProperty(document, 'cookie', { get: () => '', set: noop }); } catch (e) {}
    try { IDBFactory.prototype.open = () => { throw new DOMException('frozen'); }; } catch (e) {}
    try { if (window.caches) CacheStorage.prototype.open = () => Promise.reject('frozen'); }
    catch (e) {}
  } });
})();
"""

# What the capture does to the top frame, for a child frame.
FREEZE_FRAME_JS = """() => {
  try { sessionStorage.clear(); } catch (e) {}
  const freeze = window[Symbol.for('pressmark.freeze')];
  if (freeze) freeze();
}"""

# URL wildcards (only "*"): analytics, tag managers and pixels; media files.
TRACKER_URLS: tuple[str, ...] = (
    "*://*.google-analytics.com/*", "*://*.googletagmanager.com/*",
    "*://*.doubleclick.net/*", "*://*.googlesyndication.com/*", "*://*.hotjar.com/*",
    "*://*.segment.io/*", "*://*.segment.com/*", "*://*.mixpanel.com/*",
    "*://*.facebook.net/*", "*://connect.facebook.com/*", "*://*.scorecardresearch.com/*",
    "*://*.quantserve.com/*", "*://*.chartbeat.com/*", "*://*.newrelic.com/*",
    "*://*.nr-data.net/*", "*://*.clarity.ms/*", "*://plausible.io/*", "*://*.matomo.cloud/*",
    "*/analytics.js*", "*/gtag/js*", "*/gtm.js*", "*/ga.js*", "*/pixel.gif*", "*/collect?*",
    "*/favicon.ico",
)  # fmt: skip
MEDIA_URLS: tuple[str, ...] = (
    "*.mp4*", "*.m4v*", "*.webm*", "*.ogv*", "*.mp3*", "*.m4a*", "*.aac*", "*.wav*",
    "*.flac*", "*.opus*", "*.mov*", "*.m3u8*", "*.mpd*",
)  # fmt: skip


# Request types that never change a DOM's text: pings and reports. (Fetch patterns
# cannot name prefetches: Chromium reports them as "Fetch", like a page's own fetch().)
SKIPPED_TYPES: tuple[str, ...] = ("Ping", "CSPViolationReport")


@dataclass(frozen=True, slots=True)
class BlockList:
    """What a tab refuses before it is sent: Fetch-domain patterns, and the same rule as a
    predicate for a paused request (a paused document may be one to refuse, or one to
    check and continue)."""

    patterns: tuple[dict[str, str], ...]
    types: frozenset[str]
    urls: re.Pattern[str]

    def refuses(self, resource_type: str, url: str) -> bool:
        return resource_type in self.types or self.urls.fullmatch(url) is not None


def blocked_patterns(block: frozenset[str]) -> BlockList:
    """The block list for a tab whose page state blocks ``block`` (image, media, font)."""
    types = set(SKIPPED_TYPES) | {name.capitalize() for name in block}
    urls = [*TRACKER_URLS, *(MEDIA_URLS if "media" in block else ())]
    # Our URL wildcards have only '*'; Fetch patterns also read '?' and '\\'.
    escaped = [u.replace("\\", "\\\\").replace("?", "\\?") for u in urls]
    patterns = [{"urlPattern": "*", "resourceType": t, "requestStage": "Request"}
                for t in sorted(types)]
    patterns += [{"urlPattern": u, "requestStage": "Request"} for u in escaped]
    regex = "|".join(".*".join(re.escape(part) for part in u.split("*")) for u in urls)
    return BlockList(patterns=tuple(patterns), types=frozenset(types),
                     urls=re.compile(regex, re.DOTALL))


def frame_origins(page: Page) -> list[str]:
    """The http(s) origins of the page's frames, in order, each once."""
    origins: list[str] = []
    for frame in page.frames:
        if not frame.url.startswith(("http:", "https:")):
            continue
        try:
            origin = parse_url(frame.url).origin
        except EgressDenied:
            continue
        if origin not in origins:
            origins.append(origin)
    return origins


async def reset_tab(context: BrowserContext, page: Page, session: CDPSession) -> None:
    """Make a reused tab as clean as a new one (see the module docstring); raises when
    anything fails, so the pool closes the context instead of reusing it."""
    origins = frame_origins(page)
    for frame in page.frames[1:]:  # the top frame was cleared and frozen by the capture
        with contextlib.suppress(Exception):
            await frame.evaluate(FREEZE_FRAME_JS)
    # Independent steps, sent at once: the slot is held until the last one answers.
    await asyncio.gather(
        context.clear_cookies(),
        *(session.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
          for origin in origins),
        session.send("Page.resetNavigationHistory"),
    )


def kept_page(kept: dict[str, Any]) -> Page | None:
    page = kept.get("page")
    return page if page is not None and not page.is_closed() else None
