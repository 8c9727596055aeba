"""``pressmark crawl`` end to end on the demo site, and its exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from pressmark.cli import main


def test_crawl_command_writes_the_directory(demo_origin: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, [
        "crawl", demo_origin + "/", "--out", str(out), "--allow-loopback", demo_origin,
        "--max-pages", "6", "--workers", "0", "--per-host-concurrency", "4",
    ])
    assert result.exit_code == 0, result.output
    assert "pages/s" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["summary"]["requested"] == 6
    lines = (out / "pages.jsonl").read_text().splitlines()
    assert all("status" in json.loads(x) for x in lines)


def test_invalid_configuration_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["crawl", "ftp://x.test/", "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    result = CliRunner().invoke(main, ["crawl", "http://x.test/", "--out", str(tmp_path / "o"),
                                       "--include", "("])
    assert result.exit_code == 2


def test_denied_seed_exits_3(tmp_path: Path) -> None:
    # Without --allow-loopback the guard refuses a loopback seed: every page denied.
    result = CliRunner().invoke(main, ["crawl", "http://127.0.0.1:9/", "--out",
                                       str(tmp_path / "o"), "--quiet", "--workers", "0"])
    assert result.exit_code == 3, result.output


def test_expected_heading_and_language_per_seed(demo_origin: str, tmp_path: Path) -> None:
    """--expect-heading / --expect-language check each seed page (a wrong route that
    answered 200 fails validation with a named reason); a bad regex exits 2."""
    out = tmp_path / "out"
    result = CliRunner().invoke(main, [
        "crawl", demo_origin + "/special/wrong-locale", demo_origin + "/", "--out", str(out),
        "--allow-loopback", demo_origin, "--max-depth", "0", "--workers", "0", "--quiet",
        "--render", "never", "--expect-heading", "^No such heading$", "--expect-language", "en",
    ])
    assert result.exit_code == 0, result.output
    pages = {row["url"]: row for row in map(json.loads,
                                              (out / "pages.jsonl").read_text().splitlines())}
    wrong = pages[demo_origin + "/special/wrong-locale"]["validation"]["reasons"]
    home = pages[demo_origin + "/"]["validation"]["reasons"]
    assert {"language-mismatch", "required-heading-missing"} <= set(wrong)
    assert "required-heading-missing" in home and "language-mismatch" not in home
    bad = CliRunner().invoke(main, ["crawl", demo_origin + "/", "--out", str(tmp_path / "b"),
                                    "--allow-loopback", demo_origin, "--expect-heading", "("])
    assert bad.exit_code == 2, bad.output
    assert "expected_heading" in bad.output
