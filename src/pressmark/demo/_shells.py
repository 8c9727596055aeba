"""JavaScript shells: pages whose served HTML is empty until a script fills it.

Every shell waits a deterministic 50-400 ms, fetches ``/api/pages/<id>.json`` and
builds the article with DOM calls. ``shell-next`` and ``shell-jsonld`` also carry the
content as embedded state, the way many real single-page apps do; ``shell-links``
links to pages that no served HTML links to.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pressmark.demo import _text
from pressmark.demo._chrome import e
from pressmark.demo._http import Response
from pressmark.demo._pages import SITE_DATE, etag_of, http_date

if TYPE_CHECKING:
    from pressmark.demo._site import DemoSite

RENDERER_JS = """
(function () {
  var D = document;
  function runs(el, rs) {
    rs.forEach(function (r) {
      var n;
      if (r[0] === 't') { n = D.createTextNode(r[1]); }
      else {
        n = D.createElement(r[0]); n.textContent = r[1];
        if (r[0] === 'a') { n.setAttribute('href', r[2]); }
      }
      el.appendChild(n);
    });
  }
  function list(b) {
    var l = D.createElement(b.type);
    b.items.forEach(function (it) {
      var li = D.createElement('li');
      li.appendChild(D.createTextNode(it.text));
      if (it.children) { li.appendChild(list(it.children)); }
      l.appendChild(li);
    });
    return l;
  }
  function cells(row, tag, items) {
    items.forEach(function (c) {
      var td = D.createElement(tag);
      if (Array.isArray(c)) { td.textContent = c[0]; if (c[1] > 1) { td.colSpan = c[1]; } }
      else { td.textContent = c; }
      row.appendChild(td);
    });
    return row;
  }
  function table(b) {
    var t = D.createElement('table'), cap = D.createElement('caption');
    cap.textContent = b.caption; t.appendChild(cap);
    var th = D.createElement('thead');
    th.appendChild(cells(D.createElement('tr'), 'th', b.head));
    th.appendChild(cells(D.createElement('tr'), 'th', b.subhead));
    t.appendChild(th);
    var tb = D.createElement('tbody');
    b.rows.forEach(function (r) { tb.appendChild(cells(D.createElement('tr'), 'td', r)); });
    t.appendChild(tb);
    var tf = D.createElement('tfoot');
    tf.appendChild(cells(D.createElement('tr'), 'td', b.foot));
    t.appendChild(tf);
    return t;
  }
  function block(b) {
    var el, x;
    switch (b.type) {
      case 'h2': case 'h3': case 'h4':
        el = D.createElement(b.type); el.textContent = b.text; return el;
      case 'p': el = D.createElement('p'); runs(el, b.runs); return el;
      case 'ul': case 'ol': return list(b);
      case 'table': return table(b);
      case 'code':
        el = D.createElement('pre'); x = D.createElement('code');
        x.className = 'language-' + b.language; x.textContent = b.text; el.appendChild(x);
        return el;
      case 'quote':
        el = D.createElement('blockquote'); x = D.createElement('p'); x.textContent = b.text;
        el.appendChild(x); x = D.createElement('footer'); x.textContent = '\\u2014 ' + b.cite;
        el.appendChild(x); return el;
      case 'img':
        el = D.createElement('figure'); x = D.createElement('img'); x.src = b.src; x.alt = b.alt;
        el.appendChild(x); x = D.createElement('figcaption'); x.textContent = b.caption;
        el.appendChild(x); return el;
    }
    return D.createComment('unknown block');
  }
  function render(rootId, data) {
    var root = D.getElementById(rootId), art = D.createElement('article'), x;
    x = D.createElement('h1'); x.textContent = data.title; art.appendChild(x);
    x = D.createElement('p'); x.className = 'byline';
    x.textContent = 'By ' + data.author + ' \\u00b7 ' + data.published; art.appendChild(x);
    data.blocks.forEach(function (b) { art.appendChild(block(b)); });
    if (data.links.length) {
      var nav = D.createElement('nav'), ul = D.createElement('ul');
      x = D.createElement('h2'); x.textContent = 'More stories'; nav.appendChild(x);
      data.links.forEach(function (l) {
        var li = D.createElement('li'), a = D.createElement('a');
        a.setAttribute('href', l.href); a.textContent = l.text;
        li.appendChild(a); ul.appendChild(li);
      });
      nav.appendChild(ul); art.appendChild(nav);
    }
    root.appendChild(art);
    D.title = data.title + ' | The Pressmark Gazette';
    root.setAttribute('data-ready', 'true');
  }
  window.__pmBoot = function (rootId, api, delay) {
    setTimeout(function () {
      fetch(api, {headers: {'Accept': 'application/json'}})
        .then(function (r) { return r.json(); })
        .then(function (data) { render(rootId, data); });
    }, delay);
  };
})();
"""


def delay_ms(seed: int, page_id: int) -> int:
    """The shell's deterministic hydration delay, 50-400 ms."""
    return 50 + _text.rng_for(seed, page_id, "delay").randrange(351)


def api_document(site: DemoSite, page_id: int) -> dict[str, Any]:
    item = site.item(page_id)
    content = site.content_by_id(page_id)
    links = [{"href": p, "text": site.page(p).title} for p in site.render_links_of(item.path)]
    return {
        "id": f"{page_id:04d}", "path": item.path, "title": content.title, "lang": "en",
        "section": content.section, "published": content.published, "author": content.author,
        "summary": content.summary, "blocks": list(content.blocks), "links": links,
    }


def _script_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False).replace("</", "<\\/")


def shell_page(site: DemoSite, page_id: int) -> Response:
    item = site.item(page_id)
    content = site.content_by_id(page_id)
    api = f"/api/pages/{page_id:04d}.json"
    root_id = "__next" if item.kind == "shell-next" else "root"
    title = "The Pressmark Gazette"
    head_extra = ""
    tail = ""
    if item.kind == "shell-next":
        title = f"{content.title} | The Pressmark Gazette"
        state = {"props": {"pageProps": {"article": api_document(site, page_id)}},
                 "page": "/stories/[slug]", "query": {"slug": item.path.rsplit("/", 1)[1]},
                 "buildId": f"demo-{site.seed}"}
        tail = (f'<script id="__NEXT_DATA__" type="application/json">{_script_json(state)}'
                "</script>\n")
    elif item.kind == "shell-jsonld":
        title = f"{content.title} | The Pressmark Gazette"
        body_text = " ".join(content.paragraphs())
        ld = {"@context": "https://schema.org", "@type": "Article", "headline": content.title,
              "articleBody": body_text, "datePublished": content.published,
              "author": {"@type": "Person", "name": content.author},
              "articleSection": content.section}
        head_extra = f'<script type="application/ld+json">{_script_json(ld)}</script>\n'
    html = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{e(title)}</title>\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<link rel="preload" href="{api}" as="fetch" crossorigin="anonymous">\n'
        f"{head_extra}</head>\n<body>\n"
        "<noscript>You need to enable JavaScript to run this app.</noscript>\n"
        f'<div id="{root_id}"></div>\n{tail}'
        f"<script>{RENDERER_JS}</script>\n"
        f"<script>window.__pmBoot({json.dumps(root_id)}, {json.dumps(api)}, "
        f"{delay_ms(site.seed, page_id)});</script>\n"
        "</body>\n</html>\n"
    )
    body = html.encode("utf-8")
    return Response(status=200, body=body, etag=etag_of(body),
                    last_modified=http_date(content.published), compressible=True)


def api_response(site: DemoSite, page_id: int) -> Response:
    body = _script_json(api_document(site, page_id)).encode("utf-8")
    return Response(status=200, body=body, content_type="application/json",
                    etag=etag_of(body), last_modified=SITE_DATE, compressible=True)
