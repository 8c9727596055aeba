"""The workbench's tooltips are the user guide's words (docs/workbench.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pressmark.web._glossary import TERMS, term

GUIDE = (Path(__file__).resolve().parents[3] / "docs" / "workbench.md").read_text(
    encoding="utf-8")


@pytest.mark.parametrize("name", sorted(TERMS))
def test_every_tooltip_is_a_sentence_of_the_guide(name: str) -> None:
    assert f"| {TERMS[name]} |" in GUIDE, name


def test_an_unknown_term_has_no_tooltip() -> None:
    assert term("Validation pass") == TERMS["validation pass"]
    assert term("nothing") == ""
