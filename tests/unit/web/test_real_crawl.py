"""The workbench over a real crawl of the demo site (the documented output format)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from pressmark.demo import DemoSite, run_demo_server_in_thread
from pressmark.web import create_app


@pytest.fixture(scope="module")
def real_crawl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo-crawl") / "out"
    with run_demo_server_in_thread(DemoSite(pages=30)) as server:
        done = subprocess.run(
            [sys.executable, "-m", "pressmark", "crawl", server.url + "/", "--out", str(out),
             "--allow-loopback", server.url, "--max-pages", "60", "--workers", "1", "-q",
             "--render", "never"],
            capture_output=True, text=True, timeout=240, check=False,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    return out


def test_every_page_of_a_real_crawl_renders_and_verifies(real_crawl: Path) -> None:
    records = [json.loads(line) for line in (real_crawl / "pages.jsonl").read_text().splitlines()]
    assert records
    app = create_app(real_crawl, allowed_hosts=["127.0.0.1"])
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert client.get("/").status_code == 200
        failed = sum(1 for r in records if r["validation"] and not r["validation"]["passed"])
        listing = client.get("/?validation=failed&per_page=500").text
        assert len(re.findall(r'<tr data-row="\d+">', listing)) == failed
        with_provenance = 0
        for row, record in enumerate(records, 1):
            page = client.get(f"/page/{row}")
            assert page.status_code == 200
            with_provenance += 'class="prov"' in page.text
            if record["snapshot_sha256"]:
                raw = client.get(f"/raw/{row}/{record['snapshot_sha256']}")
                assert raw.status_code == 200
                verdict = client.get("/api/verify", params={"ref": record["source_ref"]}).json()
                assert verdict["status"] == "verified", verdict
                assert client.get(f"/history/{row}").status_code == 200
        assert with_provenance > 0
