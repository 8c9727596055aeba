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


def _inodes(root: Path) -> int:
    return sum(1 for _ in root.rglob("*"))


def test_outputs_that_scale_bundles_segments_and_the_workbench_reads_both(
        demo_origin: str, tmp_path: Path) -> None:
    """--output bundles writes a few files whatever the page count, the default files
    layout shards its directories, --store-format files keeps the earlier store, and the
    workbench reads every page's Markdown and evidence in either layout."""
    from pressmark.store import FilesystemSnapshotStore, SegmentStore, open_store
    from pressmark.web._data import CrawlDir

    args = ["--allow-loopback", demo_origin, "--max-pages", "60", "--render", "never",
            "--quiet"]
    outs = {}
    for label, extra in (("files", []), ("bundles", ["--output", "bundles"]),
                         ("old-store", ["--store-format", "files"])):
        outs[label] = out = tmp_path / label
        result = CliRunner().invoke(main, ["crawl", demo_origin + "/", "--out", str(out),
                                           *args, *extra])
        assert result.exit_code == 0, result.output
    kinds = {label: type(open_store(out / "store")) for label, out in outs.items()}
    assert kinds == {"files": SegmentStore, "bundles": SegmentStore,
                     "old-store": FilesystemSnapshotStore}
    bundled = outs["bundles"]
    assert not (bundled / "markdown").exists() and (bundled / "bundles").is_dir()
    assert _inodes(bundled) < _inodes(outs["files"]) / 4
    assert _inodes(bundled / "store") <= 8  # marker, index (+ wal, shm), segments/ and one
    for label in ("files", "bundles"):
        out = outs[label]
        rows = [json.loads(line) for line in (out / "pages.jsonl").read_text().splitlines()]
        converted = [row for row in rows if row["markdown_path"]]
        assert len(converted) > 20
        view = CrawlDir(out)
        for row in converted:
            if label == "files":
                assert row["markdown_path"].count("/") == 2  # markdown/<ab>/<name>.md
            else:
                assert row["markdown_path"] == row["evidence_path"]
                assert row["markdown_path"].startswith("bundles/")
            assert view.markdown(row) is not None, row["url"]
            assert (view.evidence(row) or {}).get("policy_version"), row["url"]
    again = CliRunner().invoke(main, ["crawl", demo_origin + "/", "--out", str(bundled),
                                      *args, "--output", "bundles"])  # a recrawl keeps them
    assert again.exit_code == 0, again.output
    view = CrawlDir(bundled)
    rows = [json.loads(line) for line in (bundled / "pages.jsonl").read_text().splitlines()]
    kept = [row for row in rows if row["outcome"] == "not-modified" and row["markdown_path"]]
    assert kept and all(view.markdown(row) is not None for row in kept)
