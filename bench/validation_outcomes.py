"""Does validation pass the pages it should and fail the ones it should? Per page kind.

Validation is judged against the reference text of every dev page (the three shared dev
sets and the families under ``bench/corpus``): a page whose Markdown scores F1 >= 0.8
against its reference kept its content (a *good* page), one under 0.5 did not (a *bad*
page; the pages between are counted apart). Then, per kind:

- good pages rejected: validation failed a page that kept its content (its reasons
  listed: every one is a false alarm a user would chase);
- bad pages passed: validation passed a page that lost it (the failures that reach a
  user's index unannounced); of those, the ones whose output is nearly all something
  else than the reference (precision under 0.2: chrome, or another text of the page)
  are listed by name.

And the outputs that are only site chrome (``chrome`` column), whatever validation said:
every line of the Markdown is a line that more than ``CHROME_PAGES`` other pages of the
same set also output (a footer, a navigation bar, a pager), and the output is mostly not
the reference's text (precision under ``ELSEWHERE``: test pages that share their content
repeat it too). Those that passed are listed (issue #33 asks for none).

    python bench/validation_outcomes.py [--set NAME ...] [--json FILE] [--list N]

Run it with another checkout's interpreter to compare versions on the same pages (the
corpus is read from this file's checkout, ``pressmark`` from the interpreter's).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
GOOD = 0.8       # F1 from which a page kept its content
BAD = 0.5        # F1 under which it did not
ELSEWHERE = 0.2  # precision under which the output is mostly not the reference's text
CHROME_PAGES = 3  # other pages of a set that output a line, for it to be the site's chrome


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", dest="sets", metavar="NAME")
    parser.add_argument("--json", type=Path, help="write one JSON line per page here")
    parser.add_argument("--list", type=int, default=10, help="pages listed per group")
    args = parser.parse_args()
    catalog = _load("corpus_catalog", HERE / "corpus" / "catalog.py")
    bench = catalog.shared_bench_dir()
    if bench is None:
        sys.exit("the shared bench folder (extraction_eval.py) was not found beside the checkout")
    ev = _load("extraction_eval", bench / "extraction_eval.py")
    from pressmark.markdown import POLICY_VERSION, to_markdown

    rows: list[dict[str, object]] = []
    lines: list[frozenset[str]] = []  # each row's distinct Markdown lines
    for split in catalog.splits(args.sets):
        truth, paths = ev.load_split(split.path)
        urls = json.loads((split.path / "ground-truth.json").read_text(encoding="utf-8"))
        for page, path in sorted(paths.items()):
            html = ev.read_html_bytes(path).decode("utf-8", errors="replace")
            result = to_markdown(html, url=urls.get(page, {}).get("url") or None)
            tp, fp, fn = ev.page_tp_fp_fn(truth[page], ev.markdown_to_text(result.markdown))
            precision, recall = ev.page_precision(tp, fp, fn), ev.page_recall(tp, fp, fn)
            f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
            rows.append({
                "split": split.name, "page": page, "kind": split.kind(page),
                "f1": round(f1, 4), "precision": round(precision, 4), "recall": round(recall, 4),
                "passed": result.validation.passed, "reasons": list(result.validation.reasons),
                "markdown_chars": len(result.markdown),
            })
            lines.append(frozenset(line.strip() for line in result.markdown.split("\n")
                                   if line.strip()))
    _mark_chrome(rows, lines)
    if args.json is not None:
        with args.json.open("w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
    _report(rows, POLICY_VERSION, args.list)


def _mark_chrome(rows: list[dict[str, object]], lines: list[frozenset[str]]) -> None:
    """``chrome``: the output is made only of lines other pages of its set output too, and
    is mostly not the page's reference."""
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    for row, held in zip(rows, lines, strict=True):
        seen[str(row["split"])].update(held)
    for row, held in zip(rows, lines, strict=True):
        counts = seen[str(row["split"])]
        precision = row["precision"]
        assert isinstance(precision, float | int)
        row["chrome"] = bool(held) and precision < ELSEWHERE \
            and all(counts[line] > CHROME_PAGES for line in held)


def _report(rows: list[dict[str, object]], version: str, listed: int) -> None:
    by_kind: dict[str, list[dict[str, object]]] = defaultdict(list)
    for row in rows:
        by_kind[str(row["kind"])].append(row)
    print(f"validation outcomes, {version}: good = F1 >= {GOOD}, bad = F1 < {BAD}")
    print(f"{'kind':<14}{'pages':>6}{'good':>6}{'rejected':>9}{'bad':>6}{'passed':>8}"
          f"{'elsewhere':>10}{'chrome':>7}{'passed':>7}   rejections of good pages by reason")
    totals: Counter[str] = Counter()
    for kind in sorted(by_kind, key=lambda k: -len(by_kind[k])):
        counts, reasons = _counts(by_kind[kind])
        totals.update(counts)
        print(f"{kind:<14}{len(by_kind[kind]):>6}{counts['good']:>6}{counts['rejected']:>9}"
              f"{counts['bad']:>6}{counts['passed']:>8}{counts['elsewhere']:>10}"
              f"{counts['chrome']:>7}{counts['chrome_passed']:>7}   "
              + ", ".join(f"{r} {n}" for r, n in reasons.most_common()))
    counts, reasons = _counts(rows)
    print(f"{'all':<14}{len(rows):>6}{counts['good']:>6}{counts['rejected']:>9}"
          f"{counts['bad']:>6}{counts['passed']:>8}{counts['elsewhere']:>10}"
              f"{counts['chrome']:>7}{counts['chrome_passed']:>7}   "
          + ", ".join(f"{r} {n}" for r, n in reasons.most_common()))
    for title, keep in (
        ("good pages rejected", lambda r: float(r["f1"]) >= GOOD and not r["passed"]),
        ("bad pages passed, output mostly elsewhere (precision < 0.2)",
         lambda r: float(r["f1"]) < BAD and r["passed"] and float(r["precision"]) < ELSEWHERE),
        ("bad pages passed, the rest", lambda r: float(r["f1"]) < BAD and r["passed"]
         and float(r["precision"]) >= ELSEWHERE),
        ("chrome-only outputs passed", lambda r: bool(r["chrome"]) and r["passed"]),
    ):
        chosen = [r for r in rows if keep(r)]
        print(f"\n{title}: {len(chosen)}")
        for row in sorted(chosen, key=lambda r: (str(r["kind"]), float(r["f1"])))[:listed]:
            print(f"  {row['kind']:<13} {row['split']}/{row['page']}  F1 {row['f1']:.3f} "
                  f"(P {row['precision']:.3f} R {row['recall']:.3f})  "
                  f"{row['markdown_chars']} chars  {' '.join(map(str, row['reasons'])) or '-'}")


def _counts(rows: list[dict[str, object]]) -> tuple[Counter[str], Counter[str]]:
    counts: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for row in rows:
        if row["chrome"]:
            counts["chrome"] += 1
            counts["chrome_passed"] += bool(row["passed"])
        f1 = float(row["f1"])  # type: ignore[arg-type]
        if f1 >= GOOD:
            counts["good"] += 1
            if not row["passed"]:
                counts["rejected"] += 1
                reasons.update(map(str, row["reasons"]))  # type: ignore[call-overload]
        elif f1 < BAD:
            counts["bad"] += 1
            if row["passed"]:
                counts["passed"] += 1
                if float(row["precision"]) < ELSEWHERE:  # type: ignore[arg-type]
                    counts["elsewhere"] += 1
    return counts, reasons


if __name__ == "__main__":
    main()
