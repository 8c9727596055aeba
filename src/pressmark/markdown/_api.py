"""``to_markdown``: parse, select, prune, convert, validate, explain."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING

from pressmark import egress
from pressmark.egress import EgressDenied, is_canonical_url
from pressmark.markdown._blocks import (
    Block,
    Code,
    DefList,
    Heading,
    ListBlock,
    Para,
    Quote,
    Rule,
    Table,
)
from pressmark.markdown._convert import Converter
from pressmark.markdown._metadata import HeadNodes, read_embedded_state, read_metadata
from pressmark.markdown._policy import POLICY_VERSION, ConversionPolicy, MarkdownError
from pressmark.markdown._prune import collapsed_hash
from pressmark.markdown._render import Placed, render
from pressmark.markdown._result import (
    EvidencePacket,
    MarkdownResult,
    Provenance,
    ReadinessFacts,
    Structure,
)
from pressmark.markdown._screen import utf8_valid
from pressmark.markdown._select import LONG_BLOCK, Selection, select
from pressmark.markdown._text_rules import SENTENCE_END
from pressmark.markdown._tree import Document, Node, parse
from pressmark.markdown._validate import SOFT_404_CHARS, Facts, not_found_tokens, validate

if TYPE_CHECKING:
    from pressmark.egress import ParsedURL

_SCHEMES = frozenset(("http", "https", "mailto", "ftp", "tel"))
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_DEFAULT_POLICY = ConversionPolicy()


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
        text = html
    doc = parse(text, skip_chrome=policy.select_main, utf8=utf8)
    head = HeadNodes(doc.tree)
    if not doc.cut.verify(head.raw_texts):  # the tree is not the page's (``_rawcut``)
        doc = parse(text, skip_chrome=policy.select_main, utf8=utf8, cut=False)
        head = HeadNodes(doc.tree)
    resolve = _Resolver(_base_url(head.base_attrs, url))
    state = read_embedded_state(head, doc.cut)
    metadata = read_metadata(head, resolve, state, lambda: _first_h1(doc.body))
    hints = frozenset(boilerplate_hints or ())
    if policy.select_main:
        selection = select(doc, hints=hints)
    else:
        selection = Selection(root=doc.body, selectors=["body"])
    converter = Converter(policy, resolve)
    blocks = _tidy(converter.block(selection.root), selection, metadata.title, policy)
    markdown, placed = render(blocks)

    structure, headings, hashes, plain_chars, chrome, prose_items = _survey(blocks, hints)
    selected_chars = selection.root.text_len or 1
    facts = Facts(
        text_chars=plain_chars, markdown_chars=len(markdown),
        paragraphs=structure.paragraphs + prose_items,
        headings=headings, chrome_chars=chrome,
        removed_ratio=min(1.0, selection.removed_chars / selected_chars),
        empty_list_items=converter.counts.empty_list_items,
        broken_tables=converter.counts.broken_tables, title=metadata.title,
        headline=_first_h1(doc.body) if plain_chars < SOFT_404_CHARS else None, url=url,
        canonical_url=metadata.canonical_url, language=metadata.language,
        readiness_passed=None if readiness is None else bool(readiness.passed),
        requested_url=requested_url, not_found_markers=_not_found_markers(doc, head),
    )
    report = validate(facts, policy)
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
        sample_provenance=_provenance(placed, markdown, policy),
    )
    doc.release()  # nothing below needs the tree (see Document.release)
    return MarkdownResult(
        markdown=markdown, title=metadata.title, metadata=metadata, structure=structure,
        validation=report, evidence=evidence, embedded_state=state,
        policy_version=POLICY_VERSION,
        headings=tuple(f"{level} {text}" for level, text in headings),
        block_hashes=hashes, warnings=(*decode_warnings, *doc.limits),
    )


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

    decision = decide_charset(data, content_type, is_html=True)
    if text_encoding(data, decision.label) == "UTF-8" and not data.startswith(_UTF8_BOM) \
            and utf8_valid(data):
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


_DATELINE = re.compile(
    # "By ..." and its translations, or a labelled byline ("Autor: ...")
    r"^(?:by|por|von|par|door|di|af|av|przez|written by|escrito por|scritto da"
    r"|geschrieben von|écrit par)\s|^(?:texto|text|tekst|autor|auteur|autore|author"
    r"|redacción|redaktion|rédaction|redazione|redactie)\s*:"
    r"|\b\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\b|\b\d{1,2}[:h.]\d\d\s*(?:uhr|h|am|pm)\b"
    r"|\b\d{1,2}:\d\d\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b"
    r"|\b\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b"
    # "updated", "published"; in other languages only opening the line, where the
    # participle is a label ("Publicado: ..."), not a verb in a standfirst sentence
    r"|\b(?:updated|published|posted)\b"
    r"|^\W*(?:aktualisiert|veröffentlicht|publié|mis à jour|publicado|actualizado"
    r"|pubblicato|aggiornato|atualizado|gepubliceerd|bijgewerkt|publicerad|uppdaterad"
    r"|publisert|oppdatert|opublikowano|zaktualizowano)\b"
    r"|\b\d+ (?:min|minute|minutes|minuten|minutos|minuti|minuter|minutter)\.?s? "
    r"(?:read|de lecture|lesezeit|de lectura|di lettura|de leitura|leestijd|läsning|lesetid)"
    r"|\b(?:lesezeit|lesedauer|temps de lecture|tiempo de lectura|tempo di lettura)\b",
    re.IGNORECASE,
)
# A month name next to a day number ("12. März", "3 de marzo", "mars 3"), in German,
# French, Spanish, Italian, Portuguese, Dutch and the Scandinavian languages: a word
# beside a number, looked up in a set (an alternation this long is slow to compile).
_DAY_WORD = re.compile(
    r"\b\d{1,2}\.? (?:de )?([^\W\d_]+)\.?(?=\s|$|,)|\b([^\W\d_]+)\.? \d{1,2}\b")
_MONTH_NAMES = (
    "januar februar märz mai juni juli oktober dezember janvier février mars avril juin "
    "juillet août septembre octobre novembre décembre enero febrero marzo abril mayo junio "
    "julio agosto septiembre setiembre octubre noviembre diciembre gennaio febbraio aprile "
    "maggio giugno luglio settembre ottobre dicembre janeiro fevereiro março maio junho "
    "julho setembro outubro novembro dezembro januari februari maart mei augustus augusti "
    "okt dez déc ene abr ago dic mrt maj"
)
_MONTHS = frozenset(_MONTH_NAMES.split())


SENTENCE_WORDS = 5  # lower-case words, dates and labels aside, that make a line a sentence


def _is_dateline(text: str) -> bool:
    if _DATELINE.search(text):
        return not _reads_as_sentence(text)
    return any((m.group(1) or m.group(2)).lower() in _MONTHS
               for m in _DAY_WORD.finditer(text)) and not _reads_as_sentence(text)


def _reads_as_sentence(text: str) -> bool:
    """A short lead paragraph that mentions a date ("On March 12, the council voted to
    repair the bridge.") is the story's first sentence, not its dateline: with the dates
    and labels taken out, running prose keeps several lower-case words, while a byline or
    a dateline keeps names and numbers (scripts without case never read as sentences
    here, and keep the rule as it was)."""
    rest = _DAY_WORD.sub(" ", _DATELINE.sub(" ", text))
    return sum(1 for word in rest.split() if word[:1].islower()) >= SENTENCE_WORDS


# a byline may link its author ("By [Jane Doe](/authors/jane)"); other linked lines stay
_BYLINE = re.compile(r"(?:by|por|von|par|door|di|af|av|przez)\s", re.IGNORECASE)
LEAD_BLOCK = 100   # chars: the lead section ends at the first paragraph this long
DATE_ONLY = 30     # chars: a date or time line this short says nothing else
KICKER_CHARS = 40  # chars: a line this short above the headline labels it
_LEAD_END = SENTENCE_END | {":"}  # "In this story:" introduces what follows, like a sentence


def _headline_at(blocks: list[Block]) -> int:
    """Index of the ``<h1>`` that opens the body, when only short lines precede it (else 0).

    What sits above a headline inside the article is its label: a section kicker
    ("Transports"), a slide counter ("1 / 5"), a category. Such lines go
    (``exclude_kicker``); a sentence, an image or a longer line stops the search.
    """
    for at, block in enumerate(blocks):
        if isinstance(block, Heading):
            return at if block.level == 1 else 0
        if not isinstance(block, Para) or len(block.plain) >= KICKER_CHARS \
                or block.plain[-1:] in _LEAD_END:
            return 0
    return 0


def _lead_trim(blocks: list[Block], title: str | None, rules: set[str],
               policy: ConversionPolicy) -> list[Block]:
    """The headline and byline/date lines above the first real paragraph.

    The headline is reported as ``title``; the body starts after it (set
    ``keep_title`` to keep it). Short lines that read like a byline or a date
    above the first paragraph are dropped as ``exclude_dateline``.
    """
    key = " ".join((title or "").split()).casefold()
    out: list[Block] = []
    lead = True
    timeline = _timeline(blocks)
    headline = _headline_at(blocks)
    for at, block in enumerate(blocks):
        if lead and isinstance(block, Para) and len(block.plain) >= LEAD_BLOCK:
            lead = False
        if at < headline:  # only short label lines precede it (``_headline_at``)
            rules.add("exclude_kicker")
            continue
        if lead and not policy.keep_title and isinstance(block, Heading) and (
                block.level == 1 or (key and block.plain.casefold() in key)) \
                and "exclude_title" not in rules:
            rules.add("exclude_title")
            continue
        if lead and not timeline and isinstance(block, Para) \
                and len(block.plain) < LEAD_BLOCK \
                and ("](" not in block.text or _BYLINE.match(block.plain)) \
                and _is_dateline(block.plain):
            rules.add("exclude_dateline")
            continue
        out.append(block)
    return out


TIMELINE_MARKS = 2  # date-only lines past the lead that make the page a timeline


def _timeline(blocks: list[Block]) -> bool:
    """Date lines recur through the body: a live blog's or a changelog's entries.

    Their times are content, the first entry's as much as the last one's, so the lead's
    dateline rule stands down. Only bare dates and times count (``14:05``, ``3 May
    2024``), not bylines, which do not recur.
    """
    marks = 0
    lead = True
    for block in blocks:
        if not isinstance(block, Para):
            continue
        if lead:
            lead = len(block.plain) < LEAD_BLOCK
            continue
        if len(block.plain) < DATE_ONLY and _is_dateline(block.plain):
            marks += 1
            if marks >= TIMELINE_MARKS:
                return True
    return False


def _first_h1(body: Node) -> str | None:
    """The first non-empty ``<h1>`` in document order (a walk that stops there)."""
    stack = [body]
    while stack:
        node = stack.pop()
        if node.tag == "h1" and node.text_len:
            return node.text()
        stack.extend(reversed(node.elems))
    return None


def _tidy(blocks: list[Block], selection: Selection, title: str | None,
          policy: ConversionPolicy) -> list[Block]:
    """Drop the headline, bylines, and headings left without content."""
    rules = set(selection.rules)
    if policy.select_main:
        blocks = _lead_trim(blocks, title, rules, policy)
    out: list[Block] = []
    fired = False
    for block in blocks:
        if isinstance(block, Heading):
            while out and isinstance(out[-1], Heading) and out[-1].level >= block.level:
                out.pop()
                fired = True
        out.append(block)
    while out and isinstance(out[-1], Heading):
        out.pop()
        fired = True
    if fired:
        rules.add("empty_section")
    selection.rules = sorted(rules)
    return out


PROSE_ITEM = 80  # chars: a list item this long and link-poor is a paragraph of prose


def _survey(blocks: list[Block], hints: frozenset[str]) -> tuple[
        Structure, tuple[tuple[int, str], ...], tuple[str, ...], int, int, int]:
    """Counts for the evidence and for validation.

    The last value counts prose inside lists: a post written as bullet points
    (release notes, a weekly digest) has no top-level paragraph, yet its items are
    sentences, and validation must not call it empty. An item with a heading of
    its own is a teaser card (a section front's list of stories), not prose.
    """
    # plain local counters: this walks every block of every page, and a dict's item
    # update costs several times an int's
    n_headings = n_paragraphs = n_lists = n_items = n_tables = n_code = n_quotes = 0
    n_images = n_links = 0
    headings: list[tuple[int, str]] = []
    hashes: list[str] = []
    chars = 0
    chrome = 0
    prose_items = 0
    stack: list[tuple[Block, bool, bool]] = [(b, False, False) for b in reversed(blocks)]
    pop = stack.pop
    while stack:
        block, nested, card = pop()
        if isinstance(block, Para):
            text = block.text
            plain = block.plain
            if not nested:
                n_paragraphs += 1
            elif not card and len(plain) >= PROSE_ITEM and text.count("](") < 3:
                prose_items += 1
            images = text.count("![")
            n_images += images
            n_links += text.count("](") - images
            digest = collapsed_hash(plain)
            hashes.append(digest)
            chars += len(plain)
            src = block.source
            if (src is not None and 0 < src.own_len < LONG_BLOCK
                    and src.own_link > 0.5 * src.own_len) or (hints and digest in hints):
                chrome += len(plain)
        elif isinstance(block, Heading):
            n_headings += 1
            headings.append((block.level, block.plain))
            hashes.append(collapsed_hash(block.plain))  # plain is collapsed (_convert)
            chars += len(block.plain)
        elif isinstance(block, ListBlock):
            n_lists += 1
            n_items += len(block.items)
            for item in reversed(block.items):
                headed = card or any(isinstance(b, Heading) for b in item.blocks)
                stack.extend((b, True, headed) for b in reversed(item.blocks))
        elif isinstance(block, Code):
            n_code += 1
            chars += len(block.text)
        elif isinstance(block, Quote):
            n_quotes += 1
            stack.extend((b, nested, card) for b in reversed(block.blocks))
        elif isinstance(block, Table):
            n_tables += 1
            chars += sum(len(c) for row in block.rows for c in row)
        elif isinstance(block, DefList):
            for term, defs in reversed(block.items):
                for definition in reversed(defs):
                    stack.extend((b, True, card) for b in reversed(definition))
                chars += len(term)
        elif isinstance(block, Rule):
            pass
    structure = Structure(
        headings=n_headings, paragraphs=n_paragraphs, lists=n_lists, list_items=n_items,
        tables=n_tables, code_blocks=n_code, quotes=n_quotes, images=n_images, links=n_links)
    return structure, tuple(headings), tuple(hashes), chars, chrome, prose_items


def _preview(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def _provenance(placed: list[Placed], markdown: str,
                policy: ConversionPolicy) -> tuple[Provenance, ...]:
    out: list[Provenance] = []
    paragraphs = 0
    for block, start, end in placed:
        if isinstance(block, Heading):
            kind = "heading"
        elif isinstance(block, Para) and paragraphs < policy.provenance_paragraphs:
            paragraphs += 1
            kind = "paragraph"
        else:
            continue
        source = block.source
        out.append(Provenance(
            kind=kind, markdown_span=(start, end),
            dom_selector=source.css_path() if source is not None else "",
            text_preview=_preview(block.plain, policy.preview_chars),
        ))
    return tuple(out)
