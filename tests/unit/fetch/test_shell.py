from __future__ import annotations

import json
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.fetch import classify_shell
from pressmark.fetch._shell import EMBEDDED_STATE_WARNING_PREFIX, SHELL_WARNING_PREFIX

PARAS = "".join(f"<p>Paragraph {i} of a real article with enough words to read.</p>"
                for i in range(12))
APP_JS = "<script src='/static/app.js'></script><script>" + "var x=1;" * 200 + "</script>"


def page(body: str, head: str = "") -> str:
    return f"<!doctype html><html><head><title>t</title>{head}</head><body>{body}</body></html>"


def test_server_rendered_article_is_not_a_shell() -> None:
    verdict = classify_shell(page(f"<nav>Home</nav><main><h1>T</h1>{PARAS}</main>{APP_JS}"))
    assert not verdict.is_shell
    assert verdict.warnings == ()
    assert not verdict.escalate


def test_article_without_main_is_not_a_shell() -> None:
    verdict = classify_shell(page(f"<div class='content'><h1>T</h1>{PARAS}</div>"))
    assert not verdict.is_shell


def test_hydrated_root_with_content_is_not_a_shell() -> None:
    verdict = classify_shell(page(f"<div id='root'><article>{PARAS}</article></div>{APP_JS}"))
    assert not verdict.is_shell


def test_empty_mount_point_escalates() -> None:
    verdict = classify_shell(page(f"<div id='root'></div>{APP_JS}"))
    assert verdict.is_shell and verdict.escalate
    assert verdict.warnings == (f"{SHELL_WARNING_PREFIX}empty-mount:root",)


def test_next_data_carrying_content_does_not_escalate() -> None:
    data = json.dumps({"props": {"pageProps": {"article": {"body": PARAS}}}})
    html = page(f"<div id='__next'></div><script id='__NEXT_DATA__' type='application/json'>"
                f"{data}</script><script src='/_next/main.js'></script>")
    verdict = classify_shell(html)
    assert verdict.is_shell and not verdict.escalate
    assert verdict.warnings == (f"{EMBEDDED_STATE_WARNING_PREFIX}next-data",)


def test_json_ld_article_body_does_not_escalate() -> None:
    data = json.dumps({"@type": "Article", "headline": "T", "articleBody": PARAS})
    html = page(f"<div id='root'></div>{APP_JS}",
                head=f"<script type='application/ld+json'>{data}</script>")
    verdict = classify_shell(html)
    assert verdict.embedded_state == "json-ld"
    assert not verdict.escalate


def test_initial_state_marker() -> None:
    state = "window.__INITIAL_STATE__ = " + json.dumps({"article": PARAS}) + ";"
    verdict = classify_shell(page(f"<div id='app'></div><script>{state}</script>"))
    assert verdict.embedded_state == "initial-state"
    assert not verdict.escalate


def test_noscript_notice_escalates() -> None:
    html = page("<noscript>You need to enable JavaScript to run this app.</noscript>"
                "<div class='x'></div><script src='/bundle.js'></script>")
    verdict = classify_shell(html)
    assert verdict.escalate
    assert verdict.reason in ("noscript-notice", "script-heavy")


NOTICE = "<noscript><p>Please turn on JavaScript to use the search.</p></noscript>"
SITE_NAV = ("<nav role='navigation'><h3>Site</h3><ul>"
            + "".join(f"<li><a href='/p{i}'>Page {i}</a></li>" for i in range(12))
            + "</ul></nav>")


def test_short_page_complete_as_served_is_not_a_shell() -> None:
    """A documentation site's search page: heading, one sentence and a form in the main
    region, a noscript notice for the results it adds (issue #35: it was rendered on
    every crawl and waited for content that never came)."""
    search = page(f"{SITE_NAV}<div role='main'><h1>Search</h1>{NOTICE}"
                  "<p>Results list pages that hold every word you typed.</p>"
                  "<form><input type='text' name='q'><input type='submit'></form></div>"
                  "<script src='/searchtools.js'></script>")
    verdict = classify_shell(search)
    assert not verdict.is_shell and not verdict.escalate
    assert verdict.reason == "served-content:heading+prose"
    form_only = page(f"<main><h1>Find a page</h1>{NOTICE}<form><input type='search'></form>"
                     f"</main>{APP_JS}")
    assert classify_shell(form_only).reason == "served-content:heading+form"
    headed = page(f"<main><article><header><h1>Opening hours</h1></header><p>Open every day "
                  f"from nine to five, except on holidays.</p></article></main>{NOTICE}{APP_JS}")
    assert classify_shell(headed).reason == "served-content:heading+prose"
    code = page(f"<main><h1>Type alias</h1><pre>type Socket = u64;</pre></main>{APP_JS}")
    assert classify_shell(code).reason == "served-content:heading+code"


def test_a_heading_without_content_is_still_a_shell() -> None:
    loading = page(f"<main><h1>Dashboard</h1><p>Loading...</p>{NOTICE}</main>"
                   "<script src='/bundle.js'></script>")
    assert classify_shell(loading).escalate
    # The heading and prose of the site's chrome are not the page's content.
    chrome = page("<header><h1>Acme</h1><p>The tools that every workshop needs, since 1952.</p>"
                  f"</header>{NOTICE}<div class='view'></div><script src='/bundle.js'></script>")
    assert classify_shell(chrome).escalate
    # An empty mount point is a shell whatever the page says around it.
    mount = page("<main><h1>Orders</h1><p>Your orders of the last twelve months are listed "
                 f"below.</p><div id='app'></div></main>{APP_JS}")
    assert classify_shell(mount).reason == "empty-mount:app"


def test_thin_static_page_without_scripts_is_not_a_shell() -> None:
    verdict = classify_shell(page("<h1>Contact</h1><p>Write to us.</p>"))
    assert not verdict.is_shell


def test_empty_document() -> None:
    assert not classify_shell("").is_shell


def test_fast_enough() -> None:
    html = page(f"<nav>{'<a href=/x>x</a>' * 200}</nav><main>{PARAS * 50}</main>{APP_JS}")
    assert len(html) > 40_000
    classify_shell(html)
    started = time.perf_counter()
    for _ in range(50):
        classify_shell(html)
    per_page = (time.perf_counter() - started) / 50
    assert per_page < 0.02  # ~1 ms on a quiet core; generous for a shared machine


@given(st.text(alphabet=st.sampled_from(list("<>/=\"' abcdiv#rootscript\n")), max_size=400))
@settings(max_examples=200, deadline=None)
def test_classify_never_crashes(html: str) -> None:
    verdict = classify_shell(html)
    assert 0.0 <= verdict.score <= 1.0
