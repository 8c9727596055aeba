"""The public names of pressmark.demo do not drift, and importing it stays light."""

from __future__ import annotations

import subprocess
import sys

import pressmark.demo


def test_exported_names() -> None:
    assert set(pressmark.demo.__all__) == {
        "DemoServer", "DemoSite", "run_demo_server_in_thread"
    }
    for name in pressmark.demo.__all__:
        assert getattr(pressmark.demo, name) is not None


def test_import_is_light() -> None:
    code = ("import sys, pressmark.demo; print(sorted({m.split('.')[0] for m in sys.modules}"
            " & {'click', 'rich', 'httpcore', 'h11', 'selectolax', 'starlette', 'jinja2'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
