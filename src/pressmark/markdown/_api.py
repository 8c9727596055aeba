"""``to_markdown``: parse, select, prune, convert, validate, explain."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection

from pressmark import egress
from pressmark.egress import EgressDenied, is_canonical_url
from pressmark.markdown._blockmap import BlockMap
from pressmark.markdown._budget import (
    MAX_MARKDOWN_CHARS,
    MAX_URL_CHARS,
    ConversionLimit,
    check_render,
    fitting,
)
from pressmark.markdown._chrome import CHROME_ONLY_MAX, read_chrome
from pressmark.markdown._completeness import prose_facts
from pressmark.markdown._convert import Converter
from pressmark.markdown._hidden import subtree_text
from pressmark.markdown._instructions import InstructionText
from pressmark.markdown._kinds import declared_kind
from pressmark.markdown._metadata import HeadNodes, read_embedded_state, read_metadata
from pressmark.markdown._policy import POLICY_VERSION, ConversionPolicy, MarkdownError
from pressmark.markdown._post import provenance, survey, tidy
from pressmark.markdown._render import render
from pressmark.markdown._result import EvidencePacket, MarkdownResult
from pressmark.markdown._screen import utf8_valid
from pressmark.markdown._select import Selection, select
from pressmark.markdown._tree import DROPPED, Document, first_h1, parse
from pressmark.markdown._validate import (
    SOFT_404_CHARS,
    Facts,
    ValidationReport,
    is_listing,
    not_found_tokens,
    validate,
)

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from pressmark.egress import ParsedURL
    from pressmark.markdown._blocks import Block
    from pressmark.markdown._result import ReadinessFacts

_SCHEMES = frozenset(("http", "https", "mailto", "ftp", "tel"))
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_DEFAULT_POLICY = ConversionPolicy()
# the page's embedded state replaces the DOM's output only when it carries more than this
# many times its prose: a DOM that kept a heading and a line does not outweigh an article
STATE_OVER_DOM = 2


class _Resolver:
    """Resolves hrefs against ``<base>`` and the page URL; memoised per page.

    WHY the egress parser: a link in the Markdown must name the URL a browser (and
    the crawler) would follow, so ``///host/x`` leaves the page's host and
    ``faß.de`` is ``xn--fa-hia.de``; an http(s) reference that parser refuses is no
    link at all.
    """

    def __init__(self, base: str | None) -> None:
        self.base = _parsed(base)
        self.memo: dict[str, str | None] = {}

    def __call__(self, href: str) -> str | None:
        hit = self.memo.get(href, "")
        if hit != "":
            return hit
        url = self._resolve(href)
        if url is not None and len(url) > MAX_URL_CHARS:
            url = None  # no link: a long <base> would repeat in every one (``_budget``)
        self.memo[href] = url
        return url

    def _resolve(self, href: str) -> str | None:
        href = "".join(href.split()) if "\t" in href or "\n" in href or "\r" in href \
            else href.strip()
        if not href:
            return None
        scheme = _scheme(href)
        if scheme and scheme not in _SCHEMES:
            return None
        if scheme not in ("", "http", "https"):
            return href  # mailto:, tel:, ftp: need no resolving
        return _joined(self.base, href) if self.base is not None or scheme else href


def _scheme(href: str) -> str:
    """The reference's scheme, lower-cased, or ``""`` for a relative reference."""
    match = _SCHEME.match(href)
    return match.group(1).lower() if match else ""


# ``egress.parse_url`` and ``egress.join_url`` are looked up on the package: the URL
# parser loads on the first page that needs it (a ``<base href>``, a link of another
# shape than ``is_canonical_url``'s), which most pages never are.
def _parsed(url: str | None) -> ParsedURL | None:
    if not url:
        return None
    try:
        return egress.parse_url(url)
    except EgressDenied:
        return None


def _joined(base: ParsedURL | None, href: str) -> str | None:
    url = href if base is None else egress.join_url(base, href)
    if is_canonical_url(url):
        return url  # what the parse below returns, without building a ParsedURL
    try:
        return egress.parse_url(url).url
    except EgressDenied:
        return None


def _base_url(attrs: dict[str, str | None] | None, url: str | None) -> str | None:
    """The document's base URL: an http(s) ``<base href>`` resolved against ``url``."""
    href = (attrs.get("href") or "").strip() if attrs is not None else ""
    if href and _scheme(href) in ("", "http", "https"):
        joined = _joined(_parsed(url), href) if url or _scheme(href) else None
        if joined is not None:
            return joined
    return url


def to_markdown(
    html: str | bytes,
    *,
    url: str | None = None,
    content_type: str | None = None,
    policy: ConversionPolicy = _DEFAULT_POLICY,
    readiness: ReadinessFacts | None = None,
    boilerplate_hints: Collection[str] | None = None,
    requested_url: str | None = None,
) -> MarkdownResult:
    """Convert one HTML page to deterministic Markdown with its evidence.

    ``html`` is the page's text, or its body bytes as served or saved: bytes are read
    the way a snapshot of them is read (``pressmark.snapshot``'s charset decision: the
    ``content_type`` header's charset, a byte-order mark, ``<meta charset>``, then
    UTF-8), and what that decision noted joins the result's ``warnings``.
    ``url`` is the page's final URL (links resolve against it); ``requested_url``
    the URL first asked for (defaults to ``url``). ``boilerplate_hints`` are
    ``block_hash`` values the caller saw repeated across a host's pages; blocks
    with those hashes are pruned as chrome.
    """
    utf8: bytes | None = None
    decode_warnings: tuple[str, ...] = ()
    text: str | None
    if isinstance(html, bytes):
        text, utf8, decode_warnings = _decode_body(html, content_type)
    elif not isinstance(html, str):
        raise MarkdownError("to_markdown() takes HTML as text (str) or body bytes",
                            code="invalid-input")
    elif content_type is not None:
        raise MarkdownError("content_type names the charset of body bytes; this HTML is "
                            "already text", code="invalid-input")
    else:
        # a byte-order mark decoded as a character ("utf-8" rather than "utf-8-sig", as
        # requests' .text does): dropped, as the charset decision drops it from bytes,
        # so the text and its bytes give one tree (kept, it is text before the doctype:
        # quirks mode, the head's elements moved into the body)
        text = html[1:] if html.startswith("\ufeff") else html
    doc = parse(text, skip_chrome=policy.select_main, utf8=utf8,
                keep_hidden=policy.keep_hidden_text)
    head = HeadNodes(doc.tree)
    if not doc.cut.verify(head.raw_texts):  # the tree is not the page's (``_rawcut``)
        doc = parse(text, skip_chrome=policy.select_main, utf8=utf8, cut=False,
                    keep_hidden=policy.keep_hidden_text)
        head = HeadNodes(doc.tree)
    resolve = _Resolver(_base_url(head.base_attrs, url))
    state = read_embedded_state(head, doc.cut)
    metadata = read_metadata(head, resolve, state, lambda: first_h1(doc.body))
    hints = frozenset(boilerplate_hints or ())
    if policy.select_main:
        schema = declared_kind(state.get("json_ld", []), head.meta_attrs, head.root_attrs,
                               doc.nodes)
        selection = select(doc, hints=hints, schema=schema, title=metadata.title)
    else:
        selection = Selection(root=doc.body, selectors=["body"])
    converter = Converter(policy, resolve)
    blocks: list[Block] | None = None
    try:
        blocks = tidy(converter.block(selection.root), selection, metadata.title, policy)
        check_render(blocks, converter.budget)  # before a character of it is written
    except ConversionLimit as limit:  # fails closed; the documented partial rides along
        done = blocks if blocks is not None else converter.done or []
        partial = render(fitting(done, MAX_MARKDOWN_CHARS))[0]
        raise ConversionLimit(limit.what, limit.written, partial=partial) from None
    markdown, placed = render(blocks)

    counted = survey(blocks, hints)
    structure, headings, plain_chars = counted.structure, counted.headings, counted.chars
    selected_chars = selection.root.text_len or 1
    facts = Facts(
        text_chars=plain_chars, markdown_chars=len(markdown),
        paragraphs=structure.paragraphs + counted.prose_items,
        headings=headings, chrome_chars=counted.chrome,
        removed_ratio=min(1.0, selection.removed_chars / selected_chars),
        empty_list_items=converter.counts.empty_list_items,
        broken_tables=converter.counts.broken_tables, title=metadata.title,
        headline=first_h1(doc.body) if plain_chars < SOFT_404_CHARS else None, url=url,
        canonical_url=metadata.canonical_url, language=metadata.language,
        readiness_passed=None if readiness is None else bool(readiness.passed),
        requested_url=requested_url, not_found_markers=_not_found_markers(doc, head),
        limits=doc.limits, listed_chars=counted.listed_chars,
        listed_items=counted.listed_items, listed_chrome=counted.listed_chrome,
        frame=read_chrome(blocks, hints, policy.select_main, is_listing(
            counted.listed_items, counted.listed_chars, plain_chars))
        if plain_chars <= CHROME_ONLY_MAX else None,
        prose=prose_facts(doc, selection.root, selection.scale)  # (select's: not twice)
        if policy.select_main else None,
    )
    report = validate(facts, policy)
    if not markdown.strip():
        report = _with_empty_reason(report, doc)
    presence = round(min(1.0, plain_chars / policy.presence_chars), 4) \
        if policy.presence_chars else 1.0
    evidence = EvidencePacket(
        policy_version=POLICY_VERSION,
        url_requested=requested_url if requested_url is not None else url,
        url_final=url,
        needs_render=readiness is None and presence < 0.5,
        presence_score=presence,
        readiness=None if readiness is None else {
            "passed": bool(readiness.passed), "reason": str(readiness.reason),
            "elapsed_ms": readiness.elapsed_ms,
        },
        main_selectors_used=tuple(selection.selectors),
        boilerplate_rules_used=tuple(selection.rules),
        validation=report,
        sample_provenance=provenance(placed, policy),
        block_map=BlockMap(placed, markdown=markdown),
        page_kind=selection.kind.name if selection.kind is not None else "other",
        kind_signals=selection.kind.report() if selection.kind is not None else {},
        selection_notes=tuple(selection.notes),
        hidden_text=tuple(doc.hidden.report(
            selection.root, lambda lex: subtree_text(doc.tree, lex, DROPPED, doc.cut))),
        instruction_text=InstructionText(utf8 if utf8 is not None else text or "", markdown),
    )
    doc.release()  # nothing below needs the tree (see Document.release)
    result = MarkdownResult(
        markdown=markdown, title=metadata.title, metadata=metadata, structure=structure,
        validation=report, evidence=evidence, embedded_state=state,
        policy_version=POLICY_VERSION,
        headings=tuple(f"{level} {text}" for level, text in headings),
        block_texts=counted.texts, warnings=(
            *decode_warnings, *doc.limits,
            *(f"table-limit:{cap}" for cap in sorted(converter.counts.table_limits))),
    )
    if not markdown.strip() and not policy.keep_hidden_text and sum(
            passage["chars"] for passage in evidence.hidden_text) >= policy.min_markdown_chars:
        shown = to_markdown(html, url=url, content_type=content_type,
                            policy=dataclasses.replace(policy, keep_hidden_text=True),
                            readiness=readiness, boilerplate_hints=boilerplate_hints,
                            requested_url=requested_url)
        if shown.markdown.strip():  # the passages as the first pass found them, kept
            hidden = tuple({**passage, "kept": True} for passage in evidence.hidden_text)
            return dataclasses.replace(
                shown, warnings=(*shown.warnings, HIDDEN_SHOWN),
                evidence=dataclasses.replace(shown.evidence, hidden_text=hidden))
    if state and policy.select_main and plain_chars < policy.min_markdown_chars:
        return _from_state(result, plain_chars, url=url, policy=policy, readiness=readiness,
                           requested_url=requested_url)
    return result


# A page whose every word is hidden (``display:none`` on the wrapper, ``[v-cloak]``, a
# ``hidden`` app root) is hidden until a script shows it: a reader running the script sees
# it all, and an empty result would say the page has nothing. Its hidden text is then kept,
# as ``keep_hidden_text`` keeps it, and said so; the evidence lists each passage, ``kept``.
HIDDEN_SHOWN = ("hidden-content-shown: the page hides all its text until a script shows "
                "it; kept as a reader running the script would see it (evidence hidden_text)")


def _from_state(result: MarkdownResult, dom_chars: int, *, url: str | None,
                policy: ConversionPolicy, readiness: ReadinessFacts | None,
                requested_url: str | None) -> MarkdownResult:
    """The page's embedded state as its content, when the DOM gave (next to) nothing.

    The article found in the state (``_state.find_content``: by its shape) is written as
    HTML and converted like any page (selection, conversion, validation): its Markdown,
    structure and validation are the result's; the page's metadata, state and warnings
    stay; the evidence says ``content_source: embedded-state:<kind>`` and where in the
    state the article was (``main_selectors_used``). The synthetic page carries no state,
    so this never recurses twice.
    """
    from pressmark.markdown._state import find_content  # noqa: PLC0415 - see below

    # imported here: a page whose DOM has content (nearly all) never needs the state's
    # reader, whose import (a dataclass, ``html`` and its entity table, regexes) was a
    # twentieth of ``md --batch``'s start-up
    found = find_content(result.embedded_state)
    if found is None or found.chars <= STATE_OVER_DOM * dom_chars:
        return result
    alt = to_markdown(found.html, url=url, policy=policy, readiness=readiness,
                      requested_url=requested_url)
    if not alt.markdown.strip():
        return result
    source = f"embedded-state:{found.kind}"
    evidence = dataclasses.replace(
        alt.evidence, content_source=source,
        needs_render=result.evidence.needs_render,
        main_selectors_used=(f"{source}:{found.path}", *alt.evidence.main_selectors_used))
    return dataclasses.replace(
        alt, title=result.title or alt.title, metadata=result.metadata,
        embedded_state=result.embedded_state, evidence=evidence,
        warnings=result.warnings)


def _with_empty_reason(report: ValidationReport, doc: Document) -> ValidationReport:
    """An empty result says why (``empty-output:<why>``), in the evidence and the crawl's
    records: the page had no text at all (``no-text``: blank, or a JavaScript shell whose
    state held no article), was cut by the parse caps (``parse-limit``), or had text that
    selection and pruning left none of (``all-pruned``: a selection problem, debugged from
    ``main_selectors_used`` and ``boilerplate_rules_used``)."""
    if doc.limits:
        why = "parse-limit"
        detail = "the Markdown is empty and the page was cut: " + ", ".join(doc.limits)
    elif not doc.body.text_len:
        why = "no-text"
        detail = "the page has no text in its body"
    else:
        why = "all-pruned"
        detail = (f"the page has {doc.body.text_len} chars of text; selection and pruning "
                  "left none")
    reason = f"empty-output:{why}"
    return dataclasses.replace(report, passed=False, reasons=(*report.reasons, reason),
                               details={**report.details, reason: detail})


def _decode_body(data: bytes, content_type: str | None,
                 ) -> tuple[str | None, bytes | None, tuple[str, ...]]:
    """The text of body bytes, the bytes again when they are exactly its UTF-8 (no BOM,
    nothing replaced), and the charset decision's warnings.

    WHY hand the bytes on: Lexbor parses UTF-8, and a page given as text is encoded
    back to it first, about a twentieth of a conversion; bytes that decoded cleanly as
    UTF-8 are already that encoding. And when the C screen can tell they will (valid
    UTF-8, the decision UTF-8, no BOM), the text is left undecoded (None): only the
    rare page the screen sends to the full scan needs it (``_bounded``).
    """
    from pressmark.snapshot import (  # noqa: PLC0415 - only bytes need it
        decide_charset,
        decode_text_body,
        text_encoding,
    )

    valid = utf8_valid(data)
    decision = decide_charset(data, content_type, is_html=True, valid_utf8=valid)
    if text_encoding(data, decision.label) == "UTF-8" and not data.startswith(_UTF8_BOM) \
            and valid:
        return None, data, decision.warnings
    decoded = decode_text_body(data, decision.label)
    warnings = (*decision.warnings, *decoded.warnings)
    exact = decoded.encoding == "UTF-8" and not decoded.bom_removed and not decoded.replaced
    return decoded.text, data if exact else None, warnings


_UTF8_BOM = b"\xef\xbb\xbf"


def _not_found_markers(doc: Document, head: HeadNodes) -> tuple[str, ...]:
    """Template markers of a not-found page (class/id of ``<html>``/``<body>``, prerender).

    The prerender meta is looked up among the ``<meta>`` elements ``head`` already holds
    (document order, like a CSS query, and the same exact value match): a query of its
    own would walk the whole document once more.
    """
    html_attrs = head.root_attrs
    body_attrs = doc.body.attrs or {}
    markers = not_found_tokens(html_attrs.get("class"), html_attrs.get("id"),
                               body_attrs.get("class"), body_attrs.get("id"))
    meta = next((attrs for attrs in head.meta_attrs
                 if attrs.get("name") == "prerender-status-code"), None)
    if meta is not None and (meta.get("content") or "").strip() == "404":
        markers = (*markers, "prerender-status-code:404")
    return markers
