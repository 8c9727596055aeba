"""Result records. JSON output keeps the key order written here, always."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pressmark.markdown._blockmap import BlockMap
from pressmark.markdown._metadata import PageMetadata
from pressmark.markdown._prune import collapsed_hash
from pressmark.markdown._validate import ValidationReport

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Any, Protocol

    class ReadinessFacts(Protocol):
        """What the renderer knows about readiness (``ReadinessReport`` fits): a type for
        mypy only, as the renderer's report is any object with these three."""

        @property
        def passed(self) -> bool: ...
        @property
        def reason(self) -> str: ...
        @property
        def elapsed_ms(self) -> float: ...


def _dumps(value: Any) -> str:
    import json  # noqa: PLC0415 - only JSON output needs it, not every result

    return json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Structure:
    """How many of each kind of block the Markdown holds: a shape to compare pages by."""

    headings: int = 0
    paragraphs: int = 0
    lists: int = 0
    list_items: int = 0
    tables: int = 0
    code_blocks: int = 0
    quotes: int = 0
    images: int = 0
    links: int = 0

    def to_dict(self) -> dict[str, int]:
        return {
            "headings": self.headings, "paragraphs": self.paragraphs, "lists": self.lists,
            "list_items": self.list_items, "tables": self.tables,
            "code_blocks": self.code_blocks, "quotes": self.quotes, "images": self.images,
            "links": self.links,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Provenance:
    """Where a heading or paragraph of the Markdown came from in the page, so a reader
    can check a quoted span against the DOM it was taken from."""

    kind: str               # "heading" | "paragraph"
    markdown_span: tuple[int, int]
    dom_selector: str
    text_preview: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "markdown_span": list(self.markdown_span),
                "dom_selector": self.dom_selector, "text_preview": self.text_preview}


@dataclass(frozen=True, slots=True, kw_only=True)
class EvidencePacket:
    """Why the Markdown is what it is: the selectors and rules that fired, validation,
    render signals, sample provenance for a reviewer and every block's span and element
    (``block_map``) for a citation (``to_json`` keeps key order)."""

    policy_version: str
    url_requested: str | None
    url_final: str | None
    needs_render: bool
    presence_score: float
    readiness: dict[str, Any] | None
    main_selectors_used: tuple[str, ...]
    boilerplate_rules_used: tuple[str, ...]
    validation: ValidationReport
    sample_provenance: tuple[Provenance, ...]
    # what kind of page selection took this for ("article", "documentation", "listing",
    # "thread", "product", "application", "other"), and the signals that decided it, in
    # a fixed order: a wrong page is debugged from its evidence alone
    page_kind: str = "other"
    kind_signals: dict[str, float | int | str] = field(default_factory=dict)
    # how the main region was settled when the first answer was not taken as it was
    # (a fallback compared and kept, an empty result's reason), in the order decided
    selection_notes: tuple[str, ...] = ()
    # where the Markdown's content came from: "dom" (the page's markup), or
    # "embedded-state:<kind>" when the DOM held none and the page's embedded state
    # (JSON-LD, Next.js, Nuxt, Apollo... see _state.py) carried the article
    content_source: str = "dom"
    # every block of the Markdown: its span and the element it came from (``_blockmap``:
    # worked out when first read; for embedded-state content the elements are those of
    # the HTML written from the state, not the page's)
    block_map: BlockMap = field(default_factory=BlockMap)
    # text inside the kept region a reader would not see, left out of the Markdown
    # (``_hidden``): each passage's element path, reason, length and text; in the JSON
    # only when there is some (most pages have none)
    hidden_text: tuple[dict[str, Any], ...] = ()
    # sentences anywhere on the page addressed to a language model ("ignore previous
    # instructions", "note to AI agents"): flagged, not removed (``_instructions``): each
    # match's rule, words, context and whether the Markdown holds them; in the JSON only
    # when there is some. Worked out when first read (``InstructionText``), equal to the
    # tuple of its matches
    instruction_text: Sequence[dict[str, Any]] = ()

    def to_dict(self) -> dict[str, Any]:
        extra: dict[str, Any] = {"hidden_text": [dict(h) for h in self.hidden_text]} \
            if self.hidden_text else {}
        if self.instruction_text:
            extra["instruction_text"] = [dict(i) for i in self.instruction_text]
        return {
            "policy_version": self.policy_version,
            "url_requested": self.url_requested,
            "url_final": self.url_final,
            "needs_render": self.needs_render,
            "presence_score": self.presence_score,
            "readiness": dict(self.readiness) if self.readiness is not None else None,
            "page_kind": self.page_kind,
            "kind_signals": dict(self.kind_signals),
            "content_source": self.content_source,
            "main_selectors_used": list(self.main_selectors_used),
            "boilerplate_rules_used": list(self.boilerplate_rules_used),
            "selection_notes": list(self.selection_notes),
            "validation": self.validation.to_dict(),
            "sample_provenance": [p.to_dict() for p in self.sample_provenance],
            "block_map": self.block_map.to_dict(),
            **extra,
        }

    def to_json(self) -> str:
        return _dumps(self.to_dict())


@dataclass(frozen=True, slots=True, kw_only=True)
class MarkdownResult:
    """One page converted: the Markdown with everything needed to trust, cite or compare
    it. The same input and policy give an equal result (and the same JSON) in any process."""

    markdown: str
    title: str | None
    metadata: PageMetadata
    structure: Structure
    validation: ValidationReport
    evidence: EvidencePacket
    embedded_state: dict[str, Any]
    policy_version: str
    headings: tuple[str, ...]        # "level text" for every heading, in order
    # each text block's text (heading or paragraph), whitespace-collapsed, in order: what
    # ``block_hashes`` hashes
    block_texts: tuple[str, ...] = field(repr=False)
    # ``charset-*``: what decoding body bytes noted; ``parse-limit:*``: the caps the page was cut to
    warnings: tuple[str, ...] = ()

    @property
    def block_hashes(self) -> tuple[str, ...]:
        """``block_hash`` of each text block, in order.

        WHY computed when asked: a SHA-256 of every block was some 4 % of a page's
        conversion, and most callers (``pressmark md`` writing Markdown, a crawl that
        passes no hints) never read them; the texts are held, so the hashes are the same
        whenever they are taken.
        """
        return tuple(map(collapsed_hash, self.block_texts))

    def to_dict(self) -> dict[str, Any]:
        extra: dict[str, Any] = {"warnings": list(self.warnings)} if self.warnings else {}
        return {
            "policy_version": self.policy_version,
            "title": self.title,
            "markdown": self.markdown,
            "metadata": self.metadata.to_dict(),
            "structure": self.structure.to_dict(),
            "validation": self.validation.to_dict(),
            "evidence": self.evidence.to_dict(),
            "embedded_state": self.embedded_state,
            "headings": list(self.headings),
            "block_hashes": list(self.block_hashes),
            **extra,
        }

    def to_json(self) -> str:
        return _dumps(self.to_dict())
