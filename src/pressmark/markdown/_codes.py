"""One line on every code and field a Markdown result carries: what it means, what to do.

``docs/outputs.md`` is the reference a user reads (each entry there at length, with
examples); this table is its short form for places with room for a line: the workbench's
tooltips, a CLI hint. ``tests/unit/markdown/test_outputs_doc.py`` holds the three
together: every code the layer can emit has a line here, and every line here has its
entry in the document.
"""

from __future__ import annotations

from typing import Final

# validation reasons (``ValidationReport.reasons``): the result failed for these
REASONS: Final[dict[str, str]] = {
    "too-little-text": "The Markdown is shorter than min_markdown_chars. Check "
    "needs_render (a JavaScript shell) and main_selectors_used (the wrong region).",
    "too-few-paragraphs": "Fewer paragraphs than min_paragraphs: a stub, a form, or "
    "selection kept only a heading. Check main_selectors_used.",
    "boilerplate-ratio-exceeded": "Over boilerplate_ratio_max of the kept text is "
    "link-dense or repeated blocks (menus, link lists). Check main_selectors_used.",
    "chrome-only": "The kept text is only the site's frame (footer, copyright, navigation, "
    "pager): the content was not found. Render the page or report the selection.",
    "truncated": "A parse limit cut the page (the detail names it): the Markdown stops "
    "where the page was cut. Split or pre-process the page.",
    "partial-content": "The kept region holds far less prose than the page's main landmark "
    "or its longest run of prose: part of the content was missed.",
    "canonical-mismatch": "<link rel=canonical> names another page than the URL: a "
    "mirror, a redirect the fetch did not follow, or a client-side route.",
    "soft-404": "The title or first headings read like an error page although the "
    "status was fine. The URL is probably dead.",
    "required-heading-missing": "No heading matches the policy's required_heading.",
    "language-mismatch": "The page declares another language than expected_language.",
    "language-unknown": "expected_language is set but the page declares no language.",
    "structure-anomalies": "More anomalies (skipped heading levels, empty list items, "
    "broken tables) than max_structure_anomalies allows.",
    "readiness-failed": "The renderer's readiness check did not pass: the page may not "
    "have finished rendering. Raise the render timeout or check the page.",
    "redirected-to-home": "Asked for a deeper page, ended on the site's home page: the "
    "page is gone or needs a session.",
    "redirected-to-login": "Ended on a login or sign-in route: the page needs an account.",
    "redirected-off-host": "Ended on another host than requested.",
    "not-found-marker": "The page's template marks it as not found (a 404 class or "
    "prerender status) whatever the HTTP status was.",
    "empty-output:no-text": "The Markdown is empty: the page has no text at all (blank, or "
    "a JavaScript shell whose state held no article). Render it.",
    "empty-output:parse-limit": "The Markdown is empty and a parse limit cut the page.",
    "empty-output:all-pruned": "The Markdown is empty although the page has text: "
    "selection and pruning left none. Report it with its evidence.",
}

# structure anomalies (``ValidationReport.anomalies``): counted against the page
ANOMALIES: Final[dict[str, str]] = {
    "skipped-heading-level": "A heading skips a level (h2 -> h4) in the page's own markup.",
    "empty-list-item": "A list item with no text (not counted for lists of controls).",
    "broken-table": "A table whose cells held no text once converted.",
}

# warnings (``MarkdownResult.warnings``): the result stands, but something was changed
WARNINGS: Final[dict[str, str]] = {
    "parse-limit:text": ("The page held more than 2,000,000 characters of markup and text "
                         "(script and style bodies not counted; 16,000,000 in all) and was "
                         "cut there."),
    "parse-limit:elements": "The page had more than 100,000 elements and was cut there.",
    "parse-limit:depth": "Elements nested deeper than the limit were flattened (text kept).",
    "parse-limit:formatting": "Too many open formatting elements: the extra ones were "
    "dropped (text kept).",
    "parse-limit:attributes": "An element had too many attributes: the rest were dropped.",
    "parse-limit:select": "A form control held too many options: the extra ones were "
    "dropped (text kept).",
    "table-limit:columns": "A table was wider than 64 columns: the text of the extra cells "
    "joined each row's last cell.",
    "table-limit:rows": "A table was longer than 2,000 rows: it goes on in another table "
    "with its header row again.",
    "table-limit:spans": "Row and column spans covered more cells than the limit: later "
    "cells span themselves only (text kept).",
    "charset-unknown-header": "The Content-Type header's charset label is no known "
    "encoding: it was ignored and the body's own signs decided.",
    "charset-bom-overrides-header": "A byte-order mark contradicts the header's charset: "
    "the mark wins, as in browsers.",
    "charset-meta-ignored": "The page's <meta charset> does not fit its bytes, which are "
    "valid UTF-8: read as UTF-8.",
    "charset-unknown": "A charset label nobody knows: the body was decoded as UTF-8.",
    "charset-invalid-bytes": "The body is not valid in its charset: bad bytes became "
    "U+FFFD.",
    "charset-detected": "The page declared no charset and is not UTF-8: it was read in "
    "the legacy encoding detected from its bytes, as a browser does.",
    "hidden-content-shown": "Every word of the page was hidden until a script shows it: "
    "the hidden text was kept (evidence hidden_text lists each passage).",
}

# validation scores (``ValidationReport.scores``)
SCORES: Final[dict[str, str]] = {
    "content_presence_score": "Kept text chars over min_markdown_chars, capped at 1.",
    "boilerplate_ratio": "Share of the kept text in link-dense or repeated blocks "
    "(links inside a listing's lists do not count).",
    "removed_ratio": "Share of the selected region's text that pruning removed.",
    "structure_quality_score": "1 / (1 + anomalies).",
    "markdown_chars": "Length of the Markdown, markup included.",
    "text_chars": "Length of the kept text, markup left out.",
    "paragraph_count": "Paragraphs, plus prose list items (or every item of a listing).",
    "heading_count": "Headings in the Markdown.",
    "chrome_chars": "Kept chars read as the site's frame (footer, navigation, pager, "
    "copyright); only measured for outputs up to 4,000 chars.",
    "kept_prose_chars": "Prose chars (sentence-length, link-poor blocks) in the kept region.",
    "landmark_prose_chars": "Prose chars in the page's main landmark, when the kept region "
    "lies outside it (0 otherwise).",
    "longest_prose_run": "The most prose chars one element of the page holds in its own "
    "child blocks.",
}

# fields of the evidence packet (``EvidencePacket``) and of the result
FIELDS: Final[dict[str, str]] = {
    "policy_version": "The conversion rules' version: same version and input, same bytes.",
    "url_requested": "The URL first asked for.",
    "url_final": "The URL the page was served from (after redirects).",
    "needs_render": "No readiness facts and little text: a browser would likely find more.",
    "presence_score": "Kept text chars over presence_chars, capped at 1: how much content "
    "was there without rendering.",
    "readiness": "The renderer's readiness check: passed, reason, elapsed_ms.",
    "page_kind": "What kind of page selection took this for (article, documentation, "
    "listing, thread, product, application, other).",
    "kind_signals": "The signals that decided page_kind.",
    "content_source": "Where the Markdown came from: dom, or embedded-state:<kind>.",
    "main_selectors_used": "CSS path of the region kept (or the state path).",
    "boilerplate_rules_used": "Every rule that removed something, by name.",
    "selection_notes": "How the region was settled when the first answer was not kept.",
    "validation": "The validation report: passed, reasons, details, scores, anomalies.",
    "details": "For each failing reason, what was measured, in words.",
    "sample_provenance": "Headings and first paragraphs: their span in the Markdown and "
    "the DOM path they came from (kind, markdown_span, dom_selector, text_preview).",
    "evidence": "Why the Markdown is what it is: selectors, rules, validation, provenance.",
    "block_map": "Every block of the Markdown with its span and the element it came from "
    "(format pressmark-blocks/1: dom, blocks), for citations.",
    "markdown": "The Markdown.",
    "title": "The page's title.",
    "metadata": "Title, canonical URL, language, description, dates, site name, author.",
    "structure": "Counts of headings, paragraphs, lists, items, tables, code blocks, "
    "quotes, images and links.",
    "embedded_state": "Data the page carried in scripts (JSON-LD, __NEXT_DATA__, ...).",
    "headings": "Every heading as 'level text'.",
    "block_hashes": "A hash of each text block, to find blocks repeated across pages.",
    "warnings": "Decoding and limit warnings: the result stands, something was changed.",
}


def describe(code: str) -> str | None:
    """The line on a reason, anomaly, warning, score or field, or None. A code written
    with its particulars after a colon (``skipped-heading-level:h2->h4``, ``charset-unknown:
    label ...``, ``too-little-text: 43 < 500 chars``) is read by what precedes it."""
    for table in (REASONS, WARNINGS, ANOMALIES, SCORES, FIELDS):
        line = table.get(code)
        if line is not None:
            return line
    head = code.split(":", 1)[0]
    if head != code:
        for table in (ANOMALIES, WARNINGS, REASONS):
            line = table.get(head)
            if line is not None:
                return line
    return None
