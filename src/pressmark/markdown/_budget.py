"""The conversion budget: how many characters one page's conversion may write.

WHY: the parse caps (``_bounded``) bound what Lexbor builds, not what conversion makes
of it, and three shapes multiply a page within every cap:

- a link or image repeats its resolved URL: one 500 KB ``<base href>`` under 80,000
  ``<a href=x>`` made 40 GB of Markdown (a MemoryError at 3.8 GB);
- nesting writes a prefix on every line at every level, and each level copies what it
  holds: 150 nested quotes over 55,000 paragraphs wrote 34 MB of Markdown in 24 s;
- a spanned table cell is repeated in every cell it covers.

So the converter counts what it writes, and stops past :data:`MAX_MARKDOWN_CHARS`
with :class:`ConversionLimit` (a :class:`MarkdownError`, code
``conversion-limit:<what>``): ``links`` for URLs written into links and images while
converting, ``markdown`` for what rendering the blocks would write, counted before a
character of it is written (:func:`check_render`: an upper bound per block, every
nesting level counted).

**Partial output**: a page past its budget has no Markdown; it fails closed, as a page
that fails validation does. The error's ``partial`` holds the Markdown of the leading
top-level blocks completed before the limit, as far as they fit in the budget (whole
blocks only, never one cut short; not tidied, not validated), for a caller that wants
to look; pressmark itself never writes it as the page's Markdown.
"""

from __future__ import annotations

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
from pressmark.markdown._policy import MarkdownError

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

MAX_MARKDOWN_CHARS: Final = 32_000_000
"""Characters one conversion may write, every nesting level counted: 16 times the
largest page the parse caps let through (a real page writes about its own size)."""
MAX_URL_CHARS: Final = 8192
"""A link or image target longer than this is no link (its text stays): RFC 9110 asks
clients to support 8,000 octets; longer ones are a repeated ``<base>`` or a data blob."""
CONVERSION_LIMIT: Final = "conversion-limit"
_MARKER_WIDTH: Final = 12  # "999999999. ": the widest list marker render writes, and a space
_JOIN: Final = 12  # what render writes between two blocks at most ("\n\n<!-- -->\n\n")


class ConversionLimit(MarkdownError):
    """The conversion passed its budget (module doc); ``partial`` is the documented prefix."""

    def __init__(self, what: str, written: int, *, partial: str = "") -> None:
        super().__init__(
            f"converting this page would write more than {MAX_MARKDOWN_CHARS:,} characters "
            f"of Markdown ({what}: {written:,} counted); the page has no Markdown (its "
            f"partial output, {len(partial):,} characters of whole top-level blocks completed "
            "before the limit, unvalidated, is on the error)",
            code=f"{CONVERSION_LIMIT}:{what}")
        self.what = what
        self.written = written
        self.partial = partial


class Budget:
    """What is left of one conversion's :data:`MAX_MARKDOWN_CHARS` (plain slots: the
    converter calls :meth:`spend` once per link or image)."""

    __slots__ = ("left",)

    def __init__(self, chars: int = MAX_MARKDOWN_CHARS) -> None:
        self.left = chars

    def spend(self, chars: int, what: str) -> None:
        self.left -= chars
        if self.left < 0:
            raise ConversionLimit(what, MAX_MARKDOWN_CHARS - self.left)


def check_render(blocks: list[Block], budget: Budget) -> None:
    """Spend what rendering ``blocks`` would write, before it is written."""
    budget.spend(sum(written(block)[0] for block in blocks) + _JOIN * len(blocks), "markdown")


def fitting(blocks: list[Block], chars: int) -> list[Block]:
    """The leading blocks whose rendering writes at most ``chars`` characters."""
    kept: list[Block] = []
    for block in blocks:
        chars -= written(block)[0] + _JOIN
        if chars < 0:
            break
        kept.append(block)
    return kept


def written(block: Block) -> tuple[int, int, int]:
    """Upper bounds of what rendering ``block`` writes (every nesting level counted, as each
    level copies what it holds), of its rendered length, and of its lines.

    The contract with ``_render``: the second is never below ``len(render_block(block))``
    (a property test holds the two to it).
    """
    if isinstance(block, Para):
        size, lines = len(block.text), block.text.count("\n") + 1
        return size, size, lines
    if isinstance(block, Heading):
        size = len(block.text) + block.level + 1
        return size, size, 1
    if isinstance(block, Code):
        size = 3 * len(block.text) + len(block.lang) + 10  # the fence outgrows no run in it
        return size, size, block.text.count("\n") + 3
    if isinstance(block, Rule):
        return 3, 3, 1
    if isinstance(block, Quote):
        return _nested(block.blocks, 2)
    if isinstance(block, ListBlock):
        work = size = lines = 0
        for item in block.items:
            w, s, n = _nested(item.blocks, _MARKER_WIDTH)
            work, size, lines = work + w + 1, size + s + 2, lines + n + 1
        return work, size, lines
    if isinstance(block, DefList):
        work = size = lines = 0
        for term, definitions in block.items:
            size, lines = size + len(term) + 2, lines + 2
            for definition in definitions:
                w, s, n = _nested(definition, 2)
                work, size, lines = work + w, size + s + 1, lines + n
        return work + size, size, lines
    if isinstance(block, Table):
        width = len(block.rows[0]) if block.rows else 0
        size = sum(sum(len(cell) + 3 for cell in row) + 2 for row in block.rows) + 5 * width + 2
        return size, size, len(block.rows) + 1
    raise TypeError(f"not a block: {block!r}")  # a new block kind needs its bound here


def _nested(blocks: list[Block], prefix: int) -> tuple[int, int, int]:
    """Blocks rendered inside a container that writes ``prefix`` more on each line."""
    work = size = lines = 0
    for block in blocks:
        w, s, n = written(block)
        work, size, lines = work + w, size + s + _JOIN, lines + n + 4
    size += prefix * lines
    return work + size, size, lines
