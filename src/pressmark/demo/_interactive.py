"""Pages that need a browser to be read whole: lazy sections, tabs, a live counter."""

from __future__ import annotations

import json

from pressmark.demo import _chrome as c
from pressmark.demo import _text
from pressmark.demo._http import Response
from pressmark.demo._pages import _standard, html_response

LAZY_SECTIONS = range(2, 6)

_LAZY_JS = """
<script>
(function () {
  var io = new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (!entry.isIntersecting) { return; }
      var el = entry.target;
      io.unobserve(el);
      fetch(el.getAttribute('data-src')).then(function (r) { return r.json(); }).then(function (d) {
        var h = document.createElement('h2'); h.textContent = d.heading; el.appendChild(h);
        d.paragraphs.forEach(function (t) {
          var p = document.createElement('p'); p.textContent = t; el.appendChild(p);
        });
        el.style.minHeight = ''; el.setAttribute('data-loaded', 'true');
      });
    });
  }, {rootMargin: '0px'});
  document.querySelectorAll('section[data-src]').forEach(function (s) { io.observe(s); });
})();
</script>
"""

_TABS_JS = """
<script>
document.querySelectorAll('[role=tab]').forEach(function (tab) {
  tab.addEventListener('click', function () {
    document.querySelectorAll('[role=tab]').forEach(function (t) {
      t.setAttribute('aria-selected', String(t === tab));
    });
    document.querySelectorAll('[role=tabpanel]').forEach(function (p) {
      p.hidden = p.id !== tab.getAttribute('aria-controls');
    });
  });
});
</script>
"""

_LIVE_JS = """
<script>
(function () {
  var el = document.getElementById('live-counter');
  setInterval(function () { el.textContent = String(Number(el.textContent) + 1); }, 1000);
})();
</script>
"""


def lazy_section(seed: int, number: int) -> dict[str, object]:
    rng = _text.rng_for(seed, "lazy", number)
    return {"heading": f"Part {number}: {_text.heading(rng)}",
            "paragraphs": [_text.sentence(rng) + " " + _text.sentence(rng) for _ in range(3)]}


def lazy_page(seed: int, origin: str) -> Response:
    rng = _text.rng_for(seed, "lazy", 1)
    first = "".join(f"<p>{c.e(_text.sentence(rng))} {c.e(_text.sentence(rng))} "
                    f"{c.e(_text.sentence(rng))}</p>" for _ in range(12))
    placeholders = "".join(
        f'<section class="lazy-section" data-src="/api/lazy/{n}.json" '
        'style="min-height: 900px"></section>' for n in LAZY_SECTIONS)
    main = (f'<main id="content"><article><h1>A long read that loads as you scroll</h1>'
            f"<section><h2>Part 1: {c.e(_text.heading(rng))}</h2>{first}</section>"
            f"{placeholders}</article></main>\n{_LAZY_JS}")
    html = _standard(origin=origin, path="/special/lazy", title="A long read",
                     description="Sections load on scroll.", main=main)
    return html_response(html)


def lazy_api(seed: int, number: int) -> Response:
    body = json.dumps(lazy_section(seed, number), sort_keys=True).encode("utf-8")
    return Response(status=200, body=body, content_type="application/json")


def tabs_page(seed: int, origin: str) -> Response:
    rng = _text.rng_for(seed, "tabs")
    names = ("Weekdays", "Saturday", "Sunday", "Holidays")
    buttons = "".join(
        f'<button role="tab" id="tab-{i}" aria-controls="panel-{i}" '
        f'aria-selected="{"true" if i == 1 else "false"}">{name}</button>'
        for i, name in enumerate(names, 1))
    panels = []
    for i, name in enumerate(names, 1):
        hidden = "" if i == 1 else " hidden"
        rows = "".join(f"<tr><td>{6 + 2 * k:02d}:{rng.choice((0, 15, 30, 45)):02d}</td>"
                       f"<td>{c.e(rng.choice(_text.NOUNS).capitalize())}</td></tr>"
                       for k in range(4))
        panels.append(
            f'<section role="tabpanel" id="panel-{i}" aria-labelledby="tab-{i}"{hidden}>'
            f"<h2>{name} timetable</h2><p>{c.e(_text.sentence(rng))}</p>"
            f"<table><thead><tr><th>Time</th><th>Stop</th></tr></thead><tbody>{rows}"
            "</tbody></table></section>")
    main = (f'<main id="content"><h1>Timetables in four tabs</h1><div role="tablist">'
            f'{buttons}</div>{"".join(panels)}</main>\n{_TABS_JS}')
    html = _standard(origin=origin, path="/special/tabs", title="Timetables",
                     description="Ferry timetables.", main=main)
    return html_response(html)


def live_page(seed: int, origin: str, count: int) -> Response:
    rng = _text.rng_for(seed, "live")
    stable = "".join(f"<p>{c.e(_text.sentence(rng))} {c.e(_text.sentence(rng))}</p>"
                     for _ in range(4))
    main = (f'<main id="content"><article><h1>Live: the harbour festival</h1>{stable}'
            f'<aside class="live-box"><p>Readers following now: <span id="live-counter">'
            f"{count}</span></p></aside></article></main>\n{_LIVE_JS}")
    html = _standard(origin=origin, path="/special/live", title="Live: the harbour festival",
                     description="Live coverage.", main=main)
    body = html.encode("utf-8")
    return Response(status=200, body=body, compressible=True, cacheable=False,
                    headers=(("Cache-Control", "no-store"),))
