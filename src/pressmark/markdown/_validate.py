"""Fail-closed validation: every failure is a named reason, never a silent pass.

Reasons (stable strings):

``too-little-text``            Markdown text shorter than ``min_markdown_chars``
``too-few-paragraphs``         fewer paragraphs than ``min_paragraphs``
``boilerplate-ratio-exceeded`` chrome left in the output above ``boilerplate_ratio_max``
``canonical-mismatch``         ``<link rel=canonical>`` names another document than ``url``
                               (not the same document on a mirror, version or edition)
``soft-404``                   title or headings read like an error page
``required-heading-missing``   no heading matches ``required_heading``
``language-mismatch``          declared language is not ``expected_language``
``language-unknown``           ``expected_language`` is set but the page declares none
``structure-anomalies``        more than ``max_structure_anomalies`` (skipped heading
                               levels, empty list items, broken tables), or than
                               ``structure_anomaly_share`` of the headings and
                               paragraphs if that is more
``readiness-failed``           the renderer's readiness check did not pass
``redirected-to-home``         asked for a deeper page, ended on the site's home page
``redirected-to-login``        ended on a login / sign-in route the request did not name
``redirected-off-host``        ended on another host (``www.`` aside) than requested
``not-found-marker``           the template says "not found" (``<body class="error404">``,
                               ``prerender-status-code`` 404), whatever the status was
``chrome-only``                the kept text is the site's frame: footer, copyright, navigation
                               or pager blocks, most of it and with under ``CHROME_REST`` chars
                               of anything else (``_chrome``)
``truncated``                  a parse limit cut the page (``parse-limit:text`` or
                               ``parse-limit:elements``): the Markdown stops where the page
                               was cut
``partial-content``            the kept region holds under ``partial_content_share`` of the
                               prose of the page's main landmark or of its longest run of
                               prose (``_completeness``)

Output that is a listing (most of its text in lists and tables: an index, a table of
contents, a category page) is judged as one: its list items count as paragraphs, and
links inside its lists are its content, not chrome, for ``boilerplate-ratio-exceeded``.
Each failing reason has a sentence in ``ValidationReport.details`` saying what was
measured; docs/outputs.md says what to do about each.

The ``redirected-*`` reasons are the wrong-route checks (``check_route``): they compare
``requested_url`` with the final ``url``; a redirect to another path of the same host
(a moved article, a trailing slash, ``http`` to ``https``) is not one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from pressmark.egress import EgressDenied
from pressmark.markdown._chrome import ChromeReading
from pressmark.markdown._completeness import ProseFacts
from pressmark.markdown._policy import ConversionPolicy
from pressmark.markdown._screen import MAX_ELEMENTS, MAX_TEXT_CHARS

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Any, Final


@functools.cache
def _soft_404() -> re.Pattern[str]:
    """Compiled on first use: only a short page whose title holds one of
    ``_SOFT_404_CORES`` is read with it, and the alternation is among the costliest of
    the package's expressions to compile (a batch of normal pages never needs it)."""
    return re.compile(
        r"(?:^\W*(?:error\W*)?404\b|\b404\W+(?:error|not found|page)\b|\bpage not found\b"
        r"|\bnot found\b\W*$|^\W*not found\b|\b(?:page|article|content) (?:does not|doesn[’']t)"
        r" exist\b|\b(?:page|article) (?:is )?no longer available\b"
        r"|\b(?:can[’']t|cannot|couldn[’']t) find (?:that|this|the) page\b"
        r"|\bseite nicht gefunden\b|\bpage introuvable\b|\bp[áa]gina no encontrada\b)",
        re.IGNORECASE,
    )


# Each branch of ``_soft_404()`` holds one of these, and none of their letters has a case
# partner outside ASCII, so a text whose ``lower()`` holds none cannot match: a title
# is ruled out by a few substring tests, where the case-blind alternation costs a
# regular-expression attempt at every character.
_SOFT_404_CORES: Final = ("404", "found", "doe", "longer", "page", "gefunden", "encontrada")


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidationReport:
    passed: bool
    reasons: tuple[str, ...]
    scores: Mapping[str, float | int]
    anomalies: tuple[str, ...] = field(default=())
    # reason -> what was measured, in words a user can act on (only failing reasons)
    details: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "reasons": list(self.reasons),
            "details": {reason: self.details[reason] for reason in self.reasons
                        if reason in self.details},
            "scores": dict(self.scores),
            "anomalies": list(self.anomalies),
        }


class Facts:
    """What validation looks at, gathered by the converter.

    A plain slotted class, not a dataclass: an internal record built once per page and
    only read, and a dataclass this wide costs start-up time (see ``_blocks``).
    """

    __slots__ = ("broken_tables", "canonical_url", "chrome_chars", "empty_list_items",
                 "frame", "headings", "headline", "language", "limits", "listed_chars",
                 "listed_chrome", "listed_items", "markdown_chars", "not_found_markers",
                 "paragraphs", "prose", "readiness_passed", "removed_ratio", "requested_url",
                 "text_chars", "title", "url")

    def __init__(
        self, *, text_chars: int, markdown_chars: int, paragraphs: int,
        headings: tuple[tuple[int, str], ...], chrome_chars: int, removed_ratio: float,
        empty_list_items: int, broken_tables: int, title: str | None,
        headline: str | None, url: str | None, canonical_url: str | None,
        language: str | None, readiness_passed: bool | None,
        requested_url: str | None = None, not_found_markers: tuple[str, ...] = (),
        limits: tuple[str, ...] = (), listed_chars: int = 0, listed_items: int = 0,
        listed_chrome: int = 0, frame: ChromeReading | None = None,
        prose: ProseFacts | None = None,
    ) -> None:
        self.text_chars = text_chars
        self.markdown_chars = markdown_chars
        self.paragraphs = paragraphs
        self.headings = headings
        self.chrome_chars = chrome_chars
        self.removed_ratio = removed_ratio
        self.empty_list_items = empty_list_items
        self.broken_tables = broken_tables
        self.title = title
        self.headline = headline  # the page's first <h1> (the body may not repeat it)
        self.url = url
        self.canonical_url = canonical_url
        self.language = language
        self.readiness_passed = readiness_passed
        self.requested_url = requested_url
        self.not_found_markers = not_found_markers
        self.limits = limits                # the parse-limit:* warnings of the page
        self.listed_chars = listed_chars    # text inside lists, tables and term lists
        self.listed_items = listed_items    # their items (list items, table body rows)
        self.listed_chrome = listed_chrome  # of ``chrome_chars``, inside those
        self.frame = frame                  # chrome read block by block (short outputs)
        self.prose = prose                  # the partial-content yardsticks (selection ran)


def _norm_url(url: str) -> tuple[str, str, str]:
    """Host (without ``www.``), path and query, as the egress parser reads them."""
    from pressmark.egress import parse_url  # noqa: PLC0415 - loads on first use (pressmark.egress)

    try:
        parsed = parse_url(url.strip())
    except EgressDenied:
        return ("", url, "")
    path = parsed.path.rstrip("/") or "/"
    return (parsed.host.removeprefix("www."), path, parsed.query or "")


# Last path segments that name a folder's default document, not a document of their own.
_DEFAULT_DOCUMENTS: Final = frozenset({"index", "default", "home", "main"})


def _document_name(url: str) -> str:
    """The name a URL gives its document: the last path segment without its extension
    (``/en/master/usage/quickstart.html`` -> ``quickstart``), the folder's name for a
    folder's default document (``/usage/index.html`` -> ``usage``); ``""`` for a root."""
    path = url.split("#", 1)[0].split("?", 1)[0]
    if "://" in path:
        path = path.split("://", 1)[1].partition("/")[2]
    segments = [segment for segment in path.lower().split("/") if segment]
    while segments:
        stem = segments[-1].rsplit(".", 1)[0] if "." in segments[-1] else segments[-1]
        if stem not in _DEFAULT_DOCUMENTS:
            return stem
        segments.pop()
    return ""


def names_another_page(url: str, canonical: str) -> bool:
    """Does ``<link rel=canonical>`` name another document than the URL?

    The same document at another address is not one: a mirror or a local copy of a
    documentation site (its canonical is the official host), another version or edition
    of it (``/3.12/`` and ``/3/``, ``.com`` and ``.de``), tracking parameters the
    canonical leaves out. What is one: another document name, or the site's home page
    (or any root) named by a deeper page (a client-side route that did not resolve, a
    soft redirect), or another query where the canonical keeps one (a query-routed
    ``article.php?id=``). Where neither names a document (two roots), their hosts are
    compared."""
    ours, theirs = _norm_url(url), _norm_url(canonical)
    if ours == theirs:
        return False
    if theirs[2] and theirs[2] != ours[2]:
        return True
    name, named = _document_name(url), _document_name(canonical)
    if not name and not named:
        return ours[0] != theirs[0]
    return name != named


@functools.cache
def _login_route() -> re.Pattern[str]:
    """Compiled on first use: only a fetch that ended elsewhere asks (``pressmark md`` never)."""
    return re.compile(
        r"(?:^|/)(?:log-?in|log-?on|sign-?in|signin|auth|sso|session/new|sessions/new"
        r"|users/sign_in|account/login|wp-login\.php)(?:/|$|\.)",
        re.IGNORECASE,
    )


NOT_FOUND_TOKENS: Final = frozenset({"error404", "error-404", "error_404", "page-not-found",
                                     "page_not_found", "notfound", "not-found", "not_found", "404"})


def not_found_tokens(*attribute_values: str | None) -> tuple[str, ...]:
    """The class/id tokens of the page's ``<html>``/``<body>`` that mark a not-found template."""
    found: list[str] = []
    for value in attribute_values:
        for token in (value or "").lower().split():
            if token in NOT_FOUND_TOKENS and token not in found:
                found.append(token)
    return tuple(found)


def route_reasons(requested: str | None, final: str | None) -> list[str]:
    """Wrong-route reasons for a request that ended somewhere else (see module docstring)."""
    if not requested or not final:
        return []
    want, got = _norm_url(requested), _norm_url(final)
    if want == got:
        return []
    reasons: list[str] = []
    if want[0] and got[0] and want[0] != got[0]:
        reasons.append("redirected-off-host")
    if got[1] == "/" and want[1] != "/":
        reasons.append("redirected-to-home")
    login = _login_route()
    if login.search(got[1]) and not login.search(want[1]):
        reasons.append("redirected-to-login")
    return reasons


SOFT_404_CHARS: Final = 3000  # an error template is short; longer pages only count their <title>


def is_soft_404(title: str | None, headline: str | None,
                headings: tuple[tuple[int, str], ...], text_chars: int) -> bool:
    if title and _says_not_found(title):
        return True
    if text_chars < SOFT_404_CHARS:
        if headline and _says_not_found(headline):
            return True
        return any(_says_not_found(text) for level, text in headings[:3] if level <= 2)
    return False


def _says_not_found(text: str) -> bool:
    low = text.lower()
    for core in _SOFT_404_CORES:
        if core in low:
            return _soft_404().search(text) is not None
    return False


CHROME_REST: Final = 100      # chars besides chrome that make output more than the frame
LISTING_SHARE: Final = 0.6    # of the kept text in lists and tables, for a listing
LISTING_ITEMS: Final = 5      # ... in at least this many items
PARTIAL_MIN: Final = 300      # prose chars a yardstick needs before partial-content is judged
TRUNCATING: Final = {"parse-limit:text": f"longer than {MAX_TEXT_CHARS:,} characters outside "
                                          "its scripts and styles",
                     "parse-limit:elements": f"more than {MAX_ELEMENTS:,} elements"}


def is_listing(listed_items: int, listed_chars: int, text_chars: int) -> bool:
    """Most of the kept text sits in list items and table rows: an index, a table of
    contents, a category page, whose entries are the content."""
    return listed_items >= LISTING_ITEMS and listed_chars >= LISTING_SHARE * text_chars


def validate(facts: Facts, policy: ConversionPolicy) -> ValidationReport:
    reasons: list[str] = []
    details: dict[str, str] = {}

    def fail(reason: str, detail: str) -> None:
        reasons.append(reason)
        details[reason] = detail

    listing = is_listing(facts.listed_items, facts.listed_chars, facts.text_chars)
    paragraphs = max(facts.paragraphs, facts.listed_items) if listing else facts.paragraphs
    if facts.markdown_chars < policy.min_markdown_chars:
        fail("too-little-text", f"{facts.markdown_chars} chars of Markdown, "
             f"min_markdown_chars is {policy.min_markdown_chars}")
    if paragraphs < policy.min_paragraphs:
        fail("too-few-paragraphs", f"{paragraphs} paragraphs, min_paragraphs is "
             f"{policy.min_paragraphs}")
    # a listing's entries are links: only chrome outside its lists and tables counts
    chrome = facts.chrome_chars - facts.listed_chrome if listing else facts.chrome_chars
    ratio = chrome / facts.text_chars if facts.text_chars else 0.0
    if ratio > policy.boilerplate_ratio_max:
        fail("boilerplate-ratio-exceeded", f"{ratio:.0%} of the kept text is link-dense "
             f"or repeated blocks, boilerplate_ratio_max is {policy.boilerplate_ratio_max:.0%}")
    frame = facts.frame
    # the frame is most of what was kept, and little else is: an index's letter bar
    # beside its few entries is not a page of chrome
    if policy.check_chrome and frame is not None and frame.chrome > frame.rest \
            and frame.rest < CHROME_REST:
        kinds = ", ".join(sorted(frame.kinds))
        fail("chrome-only", f"{frame.chrome} of {frame.chrome + frame.rest} kept chars are "
             f"the site's frame ({kinds}); the content was not found")
    cut = [limit for limit in facts.limits if limit in TRUNCATING]
    if cut:
        fail("truncated", "; ".join(f"{limit}: the page is {TRUNCATING[limit]} and was cut "
                                    "there" for limit in cut))
    prose = facts.prose
    if prose is not None and policy.partial_content_share:
        yardstick = max(prose.landmark, prose.run)
        if yardstick >= PARTIAL_MIN and prose.kept < policy.partial_content_share * yardstick:
            where = "main landmark" if prose.landmark >= prose.run else "longest run of prose"
            fail("partial-content", f"the kept region holds {prose.kept} chars of prose, the "
                 f"page's {where} {yardstick}")
    if (policy.check_canonical and facts.url and facts.canonical_url
            and names_another_page(facts.url, facts.canonical_url)):
        fail("canonical-mismatch", f"the page names {facts.canonical_url} as canonical")
    if policy.check_soft_404 and is_soft_404(facts.title, facts.headline, facts.headings,
                                                 facts.text_chars):
        fail("soft-404", "the title or first headings read like an error page")
    if policy.check_route:
        for reason in route_reasons(facts.requested_url, facts.url):
            fail(reason, f"asked for {facts.requested_url}, ended on {facts.url}")
        if facts.not_found_markers:
            fail("not-found-marker", "the template marks a missing page: "
                 + ", ".join(facts.not_found_markers))
    if policy.required_heading is not None:
        pattern = re.compile(policy.required_heading)
        if not any(pattern.search(text) for _, text in facts.headings):
            fail("required-heading-missing", f"no heading matches {policy.required_heading!r}")
    if policy.expected_language is not None:
        if not facts.language:
            fail("language-unknown", "the page declares no language")
        elif (facts.language.split("-")[0].lower()
              != policy.expected_language.split("-")[0].lower()):
            fail("language-mismatch", f"the page declares {facts.language!r}")
    anomalies: list[str] = []
    previous = 0
    for level, _ in facts.headings:
        if previous and level > previous + 1:
            anomalies.append(f"skipped-heading-level:h{previous}->h{level}")
        previous = level
    anomalies.extend(["empty-list-item"] * facts.empty_list_items)
    anomalies.extend(["broken-table"] * facts.broken_tables)
    allowed = max(policy.max_structure_anomalies, int(
        policy.structure_anomaly_share * (len(facts.headings) + paragraphs)))
    if policy.check_structure and len(anomalies) > allowed:
        fail("structure-anomalies", f"{len(anomalies)} anomalies, {allowed} allowed")
    if facts.readiness_passed is False:
        fail("readiness-failed", "the renderer's readiness check did not pass")
    presence = min(1.0, facts.text_chars / policy.min_markdown_chars) \
        if policy.min_markdown_chars else 1.0
    scores: dict[str, float | int] = {
        "content_presence_score": round(presence, 4),
        "boilerplate_ratio": round(ratio, 4),
        "removed_ratio": round(facts.removed_ratio, 4),
        "structure_quality_score": round(1.0 / (1 + len(anomalies)), 4),
        "markdown_chars": facts.markdown_chars,
        "text_chars": facts.text_chars,
        "paragraph_count": paragraphs,
        "heading_count": len(facts.headings),
    }
    if frame is not None:
        scores["chrome_chars"] = frame.chrome
    if prose is not None:
        scores["kept_prose_chars"] = prose.kept
        scores["landmark_prose_chars"] = prose.landmark
        scores["longest_prose_run"] = prose.run
    return ValidationReport(passed=not reasons, reasons=tuple(reasons), scores=scores,
                            anomalies=tuple(anomalies), details=details)
