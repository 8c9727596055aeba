"""Quality gate: Markdown extraction F1 on both shared dev corpora must not regress.

The floors are pinned together with a digest of the corpus they were measured
on (the scorer's ``corpus_digest``: ids, HTML bytes and ground truth). A changed
corpus fails loudly instead of silently comparing against other pages; raising
a floor is a one-line edit here, lowering one needs a reason in the commit.

Two sets, because one set alone is easy to fit: ``extraction-dev`` (news and
blogs, human ground truth) and ``extraction-dev-readability`` (Mozilla
Readability's test pages, ground truth = Reader View's text, which rewards
keeping the whole body). A selection rule that helps one and hurts the other is
not general.

The corpora live outside the repository (``../shared/bench`` beside the checkout,
else ``/work/shared/bench``); without them the gate is skipped with that reason.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest

from pressmark.markdown import to_markdown

from ._bench import bench_dir, load_eval


@dataclass(frozen=True, slots=True, kw_only=True)
class Floors:
    split: str
    digest: str  # first 16 hex of extraction_eval.corpus_digest
    pages: int
    f1: float
    precision: float
    recall: float


SETS = (
    # pressmark-md/2.5, 2.4 and 2.3 measure as 2.2 did: 0.981 / 0.972 / 0.990;
    # pressmark-md/2.2 measures 0.981 / 0.973 / 0.990 (tag lines and follow prompts go; 2.1:
    # 0.981 / 0.972 / 0.990, figure captions kept; 2.0:
    # 0.981 / 0.973 / 0.989; 1.2: 0.980 / 0.971 / 0.989);
    # trafilatura 2.2.0: 0.969
    Floors(split="extraction-dev", digest="ed7c47e5f5a09cc2", pages=63,
           f1=0.979, precision=0.971, recall=0.987),
    # pressmark-md/2.5 measures as 2.4 (a listing kept changes no page of either set);
    # pressmark-md/2.4 measures 0.9685 / 0.971 / 0.966 (a highlighter's comment token
    # stays in its code block: v8-blog 0.997 -> 1.00; a citation's linked parts are no
    # link cluster: wikipedia-3 0.915 -> 0.922; code listings' links, placeholder
    # anchors, short code blocks weighed as content and short sibling sections change
    # no page of either set, only reference and documentation pages beyond them);
    # pressmark-md/2.3 measures 0.968 / 0.971 / 0.966 (notes the body links to, and what
    # sits between its parts, join it: wikipedia-4 0.77 -> 1.00);
    # pressmark-md/2.2 measures 0.967 / 0.971 / 0.963 (2.1: 0.966 / 0.971 / 0.962; 2.0: 0.962 /
    # 0.970 / 0.955;
    # 1.2: 0.891 / 0.946 / 0.843);
    # trafilatura 2.2.0: 0.931, readability-lxml 0.9: 0.964
    Floors(split="extraction-dev-readability", digest="2bcb1992e13b41d3", pages=122,
           f1=0.963, precision=0.968, recall=0.959),
)


def _load(split: str) -> tuple[object, dict[str, str], dict[str, object]]:
    bench = bench_dir()
    if bench is None or not (bench / split / "ground-truth.json").is_file():
        pytest.skip(f"benchmark corpus not found: expected ../shared/bench/{split} "
                    "beside the checkout (or /work/shared/bench)")
    ev = load_eval(bench)
    truth, paths = ev.load_split(bench / split)
    return ev, truth, paths


@pytest.mark.parametrize("floors", SETS, ids=[s.split for s in SETS])
def test_corpus_is_the_pinned_one(floors: Floors) -> None:
    ev, truth, paths = _load(floors.split)
    digest = ev.corpus_digest(truth, paths)[:16]  # type: ignore[attr-defined]
    assert (digest, len(truth)) == (floors.digest, floors.pages), (
        f"the {floors.split} corpus changed: re-measure and re-pin the floors in this file"
    )


@pytest.mark.parametrize("floors", SETS, ids=[s.split for s in SETS])
def test_f1_floors(floors: Floors) -> None:
    ev, truth, paths = _load(floors.split)
    preds: dict[str, str] = {}
    started = time.perf_counter()
    for key, path in paths.items():
        html = ev.read_html_bytes(path).decode("utf-8", errors="replace")  # type: ignore[attr-defined]
        preds[key] = ev.markdown_to_text(to_markdown(html).markdown)  # type: ignore[attr-defined]
    elapsed = time.perf_counter() - started
    counts, _, _ = ev.score(truth, preds)  # type: ignore[attr-defined]
    m = ev.aggregate(counts)  # type: ignore[attr-defined]
    summary = (f"{floors.split}: F1={m['f1']:.4f} P={m['precision']:.4f} "
               f"R={m['recall']:.4f} in {elapsed:.2f}s")
    assert m["f1"] >= floors.f1, summary
    assert m["precision"] >= floors.precision, summary
    assert m["recall"] >= floors.recall, summary
