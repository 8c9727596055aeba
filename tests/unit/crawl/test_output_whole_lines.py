"""Crawl records are appended whole or not at all (red team #34: a torn last line in
``pages.jsonl`` when the disk filled up). A file size limit (``RLIMIT_FSIZE``, which
the kernel reports as EFBIG, as it reports ENOSPC for a full disk) stands in for the
full disk here; ``tests/integration/test_crawl_disk_full.py`` uses a real one."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

LIMIT = 4096

CHILD = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from pressmark.crawl import PageRecord
    from pressmark.crawl._output import OutputDir, disk_full
    out = OutputDir(Path(sys.argv[1]))
    out.prepare(resume=False)
    out.open_pages()
    written = failed = 0
    for n in range(200):
        out.append_page(PageRecord(url=f"http://a.test/{n}", final_url=None, depth=0,
                                   status=200, outcome="ok", title="t" * 100))
        try:
            out.flush_pages()
            written += 1
        except OSError as exc:
            assert disk_full(exc), exc
            failed += 1
            dropped = out.drop_pages()
            assert len(dropped) == 1 and dropped[0].url.endswith(f"/{n}")
    out.close()
    print(json.dumps({"written": written, "failed": failed}))
""")


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def test_a_refused_append_leaves_no_torn_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], check=True,
                          capture_output=True, text=True, preexec_fn=_limit_file_size)
    counts = json.loads(done.stdout)
    assert counts["failed"] > 0 and counts["written"] > 0
    raw = (tmp_path / "pages.jsonl").read_bytes()
    assert raw.endswith(b"\n") and len(raw) <= LIMIT
    lines = raw.splitlines()
    assert len(lines) == counts["written"]
    assert [json.loads(line)["url"] for line in lines] == [
        f"http://a.test/{n}" for n in range(counts["written"])]
