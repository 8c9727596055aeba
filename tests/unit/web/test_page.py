"""Page view, raw snapshot, history, diff and citation verification."""

from __future__ import annotations

import re
from urllib.parse import quote

from starlette.testclient import TestClient

import pressmark.markdown
from pressmark.cite import diff_captures
from pressmark.store import FilesystemSnapshotStore, SnapshotStore
from pressmark.web._sample import SampleCrawl


def test_page_view_has_snapshot_markdown_and_evidence(
    client: TestClient, crawl: SampleCrawl
) -> None:
    row = crawl.rows["home"]
    record = crawl.records[row - 1]
    html = client.get(f"/page/{row}").text
    assert f'src="/raw/{row}/{record["snapshot_sha256"]}"' in html
    assert '<pre id="markdown" class="markdown"><span class="prov" id="md-prov-0"' in html
    assert 'data-selector="main &gt; article &gt; h1:nth-of-type(1)"' in html
    assert record["source_ref"].replace("&", "&amp;") in html
    assert "nav-menu" in html  # boilerplate rules from the evidence packet
    assert 'id="headers"' in html


def test_provenance_spans_match_markdown(client: TestClient, crawl: SampleCrawl) -> None:
    row = crawl.rows["big"]
    html = client.get(f"/page/{row}").text
    pattern = r'<span class="prov" id="md-prov-(\d+)" data-prov="\d+" tabindex="0">([^<]*)</span>'
    spans = re.findall(pattern, html)
    assert len(spans) == 1 + 15 + 5  # h1, 15 h2, 5 sampled paragraphs
    assert spans[0] == ("0", "# The long read")
    assert spans[2][1].startswith("Part 1, paragraph 1.")


def test_rendered_markdown_is_inert_and_line_mapped(client: TestClient, crawl: SampleCrawl) -> None:
    html = client.get(f"/page/{crawl.rows['home']}").text
    assert f'data-src="/page/{crawl.rows["home"]}/rendered" hidden></div>' in html
    fragment = client.get(f"/page/{crawl.rows['home']}/rendered").text
    assert fragment.startswith('<h1 data-md-lines="0 1">News Example</h1>')
    assert client.get(f"/page/{crawl.rows['network_error']}/rendered").status_code == 404
    assert 'data-prov="2" data-selector="main &gt; article &gt; h2:nth-of-type(1)"' \
        ' data-md-line="4"' in html
    from pressmark.web._rendered import render_markdown

    shown = str(render_markdown("<script>x</script> ![a](http://x/i.png) [l](javascript:y)"))
    assert "<script>" not in shown and "<img" not in shown and 'href="javascript' not in shown


def test_redirects_render_audit_and_failures(client: TestClient, crawl: SampleCrawl) -> None:
    html = client.get(f"/page/{crawl.rows['redirect']}").text
    assert 'id="redirects"' in html and "93.184.216.34" in html
    html = client.get(f"/page/{crawl.rows['rendered']}").text
    assert "shell: empty #root" in html and "main_selector_text_threshold" in html
    assert "readiness: stability window reached" in html
    html = client.get(f"/page/{crawl.rows['failed']}").text
    assert 'id="validation-reasons"' in html and "too-little-text" in html
    # each reason carries its line from docs/outputs.md as a tooltip
    line = pressmark.markdown.describe_output("too-little-text")
    assert line is not None and f'title="{line}"' in html
    html = client.get(f"/page/{crawl.rows['network_error']}").text
    assert 'id="page-error"' in html and "connection refused" in html
    assert "No snapshot in the store" in html
    html = client.get(f"/page/{crawl.rows['http_error']}").text
    assert "HTTP 404" in html and "<iframe" in html


def test_raw_only_serves_captures_of_the_row_source(client: TestClient, crawl: SampleCrawl) -> None:
    home, other = crawl.rows["home"], crawl.rows["big"]
    other_digest = crawl.records[other - 1]["snapshot_sha256"]
    assert client.get(f"/raw/{other}/{other_digest}").status_code == 200
    assert client.get(f"/raw/{home}/{other_digest}").status_code == 404


def test_verify(client: TestClient, crawl: SampleCrawl) -> None:
    ref = crawl.records[crawl.rows["home"] - 1]["source_ref"]
    ok = client.get("/api/verify", params={"ref": ref}).json()
    assert ok["status"] == "verified" and ok["code"] == "verified"
    tampered = ref.replace("T12%3A00%3A01.000Z", "T12%3A00%3A02.000Z")
    assert tampered != ref
    bad = client.get("/api/verify", params={"ref": tampered}).json()
    assert bad == {**bad, "status": "error", "code": "not-found"}
    assert client.get("/api/verify", params={"ref": "nonsense"}).json()["code"] == "invalid-ref"
    source_id = crawl.records[crawl.rows["home"] - 1]["source_id"]
    for hostile in ("..%2F..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "..", "store"):
        escaped = ref.replace(f"source_id={source_id}", f"source_id={hostile}")
        verdict = client.get("/api/verify", params={"ref": escaped}).json()
        assert verdict["status"] == "error" and verdict["code"] in ("not-found", "invalid-ref")
    assert client.get("/api/verify").status_code == 400
    page = client.get("/verify?ref=" + quote(ref)).text
    assert 'id="verify-page-result"' in page and "<b>verified</b>" in page
    page = client.get("/verify?ref=nonsense").text
    assert "<b>invalid-ref</b>" in page


def test_history_lists_both_captures(client: TestClient, crawl: SampleCrawl) -> None:
    row = crawl.rows["history"]
    html = client.get(f"/history/{row}").text
    digests = re.findall(r'<tr data-digest="([0-9a-f]{64})"', html)
    assert len(digests) == 2
    assert digests[0] == crawl.records[row - 1]["snapshot_sha256"]  # newest first
    assert "2026-11-29T08:00:00.000Z" in html


def test_diff(client: TestClient, crawl: SampleCrawl) -> None:
    row = crawl.rows["history"]
    html = client.get(f"/history/{row}").text
    new, old = re.findall(r'<tr data-digest="([0-9a-f]{64})"', html)
    response = client.get(f"/history/{row}/diff", params={"a": old, "b": new})
    assert response.status_code == 200
    if hasattr(pressmark.markdown, "to_markdown"):
        assert 'id="diff"' in response.text
        assert "What happens next" in response.text
        assert 'id="stability"' in response.text
    else:  # the Markdown layer has not landed: the view says so instead of failing
        assert "Markdown conversion unavailable" in response.text
    assert client.get(f"/history/{row}/diff", params={"a": old}).status_code == 404


def test_diff_shows_the_blocks_pressmark_diff_reports(
        client: TestClient, sample: tuple[SampleCrawl, SnapshotStore | None]) -> None:
    """The workbench's diff is ``pressmark.cite.diff_captures``: the same blocks."""
    crawl, memory = sample
    store = memory or FilesystemSnapshotStore(crawl.root / "store")
    row = crawl.rows["history"]
    source_id = crawl.records[row - 1]["source_id"]
    old_ref, new_ref = sorted((ref for ref in store.list(source_id)),
                              key=lambda ref: ref.fetched_at)
    expected = diff_captures(store, old_ref.source_ref, new_ref.source_ref)
    assert expected.changes  # the sample's two captures differ
    response = client.get(f"/history/{row}/diff", params={
        "a": old_ref.snapshot_sha256, "b": new_ref.snapshot_sha256})
    counts = expected.counts()
    assert (f'{counts["added"]} added</span> · <span class="del">{counts["removed"]} removed'
            f'</span> · {counts["changed"]} changed') in response.text
    shown = re.findall(r'<tr class="d-(add|del)"><td class="ln">([0-9–]*)</td>'
                       r'<td class="ln">([0-9–]*)</td>', response.text.split('id="blocks"')[1]
                       .split("</table>")[0])
    spans = [("del", f"{c.old.markdown_span[0]}–{c.old.markdown_span[1]}", "")
             for c in expected.changes if c.old is not None]
    spans += [("add", "", f"{c.new.markdown_span[0]}–{c.new.markdown_span[1]}")
              for c in expected.changes if c.new is not None]
    assert sorted(shown) == sorted(spans)
