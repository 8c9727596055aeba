"""Markdown and evidence bundles: one gzip member per page, read back by reference."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from pressmark.crawl._bundles import (
    BundleWriter,
    bundle_line,
    is_bundle_ref,
    read_bundle,
    side_paths,
)


def test_a_page_reads_back_by_its_reference_and_the_file_is_jsonl_gz(tmp_path: Path) -> None:
    writer = BundleWriter(str(tmp_path))
    evidence = json.dumps({"policy_version": "x", "kind": "article"}, sort_keys=True)
    refs = [writer.append(bundle_line(f"n{k}", f"http://a.test/{k}", f"# Page {k}\n✓",
                                      evidence if k else None)) for k in range(3)]
    writer.close()
    assert all(is_bundle_ref(ref) for ref in refs)
    assert read_bundle(tmp_path, refs[1], "markdown") == "# Page 1\n✓"
    assert read_bundle(tmp_path, refs[2], "evidence") == {"policy_version": "x",
                                                          "kind": "article"}
    assert read_bundle(tmp_path, refs[0], "evidence") is None
    [bundle] = (tmp_path / "bundles").iterdir()
    lines = gzip.decompress(bundle.read_bytes()).decode().splitlines()
    assert [json.loads(line)["name"] for line in lines] == ["n0", "n1", "n2"]


@pytest.mark.parametrize("ref", [
    "bundles/../../etc/passwd:0:10", "bundles/1-abcdef01-1.jsonl.gz:0", "markdown/ab/x.md",
    "bundles/1-abcdef01-1.jsonl.gz:0:999999999",
])
def test_malformed_or_foreign_references_read_as_nothing(tmp_path: Path, ref: str) -> None:
    assert read_bundle(tmp_path, ref, "markdown") is None


def test_a_torn_or_damaged_member_reads_as_nothing(tmp_path: Path) -> None:
    writer = BundleWriter(str(tmp_path))
    ref = writer.append(bundle_line("n", "http://a.test/", "text", None))
    writer.close()
    [bundle] = (tmp_path / "bundles").iterdir()
    os.truncate(bundle, bundle.stat().st_size - 3)
    assert read_bundle(tmp_path, ref, "markdown") is None


def test_files_layout_shards_by_the_name() -> None:
    assert side_paths("9b1ade3843b6f3d8-index") == (
        "markdown/9b/9b1ade3843b6f3d8-index.md", "evidence/9b/9b1ade3843b6f3d8-index.json")


def test_a_symlinked_bundles_directory_or_a_fifo_bundle_reads_as_nothing(tmp_path: Path) -> None:
    writer = BundleWriter(str(tmp_path / "real"))
    ref = writer.append(bundle_line("n", "http://a.test/", "text", None))
    writer.close()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "bundles").symlink_to(tmp_path / "real" / "bundles")
    assert read_bundle(tmp_path / "out", ref, "markdown") is None
    name = ref.split("/", 1)[1].split(":")[0]
    (tmp_path / "fifo" / "bundles").mkdir(parents=True)
    os.mkfifo(tmp_path / "fifo" / "bundles" / name)
    assert read_bundle(tmp_path / "fifo", ref, "markdown") is None
