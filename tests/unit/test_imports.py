"""`import pressmark` stays light: no parser, client or browser driver."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path


def test_import_pressmark_is_light() -> None:
    code = (
        "import sys, pressmark, pressmark.render;"
        "heavy = {'playwright', 'selectolax', 'httpcore', 'warcio', 'ray', 'starlette'};"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_mcp_help_and_package_do_not_import_the_sdk() -> None:
    """``pressmark mcp --help`` and ``import pressmark.mcp`` stay fast: the SDK loads on serve."""
    code = (
        "import sys, pressmark.mcp;"
        "from click.testing import CliRunner; from pressmark.cli import main;"
        "result = CliRunner().invoke(main, ['mcp', '--help']); assert result.exit_code == 0;"
        "heavy = {'mcp', 'mcp_types', 'pydantic', 'uvicorn', 'httpcore', 'selectolax'};"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _md_batch_modules(tmp_path: Path, html: str) -> set[str]:
    """The modules a ``pressmark md --batch`` process (console script) holds after ``html``."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.html").write_text(html, encoding="utf-8")
    argv = ["pressmark", "md", "--batch", str(src), str(tmp_path / "out"), "--jobs", "1"]
    code = (
        f"import sys; sys.argv = {argv!r}; from pressmark.cli import run\n"
        "try: run()\n"
        "except SystemExit as exc: assert exc.code == 0, exc.code\n"
        "print('\\n'.join(sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert (tmp_path / "out" / "a.md").read_text(encoding="utf-8").startswith("# Heading")
    return set(out.stdout.split())


def test_md_batch_start_up_leaves_out_what_plain_pages_never_need(tmp_path: Path) -> None:
    """``pressmark md --batch`` over ordinary pages loads no click, pathlib, urllib.parse,
    ipaddress or idna: click is a fifth of its start-up, the others together about a
    tenth (module docs of ``pressmark.cli._md`` and ``pressmark.egress._url``)."""
    modules = _md_batch_modules(tmp_path, (
        "<title>T</title><main><h1>Heading</h1><p>Some text with "
        "<a href='https://Example.com/x'>a link</a> and <a href='/y'>another</a>.</p>"
        "<a href='http://192.0.2.1/z'>an address</a></main>"))
    assert not {"click", "pathlib", "urllib.parse", "ipaddress", "idna"} & modules
    assert not {m for m in modules if m.startswith("pressmark.cite")}  # only with --chunks
    # the instruction scan runs when the evidence is read (``--json``): its entity table
    # (``html``) loads then, as the embedded-state reader does when a page needs it
    assert not {"html", "html.entities", "pressmark.markdown._state"} & modules
    # the converter's modules import ``typing`` for mypy only (``if TYPE_CHECKING``)
    assert "typing" not in modules


def test_md_batch_loads_the_url_parser_only_for_a_link_that_needs_it(tmp_path: Path) -> None:
    """Links already in the parser's canonical shape (most links) need no parse: the
    parser loads with the first page that has another (module doc of
    ``pressmark.egress._url_shape``)."""
    modules = _md_batch_modules(tmp_path, (
        "<title>T</title><main><h1>Heading</h1><p>Some text with "
        "<a href='https://example.com/x?q=1#f'>a link</a> and <a href='/y'>another</a>.</p>"
        "</main>"))
    assert "pressmark.egress._url_shape" in modules
    assert "pressmark.egress._url" not in modules


def test_console_script_imports_the_command_line_itself() -> None:
    """``pressmark`` is ``pressmark.cli:run``, which imports click with the collector off
    (``pressmark.cli`` docstring): the package must leave click and ``typing`` to it."""
    code = (
        "import sys, pressmark.cli;"
        "print(sorted({'click', 'typing'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    (script,) = entry_points(group="console_scripts", name="pressmark")
    assert script.value == "pressmark.cli:run"


def test_md_batch_on_utf8_pages_needs_no_label_table_nor_snapshot_errors(
    tmp_path: Path,
) -> None:
    """A UTF-8 page, declared or not, is read without ``webencodings`` (module doc of
    ``pressmark.snapshot._labels``); the snapshot layer's errors load when raised."""
    modules = _md_batch_modules(tmp_path, (
        "<meta charset='UTF-8'><title>T</title><main><h1>Heading</h1><p>Text.</p></main>"))
    assert not {"webencodings", "pressmark.snapshot._errors"} & modules
    assert "pressmark.snapshot._charset" in modules


def test_integrations_load_their_framework_only_when_imported() -> None:
    """``import pressmark.integrations`` (and the LangChain loader) load no LlamaIndex, and
    the reverse: an extra is needed only by the module that uses it."""
    code = (
        "import sys, pressmark.integrations;"
        "top = lambda: {m.split('.')[0] for m in sys.modules};"
        "first = sorted({'langchain_core', 'llama_index'} & top());"
        "import pressmark.integrations.langchain;"
        "print(first, 'llama_index' in top())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] False"
