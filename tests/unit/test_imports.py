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
