"""``pressmark md``: single file, stdin, JSON, batch (serial and process pool)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from pressmark.cli import main

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
