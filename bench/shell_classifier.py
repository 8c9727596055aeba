"""How often the shell classifier is wrong: false shells on real pages, missed shells.

The render policy ``on-shell`` renders a page only when
:func:`pressmark.fetch.classify_shell` says its served HTML is a JavaScript shell. A false
shell costs a browser render (and, when the page is short by nature, a render that waits
for content that never comes); a missed shell costs the page's content.

Corpora (every page labelled):

- the dev corpus of every kind of page (``bench/corpus``: the shared extraction dev sets
  beside the checkout and the documentation families gathered here): real pages whose
  content is in their served HTML (each has a reference text taken from it). Every page
  the classifier calls a shell is a false positive; they are listed with their kind.
- the demo site (:class:`pressmark.demo.DemoSite`, answered in process, no socket): its
  shells (``/stories/...``, empty until a script fills them) are the positives, every
  other HTML page it serves (articles, sections, special pages) a negative.
- ``--site DIR`` (repeatable): a directory of a real static site's ``*.html`` (a Sphinx
  build, rustdoc and mdBook output...), all served as plain HTML: negatives.

    python bench/shell_classifier.py [--pages 400] [--site DIR ...] [--show 20] [--json]

Prints, per corpus, pages, false positives and false negatives, and the pages behind
them with the classifier's reason.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from pressmark.demo import DemoSite
from pressmark.demo._http import Request, Response
from pressmark.fetch import classify_shell

HERE = Path(__file__).resolve().parent


def _catalog() -> ModuleType:
    spec = importlib.util.spec_from_file_location("corpus_catalog", HERE / "corpus" / "catalog.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _dev_pages(root: Path) -> Iterator[tuple[str, str]]:
    """(name, html) of every page of one dev set (plain or gzipped files)."""
    folder = root / "html" if (root / "html").is_dir() else root
    for path in sorted(folder.iterdir()):
        if path.name.endswith(".html.gz"):
            data = gzip.decompress(path.read_bytes())
        elif path.name.endswith(".html"):
            data = path.read_bytes()
        else:
            continue
        yield path.name, data.decode("utf-8", "replace")


def _demo_pages(pages: int) -> Iterator[tuple[str, str, bool]]:
    """(path, html, is_shell) of every HTML page the demo site serves with 200."""
    site = DemoSite(pages=pages)
    for page in site.pages:
        request = Request(method="GET", target=page.path, version="HTTP/1.1", headers=(),
                          origin="http://demo.test")
        answer = site.respond(request)
        if not isinstance(answer, Response) or answer.status != 200:
            continue
        if "html" not in (answer.content_type or ""):
            continue
        yield page.path, answer.body.decode("utf-8", "replace"), page.is_shell


def _site_pages(root: Path) -> Iterator[tuple[str, str]]:
    for path in sorted(root.rglob("*.html")):
        yield str(path.relative_to(root)), path.read_text("utf-8", "replace")


_REFRESH = re.compile(r"<meta[^>]+http-equiv=[\"']?refresh", re.IGNORECASE)


def _negatives(pages: Iterator[tuple[str, str]]) -> dict[str, object]:
    """Every page is served complete; a page that only redirects (``<meta refresh>``) is
    counted apart: rendering it follows the redirect, which is no waste."""
    wrong: list[tuple[str, str]] = []
    redirects: list[tuple[str, str]] = []
    count = 0
    for page, html in pages:
        count += 1
        verdict = classify_shell(html)
        if verdict.escalate:
            (redirects if _REFRESH.search(html) else wrong).append((page, verdict.reason))
    return {"pages": count, "positives": 0, "false_positives": wrong, "false_negatives": [],
            "redirect_stubs_rendered": redirects}


def measure(pages: int, sites: list[Path]) -> dict[str, dict[str, object]]:
    results: dict[str, dict[str, object]] = {}
    for split in _catalog().splits():
        found = _negatives(_dev_pages(split.path))
        for label in ("false_positives", "redirect_stubs_rendered"):
            rows = found[label]
            assert isinstance(rows, list)
            found[label] = [(f"{page} [{split.kind(page.split('.html')[0])}]", reason)
                            for page, reason in rows]
        results[split.name] = found
    for site in sites:
        results[f"site:{site.parent.name}/{site.name}"] = _negatives(_site_pages(site))
    fp: list[tuple[str, str]] = []
    fn: list[tuple[str, str]] = []
    count = positives = 0
    for path, html, shell in _demo_pages(pages):
        count += 1
        positives += shell
        verdict = classify_shell(html)
        if verdict.escalate and not shell:
            fp.append((path, verdict.reason))
        elif shell and not verdict.is_shell:
            fn.append((path, verdict.reason))
    results["demo"] = {"pages": count, "positives": positives, "false_positives": fp,
                       "false_negatives": fn}
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=400, help="demo site size")
    parser.add_argument("--site", type=Path, action="append", default=[],
                        help="a directory of a real static site's HTML (negatives)")
    parser.add_argument("--show", type=int, default=20, help="misclassified pages to list")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = measure(args.pages, args.site)
    if args.json:
        json.dump(results, sys.stdout, indent=1)
        print()
        return
    print(f"{'corpus':30} {'pages':>6} {'shells':>6} {'false+':>6} {'false-':>6}"
          f" {'redirect stubs rendered':>24}")
    for name, r in results.items():
        fps, fns = r["false_positives"], r["false_negatives"]
        stubs = r.get("redirect_stubs_rendered", [])
        assert isinstance(fps, list) and isinstance(fns, list) and isinstance(stubs, list)
        print(f"{name:30} {r['pages']:>6} {r['positives']:>6} {len(fps):>6} {len(fns):>6}"
              f" {len(stubs):>24}")
    for name, r in results.items():
        for label in ("false_positives", "false_negatives"):
            rows = r[label]
            assert isinstance(rows, list)
            for page, reason in rows[: args.show]:
                print(f"  {name} {label[:7]}-: {page} ({reason})")


if __name__ == "__main__":
    main()
