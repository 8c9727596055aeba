"""Main-content extraction: pressmark vs trafilatura vs readability-lxml, one run, every kind.

Quality: every page of the dev corpus (the three shared dev sets found beside the checkout,
and the families gathered from packages under ``bench/corpus/data``; see
``bench/corpus/README.md``) is extracted by the three and scored with the shared scorer
(``../shared/bench/extraction_eval.py``: 4-token shingles, per-page P/R, F1 of the means;
Markdown stripped to text). The report gives F1 (P/R) per set, per page kind
(``bench/corpus/KINDS.md``), per language (where enough pages) and overall, then the worst
pages of each kind for pressmark with every extractor's F1 beside them, to debug from.

The peers' outputs are cached, keyed by (page digest, peer and its version), in a cache dir
outside the repository (``--cache``; default ``$XDG_CACHE_HOME/pressmark/extraction-peers``):
after the first run a quality pass costs pressmark's extraction alone (seconds).

Timing (unless ``--quality-only``): on the timing sets (default: ``extraction-dev`` and
``extraction-dev-readability``) the extraction calls are timed in this process,
interleaved page by page, so the ratio compares like with like. pressmark is also timed
end to end through ``pressmark md --batch`` (process start-up included), each run paired
with trafilatura passes just before it (``bench/_extraction_timing.py`` says how).

    python bench/extraction_vs_peers.py --quality-only                  # all sets, cached peers
    python bench/extraction_vs_peers.py --quality-only --set extraction-dev-cleaneval \\
        --kind listing --worst 20 --keep-outputs /tmp/out               # debug one kind
    python bench/extraction_vs_peers.py [--no-cli] [--repeat N]         # quality + timing
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
EXTRACTORS = ("pressmark", "trafilatura", "readability-lxml")
PEERS = {"trafilatura": "trafilatura", "readability-lxml": "readability"}  # name -> scorer's
MIN_LANG_PAGES = 10  # a language with fewer pages gets no row of its own: its F1 is noise


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


catalog = _load("pressmark_corpus_catalog", HERE / "corpus" / "catalog.py")


@dataclass(slots=True)
class Page:
    split: str
    id: str
    kind: str
    lang: str
    url: str
    truth: str
    html: str
    digest: str  # sha256 of the page bytes: the peers' cache key
    texts: dict[str, str] = field(default_factory=dict)  # extractor -> scored text
    counts: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # tp, fp, fn

    def f1(self, ev: ModuleType, name: str) -> float:
        tp, fp, fn = self.counts[name]
        p = ev.page_precision(tp, fp, fn) if tp + fp else 0.0
        r = ev.page_recall(tp, fp, fn)
        return 2 * p * r / (p + r) if p + r else 0.0


def load_pages(ev: ModuleType, splits: list, kinds: set[str] | None) -> list[Page]:
    pages: list[Page] = []
    for split in splits:
        gt = json.loads((split.path / "ground-truth.json").read_text(encoding="utf-8"))
        truth, paths = ev.load_split(split.path)
        for key, path in paths.items():
            if kinds and split.kind(key) not in kinds:
                continue
            raw = ev.read_html_bytes(path)
            pages.append(Page(split=split.name, id=key, kind=split.kind(key),
                              lang=split.lang(key), url=gt[key].get("url") or "",
                              truth=truth[key], html=raw.decode("utf-8", errors="replace"),
                              digest=hashlib.sha256(raw).hexdigest()))
    return pages


class PeerCache:
    """A peer's text for a page, kept on disk under (peer, version, page digest).

    The version is part of the key, so upgrading trafilatura re-extracts instead of
    comparing against the old release's output.
    """

    def __init__(self, root: Path | None) -> None:
        self.root = root

    def _path(self, peer: str, version: str, digest: str) -> Path:
        assert self.root is not None
        return self.root / f"{peer}-{version}" / digest[:2] / f"{digest}.txt"

    def get(self, peer: str, version: str, digest: str) -> str | None:
        if self.root is None:
            return None
        path = self._path(peer, version, digest)
        return path.read_text(encoding="utf-8") if path.is_file() else None

    def put(self, peer: str, version: str, digest: str, text: str) -> None:
        if self.root is None:
            return
        path = self._path(peer, version, digest)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)


def _default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pressmark" / "extraction-peers"


def pressmark_fn() -> Callable[[str], str]:
    from pressmark.markdown import to_markdown

    return lambda html: to_markdown(html).markdown


def extract_all(ev: ModuleType, pages: list[Page], cache: PeerCache) -> dict[str, float]:
    """Fill every page's texts; returns each extractor's CPU seconds spent here (the
    peers' only for pages not in the cache)."""
    spent: dict[str, float] = dict.fromkeys(EXTRACTORS, 0.0)
    pm = pressmark_fn()
    for i, page in enumerate(pages):
        started = time.process_time()
        try:
            page.texts["pressmark"] = ev.markdown_to_text(pm(page.html))
        except Exception as exc:  # a crash is an empty page here, and said so
            print(f"warning: pressmark failed on {page.split}/{page.id}: {exc!r}"[:300],
                  file=sys.stderr)
            page.texts["pressmark"] = ""
        spent["pressmark"] += time.process_time() - started
        if i and i % 200 == 0:
            print(f"  ... {i}/{len(pages)} pages", file=sys.stderr)
    for name, scorer_name in PEERS.items():
        factory, dist, _ = ev.EXTRACTORS[scorer_name]
        version = ev.dist_version(dist)
        fn: Callable[[str], str] | None = None
        for page in pages:
            text = cache.get(scorer_name, version, page.digest)
            if text is None:
                fn = fn or factory()
                started = time.process_time()
                try:
                    text = fn(page.html) or ""
                except Exception:  # the scorer counts a peer's crash as empty output
                    text = ""
                spent[name] += time.process_time() - started
                cache.put(scorer_name, version, page.digest, text)
            page.texts[name] = text
    for page in pages:
        for name in EXTRACTORS:
            page.counts[name] = ev.page_tp_fp_fn(page.truth, page.texts[name])
    return spent


def _cells(ev: ModuleType, pages: list[Page]) -> str:
    out = []
    for name in EXTRACTORS:
        m = ev.aggregate([p.counts[name] for p in pages])
        out.append(f"{m['f1']:6.3f} ({m['precision']:.3f}/{m['recall']:.3f})")
    return "  ".join(out)


def _table(ev: ModuleType, title: str, groups: Iterable[tuple[str, list[Page]]]) -> None:
    print(f"\n{title}")
    print(f"{'':<34} {'pages':>5}  " + "  ".join(f"{n + ' F1 (P/R)':<21}" for n in EXTRACTORS))
    for label, pages in groups:
        if pages:
            print(f"{label:<34} {len(pages):>5}  {_cells(ev, pages)}")


def _grouped(pages: list[Page], key: Callable[[Page], str]) -> dict[str, list[Page]]:
    groups: dict[str, list[Page]] = defaultdict(list)
    for page in pages:
        groups[key(page)].append(page)
    return groups


def report(ev: ModuleType, pages: list[Page], worst: int) -> None:
    by_split = _grouped(pages, lambda p: p.split)
    _table(ev, "per set", by_split.items())
    kinds = _grouped(pages, lambda p: p.kind)
    order = [k for k in (*catalog.KINDS, "unlabelled") if k in kinds]
    _table(ev, "per kind (all sets pooled)", ((k, kinds[k]) for k in order))
    langs = _grouped(pages, lambda p: p.lang)
    common = sorted((k for k, v in langs.items() if len(v) >= MIN_LANG_PAGES),
                    key=lambda k: -len(langs[k]))
    rare = [p for k, v in langs.items() if len(v) < MIN_LANG_PAGES for p in v]
    rows = [(k, langs[k]) for k in common]
    if rare:
        rows.append((f"{len({p.lang for p in rare})} other languages", rare))
    _table(ev, f"per language (a row from {MIN_LANG_PAGES} pages)", rows)
    _table(ev, "overall", [("all pages", pages)])
    if worst <= 0:
        return
    print(f"\nworst {worst} pages per kind for pressmark (page F1; tokens: reference/pressmark)")
    for kind in order:
        ranked = sorted(kinds[kind], key=lambda p: (
            p.f1(ev, "pressmark"), -max(p.f1(ev, n) for n in PEERS), p.split, p.id))
        print(f"-- {kind} ({len(kinds[kind])} pages)")
        print(f"   {'pm':>5} {'traf':>5} {'read':>5} {'tokens':>11}  split/id  url")
        for p in ranked[:worst]:
            f1s = " ".join(f"{p.f1(ev, n):5.2f}" for n in EXTRACTORS)
            tokens = f"{len(ev.tokenize(p.truth))}/{len(ev.tokenize(p.texts['pressmark']))}"
            print(f"   {f1s} {tokens:>11}  {p.split}/{p.id[:40]}  {p.url[:60]}")


def write_json(ev: ModuleType, pages: list[Page], path: Path) -> None:
    rows = []
    for p in pages:
        row: dict[str, object] = {"split": p.split, "id": p.id, "kind": p.kind, "lang": p.lang,
                                  "url": p.url, "reference_tokens": len(ev.tokenize(p.truth))}
        for name in EXTRACTORS:
            tp, fp, fn = p.counts[name]
            row[name] = {"f1": round(p.f1(ev, name), 4), "tp": tp, "fp": fp, "fn": fn,
                         "tokens": len(ev.tokenize(p.texts[name]))}
        rows.append(row)
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n",
                    encoding="utf-8")


def keep_outputs(pages: list[Page], root: Path) -> None:
    """Each page's reference and every extractor's scored text, side by side, for reading
    why a page scores as it does (outside the repository: the shared sets may not be
    copied into it)."""
    for p in pages:
        folder = root / p.split / p.kind
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{p.id}.reference.txt").write_text(p.truth, encoding="utf-8")
        for name in EXTRACTORS:
            (folder / f"{p.id}.{name}.txt").write_text(p.texts[name], encoding="utf-8")


def timing(ev: ModuleType, bench: Path, split, args: argparse.Namespace) -> None:
    import _extraction_timing as tm  # beside this file; never imported by --quality-only

    truth, paths = ev.load_split(split.path)
    htmls = {k: ev.read_html_bytes(p).decode("utf-8", errors="replace") for k, p in paths.items()}
    print(f"\n== timing: {split.name} ({len(htmls)} pages, sha256 "
          f"{ev.corpus_digest(truth, paths)[:16]})")
    fns = [pressmark_fn(), ev.EXTRACTORS["trafilatura"][0](), ev.EXTRACTORS["readability"][0]()]
    _, times = tm.time_interleaved(fns, htmls, args.repeat)
    base = times[0]
    print(f"{'extractor':<18} {'ms/page':>8} {'x slower':>9}   (CPU time of the extraction calls)")
    for name, ms in zip(EXTRACTORS, times, strict=True):
        print(f"{name:<18} {ms:8.2f} {ms / base:9.1f}")
    print(f"speed: pressmark is {times[1] / base:.1f}x faster than trafilatura (CPU time per page)")
    if args.no_cli:
        return
    # paired with trafilatura run by run (see time_cli_paired); two settings: the default
    # (auto: a worker per core once there are enough pages) and one process, the CPU floor
    paired = tm.time_cli_paired(paths, htmls, fns[1], args.repeat, bench)
    peer_cmd_ms, _, peer_cmd_ratio, _ = paired.pop("peer-cmd")
    for jobs, (cpu, wall, warm, first) in paired.items():
        print(f"pressmark md --batch --jobs {jobs:<4} (process start-up included): "
              f"{cpu:5.2f} ms/page CPU, {wall:5.2f} ms/page wall; trafilatura in the "
              f"same minute: {first:.1f}x the CLI's CPU on a first pass in a fresh "
              f"process (as the shared harness runs it), {warm:.1f}x on another pass in "
              f"this one (median of {args.repeat})")
    print(f"like for like, both as commands (start-up included on both sides): "
          f"trafilatura {peer_cmd_ms:5.2f} ms/page CPU, {peer_cmd_ratio:.1f}x pressmark "
          f"md --batch --jobs 1 run just after it (median of {args.repeat})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", action="append", dest="sets", metavar="NAME",
                        help="a split by name, repeatable (default: every split found)")
    parser.add_argument("--data", type=Path, action="append", default=[], metavar="DIR",
                        help="an extra split dir in the scorer's layout (unlabelled unless "
                             "bench/corpus/labels has its name)")
    parser.add_argument("--kind", action="append", dest="kinds", choices=catalog.KINDS,
                        help="only pages of this kind, repeatable")
    parser.add_argument("--quality-only", action="store_true",
                        help="scores only: no timing, no CLI runs")
    parser.add_argument("--timing-set", action="append", metavar="NAME",
                        help="split(s) to time (default: extraction-dev, "
                             "extraction-dev-readability)")
    parser.add_argument("--repeat", type=int, default=1, help="timing passes (best is kept)")
    parser.add_argument("--no-cli", action="store_true", help="skip the end-to-end CLI timing")
    parser.add_argument("--cache", type=Path, default=None,
                        help=f"peers' output cache (default {_default_cache()})")
    parser.add_argument("--no-cache", action="store_true", help="re-run the peers every time")
    parser.add_argument("--worst", type=int, default=10, help="worst pages listed per kind")
    parser.add_argument("--json", type=Path, help="write per-page scores (JSON lines) here")
    parser.add_argument("--keep-outputs", type=Path, metavar="DIR",
                        help="write each page's reference and outputs here (outside the repo)")
    args = parser.parse_args()
    bench = catalog.shared_bench_dir()
    if bench is None:
        sys.exit("shared benchmark folder not found: expected ../shared/bench beside the "
                 "checkout (or set PRESSMARK_SHARED_BENCH)")
    ev = _load("extraction_eval", bench / "extraction_eval.py")
    splits = catalog.splits(args.sets)
    for extra in args.data:
        splits.append(catalog.Split(name=extra.resolve().name, path=extra, shared=False,
                                    labels=catalog.load_labels(extra.resolve().name)))
    cache = PeerCache(None if args.no_cache else (args.cache or _default_cache()))
    pages = load_pages(ev, splits, set(args.kinds) if args.kinds else None)
    if not pages:
        sys.exit("no pages selected")
    started = time.perf_counter()
    spent = extract_all(ev, pages, cache)
    import pressmark
    from pressmark.markdown import POLICY_VERSION

    versions = ", ".join(f"{n} {ev.dist_version(ev.EXTRACTORS[s][1])}" for n, s in PEERS.items())
    print(f"== quality: {len(pages)} pages of {len(splits)} set(s); pressmark "
          f"{pressmark.__version__} ({POLICY_VERSION}), {versions}; "
          f"{time.perf_counter() - started:.1f}s (pressmark CPU {spent['pressmark']:.1f}s, "
          f"peers not cached {sum(spent[n] for n in PEERS):.1f}s)")
    for split in splits:
        truth, paths = ev.load_split(split.path)
        print(f"   {split.name}: sha256 {ev.corpus_digest(truth, paths)[:16]}")
    report(ev, pages, args.worst)
    if args.json:
        write_json(ev, pages, args.json)
    if args.keep_outputs:
        keep_outputs(pages, args.keep_outputs)
    if args.quality_only:
        return
    names = args.timing_set or ["extraction-dev", "extraction-dev-readability"]
    for split in catalog.splits(names):
        timing(ev, bench, split, args)


if __name__ == "__main__":
    main()
