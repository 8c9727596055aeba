"""The README's Python snippet, pasted into a script without a main guard, crawls once.

Parser processes used to be started with multiprocessing's spawn, which re-imports the
caller's ``__main__``: a script that crawls at top level crawled again in each of them,
its seed page was recorded ``parse-crashed`` and the script still exited 0.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readme_snippet() -> str:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    snippet = next((block for block in blocks if "crawl_sync(" in block), None)
    assert snippet is not None, "the README has no crawl_sync snippet any more"
    return snippet


def test_the_readme_snippet_runs_once_in_a_script_without_a_main_guard(
        demo_origin: str, tmp_path: Path) -> None:
    snippet = _readme_snippet()
    assert "__main__" not in snippet  # the point: pasted as is, no guard
    seed = re.search(r'crawl_sync\(\s*\[\s*"([^"]+)"', snippet)
    assert seed is not None and "CrawlPolicy(" in snippet, snippet
    # pointed at the demo site, which is loopback: allowed for it alone
    script = snippet.replace(seed.group(1), demo_origin + "/").replace(
        "CrawlPolicy(", "CrawlPolicy(egress=_DEMO, ", 1)
    marker = tmp_path / "runs.txt"
    (tmp_path / "snippet.py").write_text(
        "from pressmark.egress import EgressPolicy\n"
        f"_DEMO = EgressPolicy().allow_loopback({demo_origin!r})\n"
        f"with open({str(marker)!r}, 'a') as _runs:\n    _runs.write('ran\\n')\n"
        + script, encoding="utf-8")
    proc = subprocess.run([sys.executable, "snippet.py"], cwd=tmp_path, capture_output=True,
                          timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    assert marker.read_text() == "ran\n"  # the script's top level ran once, in the parent
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()[-3000:]
    rows = [json.loads(line) for line in
            (tmp_path / "out" / "pages.jsonl").read_text(encoding="utf-8").splitlines()]
    kinds = {(row.get("error") or {}).get("kind") for row in rows}
    assert not kinds & {"parse-crashed", "parse-out-of-memory", "parse-timeout"}, kinds
    seed_row = next(row for row in rows if row["url"] == demo_origin + "/")
    assert seed_row["outcome"] == "ok" and seed_row.get("markdown_path")
