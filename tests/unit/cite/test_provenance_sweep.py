"""The block map and chunks hold on the pages of both older shared dev sets, replayed.

Each page is stored as a snapshot, resolved again by its sourceRef and converted from the
replayed snapshot, as ``verify_quote`` does. In the suite every other page of
``extraction-dev`` (63) and ``extraction-dev-readability`` (122) is checked; with
``CI=true`` (or ``PRESSMARK_FULL_SWEEP=1``) every page of both; with
``PRESSMARK_SWEEP_CLEANEVAL=1`` the third set's 727 CleanEval pages as well (older,
messier HTML: a bench run, not yet part of CI).
Every block of each page is checked but those whose content came from the page's
embedded state (their elements are in HTML written from the state, not in the page).
Two properties:

* every chunk's text is the Markdown span it names (max_chars 800, overlap 100);
* every block's DOM path selects, in the replayed snapshot parsed again (the same bounded
  parser the converter uses), an element whose visible text contains the block's reading
  text. The normalisation (``docs/citations.md``): the block's Markdown with its markup
  taken out (``pressmark.cite._views.reading_view``), the element's text with script,
  style and other never-shown elements and hidden subtrees left out and an image read as
  its alt text (the converter's rules), both NFKC-normalised; the element's text, its
  whitespace removed, holds each word of the block in order (what selection pruned
  inside the element, a share button or a hover card in a paragraph, may sit between
  two of them).
"""

from __future__ import annotations

import gzip
import os
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

from pressmark.cite import chunk
from pressmark.cite._views import reading_view
from pressmark.markdown import parse_html, to_markdown
from pressmark.markdown._hidden import HiddenWatch, read_sheet
from pressmark.markdown._tree import Node
from pressmark.snapshot import resolve_source_ref
from pressmark.store import FilesystemSnapshotStore
from pressmark.testing import make_snapshot

REPO = Path(__file__).resolve().parents[3]


def bench_dir() -> Path | None:
    """The shared corpora, beside the checkout or beside a folder holding it (a worktree)."""
    for parent in REPO.parents:
        candidate = parent / "shared" / "bench"
        if (candidate / "extraction-dev").is_dir():
            return candidate
    return None

SETS = ("extraction-dev", "extraction-dev-readability")
FULL = os.environ.get("CI") == "true" or os.environ.get("PRESSMARK_FULL_SWEEP") == "1"
# what the converter never shows (``_tree._DROP``, buttons included)
_NEVER_SHOWN = frozenset((
    "script", "style", "noscript", "template", "head", "title", "meta", "link", "base", "svg",
    "math", "iframe", "frame", "frameset", "object", "embed", "canvas", "audio", "video",
    "source", "track", "param", "map", "area", "select", "option", "optgroup", "button",
    "input", "textarea", "datalist", "output", "progress", "meter", "noembed", "noframes",
    "slot", "dialog"))
_SPACE = re.compile(r"\s+")
# Known, kept visible: the New Zealand infobox, whose cells hold lists the converter
# writes as "- " lines joined by <br> (a table cell holds no list), so the block's text has
# dashes the element's text has not. Strict: a fix must remove the entry.
KNOWN = {("wikipedia-2.html", "table")}


# An element with no style and no parent: the parent's background is left aside (the
# compiled ``HiddenWatch.reason`` takes a ``Node``, not None).
_NO_PARENT = Node("body", {}, None, 0, 0, 0)


def _hidden(node: object, watch: HiddenWatch) -> bool:
    """The converter's own decision (``markdown._hidden``), the parent's background aside."""
    attrs = node.attributes  # type: ignore[attr-defined]
    return watch.reason(node.tag, attrs, _NO_PARENT) is not None  # type: ignore[attr-defined]


_QUOTE_END = object()


def visible_text(node: object, watch: HiddenWatch) -> str:
    out: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if item is _QUOTE_END:
            out.append('"')
            continue
        tag = item.tag  # type: ignore[attr-defined]
        if tag == "-text":
            out.append(item.text_content or "")  # type: ignore[attr-defined]
            continue
        if tag in _NEVER_SHOWN or (tag != "-comment" and _hidden(item, watch)):
            continue
        if tag == "q":  # quotation marks a browser adds around it, as the converter does
            out.append('"')
            stack.append(_QUOTE_END)  # popped once the children are read
        if tag == "img":  # the converter reads an image by its alt text
            out.append(" " + (item.attributes.get("alt") or "") + " ")  # type: ignore[attr-defined]
        children = []
        child = item.child  # type: ignore[attr-defined]
        while child is not None:
            children.append(child)
            child = child.next
        stack.extend(reversed(children))
    return "".join(out)


def squeezed(text: str) -> str:
    return _SPACE.sub("", unicodedata.normalize("NFKC", text))


def words(text: str) -> list[str]:
    return unicodedata.normalize("NFKC", text).split()


def holds(text: str, wanted: list[str]) -> bool:
    """Every word of ``wanted``, in order, in ``text`` (squeezed)."""
    at = 0
    for word in wanted:
        found = text.find(word, at)
        if found < 0:
            return False
        at = found + len(word)
    return True


def _pages() -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of the pages swept: see the module doc."""
    bench = bench_dir()
    if bench is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the shared dev sets are missing (CI=true)")
        pytest.skip("benchmark corpus (../shared/bench) not found")
    for name in SETS:
        pages = sorted((bench / name).glob("*.html"))
        assert len(pages) >= 60
        for path in pages if FULL else pages[::2]:
            yield path.name, path.read_bytes()
    if os.environ.get("PRESSMARK_SWEEP_CLEANEVAL") == "1":
        cleaneval = sorted((bench / "extraction-dev-cleaneval" / "html").glob("*.html.gz"))
        for path in cleaneval:
            yield path.name.removesuffix(".gz"), gzip.decompress(path.read_bytes())


def test_chunks_are_spans_and_block_paths_select_their_text(tmp_path: Path) -> None:
    store = FilesystemSnapshotStore(tmp_path / "store")
    checked = failures = pages = 0
    swept: set[str] = set()
    problems: list[str] = []
    known_seen: set[tuple[str, str]] = set()
    for name, data in _pages():
        swept.add(name)
        ref = store.put(make_snapshot(f"dev:{name}"[:200], f"https://dev.test/{name}",
                                      data)).source_ref
        replayed = resolve_source_ref(store, ref).snapshot
        assert replayed is not None and replayed.content_type == "html", name
        result = to_markdown(replayed.body, url=replayed.url,
                             requested_url=replayed.requested_url)
        markdown = result.markdown
        for piece in chunk(result, max_chars=800, overlap=100):
            start, end = piece.markdown_span
            assert markdown[start:end] == piece.text, name
        if result.evidence.content_source != "dom":
            continue
        pages += 1
        tree = parse_html(replayed.body)[0]
        watch = HiddenWatch(read_sheet([n.text(deep=True) for n in tree.tags("style")]))
        for entry in result.evidence.block_map:
            if entry.kind == "rule":
                continue  # "---" has no text to find
            assert entry.dom_path, (name, entry)
            want = words(reading_view(markdown[entry.start:entry.end]).text)
            if not want:
                continue  # an image alone: nothing the element's text would hold
            checked += 1
            node = tree.css_first(entry.dom_path)
            ok = node is not None and holds(squeezed(visible_text(node, watch)), want)
            if (name, entry.kind) in KNOWN:
                known_seen.add((name, entry.kind)) if not ok else None
                continue
            if not ok:
                failures += 1
                problems.append(f"{name} {entry.kind} {entry.dom_path}: {want[:60]!r}")
    assert pages >= (180 if FULL else 90) and checked > (7_000 if FULL else 3_000)
    assert failures == 0, "\n".join(problems[:20])
    # still failing where swept: remove an entry once it holds
    assert known_seen == {known for known in KNOWN if known[0] in swept}
