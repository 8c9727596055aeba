"""The readiness engine: decide when the DOM holds the content, from the page's own events.

Each pattern runs as one script evaluated in the page, which resolves when its
condition holds or its time budget is spent: one round trip per pattern, and no
polling sleeps. A MutationObserver on the document, installed by the first probe
and kept for the document's life, records when the content root (the main element,
or the body without its chrome) last changed; the main-content check runs again
when the DOM changes (bursts coalesced to one check per ``poll_interval_ms``), and
stability is confirmed by a timer set ``stability_window_ms`` after the last
change, so a page that settled early passes early and a page that keeps changing
is re-checked only when its timer is due. A change that leaves the root's text as
it was (a node replaced by an identical one) does not restart the window.

A page whose main content stays short but that is done (no DOM change for
``settled_after_ms``, no request in flight, nothing the tab's init script counts due
within ``settle_horizon_ms``: a search page, a one-line notice) ends then, ready, with
the outcome ``ready:settled-short`` and the conditions that held in its reason, instead
of waiting for the deadline. A page that keeps changing, or keeps something pending,
still meets the deadline.

The budget comes from the render's deadline, so the renderer keeps ``timeout_ms``
even when a pattern cannot pass. A page that navigates mid-pattern (a client
redirect) is probed again in its new document. A page whose main thread never
yields (an endless loop) is cut off by the Python-side timeout around each
evaluation.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from pressmark.render._protocol import ReadinessReport, ReadinessSpec

# One function for every in-page pattern: arg = [phase, settings, budget_ms].
PROBE_JS = r"""
async ([phase, a, budget]) => {
  // The page's own timers, untracked (see _lean): the probe's waits are not the page's.
  const T = window[Symbol.for('pressmark.timers')];
  const setTimeout = T ? T.setTimeout : window.setTimeout;
  const clearTimeout = T ? T.clearTimeout : window.clearTimeout;
  const end = performance.now() + budget;
  const left = () => end - performance.now();
  const ignore = a.ignore.join(',');
  // No main selector: the body is the content root, without its chrome.
  const fbIgnore = a.ignore.concat(a.boilerplate).join(',');
  const findMain = () => {
    for (const sel of a.selectors) {
      let el = null;
      try { el = document.querySelector(sel); } catch (e) { el = null; }
      if (el) return [sel, el];
    }
    return [null, null];
  };
  const rootOf = () => {
    const [sel, el] = findMain();
    return el ? [el, ignore, sel] : [document.body, fbIgnore, 'body'];
  };
  const textOf = (el, ignore) => {
    if (!el) return '';
    let text;
    if (!ignore) {
      text = el.innerText || '';
    } else {
      const parts = [];
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const parent = n.parentElement;
        if (!parent || parent.closest(ignore)) continue;
        if (parent.closest('script,style,noscript,template')) continue;
        if (parent.checkVisibility && !parent.checkVisibility()) continue;
        parts.push(n.data);
      }
      text = parts.join(' ');
    }
    return text.replace(/\s+/g, ' ').trim();
  };
  const hash = (s) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193); }
    return (h >>> 0).toString(16);
  };
  const headingOk = () => {
    if (!a.heading) return true;
    let re;
    try { re = new RegExp(a.heading, a.headingFlags); } catch (e) { return false; }
    for (const h of document.querySelectorAll('h1,h2,h3,h4,h5,h6')) {
      if (re.test((h.textContent || '').replace(/\s+/g, ' ').trim())) return true;
    }
    return false;
  };
  // The document's watcher: when the content root last changed, and who to tell.
  const KEY = Symbol.for('pressmark.readiness');
  let w = window[KEY];
  if (!w) {
    w = { root: undefined, lastChange: performance.now(), lastAny: performance.now(),
          loading: 0, listeners: new Set() };
    // A script, style sheet or frame added to the page is loading until it fires
    // load or error: the page is not settled meanwhile. Only elements that fire one
    // count: a <link rel=canonical|index|icon> or a template script never does.
    const fetches = (node) => {
      const tag = node.tagName;
      if (tag === 'IFRAME') return true;
      if (tag === 'SCRIPT') {
        const type = (node.type || '').trim().toLowerCase();
        return !!node.src && (!type || type === 'module' || type.includes('javascript')
                              || type.includes('ecmascript'));
      }
      if (tag !== 'LINK' || !node.href) return false;
      const rel = ' ' + (node.rel || '').toLowerCase() + ' ';
      return /\s(stylesheet|preload|modulepreload)\s/.test(rel) && !node.sheet;
    };
    const loads = (node) => {
      if (node.nodeType !== 1 || !fetches(node)) return;
      w.loading++;
      const done = () => {
        node.removeEventListener('load', done); node.removeEventListener('error', done);
        w.loading--;
        for (const notify of Array.from(w.listeners)) notify();
      };
      node.addEventListener('load', done); node.addEventListener('error', done);
    };
    const touchesRoot = (records) => {
      const [root, ign] = rootOf();
      if (root !== w.root) { w.root = root; return true; }
      if (!root) return false;
      for (const r of records) {
        const n = r.target.nodeType === 1 ? r.target : r.target.parentElement;
        if (!n || (n !== root && !root.contains(n))) continue;
        if (ign && n !== root && n.closest(ign)) continue;
        return true;
      }
      return false;
    };
    w.root = rootOf()[0];
    new MutationObserver((records) => {
      w.lastAny = performance.now();
      for (const r of records) r.addedNodes.forEach(loads);
      if (touchesRoot(records)) w.lastChange = performance.now();
      for (const notify of Array.from(w.listeners)) notify();
    }).observe(document, { subtree: true, childList: true, characterData: true });
    Object.defineProperty(window, KEY, { value: w });
  }
  // Resolves at the first DOM change or after ms, whichever comes first.
  const changeOr = (ms) => new Promise((resolve) => {
    const done = () => { clearTimeout(timer); w.listeners.delete(done); resolve(); };
    const timer = setTimeout(done, Math.max(0, ms));
    w.listeners.add(done);
  });
  const frame = () => new Promise((resolve) => {
    const timer = setTimeout(resolve, 100);  // no frames in a hidden page
    requestAnimationFrame(() => { clearTimeout(timer); setTimeout(resolve, 0); });
  });
  let samples = 0;
  if (phase === 'main') {
    const fallbackOk = (final) => a.fallbackAfter !== null && !!document.body && (
      final || (performance.now() >= a.fallbackAfter
        && (document.readyState === 'complete' || performance.now() >= 2 * a.fallbackAfter)));
    let last = { sel: null, len: 0, heading: false, fallback: false };
    const check = (final) => {
      samples++;
      let [sel, el] = findMain();
      let len = textOf(el, ignore).length, fallback = false;
      if (sel === null && fallbackOk(final)) {
        sel = 'body'; fallback = true;
        len = textOf(document.body, fbIgnore).length;
      }
      const heading = headingOk();
      last = { sel, len, heading, fallback };
      const ok = sel !== null && len >= a.minChars && heading;
      // The body is a guess made while a late <main> may still come: its window starts
      // now, not at its last change.
      if (ok && fallback) w.floor = performance.now();
      return ok;
    };
    if (check(false)) return { ok: true, samples, ...last };
    // Settled: loaded, nothing in flight and nothing due within a.horizon ms that could
    // still change the DOM (see _lean's busyWithin()), no frame, and no DOM change for
    // a.settle ms. Such a page is done as it is, short or not (ready:settled-short).
    const busy = window[Symbol.for('pressmark.busyWithin')];
    const idle = window[Symbol.for('pressmark.idle')];
    const canSettle = a.settle !== null && typeof busy === 'function';
    return await new Promise((resolve) => {
      const timers = [];
      let pending = null, checked = performance.now(), settleTimer = null;
      const finish = (ok, settledAt) => {
        timers.forEach(clearTimeout); clearTimeout(pending); clearTimeout(settleTimer);
        w.listeners.delete(soon); document.removeEventListener('readystatechange', soon);
        if (idle) idle.delete(nudge);
        const settled = settledAt === undefined ? {} : {
          settled: true, lastChange: w.lastAny, settledAt };
        resolve({ ok, samples, ...settled, ...last });
      };
      const trySettle = () => {
        settleTimer = null;
        if (busy(a.horizon) !== 0 || w.loading !== 0 || document.readyState !== 'complete'
            || document.querySelector('iframe,frame,object,embed')) return;  // next nudge
        const now = performance.now(), wait = w.lastAny + a.settle - now;
        if (wait > 0) { settleTimer = setTimeout(trySettle, wait); return; }
        const ok = check(true);
        finish(ok, ok ? undefined : now);
      };
      // Something ended (a timer, a request, a load) or changed: look again, once.
      const nudge = () => {
        if (canSettle && settleTimer === null) settleTimer = setTimeout(trySettle, 0);
      };
      const run = () => {
        pending = null; checked = performance.now();
        if (check(false)) return finish(true);
        nudge();
      };
      // Bursts of DOM changes are coalesced: one check per a.poll ms at most.
      const soon = () => {
        if (pending !== null) return;
        pending = setTimeout(run, Math.max(0, checked + a.poll - performance.now()));
      };
      w.listeners.add(soon);
      if (idle && canSettle) idle.add(nudge);
      nudge();
      document.addEventListener('readystatechange', soon);
      if (a.fallbackAfter !== null) {
        for (const at of [a.fallbackAfter, 2 * a.fallbackAfter]) {
          const wait = at - performance.now();
          if (wait > 0 && at < end) timers.push(setTimeout(soon, wait));
        }
      }
      timers.push(setTimeout(() => finish(check(true)), Math.max(0, left())));
    });
  }
  if (phase === 'scroll') {
    let scrolls = 0, lastLen = -1, lastGrowth = performance.now();
    while (true) {
      samples++;
      const len = textOf(...rootOf()).length;
      const now = performance.now();
      if (len !== lastLen) { lastLen = len; lastGrowth = now; }
      const root = document.scrollingElement || document.documentElement;
      const atBottom = window.scrollY + window.innerHeight >= root.scrollHeight - 2;
      if (atBottom && now - lastGrowth >= a.window) {
        window.scrollTo(0, 0);
        return { ok: true, samples, scrolls, len };
      }
      if (left() <= 0 || scrolls >= a.maxScrolls) {
        window.scrollTo(0, 0);
        return { ok: false, samples, scrolls, len, atBottom, capped: scrolls >= a.maxScrolls };
      }
      if (!atBottom) {
        window.scrollBy(0, window.innerHeight); scrolls++;
        await frame();  // let intersection observers see the new viewport
      } else {
        await changeOr(Math.min(lastGrowth + a.window - now, left()));
      }
    }
  }
  if (phase === 'stable') {
    let [el, ign, root] = rootOf();
    let text = textOf(el, ign), h = hash(text), hashedAt = performance.now(), changes = 0;
    let since = Math.max(w.lastChange, w.floor || 0);
    samples++;
    return await new Promise((resolve) => {
      let timer = null;
      const finish = (ok) => {
        clearTimeout(timer);
        resolve({ ok, samples, changes, len: text.length, hash: h, root,
                  lastChange: since, confirmedAt: performance.now() });
      };
      const due = () => {
        const now = performance.now();
        if (w.lastChange > hashedAt) {
          // Changed since the last look: restart the window only if the text differs.
          [el, ign, root] = rootOf();
          text = textOf(el, ign); samples++;
          const next = hash(text);
          if (next !== h) { h = next; changes++; since = w.lastChange; }
          hashedAt = now;
        }
        if (now - since >= a.window) return finish(true);
        if (left() <= 0) return finish(false);
        timer = setTimeout(due, Math.min(since + a.window - now, left()));
      };
      due();
    });
  }
  return { ok: false, samples, error: 'unknown phase ' + phase };
}
"""

# Playwright's words for "the document went away under this call" (a client redirect).
NAVIGATING = ("Execution context was destroyed", "navigation", "Cannot find context")


class Evaluator(Protocol):
    """The slice of a Playwright page the engine needs."""

    async def evaluate(self, expression: str, arg: Any = None) -> Any: ...


@dataclass(slots=True)
class _Tally:
    samples: int = 0
    scrolls: int = 0
    last_change_ms: float | None = None
    stable_at_ms: float | None = None


def _settings(spec: ReadinessSpec) -> dict[str, Any]:
    heading = spec.required_heading
    flags = ""
    if heading is not None and heading.startswith("(?i)"):
        heading, flags = heading[4:], "i"
    return {
        "selectors": list(spec.main_selectors),
        "minChars": spec.min_main_text_chars,
        "heading": heading,
        "headingFlags": flags,
        "poll": max(10, spec.poll_interval_ms),
        "window": spec.stability_window_ms,
        "maxScrolls": spec.max_scrolls,
        "ignore": list(spec.ignore_selectors),
        "fallbackAfter": spec.fallback_after_ms,
        "settle": spec.settled_after_ms,
        "horizon": spec.settle_horizon_ms,
        "boilerplate": list(spec.boilerplate_selectors),
    }


class _Unresponsive(Exception):
    """The page's main thread did not answer within the budget."""


async def _run_phase(
    page: Evaluator, phase: str, settings: dict[str, Any], deadline: float, grace: float
) -> dict[str, Any]:
    """Evaluate one pattern, re-probing after client-side navigations."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return {"ok": False, "samples": 0, "timeout": True}
        # The page's own timers end the probe a little before the deadline, so its
        # answer (and the reason it gives) arrives in time even on a loaded machine;
        # the grace covers the round trip. A page stuck in a loop never answers.
        in_page = max(0.0, remaining - min(0.3, remaining * 0.2))
        try:
            result = await asyncio.wait_for(
                page.evaluate(PROBE_JS, [phase, settings, int(in_page * 1000)]), remaining + grace
            )
        except TimeoutError as exc:
            raise _Unresponsive(phase) from exc
        except Exception as exc:
            if any(marker in str(exc) for marker in NAVIGATING):
                await asyncio.sleep(0.02)  # let the new document commit before re-probing
                continue
            raise
        return dict(result) if isinstance(result, dict) else {"ok": False, "samples": 0}


SETTLED_SHORT = "ready:settled-short"
"""The outcome of a page that is done before its main content reached the size asked for
(a search page, a one-line notice): its DOM unchanged for ``settled_after_ms``, nothing in
flight, nothing due within ``settle_horizon_ms``."""


def _settled_reason(result: dict[str, Any], spec: ReadinessSpec) -> str:
    """``ready:settled-short (...)``: which conditions held, and what the main check saw."""
    return (f"{SETTLED_SHORT} (dom unchanged {spec.settled_after_ms} ms, no request in"
            f" flight, nothing due within {spec.settle_horizon_ms} ms;"
            f" {_failed('main-selector', result, spec).partition(': ')[2]})")


def _fail_reason(step: str, result: dict[str, Any], spec: ReadinessSpec) -> str:
    reason = _failed(step, result, spec)
    if result.get("settled"):
        reason += f" (the page settled: nothing left to run for {spec.settled_after_ms} ms)"
    return reason


def _failed(step: str, result: dict[str, Any], spec: ReadinessSpec) -> str:
    if step == "main-selector":
        if result.get("fallback"):
            return (
                f"fallback-body-failed: none of {', '.join(spec.main_selectors)} found,"
                f" body text {result.get('len', 0)} < {spec.min_main_text_chars} chars"
            )
        if result.get("sel") is None:
            return f"main-selector-failed: none of {', '.join(spec.main_selectors)} found"
        return (
            f"main-selector-failed: {result.get('sel')} text {result.get('len', 0)}"
            f" < {spec.min_main_text_chars} chars"
        )
    if step == "heading":
        return f"heading-failed: no heading matches {spec.required_heading!r}"
    if step == "scroll":
        if result.get("capped"):
            return f"scroll-failed: still growing after {spec.max_scrolls} scrolls"
        return f"scroll-failed: text still growing after {result.get('scrolls', 0)} scrolls"
    if step == "stable":
        return (
            f"stable-failed: main text changed {result.get('changes', 0)} times, never"
            f" unchanged for {spec.stability_window_ms} ms"
        )
    return f"{step}-failed"


async def wait_ready(
    page: Evaluator,
    spec: ReadinessSpec,
    *,
    started: float,
    deadline: float,
    grace: float = 0.5,
    network_quiet: Callable[[int, float], Awaitable[bool]] | None = None,
) -> tuple[ReadinessReport, list[str]]:
    """Apply ``spec`` until it passes or ``deadline`` (monotonic seconds); never raises for
    a page that merely is not ready. A page that does not answer ``grace`` seconds after
    its budget is reported unresponsive. Returns the report and warnings."""
    settings = _settings(spec)
    tally = _Tally()
    passed: list[str] = []
    warnings: list[str] = []

    def report(ok: bool, reason: str) -> tuple[ReadinessReport, list[str]]:
        elapsed = (time.monotonic() - started) * 1000.0
        return (
            ReadinessReport(
                passed=ok,
                reason=reason,
                elapsed_ms=round(elapsed, 1),
                samples=tally.samples,
                scrolls=tally.scrolls,
                last_change_ms=tally.last_change_ms,
                stable_at_ms=tally.stable_at_ms,
            ),
            warnings,
        )

    steps: list[str] = ["main-selector"]
    if spec.network_idle_ms is not None:
        steps.append("network-idle")
    if spec.scroll:
        steps.append("scroll")
    if spec.stability_window_ms > 0:
        steps.append("stable")

    for step in steps:
        if step == "stable" and passed and passed[0].startswith(SETTLED_SHORT) and (
                (spec.settled_after_ms or 0) >= spec.stability_window_ms):
            continue  # the DOM was unchanged for longer than the window already
        try:
            if step == "network-idle":
                assert spec.network_idle_ms is not None
                cap = min(deadline, time.monotonic() + spec.network_idle_cap_ms / 1000.0)
                if network_quiet is None or await network_quiet(spec.network_idle_ms, cap):
                    passed.append(step)
                else:
                    warnings.append(
                        f"readiness: network not idle for {spec.network_idle_ms} ms within"
                        f" {spec.network_idle_cap_ms} ms; continuing"
                    )
                continue
            phase = {"main-selector": "main", "scroll": "scroll", "stable": "stable"}[step]
            result = await _run_phase(page, phase, settings, deadline, grace)
        except _Unresponsive:
            return report(False, f"{step}-failed: the page did not answer (main thread busy?)")
        tally.samples += int(result.get("samples", 0))
        tally.scrolls += int(result.get("scrolls", 0))
        if step == "stable" and isinstance(result.get("confirmedAt"), int | float):
            tally.last_change_ms = round(float(result.get("lastChange") or 0.0), 1)
            tally.stable_at_ms = round(float(result["confirmedAt"]), 1)
        settled_short = (step == "main-selector" and not result.get("ok")
                         and bool(result.get("settled")) and bool(result.get("heading", True))
                         and result.get("sel") is not None)
        if settled_short:
            # Done as it is: the page settled, short. Not when the heading it must have is
            # missing, nor when it has no content root at all (no main, fallback off).
            tally.last_change_ms = round(float(result.get("lastChange") or 0.0), 1)
            tally.stable_at_ms = round(float(result.get("settledAt") or 0.0), 1)
            passed.append(_settled_reason(result, spec))
            continue
        if not result.get("ok"):
            failed = step
            if step == "main-selector" and result.get("sel") is not None and not result.get(
                "heading", True
            ) and int(result.get("len", 0)) >= spec.min_main_text_chars:
                failed = "heading"
            return report(False, _fail_reason(failed, result, spec))
        if step == "stable" and result.get("root") not in (None, "body") and passed \
                and not passed[0].startswith(SETTLED_SHORT):
            # The body passed (A) but a main element appeared since (a late shell):
            # stability was judged on it, so that is the selector the report names.
            passed[0] = "main-selector"
        passed.append("fallback-body" if result.get("fallback") else step)
        if step == "main-selector" and spec.required_heading is not None:
            passed.append("heading")
    return report(True, "+".join(passed))
