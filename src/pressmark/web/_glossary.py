"""The workbench's own terms, one sentence each: the tooltips of the overview.

They are the user guide's words (``docs/workbench.md``, "What the overview shows");
``tests/unit/web/test_glossary.py`` holds every sentence here to its entry there.
Validation reasons and warnings have their lines from ``docs/outputs.md`` (the
Markdown layer's ``describe_output``).
"""

from __future__ import annotations

from typing import Final

TERMS: Final[dict[str, str]] = {
    "pages": "Every URL the crawl recorded: fetched, denied by robots.txt or the egress "
             "policy, or failed.",
    "render rate": "The share of requested pages that Chromium rendered because they were "
                   "JavaScript shells; denied URLs are not counted.",
    "validation pass": "The share of converted pages whose Markdown passed validation (no "
                       "check objected); a failed page's Markdown is written and flagged.",
    "duration": "Wall-clock time of the crawl, resumed runs added up.",
    "pages/s": "Pages requested per second of the crawl's duration.",
    "robots denied": "URLs the site's robots.txt disallows for this crawler: recorded, "
                     "never requested.",
    "egress denied": "URLs the egress policy refused (internal addresses, reserved names, "
                     "other ports): never connected to.",
    "mean readiness": "Mean time from navigation until a rendered page was judged ready "
                      "(its content present and stable); only rendered pages count.",
    "markdown": "Size of the page's Markdown in bytes: a tiny one is usually an empty page "
                "or only its frame (menus, footer).",
    "reason": "Why the page failed validation; hover a reason for what it means.",
    "search": "Finds pages whose URL, title or Markdown holds every word typed, in any "
              "order, case and accents ignored.",
}


def term(name: str) -> str:
    """The sentence for ``name`` (empty when there is none: no tooltip)."""
    return TERMS.get(name.lower(), "")
