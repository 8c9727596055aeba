"""``pressmark demo`` ends with commands to run next; each works when pasted into a shell.

Run as ``python -m pressmark demo`` in a directory of its own, the way a newcomer would run
``.venv/bin/pressmark demo``: the commands are spelled as that run was (the interpreter and
``-m pressmark`` here), and every one but the long-running ``serve`` is run as printed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_every_printed_command_works_when_pasted(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pressmark", "demo", "--pages", "12", "--render", "never", "-q"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "pressmark-demo"
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Next ("))
    commands = [line.strip() for line in lines[start + 1:]
                if line.startswith("  ") and not line.startswith("      ")]
    assert len(commands) >= 4, done.stdout
    # "Where to look" counts what the crawl wrote (Markdown in sharded directories too)
    rows = [json.loads(row) for row in
            (out / "pages.jsonl").read_text(encoding="utf-8").splitlines()]
    written = len({row["markdown_path"] for row in rows if row.get("markdown_path")})
    assert written and f"/   {written} Markdown files" in done.stdout, done.stdout
    assert any("replay" in c for c in commands) and any(" md " in c for c in commands)
    assert "source " in done.stdout  # how to type plain `pressmark` instead
    for command in commands:
        if " serve " in command or "--serve-only" in command:
            continue  # servers; the workbench and the demo site have their own tests
        ran = subprocess.run(command, shell=True, cwd=tmp_path, capture_output=True, text=True,
                             timeout=300, check=False)
        assert ran.returncode == 0, f"{command}\n{ran.stderr}"
        if " md " in command:  # "byte for byte what the crawl wrote"
            rows = (out / "pages.jsonl").read_text(encoding="utf-8").splitlines()
            first = next(row for row in map(json.loads, rows)
                         if row["outcome"] == "ok")
            assert ran.stdout == (out / first["markdown_path"]).read_text(encoding="utf-8")
    assert (out / "first-page.html").stat().st_size > 0
