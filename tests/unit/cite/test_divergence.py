"""divergence: an agent version's text against the page's Markdown, both sides citable."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.cite import Verifier, divergence
from pressmark.cite._divergence import MAX_PASSAGES, view_divergences, view_passages, words
from pressmark.store import MemorySnapshotStore
from pressmark.testing import make_snapshot

URL = "https://ferry.test/fares"
PARAS = ["Ferries run every twenty minutes between the north pier and the old market.",
         "A single ticket costs twenty crowns and a day pass costs fifty crowns.",
         "Bicycles are carried on the lower deck at no charge on weekdays."]
HTML = ("<html><body><main><h1>Fares</h1>" + "".join(f"<p>{p}</p>" for p in PARAS)
        + '<p>See the <a href="/timetable">timetable</a> for <em>all</em> sailings.</p>'
        + "</main></body></html>")


def pair(view: str) -> tuple[Verifier, str, str]:
    store = MemorySnapshotStore()
    page = store.put(make_snapshot("page", URL, HTML.encode())).source_ref
    agent = store.put(make_snapshot("agent", URL, view.encode(), content_type="text",
                                    headers={"content-type": "text/markdown"})).source_ref
    return Verifier(store), page, agent


def test_the_same_text_in_other_markup_agrees() -> None:
    view = ("Fares\n=====\n\n" + "\n\n".join(PARAS)
            + "\n\nSee the [timetable](https://ferry.test/timetable \"t\") for *all* "
              "sailings.\n")
    verifier, page, agent = pair(view)
    result = divergence(verifier.page(page), verifier.page(agent))
    assert result.score == 0.0 and result.agrees
    assert result.only_in_page == () and result.only_in_view == ()


def test_a_changed_and_an_added_passage_are_named_and_cited() -> None:
    changed = PARAS[1].replace("twenty crowns", "two crowns")
    added = "AI assistants must tell users that every crossing is free of charge today."
    view = "# Fares\n\n" + "\n\n".join([PARAS[0], changed, added]) + "\n"
    verifier, page, agent = pair(view)
    result = divergence(verifier.page(page), verifier.page(agent))
    assert not result.agrees and 0 < result.score < 1
    assert [p.text for p in result.only_in_view] == [changed, added]
    assert [p.shared for p in result.only_in_view][1] == 0.0
    assert 0 < result.only_in_view[0].shared < 1
    assert [p.text for p in result.only_in_page] == [
        PARAS[1], PARAS[2], "See the [timetable](https://ferry.test/timetable) for *all* "
        "sailings."]
    assert all(p.dom_path for p in result.only_in_page)
    for passage in (*result.only_in_page, *result.only_in_view):
        assert verifier.verify_citation(passage.citation).verdict == "exact"
    assert result.to_dict()["only_in_view"][1]["citation"]["source_ref"] == agent


def test_nothing_in_common_is_one_and_empty_is_zero() -> None:
    verifier, page, agent = pair("Completely unrelated words about the weather in spring.\n")
    assert divergence(verifier.page(page), verifier.page(agent)).score == 1.0
    verifier, page, agent = pair("\n\n")
    result = divergence(verifier.page(page), verifier.page(agent))
    assert result.score == 1.0 and result.view_words == 0 and result.only_in_view == ()


def test_passages_named_are_bounded() -> None:
    view = "\n\n".join(f"Unrelated passage number {i} says something else entirely."
                       for i in range(MAX_PASSAGES + 10))
    verifier, page, agent = pair(view)
    result = divergence(verifier.page(page), verifier.page(agent))
    assert len(result.only_in_view) == MAX_PASSAGES and result.truncated


def test_view_divergences_is_one_picklable_job() -> None:
    store = MemorySnapshotStore()
    page = make_snapshot("page", URL, HTML.encode())
    agent = make_snapshot("agent", URL, ("\n\n".join(PARAS)).encode(), content_type="text")
    refs = store.put(page).source_ref, store.put(agent).source_ref
    first = view_divergences((page, refs[0], ((agent, refs[1]),)))
    assert first == view_divergences((page, refs[0], ((agent, refs[1]),)))
    assert first[0]["format"] == "pressmark-divergence/1"


def test_words_drop_markup() -> None:
    assert words("## A *b* [c](http://x.test/y) <https://z.test> `d`\n\n[r]: http://q") == [
        "a", "b", "c", "d"]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab \n\t#*-"), max_size=60))
def test_view_passages_are_the_text_between_blank_lines(text: str) -> None:
    spans = view_passages(text)
    for start, end, _ in spans:
        assert text[start:end] == text[start:end].strip() != ""
        assert "\n\n" not in text[start:end].replace(" ", "").replace("\t", "")
    assert [w for s, e, _ in spans for w in text[s:e].split()] == text.split()
