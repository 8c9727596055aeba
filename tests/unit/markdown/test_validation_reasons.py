"""Validation that fails closed with reasons a user can act on (issue #33 item 3).

``chrome-only``: the kept text is the site's frame (footer, copyright, navigation, pager);
``truncated``: a parse limit cut the page; ``partial-content``: the kept region holds far
less prose than the page's main landmark or its longest run; listing output is judged as
a listing. Pages are written in the shapes Sphinx, DocBook and old table layouts emit.
"""

from __future__ import annotations

import pytest

from pressmark.markdown import ConversionPolicy, MarkdownError, to_markdown
from pressmark.markdown._completeness import prose_facts
from pressmark.markdown._select import select
from pressmark.markdown._tree import parse
from pressmark.markdown._validate import Facts, validate

PROSE = ("The harbour board met on Tuesday to discuss the new ferry timetable, which "
         "adds two crossings on weekdays and one on Sunday mornings for the summer.")
SPHINX_FOOTER = ('<div class="footer" role="contentinfo">&#169; Copyright 2001-2026, Example '
                 'Foundation. <br>Created using <a href="https://www.sphinx-doc.org/">Sphinx'
                 '</a> 5.3.0.</div>')
SPHINX_NAV = ('<div class="related" role="navigation" aria-label="related navigation"><h3>'
              'Navigation</h3><ul><li class="right"><a href="genindex.html">index</a></li>'
              '<li class="right"><a href="py-modindex.html">modules</a> |</li>'
              '<li><a href="index.html">Example 3.11 documentation</a> &#187;</li></ul></div>')


def sphinx_page(body: str) -> str:
    return (f"<!doctype html><html lang=en><head><title>Page</title></head><body>{SPHINX_NAV}"
            f'<div class="document"><div class="documentwrapper"><div class="bodywrapper">'
            f'<div class="body" role="main">{body}</div></div></div></div>'
            f"{SPHINX_FOOTER}</body></html>")


def test_a_page_whose_content_did_not_come_fails_closed_without_its_footer() -> None:
    # selection never takes chrome for content (issue #32): the footer is not kept, the
    # output is empty and says why (it was "chrome-only", the footer kept, before)
    result = to_markdown(sphinx_page(""), url="https://docs.example.test/lib/x.html")
    assert result.markdown == ""
    assert not result.validation.passed
    assert "empty-output:all-pruned" in result.validation.reasons


DOCBOOK_NAV = """<!doctype html><html><body>
<div class="navheader"><table width="100%" summary="Navigation header">
<tr><th colspan="5" align="center">26.3. Continuous Archiving</th></tr>
<tr><td width="10%" align="left"><a accesskey="p" href="backup-file.html">Prev</a></td>
<td width="10%" align="left"><a accesskey="u" href="backup.html">Up</a></td>
<th width="60%" align="center">Chapter 26. Backup and Restore</th>
<td width="10%" align="right"><a accesskey="h" href="index.html">Home</a></td>
<td width="10%" align="right"><a accesskey="n" href="recovery.html">Next</a></td></tr>
</table><hr></div>
<div class="sect1" id="CONTINUOUS-ARCHIVING"></div>
<div class="navfooter"><hr><table width="100%" summary="Navigation footer">
<tr><td width="40%" align="left"><a accesskey="p" href="backup-file.html">Prev</a> </td>
<td width="20%" align="center"><a accesskey="u" href="backup.html">Up</a></td>
<td width="40%" align="right"> <a accesskey="n" href="recovery.html">Next</a></td></tr>
<tr><td width="40%" align="left" valign="top">26.2. File System Level Backup </td>
<td width="20%" align="center"><a accesskey="h" href="index.html">Home</a></td>
<td width="40%" align="right" valign="top"> 26.4. Recovery</td></tr>
</table></div></body></html>"""


def test_docbook_navigation_alone_is_chrome_only() -> None:
    result = to_markdown(DOCBOOK_NAV)
    assert "chrome-only" in result.validation.reasons, result.markdown
    assert "navigation" in result.validation.details["chrome-only"]


@pytest.mark.parametrize("frame", [
    "<p><a href='/p/1'>« Previous</a> | <a href='/p/3'>Next »</a></p>",
    "<p>© 2006 Example Inc. All rights reserved.</p><p><a href='/'>Home</a></p>",
    "<p>Your browser has been unable to load the stylesheet that accompanies this page.</p>"
    "<p><a href='/search'>Search</a> | <a href='/map'>Site map</a></p>",
])
def test_frame_blocks_alone_fail_whatever_the_page_marks_them(frame: str) -> None:
    result = to_markdown(f"<html><body><div>{frame}</div></body></html>",
                         policy=ConversionPolicy(min_markdown_chars=0))
    assert "chrome-only" in result.validation.reasons, result.markdown


def test_a_short_page_with_its_footer_is_not_chrome_only() -> None:
    result = to_markdown(sphinx_page(f"<h1>Intro</h1><p>{PROSE}</p><p>{PROSE}</p>"))
    assert result.validation.passed, result.validation.reasons
    assert PROSE in result.markdown


def test_a_short_index_beside_its_letter_bar_is_not_chrome_only() -> None:
    # a genindex of a few entries: its letter bar is a menu line, the entries are the rest
    page = sphinx_page(
        '<h1 id="index">Index</h1><div class="genindex-jumpbox"><a href="#R"><strong>R</strong>'
        '</a> | <a href="#S"><strong>S</strong></a></div><h2 id="R">R</h2><table class='
        '"indextable genindextable"><tr><td><ul><li>reboot<ul><li><a href="ch-os.html#i0">'
        'signaling</a></li></ul></li><li><a href="ch-os.html#i1">reboot-required</a></li>'
        '</ul></td></tr></table><h2 id="S">S</h2><table class="indextable genindextable"><tr>'
        '<td><ul><li>signaling<ul><li><a href="ch-os.html#i0">reboot</a></li></ul></li></ul>'
        '</td></tr></table>')
    result = to_markdown(page, policy=ConversionPolicy(min_markdown_chars=0))
    assert "reboot-required" in result.markdown
    assert "chrome-only" not in result.validation.reasons, result.validation.details


TOC = "".join(f'<li class="toctree-l1"><a class="reference internal" href="ch{i}.html">'
              f"{i}. Chapter number {i} of the manual</a></li>" for i in range(1, 31))


def test_a_table_of_contents_is_judged_as_a_listing() -> None:
    page = sphinx_page(f'<section id="manual"><h1>The manual</h1><div class="toctree-wrapper '
                       f'compound"><ul>{TOC}</ul></div></section>')
    result = to_markdown(page)
    assert "30. Chapter number 30 of the manual" in result.markdown
    assert result.validation.passed, result.validation.reasons
    assert result.validation.scores["paragraph_count"] == 30


def test_a_page_cut_at_a_parse_limit_is_truncated_and_says_which() -> None:
    page = ("<html><body><main><h1>Big</h1><p>" + "word " * 420_000
            + "</p><ul><li>the last item</li></ul></main></body></html>")
    result = to_markdown(page)
    assert "parse-limit:text" in result.warnings
    assert "truncated" in result.validation.reasons
    assert "parse-limit:text" in result.validation.details["truncated"]
    assert "the last item" not in result.markdown


def _facts(**overrides: object) -> Facts:
    values: dict[str, object] = {
        "text_chars": 2000, "markdown_chars": 2100, "paragraphs": 5, "headings": (),
        "chrome_chars": 0, "removed_ratio": 0.0, "empty_list_items": 0, "broken_tables": 0,
        "title": None, "headline": None, "url": None, "canonical_url": None, "language": None,
        "readiness_passed": None}
    values.update(overrides)
    return Facts(**values)  # type: ignore[arg-type]


def test_partial_content_measures_against_the_main_landmark() -> None:
    """A note beside the main landmark kept instead of the story it holds (selection's
    failure is staged here by taking the note as the kept region)."""
    story = "".join(f"<p>{PROSE} Paragraph {i}.</p>" for i in range(4))
    note = '<div id="note"><p>This page was last built from the 3.11 branch.</p></div>'
    doc = parse(sphinx_page(f"<h1>Story</h1>{story}").replace("</body>", f"{note}</body>"))
    select(doc)  # (its reading of each element: chrome, pruned)
    footer = next(n for n in doc.nodes if n.attr("id") == "note")
    main = next(n for n in doc.nodes if n.attr("role") == "main")
    wrong = prose_facts(doc, footer, 1.0)
    assert wrong.kept == 0 and wrong.landmark >= 4 * len(PROSE)
    report = validate(_facts(prose=wrong), ConversionPolicy())
    assert report.reasons == ("partial-content",)
    assert "main landmark" in report.details["partial-content"]
    right = prose_facts(doc, main, 1.0)
    assert right.landmark == 0  # the kept region is the landmark: nothing to compare with
    assert validate(_facts(prose=right), ConversionPolicy()).passed
    assert validate(_facts(prose=wrong), ConversionPolicy(partial_content_share=0)).passed


def test_every_failing_reason_says_what_was_measured() -> None:
    result = to_markdown("<html><body><p>Short.</p></body></html>", url="https://a.test/x")
    assert set(result.validation.details) == set(result.validation.reasons)
    assert result.validation.to_dict()["details"]["too-little-text"].startswith("7 chars")


def test_the_partial_share_is_checked() -> None:
    with pytest.raises(MarkdownError):
        ConversionPolicy(partial_content_share=1.5)
