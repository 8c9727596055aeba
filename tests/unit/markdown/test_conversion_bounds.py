"""Conversion stays linear on hostile inline markup (red team round three).

Each hostile page here is converted in a child process held to 1 GiB of address space
and a CPU-time limit (``_bounds``): the shapes that used to take gigabytes or minutes
fail there, whatever the machine's load.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from pressmark.markdown import ConversionPolicy, to_markdown
from pressmark.markdown._budget import fitting, written
from pressmark.markdown._convert import Converter
from pressmark.markdown._escape import code_span
from pressmark.markdown._render import render, render_block
from pressmark.markdown._tree import parse

from ._bounds import BoundedConverter, convert_bounded
from .test_properties import random_html

MD = MarkdownIt("commonmark")
PLAIN = ConversionPolicy(select_main=False)


def _page(body: str) -> str:
    return f"<!doctype html><html><body><main><p>{body}</p></main></body></html>"


def test_adjacent_code_spans_with_growing_backtick_runs(tmp_path: Path) -> None:
    # The red team's page: 1,998 adjacent <code> holding 1..1,998 backticks (2 MB):
    # 6 s and 2.6 GB, every merge rewrote the whole merged span
    body = "".join("<code>" + "`" * n + "</code>" for n in range(1, 1999))
    report = convert_bounded(_page(body)[:1_990_000], tmp_path)
    assert report["ok"], report
    assert report["max_rss_kb"] < 512 * 1024
    # one merged span, fenced by a single backtick: no run inside is one long
    assert report["head"].startswith("` ``")


def test_fifty_thousand_adjacent_code_spans_in_spans(tmp_path: Path) -> None:
    # (the elements cap keeps 50,000 of the 70,000)
    report = convert_bounded(_page("<span><code>a</code></span>" * 70_000), tmp_path)
    assert report["ok"], report
    assert report["markdown"] >= 50_000


def test_adjacent_emphasis_runs_merge_in_one_pass(tmp_path: Path) -> None:
    # every merge used to rewrite the merged run: 99,990 runs, 55 G characters copied
    # (17 s of CPU); the CPU limit kills a child that still does
    page = _page(("<em>" + "a" * 11 + "</em>") * 99_990)
    report = convert_bounded(page, tmp_path, cpu_s=8)
    assert report["ok"], report
    assert report["head"].startswith("*" + "a" * 40)


def test_merged_code_spans_keep_each_text_once() -> None:
    result = to_markdown(_page("x <code>a</code><code>b</code><code>c</code> y"), policy=PLAIN)
    assert result.markdown == "x `abc` y\n"
    assert result.block_texts == ("x abc y",)


def test_merged_emphasis_runs_read_back_as_written() -> None:
    result = to_markdown(_page("x <em>a</em><em>b</em><em>c</em> <b>d</b><b>e</b> y"),
                         policy=PLAIN)
    assert result.markdown == "x *abc* **de** y\n"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="`a ", min_size=1, max_size=40))
def test_code_spans_read_back_as_their_text(text: str) -> None:
    html = MD.renderInline(code_span(text))
    assert html == f"<code>{text}</code>", (text, code_span(text))


# ---- the conversion budget (``_budget``) ----------------------------------------------------

PROSE = "<p>This is a sentence of real prose, long enough to count as content here.</p>"


def test_a_long_base_repeated_in_every_link_stops_at_the_budget(tmp_path: Path) -> None:
    # a 500 KB <base href> under 80,000 links: 40 GB of Markdown, a MemoryError at 3.8 GB
    base = "https://example.test/" + "a" * 7_000 + "/"
    links = "".join(f'<a href="p{i}">link {i}</a> ' for i in range(20_000))
    page = (f'<html><head><base href="{base}"></head><body><main>{PROSE * 3}'
            f"<p>{links}</p></main>")
    report = convert_bounded(page, tmp_path)
    assert report == {**report, "ok": False, "code": "conversion-limit:links"}
    assert report["partial"] > 0  # the prose paragraphs before the links: whole blocks
    # a base longer than a URL may be is no base for links at all (their text stays)
    longer = page.replace(base, "https://example.test/" + "a" * 9_000 + "/")
    report = convert_bounded(longer, tmp_path)
    assert report["ok"], report


def test_nesting_that_multiplies_the_markdown_stops_before_it_is_written(
        tmp_path: Path) -> None:
    # 150 nested quotes over 55,000 paragraphs: every line prefixed at every level, every
    # level copying what it holds (34 MB of Markdown, 24 s)
    page = ("<html><body><article>" + ("<blockquote>" + PROSE) * 150
            + "<p>Real prose, a sentence.</p>" * 55_000)
    report = convert_bounded(page, tmp_path, cpu_s=10)
    assert report == {**report, "ok": False, "code": "conversion-limit:markdown"}


def test_partial_output_is_whole_leading_blocks_within_the_budget() -> None:
    doc = parse("<html><body>" + PROSE * 4 + "</body></html>", skip_chrome=False)
    blocks = Converter(PLAIN, lambda href: href).block(doc.body)
    each = written(blocks[0])[0] + 12
    assert fitting(blocks, 2 * each) == blocks[:2]
    assert fitting(blocks, 2 * each - 1) == blocks[:1]
    assert fitting(blocks, 0) == []


@settings(max_examples=60, deadline=None)
@given(random_html())
def test_the_render_bound_holds_for_any_block(body: str) -> None:
    """``written`` bounds what ``_render`` writes: the contract the budget rests on."""
    doc = parse(f"<html><body>{body}</body></html>", skip_chrome=False)
    blocks = Converter(ConversionPolicy(select_main=False),
                       lambda href: "https://h.test/" + href).block(doc.body)
    for block in blocks:
        assert written(block)[1] >= len(render_block(block))
    assert sum(written(b)[1] + 12 for b in blocks) >= len(render(blocks)[0])


# ---- any page, within the caps: under 1 GiB and 10 s of CPU --------------------------------

SHAPES = {
    "code-backticks": lambda n: "".join("<code>" + "`" * (i % 2000 + 1) + "</code>"
                                        for i in range(n)),
    "code-adjacent": lambda n: "<span><code>a</code></span>" * n,
    "em-adjacent": lambda n: "<em>aaaaaaaaaaa</em>" * n,
    "strong-del": lambda n: "<b>a</b><del>b</del>" * n,
    "select": lambda n: "<select>" + "<option selected>x" * n + "</select>",
    "optgroups": lambda n: "<select>" + "<optgroup><option>x" * n,
    "body-attributes": lambda n: "".join(f"<body a{i}=1>" for i in range(n)),
    "adoption": lambda n: "<a href=x><div>x</a>" * n,
    "nested-quotes": lambda n: ("<blockquote>" + PROSE) * 150 + "<p>w x y</p>" * n,
    "nested-lists": lambda n: ("<ol start=999999999><li>" + PROSE) * 75 + "<p>w x</p>" * n,
    "links-long-base": lambda n: "<a href=x>y</a> " * n,
    "deep-divs": lambda n: "<div>" * n + "text",
    "table-spans": lambda n: "<table><tr><td rowspan=2000 colspan=64>" + "word " * n
                             + "</td></tr>" + "<tr><td>x</td></tr>" * 1999 + "</table>",
}
_BASE = '<base href="https://example.test/' + "b" * 7_000 + '/">'


@pytest.fixture(scope="module")
def converter() -> Iterator[BoundedConverter]:
    child = BoundedConverter()
    yield child
    child.close()


@settings(max_examples=len(SHAPES), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.sampled_from(sorted(SHAPES)), st.integers(20_000, 200_000), st.booleans())
def test_any_pathological_page_converts_within_memory_and_time(
        converter: BoundedConverter, shape: str, units: int, wrapped: bool) -> None:
    body = SHAPES[shape](units)
    head = f"<head>{_BASE}</head>" if shape == "links-long-base" else ""
    page = f"<!doctype html><html>{head}<body>" + ("<main><p>" if wrapped else "") + body
    report = converter.convert(page[:2_100_000])  # past the 2 MB text cap: cut there
    assert report["ok"], (shape, units, report)
    assert report["cpu_s"] < 10.0, (shape, units, report)
