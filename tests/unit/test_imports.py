"""`import pressmark` stays light: no parser, client or browser driver."""

from __future__ import annotations

import subprocess
import sys


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
