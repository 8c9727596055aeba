"""The passes over the converted blocks: lead trimming, the survey, provenance.

Apart from ``_api``, which stays interpreted (it is the public entry: see pyproject.toml),
so that they are compiled: they walk every block of every page.
"""

from __future__ import annotations

import re

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
from pressmark.markdown._lazy_re import LazyPattern
from pressmark.markdown._policy import ConversionPolicy
from pressmark.markdown._prune import collapsed_hash
from pressmark.markdown._render import Placed
from pressmark.markdown._result import Provenance, Structure
from pressmark.markdown._select import LONG_BLOCK, Selection
from pressmark.markdown._text_rules import SENTENCE_END, is_word

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

# A line that opens with a byline or a label: "By ..." and its translations, "Autor: ...",
# a participle that labels a date ("Publicado: ..."; only opening the line, where it is
# a label, not a verb in a standfirst sentence). Whole words in sets, read by
# ``_lead_label_end``: an alternation of them all was the costliest expression of the
# package to compile, at every start-up.
_BY_WORDS: Final = frozenset(("by", "por", "von", "par", "door", "di", "af", "av", "przez"))
_BY_PHRASES: Final = frozenset(("written by", "escrito por", "scritto da", "geschrieben von",
                                "écrit par"))
_AUTHOR_LABELS: Final = frozenset((
    "texto", "text", "tekst", "autor", "auteur", "autore", "author", "redacción", "redaktion",
    "rédaction", "redazione", "redactie"))
_DATE_LABELS: Final = frozenset((
    "aktualisiert", "veröffentlicht", "publié", "publicado", "actualizado", "pubblicato",
    "aggiornato", "atualizado", "gepubliceerd", "bijgewerkt", "publicerad", "uppdaterad",
    "publisert", "oppdatert", "opublikowano", "zaktualizowano"))
_UPDATED_FR: Final = "mis à jour"
# Dates, times and reading times anywhere in the line: numeric dates, clock times,
# English month abbreviations beside a day, "updated", "5 min read" and its translations.
_DATE_MARKS: Final = LazyPattern(
    r"\b\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\b|\b\d{1,2}[:h.]\d\d\s*(?:uhr|h|am|pm)\b"
    r"|\b\d{1,2}:\d\d\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b"
    r"|\b\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b"
    r"|\b(?:updated|published|posted)\b"
    r"|\b\d+ (?:min|minute|minutes|minuten|minutos|minuti|minuter|minutter)\.?s? "
    r"(?:read|de lecture|lesezeit|de lectura|di lettura|de leitura|leestijd|läsning|lesetid)"
    r"|\b(?:lesezeit|lesedauer|temps de lecture|tiempo de lectura|tempo di lettura)\b",
    re.IGNORECASE,
)
# A month name next to a day number ("12. März", "3 de marzo", "mars 3"), in German,
# French, Spanish, Italian, Portuguese, Dutch and the Scandinavian languages: a word
# beside a number, looked up in a set (an alternation this long is slow to compile).
_DAY_WORD: Final = LazyPattern(
    r"\b\d{1,2}\.? (?:de )?([^\W\d_]+)\.?(?=\s|$|,)|\b([^\W\d_]+)\.? \d{1,2}\b")
_MONTH_NAMES: Final = (
    "januar februar märz mai juni juli oktober dezember janvier février mars avril juin "
    "juillet août septembre octobre novembre décembre enero febrero marzo abril mayo junio "
    "julio agosto septiembre setiembre octubre noviembre diciembre gennaio febbraio aprile "
    "maggio giugno luglio settembre ottobre dicembre janeiro fevereiro março maio junho "
    "julho setembro outubro novembro dezembro januari februari maart mei augustus augusti "
    "okt dez déc ene abr ago dic mrt maj"
)
_MONTHS: Final = frozenset(_MONTH_NAMES.split())


SENTENCE_WORDS: Final = 5  # lower-case words, dates and labels aside, that make a line a sentence


def is_dateline(text: str) -> bool:
    """A byline or a date line ("By Jane Doe", "12. März 2024, 14:05"), not a sentence."""
    if _lead_label_end(text) or _DATE_MARKS.get().search(text):
        return not _reads_as_sentence(text)
    return any((m.group(1) or m.group(2)).lower() in _MONTHS
               for m in _DAY_WORD.get().finditer(text)) and not _reads_as_sentence(text)


def _reads_as_sentence(text: str) -> bool:
    """A short lead paragraph that mentions a date ("On March 12, the council voted to
    repair the bridge.") is the story's first sentence, not its dateline: with the dates
    and labels taken out, running prose keeps several lower-case words, while a byline or
    a dateline keeps names and numbers (scripts without case never read as sentences
    here, and keep the rule as it was)."""
    lead = _lead_label_end(text)
    rest = _DATE_MARKS.get().sub(" ", text[lead:])
    rest = _DAY_WORD.get().sub(" ", f" {rest}" if lead else rest)
    return sum(1 for word in rest.split() if word[:1].islower()) >= SENTENCE_WORDS


def _lead_label_end(text: str) -> int:
    """Where the byline word or label opening ``text`` ends (0: none): "By " (with the
    space after it), "Autor:" (with its colon), "Veröffentlicht" (with the symbols
    before it). Whole words, case as ``str.lower`` reads it."""
    space = 0
    while space < len(text) and not text[space].isspace():
        space += 1
    if space < len(text):  # a byline word needs a space after it
        first = text[:space].lower()
        if first in _BY_WORDS:
            return space + 1
        if text[space] == " ":
            after = space + 1
            while after < len(text) and not text[after].isspace():
                after += 1
            if after < len(text) and text[:after].lower() in _BY_PHRASES:
                return after + 1
    start = 0  # the first word, after any symbols
    while start < len(text) and not is_word(text[start]):
        start += 1
    end = start
    while end < len(text) and is_word(text[end]):
        end += 1
    word = text[start:end].lower()
    if start == 0 and word in _AUTHOR_LABELS:  # opening the line, then a colon
        colon = end
        while colon < len(text) and text[colon].isspace():
            colon += 1
        if colon < len(text) and text[colon] == ":":
            return colon + 1
    if word in _DATE_LABELS:
        return end
    tail = start + len(_UPDATED_FR)
    if text[start:tail].lower() == _UPDATED_FR and not (tail < len(text) and is_word(text[tail])):
        return tail
    return 0


# a byline may link its author ("By [Jane Doe](/authors/jane)"); other linked lines stay
_BYLINE: Final = LazyPattern(r"(?:by|por|von|par|door|di|af|av|przez)\s", re.IGNORECASE)
LEAD_BLOCK: Final = 100   # chars: the lead section ends at the first paragraph this long
DATE_ONLY: Final = 30     # chars: a date or time line this short says nothing else
KICKER_CHARS: Final = 40  # chars: a line this short above the headline labels it
_LEAD_END: Final = SENTENCE_END | {":"}  # "In this story:" introduces what follows, like a sentence


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
               policy: ConversionPolicy, *, bylines: bool = True) -> list[Block]:
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
        if lead and bylines and not timeline and isinstance(block, Para) \
                and len(block.plain) < LEAD_BLOCK \
                and ("](" not in block.text or _BYLINE.get().match(block.plain)) \
                and is_dateline(block.plain):
            rules.add("exclude_dateline")
            continue
        out.append(block)
    return out


TIMELINE_MARKS: Final = 2  # date-only lines past the lead that make the page a timeline


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
        if len(block.plain) < DATE_ONLY and is_dateline(block.plain):
            marks += 1
            if marks >= TIMELINE_MARKS:
                return True
    return False


def tidy(blocks: list[Block], selection: Selection, title: str | None,
         policy: ConversionPolicy) -> list[Block]:
    """Drop the headline, bylines, and headings left without content."""
    rules = set(selection.rules)
    if policy.select_main:
        # a thread's first post opens with its author line ("by jane » 3 May 2024"), as
        # every other post does: it is no article's dateline (``_select``: page kinds)
        thread = selection.kind is not None and selection.kind.name == "thread"
        blocks = _lead_trim(blocks, title, rules, policy, bylines=not thread)
    out: list[Block] = []
    fired = False
    for block in blocks:
        if isinstance(block, Heading):
            while out and isinstance(out[-1], Heading) and out[-1].level >= block.level:
                out.pop()
                fired = True
        elif isinstance(block, Rule) and (not out or isinstance(out[-1], Rule)):
            continue  # a break with nothing before it, or after another, separates nothing
        out.append(block)
    while out and isinstance(out[-1], (Heading, Rule)):
        fired = fired or isinstance(out[-1], Heading)
        out.pop()
    if fired:
        rules.add("empty_section")
    selection.rules = sorted(rules)
    return out


PROSE_ITEM: Final = 80  # chars: a list item this long and link-poor is a paragraph of prose
MENU_LINKS: Final = 2   # links in a short, mostly linked block that make it a menu line
LONE_LINK: Final = 0.9  # share of a short block in one link that makes it a way elsewhere


class Survey:
    """What ``survey`` counts (plain slots: built once per page, see ``_blocks``)."""

    __slots__ = ("chars", "chrome", "headings", "listed_chars", "listed_chrome",
                 "listed_items", "prose_items", "structure", "texts")

    def __init__(self, structure: Structure, headings: tuple[tuple[int, str], ...], *,
                 texts: tuple[str, ...], chars: int, chrome: int, prose_items: int) -> None:
        self.structure = structure
        self.headings = headings
        self.texts = texts
        self.chars = chars
        self.chrome = chrome
        self.prose_items = prose_items
        self.listed_chars = 0   # text inside lists, tables and term lists
        self.listed_items = 0   # list items and table body rows
        self.listed_chrome = 0  # of ``chrome``, inside those


def survey(blocks: list[Block], hints: frozenset[str]) -> Survey:
    """Counts for the evidence and for validation, and each text block's collapsed text
    in order (what ``MarkdownResult.block_hashes`` hashes, when asked).

    ``prose_items`` counts prose inside lists: a post written as bullet points
    (release notes, a weekly digest) has no top-level paragraph, yet its items are
    sentences, and validation must not call it empty. An item with a heading of
    its own in a list of several is a teaser card (a section front's list of stories), not
    prose. A code block of some length counts too: preformatted text is content.
    ``listed_*`` measure how much of the text lists and tables hold: validation judges
    output made mostly of them as a listing.
    """
    # plain local counters: this walks every block of every page, and a dict's item
    # update costs several times an int's
    n_headings = n_paragraphs = n_lists = n_items = n_tables = n_code = n_quotes = 0
    n_images = n_links = 0
    headings: list[tuple[int, str]] = []
    texts: list[str] = []  # hashed only against hints here: a digest is a SHA-256 each
    chars = 0
    chrome = 0
    prose_items = 0
    listed = listed_chrome = listed_items = 0
    stack: list[tuple[Block, bool, bool]] = [(b, False, False) for b in reversed(blocks)]
    while stack:
        block, nested, card = stack.pop()
        if isinstance(block, Para):
            text = block.text
            plain = block.plain
            links = text.count("](")
            if not nested:
                n_paragraphs += 1
            elif not card and len(plain) >= PROSE_ITEM and links < 3:
                prose_items += 1
            images = text.count("![")
            n_images += images
            n_links += links - images
            texts.append(plain)
            chars += len(plain)
            if nested:
                listed += len(plain)
            src = block.source
            # a menu line (two links or more, mostly links) or a link alone ("Read more");
            # one link in a sentence ("Obsolete, see [X](x) instead.") is prose; a control
            # pruning kept is content (an operation: method, path, summary), though its
            # text counts as link text
            if (src is not None and 0 < src.own_len < LONG_BLOCK and src.tag != "button" and (
                    (links - images >= MENU_LINKS and src.own_link > 0.5 * src.own_len)
                    or src.own_link >= LONE_LINK * src.own_len)) or (
                        hints and collapsed_hash(plain) in hints):
                chrome += len(plain)
                if nested:
                    listed_chrome += len(plain)
        elif isinstance(block, Heading):
            n_headings += 1
            headings.append((block.level, block.plain))
            texts.append(block.plain)  # plain is collapsed (_convert)
            chars += len(block.plain)
        elif isinstance(block, ListBlock):
            n_lists += 1
            n_items += len(block.items)
            listed_items += len(block.items)
            for item in reversed(block.items):
                # (a list of one item is a wrapper: a whole document set in one <li>)
                headed = card or (len(block.items) > 1
                                  and any(isinstance(b, Heading) for b in item.blocks))
                stack.extend((b, True, headed) for b in reversed(item.blocks))
        elif isinstance(block, Code):
            n_code += 1
            chars += len(block.text)
            if len(block.text) >= PROSE_ITEM:
                # preformatted text is content too (a story, an RFC, a source file kept in
                # <pre>): it counts as a paragraph, not as none
                prose_items += 1
        elif isinstance(block, Quote):
            n_quotes += 1
            stack.extend((b, nested, card) for b in reversed(block.blocks))
        elif isinstance(block, Table):
            n_tables += 1
            size = sum(len(c) for row in block.rows for c in row)
            chars += size
            listed += size
            listed_items += len(block.rows) - 1
        elif isinstance(block, DefList):
            listed_items += len(block.items)
            for term, defs in reversed(block.items):
                for definition in reversed(defs):
                    stack.extend((b, True, card) for b in reversed(definition))
                chars += len(term)
                listed += len(term)
        elif isinstance(block, Rule):
            pass
    structure = Structure(
        headings=n_headings, paragraphs=n_paragraphs, lists=n_lists, list_items=n_items,
        tables=n_tables, code_blocks=n_code, quotes=n_quotes, images=n_images, links=n_links)
    out = Survey(structure, tuple(headings), texts=tuple(texts), chars=chars, chrome=chrome,
                 prose_items=prose_items)
    out.listed_chars = listed
    out.listed_items = listed_items
    out.listed_chrome = listed_chrome
    return out


def _preview(text: str, limit: int) -> str:
    """The text collapsed, cut to ``limit`` characters with an ellipsis."""
    # Only the start can show, and the collapse of a prefix is a prefix of the whole's
    # collapse: a paragraph of thousands of characters is not split into words for it
    # (a block's plain text is collapsed already, so this head is mostly long enough).
    head = text[:limit + 2]
    collapsed = " ".join(head.split())
    if len(collapsed) <= limit and len(head) < len(text):
        collapsed = " ".join(text.split())  # mostly whitespace up front: the whole, then
    if len(collapsed) <= limit:
        return collapsed
    return collapsed[: max(0, limit - 1)].rstrip() + "…"


def provenance(placed: list[Placed], policy: ConversionPolicy) -> tuple[Provenance, ...]:
    """Where the headings and the first paragraphs sit, in the Markdown and in the page."""
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
