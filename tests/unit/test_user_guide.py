"""The user guide (``docs/``) names every code pressmark can put in front of a user.

What the code can emit is read from the code itself (exception classes and their codes,
the fetch and crawl error kinds, the warning codes of fetch and crawl, the CLI's own
codes, store and replay problems, MCP tool failures), so a new code cannot ship without
its line in the guide. Validation reasons and the Markdown layer's warnings are held to
``docs/outputs.md`` by the Markdown layer's own test; here only that the guide links it.
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import pressmark
from pressmark._errors import PressmarkError

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
SRC = REPO / "src" / "pressmark"
GUIDE_PAGES = ("index.md", "quickstart.md", "crawling.md", "output-files.md", "errors.md",
               "replay.md", "citations.md", "workbench.md", "mcp.md", "python.md")


def _guide() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted(DOCS.glob("*.md")))


def _source(*parts: str) -> str:
    folder = SRC.joinpath(*parts)
    files = sorted(folder.rglob("*.py")) if folder.is_dir() else [folder.with_suffix(".py")]
    return "\n".join(path.read_text(encoding="utf-8") for path in files)


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def exception_codes() -> set[str]:
    """Every ``code`` an exception of pressmark's tree can carry."""
    for module in pkgutil.walk_packages(pressmark.__path__, "pressmark."):
        if not module.name.endswith("__main__"):
            # an extra that is not installed: its codes are read from the source below
            with contextlib.suppress(ImportError):
                importlib.import_module(module.name)
    codes = {str(cls.__dict__["code"]) for cls in _subclasses(PressmarkError)
             if isinstance(cls.__dict__.get("code"), str)}
    text = _source(".")
    codes |= set(re.findall(r'code="([a-z][a-z0-9]*(?:-[a-z0-9]+)+)"', text))
    codes |= set(re.findall(r'^[A-Z_]+(?:: Final)? = "([a-z]+(?:-[a-z]+)+)"$',
                            _source("render", "_errors"), re.M))
    from pressmark.egress import DENIAL_CODES

    return codes | set(DENIAL_CODES)


def page_error_kinds() -> set[str]:
    from pressmark.fetch._config import FETCH_ERROR_KINDS

    crawl = _source("crawl")
    kinds = set(re.findall(r'PageFailure\(kind="([a-z-]+)"', crawl))
    kinds |= set(re.findall(r'^\s+kind = "([a-z-]+)"$', _source("crawl", "_workers"), re.M))
    return (set(FETCH_ERROR_KINDS) | kinds) - {"error"}


def warning_codes() -> set[str]:
    fetch, crawl = _source("fetch"), _source("crawl")
    codes = set(re.findall(r'^(?:WARN_[A-Z_]+|[A-Z_]+_PREFIX) = \(?"([a-z-]+(?::[a-z-]+)?)',
                           fetch, re.M))
    codes |= set(re.findall(r'warnings\.append\(f?"([a-z]+(?:-[a-z]+)+|retry)[:"{ ]',
                            fetch + crawl))
    codes |= set(re.findall(r'warnings=\(f"([a-z]+(?:-[a-z]+)+):', crawl))
    return codes


def cli_codes() -> set[str]:
    cli = _source("cli")
    codes = set(re.findall(r'_fail\("([a-z-]+)"', cli))
    codes |= set(re.findall(r'"error: ([a-z]+(?:-[a-z]+)+):', cli))
    codes |= set(re.findall(r'^[A-Z_]+ = "([a-z]+-input)"$', cli, re.M))
    return codes


def store_codes() -> set[str]:
    from pressmark.store._protocol import DEBRIS_CODES

    store = _source("store")
    return set(re.findall(r'VerifyProblem\(\s*code="([a-z-]+)"', store)) | set(DEBRIS_CODES)


def mcp_codes() -> set[str]:
    return set(re.findall(r'ToolFailure\(\s*"([a-z-]+)"', _source("mcp")))


def replay_codes() -> set[str]:
    from typing import get_args

    from pressmark.snapshot._replay import ReplayErrorCode

    return set(get_args(ReplayErrorCode))


def crawl_words() -> set[str]:
    crawl = _source("crawl")
    reasons = set(re.findall(r'stop_reason\s*=\s*"([a-z-]+)"', crawl))
    from typing import get_args

    from pressmark.crawl._manifest import Outcome

    return reasons | set(get_args(Outcome))


SETS = {
    "exception codes": exception_codes,
    "page error kinds": page_error_kinds,
    "warning codes": warning_codes,
    "CLI codes": cli_codes,
    "store problems": store_codes,
    "MCP tool failures": mcp_codes,
    "replay codes": replay_codes,
    "outcomes and stop reasons": crawl_words,
}


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_code_is_in_the_guide(name: str) -> None:
    codes = SETS[name]()
    assert codes, f"no {name} found: the extraction is broken"
    guide = _guide()
    missing = sorted(code for code in codes if f"`{code}`" not in guide)
    assert missing == [], f"{name} not in docs/: {missing}"


def test_the_guide_has_its_pages_and_the_readme_links_it() -> None:
    for page in GUIDE_PAGES:
        assert (DOCS / page).is_file(), page
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    for page in (*GUIDE_PAGES[1:], "outputs.md", "performance.md"):
        assert f"({page})" in index, f"docs/index.md does not link {page}"
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "docs/index.md" in readme and "docs/performance.md" in readme


def test_relative_links_in_the_guide_resolve() -> None:
    for path in DOCS.glob("*.md"):
        text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
        text = re.sub(r"`[^`\n]*`", "", text)  # code, not links
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            assert (path.parent / target).exists(), f"{path.name} links {target}"


def test_the_exit_code_table_is_the_codes() -> None:
    from pressmark.cli._hints import EXIT_BY_KIND

    errors = (DOCS / "errors.md").read_text(encoding="utf-8")
    for kind, code in EXIT_BY_KIND.items():
        assert re.search(rf"`{re.escape(kind)}`[^\n]*\| {code} \|", errors), kind
