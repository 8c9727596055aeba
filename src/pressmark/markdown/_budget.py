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

from pressmark.markdown._policy import MarkdownError
from pressmark.markdown._render import JOIN_MAX, written

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

    from pressmark.markdown._blocks import Block

MAX_MARKDOWN_CHARS: Final = 32_000_000
"""Characters one conversion may write, every nesting level counted: 16 times the
largest page the parse caps let through (a real page writes about its own size)."""
MAX_URL_CHARS: Final = 8192
"""A link or image target longer than this is no link (its text stays): RFC 9110 asks
clients to support 8,000 octets; longer ones are a repeated ``<base>`` or a data blob."""
CONVERSION_LIMIT: Final = "conversion-limit"


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
    budget.spend(sum(written(block)[0] for block in blocks) + JOIN_MAX * len(blocks), "markdown")


def fitting(blocks: list[Block], chars: int) -> list[Block]:
    """The leading blocks whose rendering writes at most ``chars`` characters."""
    kept: list[Block] = []
    for block in blocks:
        chars -= written(block)[0] + JOIN_MAX
        if chars < 0:
            break
        kept.append(block)
    return kept
