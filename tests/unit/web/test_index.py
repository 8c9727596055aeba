"""PageIndex: incremental, tolerant, and fast enough for 100,000 pages."""

from __future__ import annotations

import json
import time
from pathlib import Path

from click.testing import CliRunner

import pressmark.web
from pressmark.cli import main
from pressmark.web._data import PageIndex, PageQuery


def line(n: int, **extra: object) -> str:
    record = {"url": f"https://x.example/{n}", "title": f"Page {n}", "status": 200,
              "outcome": "ok", "warnings": [], "error": None, "rendered": False,
              "validation": {"passed": n % 3 != 0, "reasons": []}, "bytes": n, **extra}
    return json.dumps(record) + "\n"


def test_incremental_and_partial_lines(tmp_path: Path) -> None:
    path = tmp_path / "pages.jsonl"
    path.write_text(line(1) + line(2))
    index = PageIndex(path)
    assert index.count() == 2
    with path.open("a") as handle:
        handle.write(line(3) + "not json\n" + "[1, 2]\n" + '{"no": "url"}\n' + line(4)[:-10])
    assert index.count() == 3  # the half-written last line waits for its newline
    assert index.skipped_lines == 3
    with path.open("a") as handle:
        handle.write(line(4)[-10:])
    assert index.count() == 4
    record = index.record(4)
    assert record is not None and record["url"] == "https://x.example/4"
    assert index.record(5) is None
    path.write_text(line(9))  # rewritten (shorter): the index starts over
    assert index.count() == 1
    found = index.record(1)
    assert found is not None and found["url"] == "https://x.example/9"


def test_replaced_file_is_reindexed(tmp_path: Path) -> None:
    path = tmp_path / "pages.jsonl"
    path.write_text(line(1) + line(2))
    index = PageIndex(path)
    assert index.count() == 2
    replacement = tmp_path / "pages.jsonl.tmp"
    replacement.write_text(line(3) + line(4) + line(5))
    replacement.replace(path)  # how a resumed crawl may rewrite it: atomically, and longer
    assert index.count() == 3
    first = index.record(1)
    assert first is not None and first["url"] == "https://x.example/3"


def test_missing_file_is_empty(tmp_path: Path) -> None:
    index = PageIndex(tmp_path / "pages.jsonl")
    assert index.count() == 0
    assert index.search(PageQuery()).rows == []


def test_wrong_types_do_not_break_the_index(tmp_path: Path) -> None:
    path = tmp_path / "pages.jsonl"
    path.write_text(line(1, status="200", rendered="yes", warnings="many", bytes=True,
                         validation=[], error="boom", title=7))
    index = PageIndex(path)
    (row,) = index.search(PageQuery()).rows
    facts = (row.status, row.rendered, row.warnings, row.bytes, row.title)
    assert facts == (None, False, 0, None, None)
    assert row.validation_passed is None and row.error_kind is None


def test_hundred_thousand_pages(tmp_path: Path) -> None:
    path = tmp_path / "pages.jsonl"
    with path.open("w") as handle:
        handle.writelines(line(n) for n in range(1, 100_001))
    index = PageIndex(path)
    started = time.perf_counter()
    assert index.count() == 100_000
    indexed = time.perf_counter() - started
    started = time.perf_counter()
    listing = index.search(PageQuery(validation="failed", q="99", sort="url", order="desc",
                                     page=3, per_page=50))
    searched = time.perf_counter() - started
    assert listing.total == sum(1 for n in range(1, 100_001) if n % 3 == 0 and "99" in str(n))
    assert len(listing.rows) == 50
    assert indexed < 20 and searched < 2, (indexed, searched)


def test_query_params_round_trip() -> None:
    query = PageQuery.from_params({"q": "a", "validation": "failed", "page": "2", "sort": "url"})
    assert query.params() == {"q": "a", "validation": "failed", "page": "2", "sort": "url"}
    assert query.params(page=1) == {"q": "a", "validation": "failed", "sort": "url"}
    assert PageQuery.from_params({"sort": "evil", "order": "x"}).params() == {}


def test_exported_names() -> None:
    assert sorted(pressmark.web.__all__) == ["create_app"]


def test_serve_cli_help_and_bad_dir(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["serve", "--help"])
    assert result.exit_code == 0 and "--host" in result.output and "127.0.0.1" in result.output
    result = runner.invoke(main, ["serve", str(tmp_path / "missing")])
    assert result.exit_code == 2
    result = runner.invoke(main, ["serve", str(tmp_path)])
    assert result.exit_code == 2 and "manifest.json" in result.output
