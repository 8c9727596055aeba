"""``pressmark md``: single file, stdin, JSON, batch (serial and process pool)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pressmark.cli import main
from pressmark.markdown import to_markdown
from pressmark.snapshot import new_snapshot

GOLDEN = Path(__file__).parent / "golden"
PAGE = GOLDEN / "page_article_chrome.html"


def test_md_file_prints_markdown() -> None:
    result = CliRunner().invoke(main, ["md", str(PAGE)])
    assert result.exit_code == 0, result.output
    assert result.output == (GOLDEN / "page_article_chrome.md").read_text(encoding="utf-8")


def test_md_stdin_json_with_url() -> None:
    result = CliRunner().invoke(main, ["md", "-", "--json", "--url", "https://t.test/a"],
                                input=PAGE.read_bytes())
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert list(data)[:3] == ["policy_version", "title", "markdown"]
    assert data["evidence"]["url_final"] == "https://t.test/a"
    assert "canonical-mismatch" in data["validation"]["reasons"]


def test_md_decodes_legacy_charsets() -> None:
    html = '<meta charset="iso-8859-1"><p>caf\xe9 cr\xe8me</p>'.encode("latin-1")
    result = CliRunner().invoke(main, ["md", "-"], input=html)
    assert result.exit_code == 0
    assert "café crème" in result.output


@pytest.mark.parametrize("body", [
    "<meta charset=iso-8859-1><p>caf\u00e9</p>".encode(),   # UTF-8 bytes, a Latin-1 label
    "<p>caf\u00e9 cr\u00e8me</p>".encode("latin-1"),        # undeclared, not UTF-8
    b"\xef\xbb\xbf<meta charset=windows-1252><p>\xc3\xa9</p>",  # the BOM wins
    "<p>\u00e9</p>".encode("utf-16"),
])
def test_md_reads_a_file_as_a_snapshot_of_its_bytes_reads(body: bytes) -> None:
    """One charset decision: ``md`` on a saved page quotes what a crawl of it stores."""
    snap = new_snapshot(source_id="s", requested_url="https://t.test/", url="https://t.test/",
                        status=200, headers={"content-type": "text/html"}, body=body)
    result = CliRunner().invoke(main, ["md", "-"], input=body)
    assert result.exit_code == 0, result.output
    assert result.stdout == to_markdown(snap.body).markdown
    invalid = any("charset-invalid-bytes" in w for w in snap.warnings)
    assert ("warning: charset-invalid-bytes" in result.stderr) == invalid


def test_md_usage_errors() -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["md", "--batch", str(GOLDEN)]).exit_code == 2
    assert runner.invoke(main, ["md", str(PAGE), "out"]).exit_code == 2
    assert runner.invoke(main, ["md", "/nonexistent/x.html"]).exit_code == 2


def test_md_batch_serial_and_pool_agree(tmp_path: Path) -> None:
    runner = CliRunner()
    serial, pooled = tmp_path / "serial", tmp_path / "pooled"
    r1 = runner.invoke(main, ["md", "--batch", str(GOLDEN), str(serial), "--json"])
    r2 = runner.invoke(main, ["md", "--batch", str(GOLDEN), str(pooled), "--jobs", "2"])
    assert r1.exit_code == 0 and r2.exit_code == 0, (r1.output, r2.output)
    names = sorted(p.stem for p in GOLDEN.glob("*.html"))
    assert sorted(p.stem for p in serial.glob("*.md")) == names
    assert sorted(p.stem for p in serial.glob("*.json")) == names
    assert not list(pooled.glob("*.json"))
    for name in names:
        assert (serial / f"{name}.md").read_bytes() == (pooled / f"{name}.md").read_bytes()


def test_md_batch_jobs_auto_and_bad_values(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["md", "--batch", str(GOLDEN), str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    for bad in ("0", "65", "many"):
        out = tmp_path / f"bad{bad}"
        assert runner.invoke(main, ["md", "--batch", str(GOLDEN), str(out), "--jobs", bad]
                             ).exit_code == 2


def test_auto_jobs_needs_enough_pages_per_worker() -> None:
    from pressmark.cli._md import PAGES_PER_WORKER, auto_jobs

    assert auto_jobs(0, 8) == 1
    assert auto_jobs(PAGES_PER_WORKER * 2 - 1, 8) == 1
    assert auto_jobs(PAGES_PER_WORKER * 2, 8) == 2
    assert auto_jobs(10_000, 2) == 2


def test_md_batch_forked_workers_match_serial_and_report_failures(tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    for page in sorted(GOLDEN.glob("page_*.html")):
        (src / page.name).write_bytes(page.read_bytes())
    runner = CliRunner()
    serial, forked = tmp_path / "serial", tmp_path / "forked"
    r1 = runner.invoke(main, ["md", "--batch", str(src), str(serial), "--jobs", "1"])
    r2 = runner.invoke(main, ["md", "--batch", str(src), str(forked), "--jobs", "3"])
    assert r1.exit_code == 0 and r2.exit_code == 0, (r1.output, r2.output)
    names = sorted(p.name for p in serial.iterdir())
    assert names == sorted(p.name for p in forked.iterdir())
    assert all((serial / n).read_bytes() == (forked / n).read_bytes() for n in names)
    for jobs in ("1", "3"):  # a page that cannot be written is reported, the rest go on
        out = tmp_path / f"fail{jobs}"
        (out / "page_paywall.md").mkdir(parents=True)
        result = runner.invoke(main, ["md", "--batch", str(src), str(out), "--jobs", jobs])
        assert result.exit_code == 5   # "any other failure" in the CLI's exit-code table
        assert result.stderr.startswith("page_paywall.html: IsADirectoryError")
        assert (out / "page_teaser_row.md").read_bytes() == (
            serial / "page_teaser_row.md").read_bytes()
