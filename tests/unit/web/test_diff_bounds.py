"""The diff endpoint does bounded work and only for the workbench (red team #34 item 3).

Before: a diff of two 0.9 MB captures cost 131 s of CPU per request, and any page the
reviewer visited could trigger it with an ``<img>`` (a GET). Measured here on two
0.9 MB articles of 18,000 paragraphs (36,000 Markdown lines, half of them blank):
difflib with every blank line an anchor took 210 s for the first 4,000 lines alone.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from starlette.testclient import TestClient

from pressmark.snapshot import new_snapshot, source_id_for_url
from pressmark.store import FilesystemSnapshotStore
from pressmark.web import create_app

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
         "kappa", "lambda", "mu"]


def _article(seed: int) -> bytes:
    pick = random.Random(seed).choice
    paragraphs = "".join("<p>" + " ".join(pick(WORDS) for _ in range(6)) + f" {n}.</p>"
                         for n in range(18_000))
    return (f"<html><head><title>T</title></head><body><main><article><h1>Title</h1>"
            f"{paragraphs}</article></main></body></html>").encode()


def _crawl(root: Path) -> tuple[str, str]:
    store = FilesystemSnapshotStore(root / "store", durability="flush")
    url = "https://diff.example/big"
    refs = [store.put(new_snapshot(
        source_id=source_id_for_url(url), requested_url=url, url=url, status=200,
        headers=(("content-type", "text/html"),), body=_article(seed),
        fetched_at=f"2026-11-30T12:00:0{seed}.000Z")) for seed in (1, 2)]
    row = {"url": url, "final_url": url, "depth": 0, "status": 200, "outcome": "ok",
           "source_id": source_id_for_url(url), "source_ref": refs[1].source_ref,
           "snapshot_sha256": refs[1].snapshot_sha256, "body_hash": refs[1].body_hash,
           "fetched_at": "2026-11-30T12:00:02.000Z", "warnings": [], "error": None,
           "markdown_path": None, "evidence_path": None, "validation": None, "bytes": 1}
    (root / "pages.jsonl").write_text(json.dumps(row) + "\n")
    return refs[0].snapshot_sha256, refs[1].snapshot_sha256


def test_a_diff_of_two_large_captures_is_bounded_and_not_embeddable(tmp_path: Path) -> None:
    old, new = _crawl(tmp_path)
    assert len(_article(1)) > 800_000
    app = create_app(tmp_path, allowed_hosts=["127.0.0.1"])
    path = f"/history/1/diff?a={old}&b={new}"
    with TestClient(app, base_url="http://127.0.0.1") as client:
        # another site's <img>: refused before any work
        embedded = client.get(path, headers={"sec-fetch-site": "cross-site",
                                             "sec-fetch-mode": "no-cors",
                                             "sec-fetch-dest": "image"})
        assert embedded.status_code == 403
        same_site = client.get(path, headers={"sec-fetch-site": "same-site",
                                              "sec-fetch-mode": "no-cors"})
        assert same_site.status_code == 403
        started = time.process_time()
        shown = client.get(path, headers={"sec-fetch-site": "same-origin",
                                          "sec-fetch-mode": "navigate"})
        spent = time.process_time() - started
        assert shown.status_code == 200
        assert 'id="diff-stats"' in shown.text and "diff truncated" in shown.text
        assert "Only the first 20,000 lines" in shown.text
        # a generous ceiling, far from the hours an unbounded matcher takes here
        assert spent < 60, f"{spent:.1f} s of CPU"
        followed = client.get(path, headers={"sec-fetch-site": "cross-site",
                                             "sec-fetch-mode": "navigate"})
        assert followed.status_code == 200  # a link the reviewer followed, computed once
