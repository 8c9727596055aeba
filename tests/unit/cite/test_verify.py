"""verify_quote: exact, normalised (differences named) or not-found (closest passage), and a
quote from another capture of the same page reported as such."""

from __future__ import annotations

import pytest

from pressmark.cite import CitationError, Verifier, citation, verify_quote
from pressmark.markdown import POLICY_VERSION
from pressmark.store import MemorySnapshotStore
from pressmark.testing import make_snapshot

URL = "https://town.test/news/bridge"
V1 = ("<html><head><title>Bridge</title></head><body><main><h1>Bridge closed</h1>"
      "<p>The council voted on Tuesday to repair the old bridge — at a cost of "
      "<a href='/budget'>“two million”</a> euros… The works start in <b>May</b>.</p>"
      "<ul><li>Detours via the north road.</li><li>Buses keep running.</li></ul>"
      "</main></body></html>")
V2 = V1.replace("Buses keep running.", "Buses stop at the market square.")


def stored(*bodies: str) -> tuple[MemorySnapshotStore, list[str]]:
    store = MemorySnapshotStore()
    refs = [store.put(make_snapshot("town:bridge", URL, body.encode(),
                                    fetched_at=f"2026-01-0{i + 1}T00:00:00.000Z")).source_ref
            for i, body in enumerate(bodies)]
    return store, refs


def test_exact_gives_the_span_and_the_element() -> None:
    store, (ref,) = stored(V1)
    check = verify_quote(ref, "The works start in **May**.", store)
    assert check.verdict == "exact" and check.similarity == 1.0 and check.found
    assert check.match is not None and check.occurrences == 1
    assert check.match.dom_paths == ("body > main:nth-of-type(1) > p:nth-of-type(1)",)
    page = Verifier(store).page(ref)
    start, end = check.match.markdown_span
    assert page.markdown[start:end] == "The works start in **May**."
    target = citation(ref, page.markdown, start, end, policy_version=page.policy_version)
    quote, position = target["selector"]
    assert quote["type"] == "TextQuoteSelector" and quote["exact"] == page.markdown[start:end]
    assert page.markdown[start - len(quote["prefix"]):start] == quote["prefix"]
    assert position == {"type": "TextPositionSelector", "start": start, "end": end}
    item = verify_quote(ref, "Detours via the north road.", store)
    assert item.match is not None and item.match.dom_paths[0].endswith("li:nth-of-type(1)")


@pytest.mark.parametrize(("quote", "differences"), [
    ("The works start in May.", ("markdown",)),
    ("repair the old bridge - at a cost", ("dashes",)),
    ('a cost of "two million" euros...', ("markdown", "quotes", "ellipsis")),
    ("The council voted   on Tuesday\nto repair", ("whitespace",)),
])
def test_normalised_names_its_differences(quote: str, differences: tuple[str, ...]) -> None:
    store, (ref,) = stored(V1)
    check = verify_quote(ref, quote, store)
    assert check.verdict == "normalised", check
    assert check.differences == differences
    assert check.match is not None and check.match.dom_paths


def test_one_changed_word_is_not_found_with_the_closest_passage() -> None:
    store, (ref,) = stored(V1)
    check = verify_quote(ref, "The council voted on Wednesday to repair the old bridge", store)
    assert check.verdict == "not-found" and not check.found and check.match is None
    assert check.closest is not None and 0.8 < check.similarity < 1.0
    assert "Tuesday to repair the old bridge" in check.closest.text
    assert check.other_snapshots == ()
    nothing = verify_quote(ref, "zzz qqq", store)
    assert nothing.verdict == "not-found" and nothing.closest is None


def test_a_quote_from_another_capture_is_reported_as_such_never_found() -> None:
    store, (old, new) = stored(V1, V2)
    check = verify_quote(new, "Buses keep running.", store)
    assert check.verdict == "not-found"
    assert [(o.source_ref, o.verdict) for o in check.other_snapshots] == [(old, "exact")]
    assert verify_quote(old, "Buses keep running.", store).verdict == "exact"


def test_unresolvable_references_and_empty_quotes_are_typed_errors() -> None:
    store, (ref,) = stored(V1)
    with pytest.raises(CitationError) as info:
        verify_quote("pressmark:snapshot:v1?nope", "x", store)
    assert info.value.code == "invalid-ref"
    with pytest.raises(CitationError) as info:
        verify_quote(ref.replace("town%3Abridge", "town%3Aother"), "x", store)
    assert info.value.code == "not-found"
    with pytest.raises(CitationError) as info:
        verify_quote(ref, "  ", store)
    assert info.value.code == "empty-quote"


def test_text_snapshots_are_cited_in_their_own_text() -> None:
    store = MemorySnapshotStore()
    ref = store.put(make_snapshot("notes", "https://town.test/notes.txt",
                                  b"line one\nline two\n", content_type="text")).source_ref
    assert verify_quote(ref, "line two", store).verdict == "exact"


FIGURE = ("<html><body><main><h1>Anomalies</h1>"
          "<p>More values are likely to be considered an anomaly:</p>"
          "<figure><img src='/b.png' alt='Backtesting with lower threshold'></figure>"
          "<p>If we increase the <a href='https://x.test/entries'>number of entries</a> we "
          "get fewer.</p><ol><li>First step here.</li><li>Second step here.</li></ol>"
          "</main></body></html>")


@pytest.mark.parametrize(("quote", "verdict"), [
    # the quote carries the markup, with other whitespace: every word of it is checked
    ("anomaly:\n![Backtesting with lower threshold](https://x.test/b.png) If we", "normalised"),
    ("the [number of entries](https://x.test/entries)  we get", "normalised"),
    ("1.  First step here.\n2. Second step", "normalised"),
    # ... so a word changed inside that markup is not absorbed with it
    ("anomaly:\n![Backtesting with higher threshold](https://x.test/b.png) If we", "not-found"),
    ("the [number of entries](https://x.test/entrees)  we get", "not-found"),
    ("1.  First step here.\n3. Second step", "not-found"),
    ("anomaly: ![Backtesting with lower threshold](https://x.test/c.png) If we", "not-found"),
    # the reading text skips the image, which a reader does not see as text
    ("anomaly: If we increase the number of entries", "normalised"),
    ("anomaly: Backtesting with lower threshold If we", "not-found"),
])
def test_a_normalised_match_never_absorbs_a_changed_word_character(quote: str,
                                                                   verdict: str) -> None:
    store = MemorySnapshotStore()
    ref = store.put(make_snapshot("fig", "https://x.test/a", FIGURE.encode())).source_ref
    check = verify_quote(ref, quote, store)
    assert check.verdict == verdict, check
    if verdict == "normalised" and ("](" in quote or quote.startswith("1.")):
        assert check.match is not None  # the match covers the markup the quote carries
        assert "".join(c for c in quote if c.isalnum()) in \
            "".join(c for c in check.match.text if c.isalnum())


def test_a_citation_made_under_another_policy_says_so() -> None:
    store, (ref,) = stored(V1)
    verifier = Verifier(store)
    page = verifier.page(ref)
    assert page.policy_version == POLICY_VERSION
    same = verifier.verify(ref, "The works start in **May**.", policy_version=POLICY_VERSION)
    assert same.warnings == () and same.cited_policy_version == POLICY_VERSION
    older = verify_quote(ref, "The works start in **May**.", store,
                         policy_version="pressmark-md/2.4")
    assert older.verdict == "exact" and older.warnings == ("policy-changed",)
    assert older.to_dict()["cited_policy_version"] == "pressmark-md/2.4"
    assert verify_quote(ref, "The works start", store).warnings == ()
    # a whole citation: its quote, its policy, and whether its span still holds
    start = page.markdown.index("The works")
    target = citation(ref, page.markdown, start, start + 18, policy_version="pressmark-md/2.4")
    check = verifier.verify_citation(target)
    assert check.verdict == "exact" and check.warnings == ("policy-changed",)
    target["selector"][1]["start"] += 1
    assert verifier.verify_citation(target).warnings == ("policy-changed", "span-moved")
    with pytest.raises(CitationError) as info:
        verifier.verify_citation({"source_ref": ref})
    assert info.value.code == "invalid-citation"
