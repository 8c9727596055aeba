"""The intermediate block tree between the DOM and Markdown text.

Inline content is already rendered (escaped Markdown) when it lands here; the
block tree only fixes structure. ``plain`` keeps the block's text without
markup for hashing (stability, cross-page repetition) and ``source`` the
element it came from (provenance computes its CSS path on demand).

Plain slotted classes, not dataclasses: these are internal records nobody compares
or prints, and each ``@dataclass`` costs about half a millisecond at import (it
compiles its generated methods), which every ``pressmark md`` start-up pays.
"""

from __future__ import annotations

from pressmark.markdown._tree import Node


class Heading:
    __slots__ = ("level", "plain", "source", "text")

    def __init__(self, level: int, text: str, plain: str, source: Node | None) -> None:
        self.level = level
        self.text = text
        self.plain = plain
        self.source = source


class Para:
    __slots__ = ("plain", "source", "text")

    def __init__(self, text: str, plain: str, source: Node | None) -> None:
        self.text = text      # lines joined by hard breaks ("\\\n")
        self.plain = plain
        self.source = source


class Code:
    __slots__ = ("lang", "source", "text")

    def __init__(self, lang: str, text: str, source: Node | None) -> None:
        self.lang = lang
        self.text = text
        self.source = source


class Item:
    __slots__ = ("blocks", "number")

    def __init__(self, number: int | None, blocks: list[Block] | None = None) -> None:
        self.number = number
        self.blocks: list[Block] = [] if blocks is None else blocks


class ListBlock:
    __slots__ = ("items", "ordered", "source")

    def __init__(self, ordered: bool, items: list[Item], source: Node | None) -> None:
        self.ordered = ordered
        self.items = items
        self.source = source


class Quote:
    __slots__ = ("blocks", "source")

    def __init__(self, blocks: list[Block], source: Node | None) -> None:
        self.blocks = blocks
        self.source = source


class Table:
    __slots__ = ("rows", "source")

    def __init__(self, rows: list[list[str]], source: Node | None) -> None:
        self.rows = rows      # rectangular; row 0 is the header row
        self.source = source


class DefList:
    __slots__ = ("items", "source")

    def __init__(self, items: list[tuple[str, list[list[Block]]]], source: Node | None,
                 ) -> None:
        self.items = items    # (term, definitions)
        self.source = source


class Rule:
    __slots__ = ("source",)

    def __init__(self, source: Node | None) -> None:
        self.source = source


Block = Heading | Para | Code | ListBlock | Quote | Table | DefList | Rule
