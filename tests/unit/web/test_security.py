"""Path containment, CSP, read-only, host check."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from pressmark.store import MemorySnapshotStore
from pressmark.web import create_app
from pressmark.web._data import CrawlDir
from pressmark.web._inert import capture_tree
from pressmark.web._sample import SampleCrawl
from pressmark.web._security import APP_CSP, SNAPSHOT_CSP, contained_path

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
    # The document is an inert shell: the capture is built in it from data (the tree).
    assert "fetch(" not in response.text and "<iframe" not in response.text
    assert "<title>Hostile capture</title>" in response.text
    tree = client.get(f"/raw/{row}/{digest}/tree")
    assert tree.headers["content-type"] == "application/json"
    assert any(len(n) == 2 and "fetch(" in n[1] for n in tree.json()["nodes"])  # text, inert


def test_iframe_sandbox_has_no_scripts(client: TestClient, crawl: SampleCrawl) -> None:
    html = client.get(f"/page/{crawl.rows['hostile']}").text
    assert 'sandbox="allow-same-origin"' in html
    assert "allow-scripts" not in html
    assert "<script>" not in html  # only the app's own external scripts
    assert re.findall(r"<script[^>]*>", html) == [
        '<script src="/static/app.js" defer>', '<script src="/static/capture.js" defer>']


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


def _elements(tree: dict[str, Any], tag: str) -> list[dict[str, str]]:
    return [dict(n[3]) for n in tree["nodes"] if len(n) == 4 and n[2] == tag]


def test_the_tree_moves_every_url_out_of_reach(client: TestClient, crawl: SampleCrawl) -> None:
    row = crawl.rows["hostile"]
    digest = crawl.records[row - 1]["snapshot_sha256"]
    tree = client.get(f"/raw/{row}/{digest}/tree").json()
    frames = _elements(tree, "iframe")
    assert frames and all("src" not in f and "srcdoc" not in f for f in frames)
    assert any(f.get("data-pressmark-src") == "http://127.0.0.1:9/canary/iframe" for f in frames)
    for tag, name in (("img", "src"), ("object", "data"), ("embed", "src"), ("video", "src"),
                      ("audio", "src"), ("form", "action"), ("link", "href"), ("a", "href"),
                      ("a", "ping"), ("image", "href"), ("script", "src")):
        found = _elements(tree, tag)
        assert found and all(name not in attrs for attrs in found), (tag, found)
    assert all("http-equiv" not in m for m in _elements(tree, "meta"))
    assert all("onload" not in b for b in _elements(tree, "body"))
    exact = client.get(f"/bytes/{row}/{digest}")
    assert exact.headers["content-type"] == "application/octet-stream"
    assert exact.headers["content-disposition"].startswith("attachment;")
    assert b'<iframe src="http://127.0.0.1:9/canary/iframe">' in exact.content
    home = crawl.rows["home"]
    assert client.get(f"/bytes/{home}/{digest}").status_code == 404
    assert client.get(f"/raw/{home}/{digest}/tree").status_code == 404


def test_capture_tree_keeps_the_tree() -> None:
    source = ('<!doctype html><p>a</p><IFRAME SRC="http://x/" srcdoc="y" title="t"></IFRAME>'
              '<img src="data:image/png;base64,AA" srcset="http://x/a.png 2x">'
              '<svg><use href="#icon"></use><image href="http://x/i.png"/></svg>'
              '<math><mtext><table><mglyph><style><iframe src="http://x/m">')
    tree = capture_tree(source)
    tags = [n[2] for n in tree["nodes"] if len(n) == 4]
    assert tags[:3] == ["html", "head", "body"]
    assert _elements(tree, "iframe") == [{"title": "t", "data-pressmark-src": "http://x/",
                                          "data-pressmark-srcdoc": "y"}]
    img = _elements(tree, "img")[0]
    assert img["src"].startswith("data:image/") and "srcset" not in img
    assert _elements(tree, "use")[0] == {"href": "#icon"}  # a reference inside the document
    assert "href" not in _elements(tree, "image")[0]
    namespaces = {n[2]: n[1] for n in tree["nodes"] if len(n) == 4}
    assert namespaces["svg"] == namespaces["use"] == "s" and namespaces["math"] == "m"
    # Lexbor's own reading: a style element's text (built as a text node, never parsed)
    style = next(i for i, n in enumerate(tree["nodes"]) if len(n) == 4 and n[2] == "style")
    assert [n[1] for n in tree["nodes"] if len(n) == 2 and n[0] == style] == [
        '<iframe src="http://x/m">']
    assert capture_tree("")["nodes"][0][2] == "html"


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
