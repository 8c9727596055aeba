"""Embedded state is content: a page whose DOM holds no article but whose state does.

The pages are written here in the shapes real frameworks serve (a Next.js page with
``__NEXT_DATA__`` holding a CMS's block list, Nuxt 3's devalue ``__NUXT_DATA__``, Nuxt 2's
``window.__NUXT__`` built by a function call, Apollo's normalised cache, JSON-LD
``articleBody``, an HTML string in ``content.rendered``): the article must come out with its
headings and paragraphs, the evidence must say where it came from, and the result must be
validated like any other. A page whose DOM has its article keeps the DOM's.
"""

from __future__ import annotations

import json

import pytest

from pressmark.markdown import to_markdown

URL = "https://news.test/stories/harbour"
PARAS = [
    "The harbour authority published its annual survey of the eastern quay on Monday, "
    "the first full account since the storm damaged two of the four cranes.",
    "Engineers found that the older crane can be repaired within the season, while the "
    "second needs a new boom that the yard in the north will deliver in spring.",
    "Fishermen said the delays cost them most of the autumn catch, and asked the council "
    "to open the western berths to small boats until the work is done.",
]


def _shell(head: str = "", tail: str = "", mount: str = '<div id="__next"></div>') -> str:
    return ("<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
            f"<title>Harbour survey | Town News</title>{head}</head><body>"
            "<noscript>You need to enable JavaScript to run this app.</noscript>"
            f"{mount}{tail}<script src=/app.js></script></body></html>")


def _json(value: object) -> str:
    """As serializers write it: "</" escaped, or a "</script>" in a string ends the tag."""
    return json.dumps(value).replace("</", "<\\/")


def _script(attrs: str, value: object) -> str:
    return f"<script {attrs}>{_json(value)}</script>"


def _assert_article(md: str) -> None:
    for para in PARAS:
        assert para in md
    assert md.index(PARAS[0]) < md.index(PARAS[1]) < md.index(PARAS[2])


def test_next_data_block_list_with_runs_and_headings() -> None:
    blocks = [
        {"type": "paragraph", "children": [{"text": PARAS[0][:40]},
                                           {"text": PARAS[0][40:], "bold": False}]},
        {"type": "heading", "level": 2, "children": [{"text": "What the engineers found"}]},
        {"type": "paragraph", "children": [{"text": PARAS[1]}]},
        {"type": "code", "language": "python", "text": "cranes = survey.load('east')"},
        {"type": "paragraph", "children": [{"text": PARAS[2]}]},
    ]
    state = {"props": {"pageProps": {"story": {"title": "Harbour survey finds two cranes damaged",
                                               "slug": "harbour", "body": blocks},
                                     "nav": [{"label": "Home", "href": "/"}]}},
             "page": "/stories/[slug]", "buildId": "b1"}
    r = to_markdown(_shell(tail=_script('id="__NEXT_DATA__" type="application/json"', state)),
                    url=URL)
    _assert_article(r.markdown)
    assert "# Harbour survey finds two cranes damaged" in r.markdown
    assert "## What the engineers found" in r.markdown
    assert "```python\ncranes = survey.load('east')\n```" in r.markdown
    assert r.evidence.content_source == "embedded-state:next-data"
    assert r.evidence.main_selectors_used[0] == \
        "embedded-state:next-data:props.pageProps.story.body"
    assert r.validation.passed, r.validation.reasons
    assert r.title == "Harbour survey | Town News"  # the page's metadata stays the page's


def test_json_ld_article_body_paragraphs() -> None:
    ld = {"@context": "https://schema.org", "@graph": [
        {"@type": "WebSite", "name": "Town News", "url": "https://news.test/"},
        {"@type": "NewsArticle", "headline": "Harbour survey finds two cranes damaged",
         "datePublished": "2024-05-01", "author": {"@type": "Person", "name": "Ada Quay"},
         "articleBody": "\n\n".join(PARAS)}]}
    r = to_markdown(_shell(head=_script('type="application/ld+json"', ld)), url=URL)
    _assert_article(r.markdown)
    assert r.markdown.count(PARAS[1]) == 1
    assert "\n\n" + PARAS[1] + "\n\n" in r.markdown  # its own paragraph
    assert r.evidence.content_source == "embedded-state:json-ld"
    assert r.validation.passed


def test_nuxt3_devalue_payload() -> None:
    # devalue: a flat array, item 0 the root, integers in objects/arrays index items
    payload = [
        {"data": 1, "state": 12},
        ["ShallowReactive", 2],
        {"article-harbour": 3},
        {"title": 4, "content": 5, "author": 11},
        "Harbour survey finds two cranes damaged",
        [6, 8, 10],
        {"type": 7, "text": 13},
        "p",
        {"type": 9, "text": 14},
        "h2",
        {"type": 7, "text": 15},
        "Ada Quay",
        {},
        PARAS[0] + " " + PARAS[1],
        "Why the western berths matter",
        PARAS[2],
    ]
    tail = _script('type="application/json" id="__NUXT_DATA__" data-ssr="true"', payload)
    r = to_markdown(_shell(tail=tail, mount='<div id="__nuxt"></div>'), url=URL)
    assert PARAS[0] in r.markdown and PARAS[2] in r.markdown
    assert "## Why the western berths matter" in r.markdown
    assert r.evidence.content_source == "embedded-state:nuxt"


def test_nuxt2_function_payload_keeps_its_strings() -> None:
    script = ("<script>window.__NUXT__=(function(a,b){return {layout:\"default\",data:[{"
              f"title:{json.dumps('Harbour survey finds two cranes damaged')},"
              f"body:[{json.dumps(PARAS[0])},{json.dumps(PARAS[1])},{json.dumps(PARAS[2])}]"
              "}],state:{}}}(null,false));</script>")
    r = to_markdown(_shell(tail=script, mount='<div id="__nuxt"></div>'), url=URL)
    _assert_article(r.markdown)
    assert r.evidence.content_source == "embedded-state:nuxt"


def test_apollo_cache_with_html_string() -> None:
    html_body = (f"<p>{PARAS[0]}</p><h2>What the engineers found</h2><p>{PARAS[1]}</p>"
                 f"<ul><li>crane one: repairable</li><li>crane two: new boom</li></ul>"
                 f"<p>{PARAS[2]}</p>")
    cache = {"ROOT_QUERY": {"article({\"slug\":\"harbour\"})": {"__ref": "Article:7"}},
             "Article:7": {"__typename": "Article", "id": "7",
                           "title": "Harbour survey finds two cranes damaged",
                           "content": {"rendered": html_body}},
             "Author:3": {"__typename": "Author", "name": "Ada Quay"}}
    script = f"<script>window.__APOLLO_STATE__ = {_json(cache)};</script>"
    r = to_markdown(_shell(tail=script, mount='<div id="root"></div>'), url=URL)
    _assert_article(r.markdown)
    assert "## What the engineers found" in r.markdown
    assert "- crane one: repairable" in r.markdown  # HTML in state goes through the converter
    assert r.evidence.content_source == "embedded-state:apollo-state"


def test_state_markup_is_converted_not_trusted() -> None:
    body = (f"<p>{PARAS[0]}</p><script>alert(1)</script><p onclick='x()'>{PARAS[1]}</p>"
            f"<p>{PARAS[2]} <a href='javascript:alert(1)'>more</a></p>")
    ld = {"@type": "Article", "headline": "Harbour", "articleBody": body}
    r = to_markdown(_shell(head=_script('type="application/ld+json"', ld)), url=URL)
    _assert_article(r.markdown)
    assert "alert" not in r.markdown and "javascript:" not in r.markdown


def test_a_dom_article_wins_over_its_state() -> None:
    article = "".join(f"<p>{p}</p>" for p in PARAS)
    ld = {"@type": "Article", "headline": "Other", "articleBody": "Something else. " * 80}
    page = (f"<html><head>{_script('type=application/ld+json', ld)}</head><body><main>"
            f"<article><h1>Harbour survey</h1>{article}</article></main></body></html>")
    r = to_markdown(page, url=URL)
    _assert_article(r.markdown)
    assert "Something else" not in r.markdown
    assert r.evidence.content_source == "dom"


def test_thin_state_is_not_content() -> None:
    state = {"props": {"pageProps": {"title": "Harbour", "tags": ["port", "news"]}}}
    r = to_markdown(_shell(tail=_script('id="__NEXT_DATA__" type="application/json"', state)),
                    url=URL)
    assert r.markdown == ""
    assert r.evidence.content_source == "dom"
    assert not r.validation.passed
    assert "empty-output:no-text" in r.validation.reasons


@pytest.mark.parametrize("seed", [1, 2])
def test_state_content_is_deterministic(seed: int) -> None:
    ld = {"@type": "Article", "headline": f"Harbour {seed}", "articleBody": "\n\n".join(PARAS)}
    page = _shell(head=_script('type="application/ld+json"', ld))
    first = to_markdown(page, url=URL)
    again = to_markdown(page, url=URL)
    assert first.markdown == again.markdown
    assert first.evidence.to_json() == again.evidence.to_json()


def test_empty_output_always_says_why() -> None:
    pruned = ("<html><body><nav><a href=/a>Home</a> <a href=/b>News</a> <a href=/c>Sport</a>"
              "</nav><footer>© Town News</footer></body></html>")
    for page, why in (("<html><body></body></html>", "no-text"),
                      (pruned, "all-pruned")):
        r = to_markdown(page, url=URL)
        assert r.markdown == ""
        assert not r.validation.passed
        assert f"empty-output:{why}" in r.validation.reasons
        assert f"empty-output:{why}" in r.evidence.to_dict()["validation"]["reasons"]
