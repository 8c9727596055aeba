"""Path containment, CSP, read-only, host check."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from pressmark.store import MemorySnapshotStore
from pressmark.web import APP_CSP, SNAPSHOT_CSP, create_app
from pressmark.web._data import CrawlDir
from pressmark.web._sample import SampleCrawl
from pressmark.web._security import contained_path

TRAVERSALS = [
    "/../../../../etc/passwd",
    "/%2e%2e/%2e%2e/etc/passwd",
    "/static/../_app.py",
    "/static/%2e%2e/_app.py",
    "/static/..%2f_app.py",
    "/static/%2e%2e%2f%2e%2e%2fpages.jsonl",
    "/static/....//....//etc/passwd",
    "/static//etc/passwd",
    "/static/",
    "/static",
    "/static/%2fetc%2fpasswd",
    "/static/..\\_app.py",
    "/page/..%2f..%2fmanifest.json",
    "/page/1/../../manifest.json",
    "/page/-1",
    "/page/0",
    "/page/999999",
    "/raw/1/..%2f..%2fmanifest.json",
    "/raw/1/../../../etc/passwd",
    "/raw/1/%2e%2e",
    "/raw/1/" + "0" * 64,
    "/raw/1/" + "A" * 64,
    "/history/1/diff?a=../../etc/passwd&b=../manifest.json",
    "/manifest.json",
    "/pages.jsonl",
    "/store/",
    "/markdown/",
    "/evidence/",
]


@pytest.mark.parametrize("path", TRAVERSALS)
def test_traversal_is_404(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404, (path, response.status_code)
    assert "root:" not in response.text
    assert "pressmark-crawl/1" not in response.text
    assert "create_app" not in response.text


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize("path", ["/", "/page/1", "/api/verify", "/verify", "/history/1"])
def test_read_only(client: TestClient, method: str, path: str) -> None:
    assert client.request(method, path).status_code == 405


def test_head_is_allowed(client: TestClient) -> None:
    assert client.head("/").status_code == 200


def test_app_pages_get_app_csp(client: TestClient) -> None:
    for path in ("/", "/page/1", "/verify", "/nope"):
        response = client.get(path)
        assert response.headers["content-security-policy"] == APP_CSP
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"
    assert "'unsafe-inline'" not in APP_CSP.split("style-src")[0]
    assert "script-src 'self';" in APP_CSP


def test_snapshot_csp_is_strict(client: TestClient, crawl: SampleCrawl) -> None:
    row = crawl.rows["hostile"]
    digest = crawl.records[row - 1]["snapshot_sha256"]
    response = client.get(f"/raw/{row}/{digest}")
    assert response.status_code == 200
    csp = response.headers["content-security-policy"]
    assert csp == SNAPSHOT_CSP
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'"
    assert "script-src" not in directives
    assert directives["img-src"] == "data:"
    assert directives["sandbox"] == "allow-same-origin"  # no allow-scripts, even opened directly
    assert response.headers["x-frame-options"] == "SAMEORIGIN"
    assert response.headers["x-dns-prefetch-control"] == "off"
    assert "fetch(" in response.text  # the hostile bytes are served as captured, but inert


def test_iframe_sandbox_has_no_scripts(client: TestClient, crawl: SampleCrawl) -> None:
    html = client.get(f"/page/{crawl.rows['hostile']}").text
    assert 'sandbox="allow-same-origin"' in html
    assert "allow-scripts" not in html
    assert "<script>" not in html  # only the app's own external script
    assert html.count("<script") == 1


def test_no_external_assets(client: TestClient, crawl: SampleCrawl) -> None:
    for path in ("/", f"/page/{crawl.rows['big']}", f"/history/{crawl.rows['history']}"):
        html = client.get(path).text
        assert not re.search(r'(src|href)="(https?:)?//', html), path


def test_unknown_host_is_refused(client: TestClient) -> None:
    assert client.get("/", headers={"host": "evil.example"}).status_code == 400
    assert client.get("/", headers={"host": "127.0.0.1:8765"}).status_code == 200


def test_side_files_are_contained(tmp_path: Path) -> None:
    root = tmp_path / "crawl"
    (root / "markdown").mkdir(parents=True)
    (root / "evidence").mkdir()
    secret = tmp_path / "secret.md"
    secret.write_text("SECRET")
    (root / "markdown" / "ok.md").write_text("# fine\n")
    (root / "markdown" / "link.md").symlink_to(secret)
    (root / "manifest.json").write_text("{}")
    crawl = CrawlDir(root)
    assert crawl.markdown({"markdown_path": "markdown/ok.md"}) == "# fine\n"
    for bad in ("../secret.md", str(secret), "markdown/../../secret.md", "markdown/link.md",
                "manifest.json", "evidence/../manifest.json", "markdown/ok.md\x00", "", None, 7):
        assert crawl.markdown({"markdown_path": bad}) is None, bad
    assert contained_path(root, "markdown") is None  # directories are not files


def test_hostile_pages_jsonl_paths(tmp_path: Path) -> None:
    root = tmp_path / "crawl"
    root.mkdir()
    (tmp_path / "secret.json").write_text('{"secret": true}')
    (root / "pages.jsonl").write_text(
        '{"url": "https://x.example/", "markdown_path": "../secret.json",'
        ' "evidence_path": "/etc/passwd", "source_id": "../../../etc"}\n'
    )
    app = create_app(root, store=MemorySnapshotStore(), allowed_hosts=["127.0.0.1"])
    with TestClient(app, base_url="http://127.0.0.1") as client:
        html = client.get("/page/1").text
        assert "secret" not in html.split("pages.jsonl record")[0]
        assert "No Markdown for this page." in html
        assert client.get("/history/1").status_code == 200
        assert client.get("/raw/1/" + "a" * 64).status_code == 404


def test_create_app_needs_a_directory(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        create_app(tmp_path / "missing")
    assert os.path.isdir(tmp_path)


def test_display_copy_disables_nested_frames(client: TestClient, crawl: SampleCrawl) -> None:
    row = crawl.rows["hostile"]
    digest = crawl.records[row - 1]["snapshot_sha256"]
    shown = client.get(f"/raw/{row}/{digest}").text
    assert "<iframe src=" not in shown and " srcdoc=" not in shown
    assert 'data-pressmark-src="http://127.0.0.1:9/canary/iframe"' in shown
    exact = client.get(f"/bytes/{row}/{digest}")
    assert exact.headers["content-type"] == "application/octet-stream"
    assert exact.headers["content-disposition"].startswith("attachment;")
    assert b'<iframe src="http://127.0.0.1:9/canary/iframe">' in exact.content
    home = crawl.rows["home"]
    home_digest = crawl.records[home - 1]["snapshot_sha256"]
    assert client.get(f"/raw/{home}/{home_digest}").content == client.get(
        f"/bytes/{home}/{home_digest}"
    ).content  # documents without frames are shown byte for byte
    assert client.get(f"/bytes/{home}/{digest}").status_code == 404


def test_display_html_keeps_the_tree() -> None:
    from pressmark.web._inert import display_html

    source = '<!doctype html><p>a</p><IFRAME SRC="http://x/" srcdoc="y" title="t"></IFRAME>'
    shown = display_html(source)
    assert shown.startswith("<!DOCTYPE html>")
    assert '<iframe title="t" data-pressmark-src="http://x/" data-pressmark-srcdoc="y">' in shown
    assert display_html("<p>plain</p>") == "<p>plain</p>"


def test_malformed_records_and_evidence_render(tmp_path: Path) -> None:
    root = tmp_path / "crawl"
    (root / "evidence").mkdir(parents=True)
    (root / "markdown").mkdir()
    (root / "markdown" / "m.md").write_text("# <script>alert(1)</script>\n\ntext\n")
    (root / "evidence" / "e.json").write_text(json.dumps({
        "sample_provenance": [
            {"markdown_span": [0, 9999], "dom_selector": "p"},
            {"markdown_span": [2, 1], "dom_selector": 5},
            {"markdown_span": "# <script>", "dom_selector": "h1\" onclick=\"x"},
            {"markdown_span": {"start": 0, "end": 3}, "dom_selector": "h1"},
            "junk", None,
        ],
        "validation": "yes", "readiness": [1], "main_selectors_used": "main",
    }))
    record = {"url": "https://x.example/<b>", "title": 7, "warnings": "many", "error": "boom",
              "validation": [1], "source_ref": 5, "snapshot_sha256": 5, "source_id": 9,
              "status": "200", "markdown_path": "markdown/m.md", "evidence_path": "evidence/e.json"}
    (root / "pages.jsonl").write_text(json.dumps(record) + "\n")
    (root / "manifest.json").write_text('{"summary": {"by_outcome": [1], "pages": "x"}}')
    app = create_app(root, store=MemorySnapshotStore(), allowed_hosts=["127.0.0.1"])
    with TestClient(app, base_url="http://127.0.0.1") as client:
        assert client.get("/").status_code == 200
        html = client.get("/page/1").text
        assert "<script>alert" not in html
        assert "alert(1)&lt;/script&gt;" in html
        assert 'onclick="x' not in html
        assert client.get("/history/1").status_code == 404
