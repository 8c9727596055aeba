"""Structure drift between two conversions of the same page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pressmark.markdown._result import MarkdownResult


@dataclass(frozen=True, slots=True, kw_only=True)
class StabilityReport:
    heading_jaccard: float     # Jaccard similarity of the heading sets
    block_jaccard: float       # Jaccard similarity of the text-block hash sets
    identical: bool            # byte-identical Markdown
    same_policy: bool          # both produced by the same policy version

    @property
    def score(self) -> float:
        """One number for dashboards: the mean of the two similarities."""
        return round((self.heading_jaccard + self.block_jaccard) / 2, 4)

    def to_dict(self) -> dict[str, Any]:
        return {"heading_jaccard": self.heading_jaccard, "block_jaccard": self.block_jaccard,
                "identical": self.identical, "same_policy": self.same_policy,
                "score": self.score}


def _jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    return round(len(a & b) / len(a | b), 4)


def stability(a: MarkdownResult, b: MarkdownResult) -> StabilityReport:
    return StabilityReport(
        heading_jaccard=_jaccard(set(a.headings), set(b.headings)),
        block_jaccard=_jaccard(set(a.block_hashes), set(b.block_hashes)),
        identical=a.markdown == b.markdown,
        same_policy=a.policy_version == b.policy_version,
    )
