"""The conversion policy: every threshold that changes output lives here.

``POLICY_VERSION`` names the selection, boilerplate and formatting rules as a
whole. Any change that can alter the Markdown produced for some input bumps it,
so two results with the same version and the same input are byte-identical and
results from different versions are known to be comparable only loosely.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pressmark._errors import PressmarkError

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Literal

    ImageMode = Literal["markdown", "alt", "drop"]


POLICY_VERSION = "pressmark-md/3.2"


class MarkdownError(PressmarkError):
    """Invalid conversion policy (``code`` ``invalid-policy``)."""

    code = "invalid-policy"


@dataclass(frozen=True, slots=True, kw_only=True)
class ConversionPolicy:
    """Selection, conversion and validation settings.

    Validation thresholds are deliberately modest by default: they flag shells,
    error pages and chrome-only extractions, not short articles. Callers that
    know their sources tighten them (``min_markdown_chars=3000`` for docs).
    """

    # selection
    select_main: bool = True
    images: ImageMode = "markdown"
    links: bool = True
    keep_title: bool = True        # the page's h1 stays in the body (also ``MarkdownResult.title``)
    # text a reader would not see (``_hidden``) stays in the Markdown, still listed in the
    # evidence's hidden_text (each passage ``kept``); off: it is left out
    keep_hidden_text: bool = False
    # validation
    min_markdown_chars: int = 200
    min_paragraphs: int = 1
    boilerplate_ratio_max: float = 0.25
    check_canonical: bool = True
    check_soft_404: bool = True
    check_route: bool = True       # wrong-route checks: redirected home/login/off-host, 404 markers
    required_heading: str | None = None
    expected_language: str | None = None
    check_structure: bool = True
    max_structure_anomalies: int = 2
    # ... or this share of the headings and paragraphs, if more: a reference page of 600
    # headings skips a level here and there in its own markup, not in the conversion
    structure_anomaly_share: float = 0.05
    # the kept text is only the site's frame (footer, copyright, navigation, pager)
    check_chrome: bool = True
    # the kept region holds less than this share of the prose of the page's main landmark
    # or of its longest run of prose (0 turns the check off)
    partial_content_share: float = 0.5
    # evidence
    provenance_paragraphs: int = 5
    preview_chars: int = 80
    # presence signal: selected text chars that count as "content is present"
    presence_chars: int = 500

    def __post_init__(self) -> None:
        if self.images not in ("markdown", "alt", "drop"):
            raise MarkdownError(f"images must be 'markdown', 'alt' or 'drop', not {self.images!r}")
        for share in ("boilerplate_ratio_max", "structure_anomaly_share",
                      "partial_content_share"):
            if not 0.0 <= getattr(self, share) <= 1.0:
                raise MarkdownError(f"{share} must be within [0, 1]")
        for name in ("min_markdown_chars", "min_paragraphs", "max_structure_anomalies",
                     "provenance_paragraphs", "preview_chars", "presence_chars"):
            if getattr(self, name) < 0:
                raise MarkdownError(f"{name} must not be negative")
        if self.required_heading is not None:
            try:
                re.compile(self.required_heading)
            except re.error as exc:
                raise MarkdownError(f"required_heading is not a valid regex: {exc}") from exc

    @property
    def version(self) -> str:
        return POLICY_VERSION
