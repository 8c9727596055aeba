"""The bounded parse entry: hostile shapes are capped in linear time, ordinary pages untouched."""

from __future__ import annotations

import time

from pressmark.markdown import bound_html, parse_html, screen, to_markdown
from pressmark.markdown._bounded import MAX_ATTRIBUTES, MAX_DEPTH


def _timed(html: str) -> tuple[float, tuple[str, ...], str]:
    started = time.monotonic()
    bounded = bound_html(html)
    parse_html(bounded.text, screened=True)
    return time.monotonic() - started, bounded.warnings, bounded.text


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
