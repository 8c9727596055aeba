"""The browser's verdict on hidden text, written into the DOM before it is serialised.

:data:`MARK_HIDDEN_JS` runs inside the capture script (``_document.CAPTURE_JS``), in the
same evaluate that serialises the page: no extra round trip. It first removes every
``data-pressmark-hidden`` attribute the page set itself (only the browser's verdict may be
read), then, for each element holding visible-looking text, asks the computed style and
geometry whether a reader could see it, and marks the outermost element that hides it
with ``data-pressmark-hidden="REASON"``. The Markdown layer (``markdown._hidden``) reads
the mark like the static signals: the element is left out and, inside the kept region,
listed in the evidence. The reasons are those of the static path: ``display-none``,
``visibility-hidden``, ``opacity-zero``, ``zero-font-size``, ``scaled-to-zero``,
``off-screen`` (its box lies wholly outside the document), ``clipped``, ``zero-size``
(no height or width and overflow hidden) and ``same-colour`` (the text's colour is the
background colour behind it, or fully transparent). Bounded: at most
``MAX_TEXT_NODES`` text nodes are looked at.
"""

from __future__ import annotations

from typing import Final

MAX_TEXT_NODES: Final = 20_000

MARK_HIDDEN_JS: Final = r"""
() => {
  const ATTR = 'data-pressmark-hidden';
  for (const el of document.querySelectorAll('[' + ATTR + ']')) el.removeAttribute(ATTR);
  const body = document.body;
  if (!body) return 0;
  const root = document.documentElement;
  const pageW = Math.max(root.scrollWidth, window.innerWidth);
  const pageH = Math.max(root.scrollHeight, window.innerHeight);
  const memo = new Map();
  const flat = (t) => {  // a 2D transform that squashes the box to a line or a point
    const m = /^matrix\(([^)]*)\)$/.exec(t || '');
    if (!m) return false;
    const [a, b, c, d] = m[1].split(',').map(parseFloat);
    return (a === 0 && b === 0) || (c === 0 && d === 0);
  };
  const transparent = (c) => c === 'transparent' || /rgba\([^)]*,\s*0\)$/.test(c);
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.backgroundImage && s.backgroundImage !== 'none') return null;
      if (!transparent(s.backgroundColor)) return s.backgroundColor;
    }
    return 'rgb(255, 255, 255)';
  };
  const own = (el) => {
    if (memo.has(el)) return memo.get(el);
    const s = getComputedStyle(el);
    let why = null;
    if (s.display === 'none') why = 'display-none';
    else if (s.visibility === 'hidden' || s.visibility === 'collapse') why = 'visibility-hidden';
    else if (parseFloat(s.opacity) === 0) why = 'opacity-zero';
    else if (parseFloat(s.fontSize) === 0) why = 'zero-font-size';
    else if (flat(s.transform)) why = 'scaled-to-zero';
    else if (s.display !== 'contents') {
      const r = el.getBoundingClientRect();
      const left = r.left + window.scrollX, top = r.top + window.scrollY;
      if ((r.width > 0 || r.height > 0)
          && (left + r.width <= 0 || top + r.height <= 0 || left >= pageW || top >= pageH))
        why = 'off-screen';
      else if (s.position === 'absolute' && s.clip && s.clip !== 'auto'
               && r.width <= 1 && r.height <= 1) why = 'clipped';
      else if (/inset\((?:50|100)%|circle\(0/.test(s.clipPath)) why = 'clipped';
      else if ((s.overflowX !== 'visible' || s.overflowY !== 'visible')
               && (el.clientHeight === 0 || el.clientWidth === 0) && s.display !== 'inline')
        why = 'zero-size';
    }
    memo.set(el, why);
    return why;
  };
  const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
  let seen = 0, marked = 0;
  for (let node = walker.nextNode(); node && seen < MAX; node = walker.nextNode()) {
    if (!node.data.trim()) continue;
    seen += 1;
    const parent = node.parentElement;
    if (!parent || parent.closest('script, style, noscript, template, [' + ATTR + ']')) continue;
    let outer = null, why = null;
    for (let e = parent; e && e !== body; e = e.parentElement) {
      const w = own(e);
      if (w) { outer = e; why = w; }
    }
    if (!outer) {
      const s = getComputedStyle(parent);
      if (transparent(s.color) || s.color === background(parent)) {
        outer = parent; why = 'same-colour';
      }
    }
    if (outer) { outer.setAttribute(ATTR, why); marked += 1; }
  }
  return marked;
}
""".replace("MAX", str(MAX_TEXT_NODES))
