"""``pressmark md --batch --chunks``: each page's chunks beside its Markdown, the same as
``pressmark.cite.chunk`` gives; nothing of the kind without the flag."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pressmark.cite import chunk
from pressmark.cli._md import main
from pressmark.markdown import to_markdown

PAGE = ("<html><head><title>T</title></head><body><main><h1>Report</h1>"
        + "".join(f"<p>Paragraph {i}: the river rose three feet overnight and the bridge "
                  "was closed.</p>" for i in range(20))
        + "<h2>More</h2><ul>" + "".join(f"<li>Item {i}</li>" for i in range(10))
        + "</ul></main></body></html>")


def test_chunks_beside_the_markdown(tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.html").write_text(PAGE, encoding="utf-8")
    (src / "b.html").write_text("<p>Short.</p>", encoding="utf-8")
    assert main(["--batch", str(src), str(tmp_path / "plain")]) == 0
    assert sorted(p.name for p in (tmp_path / "plain").iterdir()) == ["a.md", "b.md"]
    out = tmp_path / "out"
    assert main(["--batch", str(src), str(out), "--chunks", "--max-chars", "300",
                 "--overlap", "40", "--jobs", "1"]) == 0
    lines = (out / "a.chunks.jsonl").read_text(encoding="utf-8").splitlines()
    want = chunk(to_markdown(PAGE.encode()), max_chars=300, overlap=40)
    assert len(lines) == len(want) > 3
    assert [json.loads(line) for line in lines] == [c.to_dict() for c in want]
    assert (out / "a.md").read_text(encoding="utf-8") == \
        (tmp_path / "plain" / "a.md").read_text(encoding="utf-8")
    assert len((out / "b.chunks.jsonl").read_text(encoding="utf-8").splitlines()) == 1


@pytest.mark.parametrize("argv", [
    ["PAGE", "--chunks"],
    ["--batch", "IN", "OUT", "--chunks", "--max-chars", "10"],
    ["--batch", "IN", "OUT", "--chunks", "--max-chars", "100", "--overlap", "100"],
])
def test_usage_errors(argv: list[str], tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    names = {"PAGE": str(tmp_path / "page.html"), "IN": str(tmp_path / "in"),
             "OUT": str(tmp_path / "out")}
    with pytest.raises(SystemExit) as exc:
        main([names.get(a, a) for a in argv])
    assert exc.value.code == 2


TRICKY = ("<html><head><title>T</title></head><body><main>"
          "<h1>A \"quoted\" \\ heading</h1><p>Quotes \" and backslashes \\ and a tab\tand "
          "\u2028 a line separator, \U0001f600 and \u00e9t\u00e9.</p>"
          "<o:p>Word-processor text inside an o:p element, long enough to be kept.</o:p>"
          "<h2>Next</h2>" + "".join(f"<p>Sentence {i} of the next part. " * 30 + "</p>"
                                    for i in range(3))
          + "</main></body></html>")


@pytest.mark.parametrize(("max_chars", "overlap"), [(2000, 0), (200, 50), (64, 0)])
def test_chunk_lines_are_json_dumps_of_each_chunk_byte_for_byte(max_chars: int,
                                                                 overlap: int) -> None:
    from pressmark.cite._chunks import chunk_lines

    for result in (to_markdown(TRICKY.encode()),
                   to_markdown(TRICKY, url="https://example.org/a\"b")):
        want = "".join(json.dumps(c.to_dict(), ensure_ascii=False, separators=(",", ":"))
                       + "\n" for c in chunk(result, max_chars=max_chars, overlap=overlap))
        assert chunk_lines(result, max_chars=max_chars, overlap=overlap) == want
        assert "\\\\" in want and '\\"' in want
