"""The intermediate block tree between the DOM and Markdown text.

Inline content is already rendered (escaped Markdown) when it lands here; the
block tree only fixes structure. ``plain`` keeps the block's text without
markup for hashing (stability, cross-page repetition) and ``source`` the
element it came from (provenance computes its CSS path on demand).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pressmark.markdown._tree import Node


@dataclass(slots=True)
class Heading:
    level: int
    text: str
    plain: str
    source: Node | None


@dataclass(slots=True)
class Para:
    text: str          # lines joined by hard breaks ("\\\n")
    plain: str
    source: Node | None


@dataclass(slots=True)
class Code:
    lang: str
    text: str
    source: Node | None


@dataclass(slots=True)
class Item:
    number: int | None
    blocks: list[Block] = field(default_factory=list)


@dataclass(slots=True)
class ListBlock:
    ordered: bool
    items: list[Item]
    source: Node | None


@dataclass(slots=True)
class Quote:
    blocks: list[Block]
    source: Node | None


@dataclass(slots=True)
class Table:
    rows: list[list[str]]  # rectangular; row 0 is the header row
    source: Node | None


@dataclass(slots=True)
class DefList:
    items: list[tuple[str, list[list[Block]]]]  # (term, definitions)
    source: Node | None


@dataclass(slots=True)
class Rule:
    source: Node | None


Block = Heading | Para | Code | ListBlock | Quote | Table | DefList | Rule
