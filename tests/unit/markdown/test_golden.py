"""Golden files: every conversion rule pinned byte for byte.

``golden/conv_*.html`` exercise the converter alone (no main-content selection,
headline kept); ``golden/page_*.html`` run the default policy (selection and
boilerplate removal). Each has a ``.md`` beside it. To re-generate after an
intended change (and bump ``POLICY_VERSION``), run with
``PRESSMARK_UPDATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from pressmark.markdown import ConversionPolicy, to_markdown

GOLDEN = Path(__file__).parent / "golden"
URL = "https://example.test/dir/page.html"
CONVERT_ONLY = ConversionPolicy(select_main=False, keep_title=True)
CASES = sorted(p.stem for p in GOLDEN.glob("*.html"))


def convert(name: str) -> str:
    html = (GOLDEN / f"{name}.html").read_text(encoding="utf-8")
    policy = CONVERT_ONLY if name.startswith("conv_") else ConversionPolicy()
    return to_markdown(html, url=URL, policy=policy).markdown


@pytest.mark.parametrize("name", CASES)
def test_golden(name: str) -> None:
    got = convert(name)
    expected_path = GOLDEN / f"{name}.md"
    if os.environ.get("PRESSMARK_UPDATE_GOLDEN") == "1":
        expected_path.write_text(got, encoding="utf-8", newline="\n")
    assert got == expected_path.read_text(encoding="utf-8")


def test_every_fixture_has_its_expectation() -> None:
    assert CASES
    for name in CASES:
        assert (GOLDEN / f"{name}.md").is_file(), name


@pytest.mark.parametrize("name", CASES)
def test_layout_invariants(name: str) -> None:
    md = re.sub(r"(?ms)^(`{3,})[^\n]*\n.*?^\1$", "```", convert(name))  # fences are verbatim
    assert md.endswith("\n") and not md.endswith("\n\n")
    assert "\n\n\n" not in md
    assert all(line == line.rstrip() for line in md.split("\n"))
