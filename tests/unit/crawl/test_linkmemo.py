"""The links memo a recrawl reads instead of parsing a 304's page again."""

from __future__ import annotations

from pathlib import Path

from pressmark.crawl._linkmemo import KnownLinks, LinkMemo, memo_key

FOUND = KnownLinks(title="T", links=(("http://a.test/x", "a.test"), ("http://b.test/é", "b.test")),
                   refused=(("bad-host", 2),), warnings=("parse-limit:depth",))


def test_lines_round_trip_and_each_is_handed_out_once(tmp_path: Path) -> None:
    path = tmp_path / ".cache" / "links.jsonl"
    key = memo_key("ab" * 32, respect_nofollow=True, strip_tracking=False)
    memo = LinkMemo(path)
    memo.add(key, FOUND)
    memo.add(key, FOUND)  # a key is written once
    memo.close()
    assert path.read_text(encoding="utf-8").count("\n") == 1
    again = LinkMemo(path)
    again.load()
    assert again.get(key) == FOUND
    assert again.get(key) is None


def test_the_key_names_the_link_options() -> None:
    keys = {memo_key("ab" * 32, respect_nofollow=n, strip_tracking=s)
            for n in (True, False) for s in (True, False)}
    assert len(keys) == 4


def test_torn_and_damaged_lines_mean_parse_again(tmp_path: Path) -> None:
    path = tmp_path / "links.jsonl"
    path.write_text("k1\t{not json\nk2\t{\"links\": [[1]]}\nk3\t{\"links\":", encoding="utf-8")
    memo = LinkMemo(path)
    memo.load()
    assert memo.get("k1") is None
    assert memo.get("k2") is None
    assert memo.get("k3") is None  # torn: never indexed
    memo.add("k4", FOUND)
    memo.close()
    fresh = LinkMemo(path)
    fresh.load()
    assert fresh.get("k4") == FOUND  # the torn line was ended before appending


def test_a_missing_file_is_an_empty_memo(tmp_path: Path) -> None:
    memo = LinkMemo(tmp_path / "none" / "links.jsonl")
    memo.load()
    assert memo.get("k") is None
    memo.close()
    assert not (tmp_path / "none").exists()
