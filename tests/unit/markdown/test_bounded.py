"""The bounded parse entry: hostile shapes are capped in linear time, ordinary pages untouched."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pressmark.markdown import parse_html, screen, to_markdown
from pressmark.markdown._bounded import MAX_ATTRIBUTES, MAX_DEPTH, _bound, bound_html
from pressmark.markdown._screen import (
    MAX_PAGE_CHARS,
    MAX_SELECT_ENTRIES,
    MAX_TEXT_CHARS,
    regex_screened_starts,
    screened_starts,
    script_end,
)

from ._bounds import convert_bounded


def _timed(html: str) -> tuple[float, tuple[str, ...], str]:
    """CPU seconds (this process's: a loaded machine stretches wall time, not these)."""
    started = time.process_time()
    bounded = bound_html(html)
    parse_html(bounded.text, screened=True)
    return time.process_time() - started, bounded.warnings, bounded.text


def test_deep_nesting_is_flattened_fast() -> None:
    elapsed, warnings, text = _timed("<div>" * 100_000 + "deep text")
    assert "parse-limit:depth" in warnings
    assert text.count("<div>") <= MAX_DEPTH
    assert "deep text" in text
    assert elapsed < 5.0


def test_attribute_flood_is_cut() -> None:
    html = "<div " + " ".join(f'a{i}=">"' for i in range(100_000)) + ">kept</div>"
    elapsed, warnings, text = _timed(html)
    assert warnings == ("parse-limit:attributes",)
    tree, _ = parse_html(text)
    node = tree.css_first("div")
    assert node is not None
    assert len(node.attributes) == MAX_ATTRIBUTES
    assert "kept" in (tree.body.text() if tree.body is not None else "")
    assert elapsed < 5.0


def test_span_div_trick_still_counts_depth() -> None:
    # </span> is ignored when a <div> sits above it: the real stack keeps growing
    _, warnings, _ = _timed("<span><div></span>" * 2_000)
    assert "parse-limit:depth" in warnings


def test_ordinary_markup_is_returned_as_is() -> None:
    page = ("<table>" + "<tr><td>a<td>b" * 1500 + "</table><ul>" + "<li>x" * 1500 + "</ul>"
            + "<p>para" * 1500)
    bounded = bound_html(page)
    assert bounded.text is page
    assert bounded.warnings == ()


def test_screen_sees_through_script_and_svg_tricks() -> None:
    hidden = "<div>" * 3_000
    assert not screen(f"<script>var s = '<div title=\"';</script>{hidden}")
    assert not screen(f"<svg><title>{hidden}</title></svg>")
    assert not screen(f"<!---->{hidden}")
    assert screen("<p>small</p>" * 100)


def test_markdown_reports_the_caps() -> None:
    result = to_markdown("<div>" * 20_000 + "<p>text at the bottom</p>")
    assert "parse-limit:depth" in result.warnings
    assert result.to_dict()["warnings"] == list(result.warnings)


def test_screen_passes_real_page_shapes_and_still_sees_floods() -> None:
    # hundreds of links, long srcset/style values and inline SVG icons are ordinary pages
    links = "<p>" + "<a href='/x'>link</a> " * 600
    icons = "<svg><title>icon</title><path d='M0'/></svg>" * 50
    long_value = "<img srcset='" + "a.png 1x, " * 200 + "'>"
    assert screen(links + icons + long_value)
    # ... while what the parser keeps active still counts: one <a> per marker scope
    assert not screen("<table>" + "<td><a>" * 1_000)
    assert not screen("<b class=x>" * 200 + "<p>text")
    assert not screen("<div " + " ".join(f"a{i}=1" for i in range(300)) + ">")
    assert not screen("<svg><title>" + "<div>" * 3_000 + "</title></svg>")


_MANY_ATTRS = " ".join(f"a{i}=1" for i in range(300))


@pytest.mark.parametrize(("html", "cap"), [
    # a bogus comment ends at its first ">": the quote inside it opens no value
    (f'<!x <b a="> <div {_MANY_ATTRS}>text</div>"', "attributes"),
    (f'</ <b a="> <div {_MANY_ATTRS}>text</div>"', "attributes"),
    # Lexbor parses with scripting off: a <noscript> holds markup, not text
    ("<noscript>" + "<div>" * 3_000 + "</noscript>", "depth"),
    # a double-escaped script part: its first </script> does not end it
    ('<script><!--<script></script><b a="</script>' + "<div>" * 3_000 + '">', "depth"),
    # names are lowercased in ASCII only: "lin\u212a" is no <link>, "\u017fcript" no <script>
    ("<lin\u212a>" * 3_000, "depth"),
    ("<\u017fcript>" + "<div>" * 3_000 + "</script>", "depth"),
])
def test_tokenizer_states_that_used_to_hide_tags(html: str, cap: str) -> None:
    assert not screen(html)
    assert f"parse-limit:{cap}" in bound_html(html).warnings


def test_script_end_follows_the_escape_states() -> None:
    page = "<script><!--<script></script>still script</script><p>"
    assert page[script_end(page, len("<script>")):].startswith("</script><p>")
    plain = "<script>if (a <!--b) {}</script>"
    assert script_end(plain, len("<script>")) == plain.index("</script>")
    closed = "<script><!--><script></script>x"
    assert script_end(closed, len("<script>")) == closed.index("</script>")


def test_screen_is_linear_on_long_pages() -> None:
    for page in ("</b>" * 450_000, '<div a="' + "x" * 1_900_000 + '">', "<!--" + "-x" * 900_000,
                 "<p class=a>x</p>" * 60_000):
        started = time.process_time()  # CPU time, whatever the machine's load
        screen(page)
        assert time.process_time() - started < 5.0


def test_screen_passes_only_what_the_full_scan_leaves_alone() -> None:
    pages = [
        "<svg><title>icon</title><path d='M0'/></svg><p>" + "<a href='/x'>link</a> " * 600,
        "<script>if (a < b) document.write('<div title=\"');</script><p>text</p>",
        "<svg><desc>d</desc></svg><style>p > a { color: red }</style>",
        "<div data-x='<b>'>" + "<b>x</b>" * 90 + "</div>",
    ]
    for page in pages:
        assert screen(page)
        assert bound_html(page).warnings == ()


def test_pages_past_the_screen_count_are_parsed_first_and_checked_for_depth() -> None:
    for shallow in ("<p>x</p>" * 3_000, "<li><a href=/x>x</a>" * 4_000):  # a long list
        assert not screen(shallow)  # past SCREEN_STARTS, within PARSE_FIRST_STARTS
        assert parse_html(shallow)[1] == ()
    for deep in ("<div>" * 3_000, "<span><div></span>" * 1_300, "<div>" * 8_000,
                 "<template>" + "<div>" * 3_000):  # template contents escape a query
        assert "parse-limit:depth" in parse_html(deep)[1]
    # past PARSE_FIRST_STARTS the page is scanned before Lexbor sees it: no quadratic parse
    started = time.perf_counter()
    assert "parse-limit:depth" in parse_html("<div>" * 60_000)[1]
    assert time.perf_counter() - started < 5


def test_screen_counts_formatting_as_the_full_scan_does() -> None:
    # closed formatting elements do not add up; unclosed ones do, whatever the markup
    assert screen("<p>" + "<b>bold</b> <i>it</i> " * 500)
    assert not screen("<p>" + "<b>bold <i>it</i> " * 101)
    assert not screen("<script>'</b>'</script>".join("<b>" for _ in range(120)))
    # a link around plain text adds one and takes it back, even past many open ones
    assert screen("<b>" * 99 + "<a href='/x'>link</a> " * 500)
    assert not screen("<b>" * 100 + "<a href='/x'>link</a> " * 500)
    for name in ("i", "b", "em", "strong", "code", "small", "u", "s"):  # as other pairs do
        assert screen("<b>" * 99 + f"<{name} class=x>text</{name}> " * 500)
        assert not screen("<b>" * 100 + f"<{name}>text</{name}> " * 500)
    # so does a link around tags that count for nothing (an image, a span)
    card = "<a href='/x'><img src=y><span>t</span> text</a> "
    assert screen("<b>" * 99 + card * 500)
    assert not screen("<b>" * 100 + card * 500)
    # a pair of two names is no pair: "<b>x</i>" leaves the <b> open
    assert not screen("<p>" + "<b>x</i> " * 101)
    # after an SVG <desc>, a CDATA-wrapped script opens nothing
    icon = "<svg><desc>logo</desc></svg>"
    assert screen(icon + "<script>//<![CDATA[\nif (a<b) go();\n//]]></script><p>x")
    assert not screen(icon + "<script>if (a<b) go();</script>")


def test_a_select_keeps_its_first_elements() -> None:
    def page(options: int) -> str:
        return "<p>x</p><select>" + "<option>o" * options + "</select><p>after</p>"

    # each start tag in a select adds what the select holds: 2,048 is the cap's sum
    assert bound_html(page(MAX_SELECT_ENTRIES)).warnings == ()
    capped = bound_html(page(MAX_SELECT_ENTRIES + 500))
    assert capped.warnings == ("parse-limit:select",)
    tree, _ = parse_html(capped.text)
    assert len(tree.css("option")) == MAX_SELECT_ENTRIES
    assert "after" in tree.body.text() if tree.body is not None else False
    # the text of the options past the cap stays, in the last option kept
    assert tree.css("option")[-1].text() == "o" * 501


@pytest.mark.parametrize("body", [
    "<option>x" * 99_000,                                            # the red team's page
    "<option selected>x" * 90_000,                                   # a walk per selected one
    "<optgroup><option>x" * 50_000,
    "<option>" + "<b>x</b>" * 30_000 + "<option>y" * 20_000,          # a walk per option
    "<object></select></object>" + "<option>x" * 90_000,             # an end tag ignored
])
def test_selects_lexbor_inserts_in_quadratic_time_are_capped(body: str, tmp_path: Path) -> None:
    # 99,000 options took 60 s; held to 10 s of CPU, the child dies if that comes back
    page = "<html><body><main><p>Text.</p><select>" + body + "</select></main>"
    report = convert_bounded(page, tmp_path, cpu_s=10)
    assert report["ok"], report
    assert "parse-limit:select" in report["warnings"]


@pytest.mark.parametrize("name", ["body", "html"])
def test_attributes_merged_into_body_and_html_are_capped(name: str, tmp_path: Path) -> None:
    # every attribute of a second <body> is looked up among the first's: 100,000 took
    # minutes; past MAX_ATTRIBUTES merged, a tag's attributes are dropped
    page = "<html><body><p>text</p>" + "".join(f"<{name} a{i}=1>" for i in range(100_000))
    bounded = bound_html(page)
    assert "parse-limit:attributes" in bounded.warnings
    tree, _ = parse_html(page)
    element = tree.css_first(name)
    assert element is not None
    assert len(element.attributes) <= MAX_ATTRIBUTES
    report = convert_bounded(page, tmp_path, cpu_s=10)
    assert report["ok"], report


def test_the_adoption_agency_nests_blocks_and_the_scan_sees_it(tmp_path: Path) -> None:
    # "</a>" with a <div> open above the link keeps the <div> open: each repetition nests
    # one deeper (Lexbor walked 100,000 levels on each end tag); the scan used to pop both
    page = "<html><body>" + "<a href=x><div>x</a>" * 90_000
    assert "parse-limit:depth" in bound_html(page).warnings
    report = convert_bounded(page, tmp_path, cpu_s=3)  # 5.6 s of CPU before, 0.2 s now
    assert report["ok"], report
    # and misnested formatting that closes (an old page's "<b><p>x</b></p>") stays flat
    sloppy = "<b><p>x</b></p>" * 3_000
    assert bound_html(sloppy).warnings == ()


def test_the_screen_counts_selects_and_merged_attributes_as_the_scan_does() -> None:
    over = MAX_SELECT_ENTRIES + 1
    for page, capped in [
        ("<select>" + "<option>x" * MAX_SELECT_ENTRIES, False),
        ("<select>" + "<option>x" * over, True),
        ("<select></select><p>x</p>" * 3_000, False),  # many small selects
        ("<select><object></select></object>" + "<option>x" * over, True),
        ("<body " + "a " * 200 + "><body " + "b " * 56 + ">", False),
        ("<body " + "a " * 200 + "><body " + "b " * 57 + ">", True),
        ("<html a><html b><body c><body d>" * 2, False),
    ]:
        full = _bound(page, screened_out=True).warnings
        assert bool(full) == capped, page[:60]
        if capped:  # the screens never pass what the scan would change
            assert screened_starts(page) < 0 and regex_screened_starts(page) < 0, page[:60]
    # a </select> after a scope barrier opened in the select may be ignored by the parser:
    # the C screen then counts on (the full scan follows the stack, and sees it closed)
    closed = "<select><table></table></select>" + "<option>x" * over
    assert _bound(closed, screened_out=True).warnings == ()
    assert screened_starts(closed) < 0


def _big_publisher_page(state_chars: int, text_words: int, *, state_in_body: bool = False,
                        ) -> str:
    """A big publisher's page: megabytes of inline state and CSS before the article."""
    state = '<script>window.__STATE__ = {"k": "' + "x" * state_chars + '"}</script>'
    style = "<style>" + ".a{color:red}" * (state_chars // 13) + "</style>"
    article = ("<article><h1>The headline</h1>"
               + "".join(f"<p>Paragraph {i} of the story: " + "word " * text_words + "</p>"
                         for i in range(20))
               + "<p>The last paragraph.</p></article>")
    head = "" if state_in_body else state + style
    body = (state + style if state_in_body else "") + article
    return f"<html><head>{head}</head><body>{body}</body></html>"


@pytest.mark.parametrize("state_in_body", [False, True])
def test_script_and_style_bodies_do_not_count_towards_the_text_cap(state_in_body: bool,
                                                                   ) -> None:
    """Past 2,000,000 characters in all, a page whose markup and text are within the cap
    is whole: the article after 3 MB of inline state and 3 MB of CSS is kept, uncut (it
    used to be cut away at character 2,000,000, leaving empty Markdown)."""
    page = _big_publisher_page(3_000_000, 40, state_in_body=state_in_body)
    assert len(page) > 2 * MAX_TEXT_CHARS
    result = to_markdown(page)
    assert "The last paragraph." in result.markdown
    assert not [w for w in result.warnings if w.startswith("parse-limit")]
    assert bound_html(page).text == page  # the full scan leaves it alone too
    assert screened_starts(page) >= 0


def test_markup_and_text_past_the_cap_are_cut_bodies_never_counted() -> None:
    """What lies outside the bodies is cut at MAX_TEXT_CHARS, wherever the bodies are;
    the page as a whole at MAX_PAGE_CHARS."""
    page = ("<html><head><script>" + "x" * 3_000_000 + "</script></head><body><p>"
            + "word " * 500_000 + "</p><p>END-MARK</p></body></html>")
    bounded = _bound(page)
    assert bounded.warnings == ("parse-limit:text",)
    outside = len(bounded.text) - 3_000_000
    assert MAX_TEXT_CHARS <= outside < MAX_TEXT_CHARS + 100
    assert "END-MARK" not in bounded.text
    huge = "<p>" + "word " * (MAX_PAGE_CHARS // 5 + 1)
    took, warnings, text = _timed(huge)
    assert warnings == ("parse-limit:text",) and len(text) <= MAX_TEXT_CHARS + 100
    assert took < 5.0, took
