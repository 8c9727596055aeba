"""diff_pages: blocks added, removed and changed between two captures, each side citable;
a recrawl's page classified against the earlier record of its URL."""

from __future__ import annotations

from pressmark.cite import Verifier, diff_captures, diff_pages
from pressmark.cite._diff import gone_page
from pressmark.crawl import PageRecord
from pressmark.crawl._changes import classify
from pressmark.store import MemorySnapshotStore
from pressmark.testing import make_snapshot

URL = "https://town.test/news/bridge"
V1 = ("<html><body><main><h1>Bridge closed</h1>"
      "<p>The council voted on Tuesday to repair the old bridge at a cost of two million.</p>"
      "<p>Detours run via the north road until the works end in the spring.</p>"
      "<p>Buses keep running on their usual timetable, the operator said.</p>"
      "<ul><li>North road open.</li><li>Market square closed.</li></ul>"
      "</main></body></html>")


def stored(*bodies: str) -> tuple[MemorySnapshotStore, list[str]]:
    store = MemorySnapshotStore()
    refs = [store.put(make_snapshot("town:bridge", URL, body.encode(),
                                    fetched_at=f"2026-01-0{i + 1}T00:00:00.000Z")).source_ref
            for i, body in enumerate(bodies)]
    return store, refs


def test_identical_markdown_is_no_change() -> None:
    store, refs = stored(V1, V1 + " ")
    result = diff_captures(store, *refs)
    assert result.same_markdown and result.changes == () and not result.same_snapshot


def test_changed_removed_added_each_resolve_by_citation() -> None:
    v2 = (V1.replace("two million", "three million")
          .replace("<p>Detours run via the north road until the works end in the spring.</p>",
                   "")
          .replace("</ul>", "<li>Ferry added.</li></ul>"))
    store, refs = stored(V1, v2)
    result = diff_captures(store, *refs)
    assert [(c.change, (c.old or c.new).kind) for c in result.changes] == [  # type: ignore[union-attr]
        ("changed", "paragraph"), ("removed", "paragraph"), ("added", "paragraph")]
    changed, removed, added = result.changes
    assert changed.old is not None and changed.new is not None
    assert "two million" in changed.old.text and "three million" in changed.new.text
    assert removed.old is not None and removed.old.text.startswith("Detours run")
    assert added.new is not None and added.new.text == "Ferry added."
    assert added.new.dom_path.endswith("ul:nth-of-type(1) > li:nth-of-type(3)")
    verifier = Verifier(store)
    for item in result.changes:
        for side in (item.old, item.new):
            if side is None:
                continue
            check = verifier.verify_citation(side.citation)
            assert check.verdict == "exact" and "span-moved" not in check.warnings
            assert check.match is not None and check.match.markdown_span == side.markdown_span
    assert result.to_dict()["counts"] == {"added": 1, "removed": 1, "changed": 1}


def test_a_rewritten_block_is_removed_and_added() -> None:
    v2 = V1.replace("Buses keep running on their usual timetable, the operator said.",
                    "A new footbridge opens next to the old one in March.")
    store, refs = stored(V1, v2)
    assert [c.change for c in diff_captures(store, *refs).changes] == ["removed", "added"]


def test_gone_page_removes_every_block() -> None:
    store, (ref,) = stored(V1)
    result = gone_page(Verifier(store).page(ref), 404)
    assert result.gone and result.new_ref is None and result.new_status == 404
    assert {c.change for c in result.changes} == {"removed"}
    assert len(result.changes) == 6


def test_diff_pages_is_deterministic() -> None:
    store, refs = stored(V1, V1.replace("spring", "summer"))
    verifier = Verifier(store)
    a, b = verifier.page(refs[0]), verifier.page(refs[1])
    assert diff_pages(a, b).to_dict() == diff_pages(a, b).to_dict()


def record(outcome: str, *, status: int | None = 200, body: str | None = "b1") -> PageRecord:
    return PageRecord(url=URL, final_url=URL, depth=0, status=status,
                      outcome=outcome, body_hash=body)  # type: ignore[arg-type]


def test_classify_against_the_earlier_record() -> None:
    before = record("ok")
    assert classify(record("ok"), None) == "new"
    assert classify(record("ok"), record("error", status=404, body=None)) == "new"
    assert classify(record("not-modified", status=304), before) == "not-modified"
    assert classify(record("ok"), before) == "unchanged-content"
    assert classify(record("ok", body="b2"), before) == "changed"
    assert classify(record("error", status=404, body=None), before) == "gone"
    assert classify(record("error", status=410, body=None), before) == "gone"
    assert classify(record("error", status=503, body=None), before) is None
    assert classify(record("error", status=404, body=None), None) is None
    assert classify(record("denied", status=None, body=None), before) is None
