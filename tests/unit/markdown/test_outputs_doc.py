"""docs/outputs.md documents every code and field a Markdown result can carry.

Three sets are held to each other: what the code can emit (read from the modules that emit
it, so a new reason cannot slip in undocumented), the one-line table the workbench shows
(``pressmark.markdown._codes``), and the user's reference (``docs/outputs.md``).
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType

import pytest

from pressmark.markdown import (
    ConversionPolicy,
    _api,
    _bounded,
    _tables,
    _validate,
    describe_output,
    to_markdown,
)
from pressmark.markdown._codes import ANOMALIES, FIELDS, REASONS, SCORES, WARNINGS
from pressmark.snapshot import _charset

REPO = Path(__file__).resolve().parents[3]
DOC = (REPO / "docs" / "outputs.md").read_text(encoding="utf-8")


def _source(module: ModuleType) -> str:
    """A module's Python source, found beside its package's ``__init__`` (a compiled
    module's own ``__file__`` may name where the build put it)."""
    package, name = module.__name__.rsplit(".", 1)
    folder = Path(str(importlib.import_module(package).__file__)).parent
    return (folder / f"{name}.py").read_text(encoding="utf-8")


def emitted_reasons() -> set[str]:
    validate = _source(_validate)
    found = set(re.findall(r'fail\(\s*"([a-z0-9-]+)"', validate))
    found |= set(re.findall(r'reasons\.append\("([a-z0-9-]+)"\)', validate))
    whys = re.findall(r'why = "([a-z-]+)"', _source(_api))
    assert "empty-output:{why}" in _source(_api) and whys
    return found | {f"empty-output:{why}" for why in whys}


def emitted_warnings() -> set[str]:
    bounded = _source(_bounded)
    limits = set(re.findall(r'hit\.add\("([a-z]+)"', bounded))
    limits |= set(re.findall(r'hit\.add\("([a-z]+)" if', bounded))
    limits |= set(re.findall(r'else "([a-z]+)"\)', bounded))
    limits |= set(re.findall(r'\{PARSE_LIMIT\}:([a-z]+)', bounded))
    tables = set(re.findall(r'limits\.add\("([a-z]+)"\)', _source(_tables)))
    charset = set(re.findall(r'"(charset-[a-z-]+):', _source(_charset)))
    shown = set(re.findall(r'HIDDEN_SHOWN = \("([a-z-]+):', _source(_api)))
    assert limits and tables and charset and shown
    return {f"parse-limit:{x}" for x in limits} | {f"table-limit:{x}" for x in tables} \
        | charset | shown


def emitted_anomalies() -> set[str]:
    validate = _source(_validate)
    found = set(re.findall(r'\["([a-z-]+)"\] \*', validate))
    found |= set(re.findall(r'f"([a-z-]+):h\{', validate))
    return found


def test_every_reason_the_layer_emits_has_its_line() -> None:
    assert emitted_reasons() == set(REASONS)


def test_every_warning_the_layer_emits_has_its_line() -> None:
    assert emitted_warnings() == set(WARNINGS)


def test_every_anomaly_has_its_line() -> None:
    assert emitted_anomalies() == set(ANOMALIES)


def _keys(value: object, out: set[str]) -> set[str]:
    if isinstance(value, dict):
        for key, inner in value.items():
            out.add(key)
            if key not in ("metadata", "structure", "embedded_state", "kind_signals",
                           "details", "readiness", "block_map"):
                _keys(inner, out)
    elif isinstance(value, list):
        for inner in value:
            _keys(inner, out)
    return out


def test_every_field_and_score_of_a_result_has_its_line() -> None:
    html = ("<html lang=en><head><title>T</title></head><body><main><h1>T</h1><p>"
            + "Words of a paragraph long enough to be prose for the measures here. " * 5
            + "</p></main><footer>© 2024 Example</footer></body></html>")
    data = to_markdown(html, url="https://a.test/x").to_dict()
    scores = set(data["validation"]["scores"])
    keys = _keys(data, set()) - scores - {"passed", "reasons", "anomalies", "scores"} \
        - {"kind", "markdown_span", "dom_selector", "text_preview"}
    assert scores == set(SCORES)
    assert keys <= set(FIELDS), keys - set(FIELDS)
    plain = to_markdown(html, policy=ConversionPolicy(select_main=False)).to_dict()
    assert set(plain["validation"]["scores"]) <= set(SCORES)


@pytest.mark.parametrize("code", sorted({*REASONS, *WARNINGS, *ANOMALIES, *SCORES, *FIELDS}))
def test_every_line_has_its_entry_in_the_reference(code: str) -> None:
    assert f"`{code}`" in DOC, f"docs/outputs.md does not document `{code}`"


def test_the_readme_links_the_reference() -> None:
    assert "docs/outputs.md" in (REPO / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(("code", "fragment"), [
    ("chrome-only", "frame"),
    ("skipped-heading-level:h2->h4", "skips"),
    ("charset-unknown: label 'x' is not a known encoding; decoded as UTF-8", "UTF-8"),
    ("parse-limit:text", "2,000,000"),
    ("boilerplate_ratio", "link-dense"),
])
def test_describe_output_reads_codes_with_their_arguments(code: str, fragment: str) -> None:
    line = describe_output(code)
    assert line is not None and fragment in line
    assert describe_output("no-such-code") is None
