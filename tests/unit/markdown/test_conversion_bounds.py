"""Conversion stays linear on hostile inline markup (red team round three).

Each hostile page here is converted in a child process held to 1 GiB of address space
and a CPU-time limit (``_bounds``): the shapes that used to take gigabytes or minutes
fail there, whatever the machine's load.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from pressmark.markdown import ConversionPolicy, to_markdown
from pressmark.markdown._escape import code_span

from ._bounds import convert_bounded

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
