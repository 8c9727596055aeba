"""Main-content selection under stress: the dev pages perturbed the way hold-out pages broke us.

Issue #32 lists how selection failed on pages nobody here tuned for: a 100+ KB header
mega-menu made a long article disappear; a short post beside a long sidebar (author bio,
related-story teasers, a disclaimer) lost to the sidebar; pages without ``<main>`` /
``<article>`` semantics; comment threads kept as content. The dev corpus rarely holds those
shapes, so this bench makes them from its own pages: each page of the chosen sets is
perturbed in a few deterministic, documented ways, and pressmark, trafilatura and
readability-lxml are scored on every variant with the scorer ``extraction_vs_peers.py`` uses
(its page loading, peer cache and scoring are reused: one run, the same pages).

Variants (every one is a round trip of the page through lxml, so "clean" is the control;
"original" is the page as served, to show the round trip itself costs nothing):

- ``clean``: the round trip alone.
- ``megamenu``: a site header (``<header><nav>`` of nested ``ul/li``) with 2,000 to 3,000
  generic category links (about 100-150 KB) as the first child of ``<body>``.
- ``sidebar``: a column of plain ``div``s (no ``aside``, no telling class) holding four to
  six related-story teasers (a headline and the opening ~50 words of *other* pages of the
  same set, each with a "Read more" link), an author bio and a disclaimer (generic English
  prose, ~450 words in all, none of it in the reference) as a sibling just before or after
  the content's column (which side: a hash of the page id): the widest ancestor of the
  content's container whose text is at most 1.5 times as long, and outside any ``article``.
- ``nosemantic``: ``main`` / ``article`` become ``div``; ``role="main"`` and
  ``itemprop="articleBody"`` are dropped.
- ``short``: the article cut after its first ~150-250 reference words (at a paragraph end,
  else a sentence end, else word 200), the DOM cut at the same word, everything after it
  inside the content's container removed; the page chrome stays. The reference is cut the
  same way. Only pages whose reference has more than 300 words.
- ``short+sidebar``: both, the issue's "short post, long sidebar".
- ``comments``: a thread of six to eight reader comments (author line, date, ~50 words of
  another page's prose each, a Reply link; the common ``id="comments"`` markup) after the
  content's container.

The content's container is the deepest element holding 80 % of the page's tokens that lie in
a 4-token shingle of the reference (every page's own text, nothing site-specific). A page the
perturbation cannot be applied to (no container found, the cut word not found) is skipped for
that variant and counted.

Report: F1 (P/R) of the three per variant, per variant and kind, empty outputs, pages whose
F1 drops by more than 0.3 from the clean variant, and the worst pages per variant with
pressmark's evidence (page kind, the selectors it kept, its selection notes).

    python bench/extraction_robustness.py                       # the three shared dev sets
    python bench/extraction_robustness.py --set extraction-dev --variant megamenu --worst 20
    python bench/extraction_robustness.py --corpus               # and bench/corpus splits
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import lxml.html
from lxml import etree

HERE = Path(__file__).resolve().parent
VARIANTS = ("original", "clean", "megamenu", "sidebar", "nosemantic", "short",
            "short+sidebar", "comments")
DROP = 0.3             # a page "drops" when its F1 falls by more than this from clean
CONTAINER_SHARE = 0.8  # the content's container holds this share of the matched tokens
SHORT_MIN, SHORT_AIM, SHORT_MAX = 150, 200, 250  # words kept by ``short``
CUT_WORDS = 6          # the words before the cut, found again in the page to cut it there
SHORT_FROM = 300       # ``short`` applies to references longer than this (words)
COLUMN_GROWTH = 1.5    # the sidebar sits beside the widest ancestor of the container
                       # whose text is at most this many times as long (its column)
SKIP_TAGS = frozenset(("script", "style", "noscript", "template", "head", "title"))


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


peers = _load("pressmark_extraction_vs_peers", HERE / "extraction_vs_peers.py")


# ---------------------------------------------------------------- deterministic material

class Rng:
    """A tiny deterministic generator keyed by text (no global random state, no hash seed)."""

    def __init__(self, key: str) -> None:
        self.state = hashlib.sha256(key.encode()).digest()
        self.pos = 0

    def below(self, n: int) -> int:
        if self.pos + 4 > len(self.state):
            self.state, self.pos = hashlib.sha256(self.state).digest(), 0
        value = int.from_bytes(self.state[self.pos:self.pos + 4], "big")
        self.pos += 4
        return value % n

    def pick(self, items: tuple[str, ...] | list[str]) -> str:
        return items[self.below(len(items))]


_MENU = """Health Beauty Home Garden Food Recipes Travel Style Fitness
Wellness Family Parenting Money Finance Tech Gadgets Cars Pets Kitchen Bath Bedroom Outdoor Decor
Skin Hair Makeup Nutrition Diet Sleep Mind Body Yoga Running Cycling Shoes Bags Jewelry
Gifts Holidays Deals Reviews Guides Ideas Tips Trends Basics Essentials Classics Seasonal
Budget Luxury Easy Quick Healthy Vegan Baking Grilling Desserts Drinks Cleaning Storage
Lighting Furniture Flooring Paint Plants Flowers Lawn Tools Projects Weddings Kids Teens
Seniors Women Men Care Conditions Allergies Heart Vision Dental Hearing Pain Therapy
Vitamins Supplements Remedies Products Brands Sales New Popular Best Top Latest"""
MENU_WORDS = tuple(_MENU.split())

FIRST = ("Alex", "Jordan", "Sam", "Taylor", "Morgan", "Casey", "Robin", "Jamie", "Avery",
         "Riley", "Quinn", "Drew", "Emerson", "Harper", "Logan", "Rowan")
LAST = ("Keller", "Morales", "Whitfield", "Okafor", "Lindqvist", "Brennan", "Castillo",
        "Novak", "Hargrove", "Patel", "Delaney", "Fischer", "Moreau", "Sato", "Ward")
BIO = ("{name} is a senior editor who writes about {a}, {b} and {c}. Before joining the "
       "team in {year}, {p} spent {n} years as a reporter covering local government, "
       "schools and public health for regional newspapers. {P} holds a degree in {field} "
       "and has contributed to several magazines and radio programmes. When not writing, "
       "{p} can usually be found hiking, cooking for friends or volunteering at the "
       "community garden near {q} home. Readers can send tips, corrections and feedback "
       "through the contact page; every message is read, even when there is no time to "
       "answer all of them.")
FIELDS = ("journalism", "history", "biology", "economics", "literature", "public policy")
DISCLAIMER = ("The information on this site is provided for general informational purposes "
              "only and does not constitute professional advice. While we strive to keep "
              "it accurate and up to date, we make no representations or warranties of any "
              "kind about its completeness, reliability or suitability for any purpose. Any "
              "reliance you place on such information is strictly at your own risk. Some of "
              "the links on this page are affiliate links, which means we may earn a small "
              "commission at no extra cost to you if you make a purchase. Opinions "
              "expressed by contributors are their own and do not necessarily reflect the "
              "views of the publisher or its partners.")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")


def _slug(words: list[str]) -> str:
    return "-".join(w.lower() for w in words)


def megamenu(rng: Rng) -> etree._Element:
    """A site header whose navigation holds 2,000-3,000 links in three nested levels."""
    target = 2000 + rng.below(1001)
    header = etree.Element("header")
    nav = etree.SubElement(header, "nav")
    top = etree.SubElement(nav, "ul")
    links = 0
    while links < target:
        cat = [rng.pick(MENU_WORDS)]
        li = etree.SubElement(top, "li")
        etree.SubElement(li, "a", href=f"/{_slug(cat)}/").text = cat[0]
        subs = etree.SubElement(li, "ul")
        links += 1
        for _ in range(8 + rng.below(5)):
            sub = [*cat, rng.pick(MENU_WORDS)]
            sli = etree.SubElement(subs, "li")
            etree.SubElement(sli, "a", href=f"/{_slug(sub)}/").text = " ".join(sub[1:])
            items = etree.SubElement(sli, "ul")
            links += 1
            for _ in range(15 + rng.below(16)):
                words = [rng.pick(MENU_WORDS) for _ in range(1 + rng.below(3))]
                ili = etree.SubElement(items, "li")
                etree.SubElement(ili, "a", href=f"/{_slug(sub)}/{_slug(words)}").text = \
                    " ".join(words)
                links += 1
    return header


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def _opening(text: str, words: int) -> str:
    """The first ``words`` words of a text (whitespace-split, lines joined), without the
    control characters a reference may hold (lxml refuses them)."""
    return " ".join(_NOT_XML.sub("", text).split()[:words])


def _person(rng: Rng) -> str:
    return f"{rng.pick(FIRST)} {rng.pick(LAST)}"


def sidebar(rng: Rng, others: list[str]) -> etree._Element:
    """A column of teaser cards (other pages' openings), an author bio and a disclaimer."""
    col = etree.Element("div", {"class": "col-4"})
    for text in others[:4 + rng.below(3)]:
        card = etree.SubElement(col, "div", {"class": "card"})
        words = text.split()
        title = _opening(" ".join(words), 6 + rng.below(5))
        h3 = etree.SubElement(card, "h3")
        etree.SubElement(h3, "a", href=f"/stories/{rng.below(10**6)}").text = title
        etree.SubElement(card, "p").text = _opening(" ".join(words[12:]), 40 + rng.below(20))
        etree.SubElement(card, "a", href=f"/stories/{rng.below(10**6)}").text = "Read more"
    bio = etree.SubElement(col, "div", {"class": "profile"})
    etree.SubElement(bio, "h3").text = "About the author"
    she = rng.below(2)
    topics = [rng.pick(MENU_WORDS).lower() for _ in range(3)]
    etree.SubElement(bio, "p").text = BIO.format(
        name=_person(rng), a=topics[0], b=topics[1], c=topics[2], year=2005 + rng.below(15),
        n=3 + rng.below(12), field=rng.pick(FIELDS), p="she" if she else "he",
        P="She" if she else "He", q="her" if she else "his")
    etree.SubElement(col, "div", {"class": "note"}).text = DISCLAIMER
    return col


def comments(rng: Rng, others: list[str]) -> etree._Element:
    """A reader comment thread in the common ``id="comments"`` markup."""
    area = etree.Element("div", {"id": "comments", "class": "comments-area"})
    thread = others[:6 + rng.below(3)]
    etree.SubElement(area, "h2").text = f"{len(thread)} Comments"
    ol = etree.SubElement(area, "ol", {"class": "comment-list"})
    for text in thread:
        li = etree.SubElement(ol, "li", {"class": "comment"})
        meta = etree.SubElement(li, "div", {"class": "comment-meta"})
        etree.SubElement(meta, "b").text = _person(rng)
        etree.SubElement(meta, "span").text = " says: "
        etree.SubElement(meta, "time").text = (
            f"{rng.pick(MONTHS)} {1 + rng.below(28)}, {2012 + rng.below(10)} at "
            f"{1 + rng.below(12)}:{rng.below(60):02d} pm")
        body = etree.SubElement(li, "div", {"class": "comment-content"})
        words = text.split()
        etree.SubElement(body, "p").text = _opening(" ".join(words[30:]), 30 + rng.below(40))
        reply = etree.SubElement(li, "div", {"class": "reply"})
        etree.SubElement(reply, "a", href="#respond").text = "Reply"
    return area


# ---------------------------------------------------------------- locating the content

@dataclass(slots=True)
class Token:
    owner: etree._Element       # the element whose text holds it (``tail`` -> its parent)
    node: etree._Element        # the element whose .text or .tail holds it
    field: str                  # "text" or "tail"
    end: int                    # char offset just past it in that string
    matched: bool = False


def _tokens(body: etree._Element) -> list[tuple[str, Token]]:
    out: list[tuple[str, Token]] = []

    def emit(text: str | None, owner: etree._Element, node: etree._Element, fld: str) -> None:
        if text:
            for m in re.finditer(r"\w+", text):
                out.append((m.group(), Token(owner, node, fld, m.end())))

    def walk(el: etree._Element) -> None:
        if isinstance(el.tag, str) and el.tag not in SKIP_TAGS:
            emit(el.text, el, el, "text")
            for child in el:
                walk(child)
                emit(child.tail, el, child, "tail")
        elif not isinstance(el.tag, str):  # a comment: only its tail counts
            pass

    walk(body)
    return out


def _mark(stream: list[tuple[str, Token]], truth: list[str]) -> None:
    shingles = {tuple(truth[i:i + 4]) for i in range(max(1, len(truth) - 3))}
    words = [w for w, _ in stream]
    for i in range(len(words) - 3):
        if tuple(words[i:i + 4]) in shingles:
            for j in range(i, i + 4):
                stream[j][1].matched = True


def container(body: etree._Element, stream: list[tuple[str, Token]]) -> etree._Element | None:
    """The deepest element holding ``CONTAINER_SHARE`` of the matched tokens."""
    counts: Counter[etree._Element] = Counter()
    for _, tok in stream:
        if tok.matched:
            el: etree._Element | None = tok.owner
            while el is not None:
                counts[el] += 1
                if el is body:
                    break
                el = el.getparent()
    total = counts.get(body, 0)
    if not total:
        return None
    best, depth = None, -1
    for el, n in counts.items():
        if n >= CONTAINER_SHARE * total:
            d = sum(1 for _ in el.iterancestors())
            if d > depth:
                best, depth = el, d
    return best


def column(root: etree._Element) -> etree._Element:
    """The page column the content sits in, beside which a real sidebar stands: the widest
    ancestor of ``root`` whose text is at most ``COLUMN_GROWTH`` times as long as its own
    (characters: CJK words are long tokens), and never inside an ``article``."""
    own = len(root.text_content())
    best = root
    for anc in root.iterancestors():
        if anc.tag in ("body", "html") or len(anc.text_content()) > COLUMN_GROWTH * own:
            break
        best = anc
    story = list(best.iterancestors("article"))
    return story[-1] if story else best


def _insert_beside(anchor: etree._Element, new: etree._Element, before: bool) -> None:
    if anchor.tag in ("body", "html") or anchor.getparent() is None:
        if before:
            anchor.insert(0, new)
        else:
            anchor.append(new)
    elif before:
        anchor.addprevious(new)
    else:
        anchor.addnext(new)


def _cut_point(truth: str) -> int | None:
    """Char offset in the reference after its ~150-250th word: a paragraph end, else a
    sentence end, else word 200."""
    spans = [m.span() for m in re.finditer(r"\w+", truth)]
    if len(spans) <= SHORT_FROM:
        return None
    window = range(SHORT_MIN - 1, SHORT_MAX)
    for probe in (lambda gap: "\n" in gap, lambda gap: re.search(r"[.!?。]", gap) is not None):
        for i in window:
            gap = truth[spans[i][1]:spans[i + 1][0]]
            if probe(gap):
                return spans[i][1]
    return spans[SHORT_AIM - 1][1]


def _truncate_at(root: etree._Element, tok: Token) -> None:
    """Cut the text holding ``tok`` just after it; remove everything after it in ``root``."""
    node = tok.node
    setattr(node, tok.field, _NOT_XML.sub("", (getattr(node, tok.field) or "")[:tok.end]))
    if tok.field == "text":  # the word is inside ``node``: its children and tail follow it
        for child in list(node):
            node.remove(child)
        node.tail = None
    while node is not root:  # every later sibling on the way up to ``root`` follows it
        parent = node.getparent()
        for sib in list(node.itersiblings()):
            parent.remove(sib)
        if parent is not root:
            parent.tail = None
        node = parent


def shorten(root: etree._Element, stream: list[tuple[str, Token]], truth: str,
            ) -> str | None:
    """Cut the page after the reference's ~200th word; the cut reference, or None."""
    cut = _cut_point(truth)
    if cut is None:
        return None
    head = re.findall(r"\w+", truth[:cut])
    tail = head[-CUT_WORDS:]
    words = [w for w, _ in stream]
    inside = {id(el) for el in root.iter()}
    hits: list[tuple[int, int]] = []  # (distance from the cut word, stream index)
    seen = 0  # matched tokens inside the container before ``i``
    for i in range(len(words) - len(tail) + 1):
        tok = stream[i][1]
        if words[i:i + len(tail)] == tail and id(tok.owner) in inside:
            hits.append((abs(seen + len(tail) - len(head)), i))
        seen += tok.matched and id(tok.owner) in inside
    if not hits:
        return None
    # the occurrence whose place in the container's matched text is nearest the cut
    # word's place in the reference (a phrase may repeat: a title quoted in the text)
    _truncate_at(root, stream[min(hits)[1] + len(tail) - 1][1])
    return truth[:cut]


def strip_semantics(doc: etree._Element) -> None:
    for el in doc.iter("main", "article"):
        el.tag = "div"
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        if el.get("role") == "main":
            del el.attrib["role"]
        if (el.get("itemprop") or "").strip() == "articleBody":
            del el.attrib["itemprop"]


# ---------------------------------------------------------------- variants

def _parse(html: str) -> etree._ElementTree | None:
    html = re.sub(r"^\s*<\?xml[^>]*\?>", "", html)
    try:
        root = lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return None
    return root.getroottree()


def _serialise(tree: etree._ElementTree) -> str:
    doctype = tree.docinfo.doctype or "<!DOCTYPE html>"
    return doctype + "\n" + lxml.html.tostring(tree.getroot(), encoding="unicode")


def make_variant(name: str, page, others: list[str]) -> tuple[str, str] | None:
    """(html, reference) of the page perturbed by ``name``; None when not applicable."""
    if name == "original":
        return page.html, page.truth
    tree = _parse(page.html)
    if tree is None:
        return None
    doc = tree.getroot()
    body = doc.find("body")
    if body is None:
        return None
    rng = Rng(f"{name}\0{page.split}\0{page.id}")
    truth = page.truth
    if name == "clean":
        return _serialise(tree), truth
    if name == "megamenu":
        body.insert(0, megamenu(rng))
        return _serialise(tree), truth
    if name == "nosemantic":
        strip_semantics(doc)
        return _serialise(tree), truth
    stream = _tokens(body)
    _mark(stream, re.findall(r"\w+", truth))
    root = container(body, stream)
    if root is None:
        return None
    if name.startswith("short"):
        cut = shorten(root, stream, truth)
        if cut is None:
            return None
        truth = cut
    if name.endswith("sidebar"):
        _insert_beside(column(root), sidebar(rng, others), before=bool(rng.below(2)))
    elif name == "comments":
        _insert_beside(root, comments(rng, others), before=False)
    return _serialise(tree), truth


# ---------------------------------------------------------------- run and report

@dataclass(slots=True)
class Row:
    split: str
    id: str
    kind: str
    variant: str
    counts: dict[str, tuple[int, int, int]]
    f1: dict[str, float]
    tokens: dict[str, int]


def _others(pages: list, i: int) -> list[str]:
    """Eight other pages' references from the same split, a fixed stride away."""
    same = [p for p in pages if p.split == pages[i].split and p is not pages[i]]
    if not same:
        return []
    start = int(hashlib.sha256(pages[i].id.encode()).hexdigest()[:8], 16) % len(same)
    return [same[(start + k * 7) % len(same)].truth for k in range(8)
            if len(same[(start + k * 7) % len(same)].truth.split()) > 60]


def run_variant(ev: ModuleType, base: list, name: str, cache) -> tuple[list, int]:
    made = []
    skipped = 0
    for i, page in enumerate(base):
        try:
            out = make_variant(name, page, _others(base, i))
        except ValueError as exc:  # lxml refuses a text the page holds: skipped, and said
            print(f"warning: {name} of {page.split}/{page.id}: {exc}", file=sys.stderr)
            out = None
        if out is None:
            skipped += 1
            continue
        html, truth = out
        raw = html.encode("utf-8")
        made.append(peers.Page(split=page.split, id=page.id, kind=page.kind, lang=page.lang,
                               url=page.url, truth=truth, html=html,
                               digest=hashlib.sha256(raw).hexdigest()))
    peers.extract_all(ev, made, cache)
    return made, skipped


def evidence(html: str) -> str:
    from pressmark.markdown import to_markdown

    res = to_markdown(html)
    e = res.evidence
    sel = ",".join(e.main_selectors_used)[:70]
    notes = ";".join(e.selection_notes)[:60]
    return f"kind={e.page_kind} presence={e.presence_score:.2f} sel={sel} notes={notes}"


def _agg(ev: ModuleType, rows: list[Row], name: str) -> str:
    m = ev.aggregate([r.counts[name] for r in rows])
    return f"{m['f1']:6.3f} ({m['precision']:.3f}/{m['recall']:.3f})"


def report(ev: ModuleType, rows: list[Row], skipped: dict[str, int], worst: int,
           base: list) -> None:
    names = peers.EXTRACTORS
    clean = {(r.split, r.id): r for r in rows if r.variant == "clean"}
    by_var: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_var[r.variant].append(r)
    print("\nper variant: F1 (P/R); empty = outputs with no token; drop = pages whose F1 "
          f"falls > {DROP} from clean")
    print(f"{'variant':<14} {'pages':>5} {'skip':>4}  "
          + "  ".join(f"{n + ' F1 (P/R)':<21}" for n in names)
          + "  " + "  ".join(f"{n[:5]} empty/drop" for n in names))
    for v in VARIANTS:
        rs = by_var.get(v, [])
        if not rs:
            continue
        cells = "  ".join(_agg(ev, rs, n) for n in names)
        tail = []
        for n in names:
            empty = sum(1 for r in rs if r.tokens[n] == 0)
            drop = sum(1 for r in rs if (r.split, r.id) in clean
                       and clean[(r.split, r.id)].f1[n] - r.f1[n] > DROP)
            tail.append(f"{empty:>5}/{drop:<6}")
        print(f"{v:<14} {len(rs):>5} {skipped.get(v, 0):>4}  {cells}  " + "  ".join(tail))
    kinds = sorted({r.kind for r in rows})
    print("\nper variant and kind: F1 pressmark / trafilatura / readability-lxml (pages)")
    print(f"{'variant':<14} " + " ".join(f"{k[:20]:>22}" for k in kinds))
    for v in VARIANTS:
        rs = by_var.get(v, [])
        if not rs:
            continue
        cells = []
        for k in kinds:
            sub = [r for r in rs if r.kind == k]
            if not sub:
                cells.append(f"{'-':>22}")
                continue
            f = [ev.aggregate([r.counts[n] for r in sub])["f1"] for n in names]
            cells.append(f"{f[0]:.3f}/{f[1]:.3f}/{f[2]:.3f}({len(sub):>3})")
        print(f"{v:<14} " + " ".join(cells))
    if worst <= 0:
        return
    for v in VARIANTS:
        if v in ("original", "clean") or v not in by_var:
            continue
        ranked = sorted(by_var[v], key=lambda r: (
            r.f1["pressmark"] - clean[(r.split, r.id)].f1["pressmark"]
            if (r.split, r.id) in clean else r.f1["pressmark"], r.split, r.id))
        print(f"\nworst {worst} for pressmark under {v} (F1 here, clean F1 in brackets; "
              "evidence of this variant)")
        for r in ranked[:worst]:
            c = clean.get((r.split, r.id))
            f1s = " ".join(f"{r.f1[n]:.2f}({c.f1[n] if c else float('nan'):.2f})"
                           for n in names)
            i = next(i for i, p in enumerate(base) if (p.split, p.id) == (r.split, r.id))
            try:
                made = make_variant(v, base[i], _others(base, i))  # deterministic: as scored
            except ValueError:
                made = None
            why = evidence(made[0]) if made else ""
            print(f"  {f1s}  {r.split}/{r.id[:28]} [{r.kind}] tok {r.tokens['pressmark']}"
                  f"\n      {why}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", action="append", dest="sets", metavar="NAME",
                        help="a split by name, repeatable (default: the three shared sets)")
    parser.add_argument("--corpus", action="store_true",
                        help="also the splits gathered under bench/corpus/data")
    parser.add_argument("--variant", action="append", dest="variants", choices=VARIANTS,
                        help="only these variants (clean is always run), repeatable")
    parser.add_argument("--worst", type=int, default=10, help="worst pages listed per variant")
    parser.add_argument("--cache", type=Path, default=None,
                        help="peers' output cache (default: extraction_vs_peers.py's)")
    parser.add_argument("--json", type=Path, help="per-page scores (JSON lines) here")
    args = parser.parse_args()
    bench = peers.catalog.shared_bench_dir()
    if bench is None:
        sys.exit("shared benchmark folder not found (../shared/bench or PRESSMARK_SHARED_BENCH)")
    ev = peers._load("extraction_eval", bench / "extraction_eval.py")
    names = args.sets or (None if args.corpus else list(peers.catalog.SHARED_SETS))
    splits = peers.catalog.splits(names)
    base = peers.load_pages(ev, splits, None)
    cache = peers.PeerCache(args.cache or peers._default_cache())
    variants = [v for v in VARIANTS if not args.variants or v in args.variants or v == "clean"]
    rows: list[Row] = []
    skipped: dict[str, int] = {}
    started = time.perf_counter()
    for v in variants:
        t0 = time.perf_counter()
        made, skipped[v] = run_variant(ev, base, v, cache)
        for p in made:
            rows.append(Row(p.split, p.id, p.kind, v, dict(p.counts),
                            {n: p.f1(ev, n) for n in peers.EXTRACTORS},
                            {n: len(ev.tokenize(p.texts[n])) for n in peers.EXTRACTORS}))
        print(f"  {v}: {len(made)} pages, {skipped[v]} skipped, "
              f"{time.perf_counter() - t0:.0f}s", file=sys.stderr)
    import pressmark

    print(f"== robustness: {len(base)} pages of {len(splits)} set(s) "
          f"({', '.join(s.name for s in splits)}); pressmark {pressmark.__version__}; "
          f"{time.perf_counter() - started:.0f}s")
    report(ev, rows, skipped, args.worst, base)
    if args.json:
        with args.json.open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps({"split": r.split, "id": r.id, "kind": r.kind,
                                     "variant": r.variant, "f1": r.f1,
                                     "tokens": r.tokens}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
