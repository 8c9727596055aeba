"""Rebuild the gathered families of the dev corpus (``data/<family>``) from Debian packages.

Each family is one documentation set from one pinned Debian package (``FAMILIES`` below:
package, version, licence, how the reference text is made). For every page kept, the page's
HTML goes to ``data/<family>/html/<id>.html.gz`` and its reference text to
``data/<family>/ground-truth.json`` (the shared scorer's layout), and its kind and language to
``labels/<family>.json``. At most ``CAP`` pages per family, so no one site weighs much.

The reference is the author's text where the package ships it beside the HTML:
- Sphinx (``_sources/*.rst.txt``): ``rst_text.py`` (docutils, Sphinx directives tolerated and
  their content kept); a ``toctree`` is filled with the table of contents Sphinx rendered.
- texinfo (HTML split by node, and the same manual as Info): the node's Info text, its header
  line and menu markers left out.
- asciidoc (``X.html`` beside ``X.txt``): the source rendered by asciidoctor, as text.
Where the source cannot be had (a translated Sphinx build ships the English sources; DocBook,
javadoc and doxygen builds ship none; a page made by autodoc from code; the generated index and
search pages), the reference is the text of the generator's known content element
(``div[role=main]`` for Sphinx, ``div.chapter``/``div.book`` for DocBook, ``main`` for javadoc,
``div.header`` + ``div.contents`` for doxygen), and the label says ``"reference": "element"``:
a minority of the pages (at most 20 pages for such a family), listed per family in README.md.

    python bench/corpus/build.py [--family NAME ...] [--work DIR]

Needs ``apt-get download`` (Debian's archive), ``dpkg-deb``, ``asciidoctor`` (the Debian
package, 2.0.18), docutils and lxml (``pip install docutils lxml``), and the shared scorer
beside the checkout (its block-text function turns a content element into text exactly as it
scores).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import lxml.html

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import catalog  # noqa: E402 (beside this file; bench/ is no package)
import rst_text  # noqa: E402

CAP = 40  # pages per family at most: no single site may dominate a kind or the corpus
ELEMENT_CAP = 20  # ... and fewer where no source is shipped: those references stay a minority
_SPHINX_MAIN = ("//*[@role='main']", "//div[@class='body']", "//div[contains(@class,'body')]")
_SOURCE_COVERS = 0.5  # a source under half the words of the page's main element lacks them
_TOC_PAGE = 0.5  # a page whose table of contents is over half its text is a listing
_AUTODOC = re.compile(r"^\s*\.\. auto\w+::", re.MULTILINE)


@dataclass(frozen=True, slots=True, kw_only=True)
class Page:
    id: str
    url: str
    html: bytes
    reference: str
    kind: str
    lang: str
    how: str  # "source" or "element"


@dataclass(frozen=True, slots=True, kw_only=True)
class Family:
    name: str
    package: str
    version: str
    licence: str
    lang: str
    root: str  # the documentation's folder inside the package
    build: Callable[[Family, Path, ModuleType], Iterator[Page]]
    extra: tuple[tuple[str, str], ...] = ()  # more packages (name, version) it needs
    pattern: str = "*.html"  # the family's pages among the root's files
    cap: int = CAP  # lower for families whose reference is the content element


def _scorer() -> ModuleType:
    bench = catalog.shared_bench_dir()
    if bench is None:
        sys.exit("the shared scorer (../shared/bench/extraction_eval.py) was not found")
    spec = importlib.util.spec_from_file_location("extraction_eval", bench / "extraction_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _element_text(ev: ModuleType, html: bytes, xpaths: tuple[str, ...]) -> str:
    doc = lxml.html.fromstring(html)
    for xpath in xpaths:
        found = doc.xpath(xpath)
        if found:
            return str(ev.lxml_block_text(found[0]))
    return ""


def _spread(items: list[str], cap: int) -> list[str]:
    """At most ``cap`` items, evenly spread over the sorted list (deterministic)."""
    if len(items) <= cap:
        return items
    step = len(items) / cap
    return [items[int(i * step)] for i in range(cap)]


def _page_id(rel: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", rel.removesuffix(".html"))


def sphinx(family: Family, root: Path, ev: ModuleType) -> Iterator[Page]:
    """A Sphinx build: pages with their ``_sources``; genindex and search by element."""
    html_root = root / family.root
    sources_dir = html_root / "_sources"
    sources: dict[str, str] = {}
    for path in sorted(sources_dir.rglob("*.txt")):
        doc = str(path.relative_to(sources_dir)).removesuffix(".txt").removesuffix(".rst")
        if (html_root / f"{doc}.html").is_file():
            sources[doc] = path.read_text(encoding="utf-8")
    titles = rst_text.titles_of(sources)
    translated = family.lang != "en"  # a translation ships the English sources
    specials = [s for s in ("genindex", "py-modindex", "search")
                if (html_root / f"{s}.html").is_file()]
    docs = _spread(sorted(sources), CAP - len(specials))
    for doc in [*docs, *specials]:
        html = (html_root / f"{doc}.html").read_bytes()
        url = f"file:///{family.root}/{doc}.html"
        kind = {"genindex": "listing", "py-modindex": "listing", "search": "application"}.get(
            doc, "documentation")
        source = sources.get(doc)
        element = _element_text(ev, html, _SPHINX_MAIN)
        reference, how = element, "element"
        if source is not None and not translated and not _AUTODOC.search(source):
            text = _fill_toctrees(rst_text.rst_to_text(source, titles), html, ev)
            # a source that pulls its words from elsewhere (``include``, ``literalinclude``)
            # holds too little of the page to be its reference
            if len(ev.tokenize(text)) >= _SOURCE_COVERS * len(ev.tokenize(element)):
                reference, how = text, "source"
        if kind == "documentation" and _toc_share(reference, html, ev) > _TOC_PAGE:
            kind = "listing"  # a page that is mostly its table of contents
        if reference.strip():
            yield Page(id=_page_id(doc), url=url, html=html, reference=reference, kind=kind,
                       lang=family.lang, how=how)


def _toctrees(html: bytes, ev: ModuleType) -> list[str]:
    doc = lxml.html.fromstring(html)
    wrappers = doc.xpath("//div[contains(@class,'toctree-wrapper')]")
    return [str(ev.lxml_block_text(t)) for t in wrappers]


def _fill_toctrees(text: str, html: bytes, ev: ModuleType) -> str:
    rendered = _toctrees(html, ev)
    parts = text.split(rst_text.TOCTREE_SLOT)
    out = [parts[0]]
    for i, part in enumerate(parts[1:]):
        out.append(rendered[i] if i < len(rendered) else "")
        out.append(part)
    return re.sub(r"\n{3,}", "\n\n", "".join(out)).strip()


def _toc_share(reference: str, html: bytes, ev: ModuleType) -> float:
    toc = sum(len(t) for t in _toctrees(html, ev))
    return toc / max(1, len(reference))


_MENU_ITEMS = 5  # a node with this many menu entries or more ...
_MENU_ITEM_CHARS = 200  # ... and less text than this per entry is a table of contents
_INFO_INDEX_MARK = "\x00\x08[index\x00\x08]"
_INFO_LINE_REF = re.compile(r"\(line\s+\d+\)")
_INFO_NODE = re.compile(r"^File: [^,]+,  Node: ([^,\n]+)", re.MULTILINE)
_INFO_MENU_ITEM = re.compile(r"^\* ([^:\n]+)::\s*", re.MULTILINE)
_INFO_NOTE = re.compile(r"\*[Nn]ote\s+([^:]+)::")


def _texinfo_html_name(node: str) -> str:
    """texinfo's file name for a node: letters and digits kept, a space is '-', any other
    character '_' and its code point in 4 hex digits."""
    out = []
    for char in node:
        if char.isascii() and char.isalnum():
            out.append(char)
        elif char == " ":
            out.append("-")
        else:
            out.append(f"_{ord(char):04x}")
    return "".join(out) + ".html"


_REDIRECT = re.compile(rb'The node you are looking for is at <a href="([^"#]+)')


def texinfo(family: Family, root: Path, ev: ModuleType) -> Iterator[Page]:
    """A texinfo manual in HTML (one file per chapter or per node; the other nodes' files
    redirect to the one that holds them) with the same manual as Info: a page's reference is
    the Info text of the nodes it holds, in order (header lines, menu and cross-reference
    markers out)."""
    info_path = next(root.glob("usr/share/info/*.info.gz"))
    info = gzip.decompress(info_path.read_bytes()).decode("utf-8", errors="replace")
    html_root = root / family.root
    held: dict[str, list[str]] = {}  # HTML file -> the Info text of the nodes it holds
    menus: dict[str, int] = {}
    indexes: set[str] = set()
    for chunk in info.split("\x1f"):
        found = _INFO_NODE.search(chunk)
        if not found:
            continue
        name = _texinfo_html_name(found.group(1).strip())
        if not (html_root / name).is_file():
            continue
        redirect = _REDIRECT.search((html_root / name).read_bytes())
        target = redirect.group(1).decode() if redirect else name
        body = chunk[found.end():].split("\n", 1)[-1]
        if _INFO_INDEX_MARK in body:  # an A-Z index: its entries point at nodes by line
            body = _INFO_LINE_REF.sub("", body.replace(_INFO_INDEX_MARK, ""))
            indexes.add(target)
        menus[target] = menus.get(target, 0) + len(_INFO_MENU_ITEM.findall(body))
        body = _INFO_MENU_ITEM.sub(r"\1 ", body.replace("* Menu:", ""))
        held.setdefault(target, []).append(_INFO_NOTE.sub(r"See \1", body).strip())
    for name in _spread(sorted(held), CAP):
        html = (html_root / name).read_bytes()
        text = "\n\n".join(held[name])
        listing = name in indexes or (
            menus[name] >= _MENU_ITEMS and len(text) < _MENU_ITEM_CHARS * menus[name])
        yield Page(id=_page_id(name), url=f"file:///{family.root}/{name}", html=html,
                   reference=text, kind="listing" if listing else "documentation",
                   lang=family.lang, how="source")


def docbook(family: Family, root: Path, ev: ModuleType) -> Iterator[Page]:
    """A DocBook (XSL) build: no source shipped; reference = the chapter element's text."""
    html_root = root / family.root
    pages = sorted(str(p.relative_to(html_root)) for p in html_root.rglob(family.pattern))
    for rel in _spread(pages, CAP):
        html = (html_root / rel).read_bytes()
        text = _element_text(ev, html, (
            "//div[@class='chapter']", "//div[@class='appendix']", "//div[@class='preface']",
            "//div[@class='book']", "//div[@class='article']", "//div[@class='toc']"))
        kind = "listing" if rel.startswith("index") else "documentation"
        if text.strip():
            yield Page(id=_page_id(rel), url=f"file:///{family.root}/{rel}", html=html,
                       reference=text, kind=kind, lang=family.lang, how="element")


_ASCIIDOC_MISSING = "include file not found"
_LINKGIT = re.compile(r"linkgit:([\w.-]+)\[(\d)\]")


def asciidoc(family: Family, root: Path, ev: ModuleType) -> Iterator[Page]:
    """An asciidoc manual shipped as ``X.html`` beside its source ``X.txt``: the reference is
    the source rendered by asciidoctor (body only, no page header or footer) as text; a page
    whose source includes a file the package does not ship is left out (its reference would
    lack that part). git's ``linkgit:cmd[1]`` macro reads as ``cmd(1)``, as on the page."""
    html_root = root / family.root
    names = sorted(p.stem for p in html_root.glob("*.txt")
                   if (html_root / f"{p.stem}.html").is_file())
    kept: list[tuple[str, str]] = []
    for name in names:
        done = subprocess.run(
            ["asciidoctor", "-s", "-a", "litdd=--", "-a", "apostrophe='", "-o", "-",
             str(html_root / f"{name}.txt")], capture_output=True, text=True, check=False)
        if done.returncode or _ASCIIDOC_MISSING in done.stderr or not done.stdout.strip():
            continue
        body = lxml.html.fromstring(f"<div>{done.stdout}</div>")
        text = _LINKGIT.sub(r"\1(\2)", str(ev.lxml_block_text(body)))
        kept.append((name, text))
    for name, text in [kept[int(i * len(kept) / CAP)] for i in range(min(CAP, len(kept)))]:
        html = (html_root / f"{name}.html").read_bytes()
        yield Page(id=_page_id(name), url=f"file:///{family.root}/{name}.html", html=html,
                   reference=text, kind="documentation", lang=family.lang, how="source")


def _joined_text(ev: ModuleType, html: bytes, xpath: str) -> str:
    doc = lxml.html.fromstring(html)
    return "\n".join(str(ev.lxml_block_text(el)) for el in doc.xpath(xpath))


def _api_pages(html_root: Path, listings: tuple[str, ...], skip: re.Pattern[str],
               cap: int) -> list[tuple[str, str]]:
    """(relative path, kind): the given index pages as listings, then reference pages
    spread over the rest."""
    found = [p for p in listings if (html_root / p).is_file()]
    rest = sorted(str(p.relative_to(html_root)) for p in html_root.rglob("*.html")
                  if not skip.search(str(p.relative_to(html_root))))
    rest = [p for p in rest if p not in found]
    return [(p, "listing") for p in found] + [(p, "documentation")
                                              for p in _spread(rest, cap - len(found))]


_JAVADOC_SKIP = re.compile(r"class-use/|-tree\.html$|help-doc|deprecated-list|constant-values|"
                           r"serialized-form|allclasses\.html|^index\.html$|package-summary")
_DOXYGEN_SKIP = re.compile(r"_source\.html$|-members\.html$|^index\.html$|^(annotated|classes|"
                           r"files|functions|globals|namespaces|namespacemembers|hierarchy|"
                           r"pages|modules|deprecated|todo)[\w_-]*\.html$|^dir_")


def javadoc(family: Family, root: Path, ev: ModuleType) -> Iterator[Page]:
    """A javadoc build (no source shipped): reference = the text of ``main``; the indexes
    (A-Z, all classes, all packages, a package summary) are listings."""
    html_root = root / family.root
    summaries = sorted(str(p.relative_to(html_root))
                       for p in html_root.rglob("package-summary.html"))
    listings = ("index-all.html", "allclasses-index.html", "allpackages-index.html",
                *summaries[:3])
    for rel, kind in _api_pages(html_root, listings, _JAVADOC_SKIP, family.cap):
        html = (html_root / rel).read_bytes()
        text = _joined_text(ev, html, "//main")
        if text.strip():
            yield Page(id=_page_id(rel), url=f"file:///{family.root}/{rel}", html=html,
                       reference=text, kind=kind, lang=family.lang, how="element")


def doxygen(family: Family, root: Path, ev: ModuleType) -> Iterator[Page]:
    """A doxygen build (no source shipped): reference = the text of ``div.header`` and
    ``div.contents``; the class, file and member indexes are listings."""
    html_root = root / family.root
    listings = ("annotated.html", "classes.html", "files.html", "functions.html",
                "namespacemembers.html", "hierarchy.html")
    for rel, kind in _api_pages(html_root, listings, _DOXYGEN_SKIP, family.cap):
        html = (html_root / rel).read_bytes()
        text = _joined_text(ev, html, "//div[@class='header'] | //div[@class='contents']")
        if text.strip():
            yield Page(id=_page_id(rel), url=f"file:///{family.root}/{rel}", html=html,
                       reference=text, kind=kind, lang=family.lang, how="element")


_DEVREF = "usr/share/developers-reference/{}"
FAMILIES = (
    Family(name="sphinx-debian-policy", package="debian-policy", version="4.6.2.0",
           licence="GPL-2+ (Debian Policy Manual; debian/copyright)", lang="en",
           root="usr/share/doc/debian-policy/policy.html", build=sphinx),
    Family(name="sphinx-flask", package="python-flask-doc", version="2.2.2-3",
           licence="BSD-3-clause (Flask; debian/copyright)", lang="en",
           root="usr/share/doc/python-flask-doc/html", build=sphinx),
    Family(name="sphinx-requests", package="python-requests-doc", version="2.28.1+dfsg-1",
           licence="Apache-2.0 (Requests; debian/copyright)", lang="en",
           root="usr/share/doc/python-requests-doc/html", build=sphinx),
    Family(name="sphinx-sphinx", package="sphinx-doc", version="5.3.0-4",
           licence="BSD-2-clause (Sphinx; debian/copyright)", lang="en",
           root="usr/share/doc/sphinx-doc/html", build=sphinx),
    *(Family(name=f"sphinx-devref-{lang}", package=f"developers-reference-{lang}",
             version="12.18", licence="MIT (Debian Developer's Reference; debian/copyright)",
             lang=lang, root=_DEVREF.format(lang), build=sphinx)
      for lang in ("de", "fr", "it", "ja")),
    Family(name="texinfo-diffutils", package="diffutils-doc", version="1:3.8-4",
           licence="GFDL-1.3+ (GNU Diffutils manual; debian/copyright)", lang="en",
           root="usr/share/doc/diffutils", build=texinfo, extra=(("diffutils", "1:3.8-4"),)),
    *(Family(name=f"docbook-debian-reference-{lang}", package=f"debian-reference-{lang}",
             version="2.100", licence="GPL-2+ (Debian Reference; debian/copyright)",
             lang=lang.split("-")[0], root="usr/share/debian-reference",
             pattern=f"*.{lang}.html", build=docbook)
      for lang in ("es", "zh-cn")),
    Family(name="asciidoc-git", package="git-doc", version="1:2.39.5-0+deb12u3",
           licence="GPL-2 (Git documentation; debian/copyright)", lang="en",
           root="usr/share/doc/git-doc", build=asciidoc),
    Family(name="javadoc-commons-io", package="libcommons-io-java-doc", version="2.11.0-2",
           licence="Apache-2.0 (Apache Commons IO; debian/copyright)", lang="en",
           root="usr/share/doc/libcommons-io-java/api", build=javadoc, cap=ELEMENT_CAP),
    Family(name="doxygen-jsoncpp", package="libjsoncpp-doc", version="1.9.5-4",
           licence="MIT or public domain (JsonCpp; debian/copyright)", lang="en",
           root="usr/share/doc/libjsoncpp-doc", build=doxygen, cap=ELEMENT_CAP),
    Family(name="sphinx-werkzeug", package="python-werkzeug-doc", version="2.2.2-3+deb12u1",
           licence="BSD-3-clause (Werkzeug; debian/copyright)", lang="en",
           root="usr/share/doc/python-werkzeug-doc/html", build=sphinx),
)


def _fetch(work: Path, package: str, version: str) -> Path:
    """The package's files, extracted under ``work/<package>`` (downloaded once)."""
    target = work / package
    if not target.is_dir():
        subprocess.run(["apt-get", "download", f"{package}={version}"], cwd=work, check=True,
                       stdout=subprocess.DEVNULL)
        deb = next(work.glob(f"{package}_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(target)], check=True)
    return target


def _write(family: Family, pages: list[Page]) -> None:
    folder = catalog.DATA / family.name
    (folder / "html").mkdir(parents=True, exist_ok=True)
    for old in (folder / "html").glob("*.html.gz"):
        old.unlink()
    truth: dict[str, dict[str, str]] = {}
    labels: dict[str, dict[str, str]] = {}
    for page in pages:
        data = gzip.compress(page.html, compresslevel=9, mtime=0)  # mtime 0: same bytes
        (folder / "html" / f"{page.id}.html.gz").write_bytes(data)
        truth[page.id] = {"articleBody": page.reference, "url": page.url}
        labels[page.id] = {"kind": page.kind, "lang": page.lang, "reference": page.how}
    (folder / "ground-truth.json").write_text(
        json.dumps(truth, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    lines = [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False, sort_keys=True)}"
             for k, v in sorted(labels.items())]
    (catalog.LABELS / f"{family.name}.json").write_text(
        "{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--family", action="append", help="only this family (repeatable)")
    parser.add_argument("--work", type=Path, help="download folder (kept; default: temporary)")
    args = parser.parse_args()
    ev = _scorer()
    chosen = [f for f in FAMILIES if not args.family or f.name in args.family]
    with tempfile.TemporaryDirectory(prefix="pressmark-corpus-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for family in chosen:
            root = _fetch(work, family.package, family.version)
            for name, version in family.extra:
                extra = _fetch(work, name, version)
                subprocess.run(["cp", "-a", f"{extra}/.", str(root)], check=True)
            pages = sorted(family.build(family, root, ev), key=lambda p: p.id)
            _write(family, pages)
            how = sum(p.how == "source" for p in pages)
            print(f"{family.name}: {len(pages)} pages ({how} with the source as reference)")


if __name__ == "__main__":
    main()
