"""Chunks: exact spans of the Markdown, cut at headings, blocks, then sentences; stable ids."""

from __future__ import annotations

import itertools
import json

import pytest

from pressmark.cite import chunk, chunk_id, chunk_markdown
from pressmark.markdown import to_markdown

SENTENCE = "The river rose three feet overnight and the bridge was closed to traffic. "


def page(body: str) -> str:
    return f"<html><head><title>T</title></head><body><main>{body}</main></body></html>"


ARTICLE = page(
    "<h1>Flood report</h1>"
    + "".join(f"<p>{SENTENCE * (i + 2)}</p>" for i in range(6))
    + "<h2>Closures</h2><ul>" + "".join(f"<li>Road {i} is closed until further notice.</li>"
                                        for i in range(40)) + "</ul>"
    + "<h2>Data</h2><table><tr><th>Station</th><th>Level</th></tr>"
    + "".join(f"<tr><td>S{i}</td><td>{i}.5 m</td></tr>" for i in range(60)) + "</table>"
    + "<h3>Code</h3><pre>" + "\n".join(f"level[{i}] = read({i})" for i in range(80)) + "</pre>"
)


@pytest.mark.parametrize("max_chars", [64, 200, 500, 2000])
def test_every_chunk_is_the_span_it_names(max_chars: int) -> None:
    result = to_markdown(ARTICLE, url="https://river.test/flood")
    chunks = chunk(result, max_chars=max_chars, source_ref="ref")
    markdown = result.markdown
    assert chunks
    for piece in chunks:
        start, end = piece.markdown_span
        assert markdown[start:end] == piece.text and piece.text.strip() == piece.text
        assert piece.source_ref == "ref" and piece.url == "https://river.test/flood"
        assert piece.chunk_id == chunk_id(piece.text, piece.heading_path)
        assert piece.dom_paths and all(p.startswith("body > main") for p in piece.dom_paths)
    # in order, not overlapping, and nothing but blank lines left between them
    for a, b in itertools.pairwise(chunks):
        assert a.markdown_span[1] <= b.markdown_span[0]
        assert not markdown[a.markdown_span[1]:b.markdown_span[0]].strip()
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_cut_at_headings_then_blocks_never_inside_rows_or_lines() -> None:
    result = to_markdown(ARTICLE, url="https://river.test/flood")
    chunks = chunk(result, max_chars=300)
    for piece in chunks:
        headings = [line for line in piece.text.split("\n") if line.startswith("#")]
        assert all(piece.text.startswith(h) for h in headings[:1])  # a heading opens it
        assert len(headings) <= 1
        for line in piece.text.split("\n"):
            if line.startswith("|"):
                assert line.endswith("|")  # a whole table row
    paths = {c.heading_path for c in chunks}
    assert ("Flood report", "Closures") in paths and ("Flood report", "Data", "Code") in paths
    table = [c for c in chunks if c.heading_path == ("Flood report", "Data")]
    assert len(table) > 1 and table[0].text.startswith("## Data\n\n| Station | Level |")
    assert all(len(c.text) <= 300 for c in chunks)


def test_sentences_when_a_paragraph_is_longer_than_max_chars() -> None:
    long_para = page("<p>" + SENTENCE * 30 + "</p>")
    chunks = chunk(to_markdown(long_para), max_chars=200)
    assert len(chunks) > 5
    assert all(c.text.endswith(".") and len(c.text) <= 200 for c in chunks)


def test_overlap_repeats_the_previous_sentences_of_the_section() -> None:
    result = to_markdown(page("<p>" + SENTENCE * 30 + "</p>"))
    plain = chunk(result, max_chars=300)
    lapped = chunk(result, max_chars=300, overlap=120)
    assert len(lapped) == len(plain)
    assert lapped[0] == plain[0]
    for a, b in zip(plain[1:], lapped[1:], strict=True):
        assert b.markdown_span[1] == a.markdown_span[1]
        assert 0 < a.markdown_span[0] - b.markdown_span[0] <= 120
        assert b.text.endswith(a.text)


def test_ids_are_stable_and_an_edit_changes_only_the_chunks_holding_it() -> None:
    paragraphs = [f"<p>Paragraph {i}: " + SENTENCE * 3 + "</p>" for i in range(30)]
    before = chunk(to_markdown(page("<h1>A</h1>" + "".join(paragraphs))), max_chars=800)
    again = chunk(to_markdown(page("<h1>A</h1>" + "".join(paragraphs))), max_chars=800)
    assert [c.chunk_id for c in before] == [c.chunk_id for c in again]
    edited = list(paragraphs)
    edited[11] = edited[11].replace("overnight", "yesterday", 1)  # one word
    after = chunk(to_markdown(page("<h1>A</h1>" + "".join(edited))), max_chars=800)
    old = {c.chunk_id for c in before}
    changed = [c for c in after if c.chunk_id not in old]
    assert changed and all("yesterday" in c.text for c in changed)
    assert len(old - {c.chunk_id for c in after}) == len(changed)


def test_id_definition_is_the_documented_digest() -> None:
    import hashlib

    payload = json.dumps(["pressmark-chunk/1", ["A", "B"], "x y"], ensure_ascii=False,
                         separators=(",", ":"))
    assert chunk_id(" x \n y ", ["A", "B"]) == hashlib.sha256(payload.encode()).hexdigest()[:32]
    assert chunk_id("x y", ["A"]) != chunk_id("x y", ["A", "B"])


def test_without_a_block_map_and_bad_arguments() -> None:
    markdown = "# A\n\nOne paragraph.\n\n## B\n\nAnother one.\n"
    pieces = chunk_markdown(markdown, max_chars=64)
    assert [p.text for p in pieces] == ["# A\n\nOne paragraph.", "## B\n\nAnother one."]
    assert pieces[1].heading_path == ("A", "B") and pieces[1].dom_paths == ()
    assert chunk_markdown("") == []
    for bad in ({"max_chars": 10}, {"max_chars": 100, "overlap": 100}, {"overlap": -1}):
        with pytest.raises(ValueError):
            chunk_markdown(markdown, **bad)  # type: ignore[arg-type]
    for bad_type in ({"max_chars": "800"}, {"max_chars": True}, {"overlap": 1.5}):
        with pytest.raises(ValueError):  # not the compiled cutter's TypeError
            chunk_markdown(markdown, **bad_type)  # type: ignore[arg-type]


def test_a_block_map_that_does_not_fit_the_markdown_is_a_value_error() -> None:
    result = to_markdown(ARTICLE)
    with pytest.raises(ValueError, match="does not fit"):
        chunk_markdown(result.markdown[:100], result.evidence.block_map)
