"""Deterministic Markdown from HTML: main-content selection, boilerplate removal,
stable conversion, fail-closed validation and evidence packets.

    >>> from pressmark.markdown import to_markdown
    >>> result = to_markdown(html, url="https://example.com/a")
    >>> result.markdown, result.validation.passed, result.validation.reasons
    >>> result.evidence.to_json()          # selectors, rules fired, spans -> DOM paths

The pipeline is pure (no I/O, no global state) and versioned by ``POLICY_VERSION``:
``_tree`` copies Lexbor's HTML5 tree (hidden and obvious chrome left out),
``_select`` picks and prunes the main region (rules from ``_boilerplate`` and
``_text_rules``), ``_convert`` builds a block tree that ``_render`` writes as Markdown (escaping in
``_escape``), ``_validate`` checks the result and ``_api`` assembles the evidence.
Same input and policy give byte-identical output in any process.

Usable on its own: it imports nothing from pressmark but ``pressmark._errors``.
"""

from __future__ import annotations

from pressmark.markdown._api import to_markdown
from pressmark.markdown._bounded import parse_html
from pressmark.markdown._policy import POLICY_VERSION, ConversionPolicy, MarkdownError
from pressmark.markdown._result import MarkdownResult
from pressmark.markdown._screen import screen

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

    from pressmark.markdown._codes import describe as describe_output
    from pressmark.markdown._stability import stability

__all__ = [
    "POLICY_VERSION",
    "ConversionPolicy",
    "MarkdownError",
    "MarkdownResult",
    "describe_output",
    "parse_html",
    "screen",
    "stability",
    "to_markdown",
]


def __getattr__(name: str) -> Any:
    """``stability`` and its report load on first use: ``pressmark md`` never compares;
    ``describe_output`` (the line on a reason, warning or field, docs/outputs.md) too:
    only the workbench asks."""
    if name == "describe_output":
        from pressmark.markdown._codes import describe  # noqa: PLC0415 - the lazy part

        globals()[name] = describe
        return describe
    if name != "stability":
        raise AttributeError(f"module 'pressmark.markdown' has no attribute {name!r}")
    from pressmark.markdown import _stability  # noqa: PLC0415 - the lazy part

    value = getattr(_stability, name)
    globals()[name] = value
    return value
