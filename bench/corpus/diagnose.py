"""Why does pressmark score low on a page? The facts to read before guessing.

For each page (``split/id``): pressmark's page kind, selectors and validation from the
evidence packet; precision and recall; where the reference text really lives in the page
(the element whose words best match the reference: its path, tag, id and class); and the
first words pressmark kept that the reference does not have, and the first reference words
it lost. A page is then one of: ``wrong-region`` (little of the output is reference text and
little of the reference is kept), ``fragment`` (what is kept is right but most is lost),
``too-much`` (all kept, and more), ``empty``.

    python bench/corpus/diagnose.py extraction-dev-cleaneval/fin-585 sphinx-flask/api ...
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import lxml.html

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import catalog  # noqa: E402 (beside this file)

_WORD = re.compile(r"\w+")
_LOW = 0.3  # precision or recall under this is "most of it is wrong / lost"
_SKIP = frozenset(("script", "style", "noscript", "template", "head"))


def _words(text: str) -> Counter[str]:
    return Counter(w.lower() for w in _WORD.findall(text))


def _f1(found: Counter[str], truth: Counter[str]) -> tuple[float, float, float]:
    common = sum((found & truth).values())
    p = common / max(1, sum(found.values()))
    r = common / max(1, sum(truth.values()))
    return (2 * p * r / (p + r) if p + r else 0.0), p, r


def _describe(el: lxml.html.HtmlElement) -> str:
    parts = []
    node: lxml.html.HtmlElement | None = el
    while node is not None and len(parts) < 4:  # the last four steps say enough
        label = str(node.tag)
        if node.get("id"):
            label += f"#{node.get('id')}"
        if node.get("class"):
            label += "." + ".".join(node.get("class", "").split()[:2])
        parts.append(label)
        node = node.getparent()
    return " < ".join(parts)


def best_element(html: str, reference: str) -> tuple[str, float]:
    """The element whose words best match the reference (bag-of-words F1), described."""
    root = lxml.html.fromstring(html.encode("utf-8"))
    truth = _words(reference)
    best: tuple[float, str] = (0.0, "")
    counts: dict[lxml.html.HtmlElement, Counter[str]] = {}
    for el in reversed(list(root.iter())):  # children before parents
        if not isinstance(el.tag, str) or el.tag in _SKIP:
            counts[el] = Counter()
            continue
        own = _words(el.text or "")
        for child in el:
            own.update(counts.get(child, Counter()))
            own.update(_words(child.tail or ""))
        counts[el] = own
        score = _f1(own, truth)[0]
        if score > best[0]:
            best = (score, _describe(el))
    return best[1], best[0]


def _diff_words(a: str, b: str, limit: int = 25) -> str:
    """The first words of ``a`` that ``b`` lacks (in order)."""
    have = _words(b)
    out = [w for w in _WORD.findall(a) if have[w.lower()] <= 0][:limit]
    return " ".join(out)


def _scorer() -> Any:
    import importlib.util

    if "extraction_eval" not in sys.modules:
        bench = catalog.shared_bench_dir()
        if bench is None:
            sys.exit("the shared scorer (../shared/bench/extraction_eval.py) was not found")
        spec = importlib.util.spec_from_file_location("extraction_eval",
                                                      bench / "extraction_eval.py")
        assert spec is not None and spec.loader is not None
        sys.modules["extraction_eval"] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules["extraction_eval"]


def diagnose(split: catalog.Split, page: str) -> dict[str, object]:
    from pressmark.markdown import to_markdown

    truth = json.loads((split.path / "ground-truth.json").read_text(encoding="utf-8"))
    reference = truth[page]["articleBody"]
    for cand in (split.path / f"{page}.html", split.path / "html" / f"{page}.html.gz"):
        if cand.is_file():
            raw = cand.read_bytes()
            raw = gzip.decompress(raw) if cand.suffix == ".gz" else raw
            break
    html = raw.decode("utf-8", errors="replace")
    result = to_markdown(html)
    text = _scorer().markdown_to_text(result.markdown)  # scored as the scorer reads it
    ev = result.evidence
    f1, p, r = _f1(_words(text), _words(reference))
    where, fit = best_element(html, reference)
    verdict = ("empty" if not result.markdown.strip() else
               "wrong-region" if p < _LOW and r < _LOW else
               "fragment" if r < _LOW else
               "too-much" if p < 1 - _LOW else "partial")
    return {
        "page": f"{split.name}/{page}", "verdict": verdict, "words_f1": round(f1, 2),
        "precision": round(p, 2), "recall": round(r, 2),
        "page_kind": getattr(ev, "page_kind", None),
        "selectors": list(ev.main_selectors_used)[:2],
        "rules": list(ev.boilerplate_rules_used),
        "validation": list(ev.validation.reasons),
        "reference_lives_in": where, "that_element_fits": round(fit, 2),
        "kept_not_in_reference": _diff_words(text, reference),
        "lost_from_reference": _diff_words(reference, text),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pages", nargs="*", help="split/id")
    args = parser.parse_args()
    splits = {s.name: s for s in catalog.splits()}
    for item in args.pages:
        split, page = item.split("/", 1)
        facts = diagnose(splits[split], page)
        print(json.dumps(facts, ensure_ascii=False))


if __name__ == "__main__":
    main()
