"""The README's examples are real programs: run each one as a user would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run(name: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True,
                          text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_check_urls_denies_the_hostile_ones() -> None:
    lines = run("check_urls.py").splitlines()
    verdicts = [line.split()[0] for line in lines]
    assert verdicts == ["allowed", "denied", "denied", "denied", "denied"]
    assert "DENIED_HOST" in lines[3]


def test_convert_html_keeps_content_and_drops_chrome() -> None:
    out = run("convert_html.py")
    assert out.startswith("# Reading a tide table\n")
    assert "[port](https://tides.example/ports/brest)" in out
    assert "```python" in out and "cookies" not in out and "Privacy" not in out
    assert "validation passed: True" in out


@pytest.mark.slow
def test_crawl_demo_site_cites_and_resolves(tmp_path: Path) -> None:
    out = run("crawl_demo_site.py", str(tmp_path / "crawl"))
    assert "resolves offline to" in out
    assert (tmp_path / "crawl" / "manifest.json").exists()


def test_mcp_agent_session_fetches_refuses_and_cites() -> None:
    pytest.importorskip("mcp")
    lines = run("mcp_agent_session.py").splitlines()
    assert lines[0].startswith("fetch_page -> 200 ") and lines[0].endswith("valid: True")
    assert lines[1] == "fetch_page(metadata) -> isError=True: DENIED_ADDRESS"
    assert lines[2].startswith("resolve_citation -> ok=True (snapshot-envelope)")
