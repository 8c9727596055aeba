"""Write a small, realistic crawl output directory for tests and demos of the workbench.

It follows the documented ``pressmark-crawl/1`` format only (``manifest.json``,
``pages.jsonl``, ``store/``, ``markdown/``, ``evidence/``), so whatever the
workbench does with it, it does with a real crawl too. It contains the cases a
reviewer meets: two captures of one source, a redirect with pinned IPs, a
rendered page with warnings, a failed validation, an HTTP error page, a network
error with nothing captured, a 60 KB article, filler pages for pagination, and
(when ``canary_url`` is given) a hostile snapshot whose every trick would
request ``canary_url`` if anything in it ran or loaded.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pressmark.snapshot import RedirectRecord, new_snapshot, source_id_for_url
from pressmark.store import SnapshotStore

ORIGIN = "https://news.example"
_HEADERS = (("content-type", "text/html; charset=utf-8"), ("server", "example"))
_LOREM = (
    "Reviewers read what the crawler captured, compare it with what was extracted, and cite "
    "the exact bytes. Every paragraph here exists so that the page has realistic weight, "
    "with sentences long enough to wrap and a few numbers such as 42, 1999 and 3.14."
)


@dataclass(slots=True)
class SampleCrawl:
    """Where the interesting pages of a sample crawl are (rows in ``pages.jsonl``, from 1)."""

    root: Path
    rows: dict[str, int] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class _Doc:
    html: str
    markdown: str
    provenance: list[dict[str, Any]]
    headings: int
    paragraphs: int


def _document(title: str, blocks: list[tuple[str, str]], *, head: str = "", body: str = "",
              sample_paragraphs: int = 5) -> _Doc:
    """HTML and its Markdown built together, so provenance offsets and CSS paths are exact."""
    parts: list[str] = []
    markdown = ""
    provenance: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()
    for tag, text in blocks:
        counts[tag] += 1
        parts.append(f"<{tag}>{html.escape(text)}</{tag}>")
        prefix = {"h1": "# ", "h2": "## ", "h3": "### "}.get(tag, "")
        if markdown:
            markdown += "\n\n"
        start = len(markdown)
        markdown += prefix + text
        if tag != "p" or counts["p"] <= sample_paragraphs:
            provenance.append({
                "kind": "heading" if tag != "p" else "paragraph",
                "markdown_span": [start, len(markdown)],
                "dom_selector": f"main > article > {tag}:nth-of-type({counts[tag]})",
                "text_preview": text[:80],
            })
    page = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}'
        f"</title>{head}</head><body><header><nav><a href=\"/\">Home</a> <a href=\"/about\">"
        f"About</a></nav></header><main><article>{''.join(parts)}</article></main>"
        f"<footer><p>© News Example</p></footer>{body}</body></html>"
    )
    headings = sum(n for tag, n in counts.items() if tag != "p")
    return _Doc(page, markdown + "\n", provenance, headings, counts["p"])


def _paragraphs(n: int, seed: str) -> list[tuple[str, str]]:
    return [("p", f"{seed} {i + 1}. {_LOREM}") for i in range(n)]


def _hostile(canary: str) -> str:
    c = html.escape(canary.rstrip("/"), quote=True)
    return f"""<!doctype html><html><head><meta charset="utf-8">
<title>Hostile capture</title>
<meta http-equiv="refresh" content="1;url={c}/meta-refresh">
<link rel="stylesheet" href="{c}/link-stylesheet.css">
<link rel="prefetch" href="{c}/link-prefetch">
<link rel="icon" href="{c}/favicon.ico">
<style>@import url("{c}/css-import.css"); body {{ background: url("{c}/css-background.png"); }}
@font-face {{ font-family: x; src: url("{c}/font.woff2"); }} h1 {{ font-family: x; }}</style>
<script>fetch("{c}/script-fetch"); document.title = "PWNED";</script>
<script src="{c}/script-src.js"></script>
</head><body onload="fetch('{c}/body-onload')">
<main><article>
<h1>This capture is hostile</h1>
<p>Every element below tries to contact the canary server.</p>
<img src="{c}/img.png" alt="remote image">
<img src="x" onerror="new Image().src='{c}/img-onerror'" alt="broken">
<iframe src="{c}/iframe"></iframe>
<iframe srcdoc="&lt;iframe src=&quot;{c}/srcdoc-iframe&quot;&gt;&lt;/iframe&gt;"></iframe>
<object data="{c}/object"></object>
<embed src="{c}/embed">
<div id="shadow-host"><template shadowrootmode="open"><iframe src="{c}/shadow-iframe"></iframe>
<object data="{c}/shadow-object"></object><p>inside a shadow root</p></template></div>
<div><template shadowroot="open"><iframe src="{c}/shadowroot-iframe"></iframe></template></div>
<template><template shadowrootmode="closed"><iframe src="{c}/nested-iframe"></iframe>
</template></template>
<video src="{c}/video.mp4" autoplay></video>
<audio src="{c}/audio.mp3" autoplay></audio>
<svg width="10" height="10"><image href="{c}/svg-image.png" width="10" height="10"/></svg>
<p><a id="bait-link" href="{c}/link-click" ping="{c}/link-ping">a tempting link</a></p>
<form action="{c}/form-submit" method="post"><input name="q" value="x">
<button id="bait-submit" type="submit">submit</button></form>
<script>document.body.insertAdjacentHTML("beforeend", '<p id="pwned">script ran</p>');</script>
</article></main></body></html>"""


class _Writer:
    def __init__(self, root: Path, store: SnapshotStore) -> None:
        self.root = root
        self.store = store
        self.lines: list[dict[str, Any]] = []
        for sub in ("markdown", "evidence"):
            (root / sub).mkdir(parents=True, exist_ok=True)

    def page(self, path: str, *, doc: _Doc | None, fetched_at: str, status: int = 200,
             outcome: str = "ok", final_path: str | None = None, rendered: bool = False,
             render_reason: str | None = None, warnings: tuple[str, ...] = (),
             error: dict[str, str] | None = None, validation: dict[str, Any] | None = None,
             redirects: tuple[RedirectRecord, ...] = (), body: str | None = None,
             title: str | None = None, depth: int = 1, store_only: bool = False,
             readiness: dict[str, Any] | None = None) -> dict[str, Any]:
        url = ORIGIN + path
        final_url = ORIGIN + (final_path or path)
        source_id = source_id_for_url(url)
        text = body if body is not None else (doc.html if doc else None)
        ref = None
        if text is not None:
            snapshot = new_snapshot(
                source_id=source_id, requested_url=url, url=final_url, status=status,
                headers=_HEADERS, body=text.encode("utf-8"), fetched_at=fetched_at,
                redirects=redirects, rendered=rendered, warnings=warnings,
            )
            ref = self.store.put(snapshot)
        if store_only:
            return {}
        name = hashlib.sha256(source_id.encode()).hexdigest()[:16] + "-" + (
            re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-") or "index"
        )
        markdown_path = evidence_path = None
        if doc is not None and validation is not None:
            markdown_path = f"markdown/{name}.md"
            evidence_path = f"evidence/{name}.json"
            (self.root / markdown_path).write_text(doc.markdown, encoding="utf-8")
            packet = {
                "url_requested": url,
                "url_final": final_url,
                "needs_render": rendered,
                "presence_score": 0.12 if rendered else 0.91,
                "readiness": readiness,
                "main_selectors_used": ["main > article"],
                "boilerplate_rules_used": ["nav-menu", "footer"],
                "validation": validation,
                "sample_provenance": doc.provenance,
            }
            (self.root / evidence_path).write_text(json.dumps(packet, indent=2), encoding="utf-8")
        record = {
            "url": url, "final_url": final_url, "depth": depth, "status": status if text else None,
            "outcome": outcome, "source_id": source_id,
            "source_ref": ref.source_ref if ref else None,
            "snapshot_sha256": ref.snapshot_sha256 if ref else None,
            "body_hash": ref.body_hash if ref else None,
            "fetched_at": fetched_at, "rendered": rendered, "render_reason": render_reason,
            "title": title, "warnings": list(warnings), "error": error,
            "markdown_path": markdown_path, "evidence_path": evidence_path,
            "validation": None if validation is None else {
                "passed": validation["passed"], "reasons": validation["reasons"]},
            "bytes": len(text.encode("utf-8")) if text else 0,
        }
        self.lines.append(record)
        return record


def _passed(doc: _Doc) -> dict[str, Any]:
    return {"passed": True, "reasons": [],
            "scores": {"markdown_chars": len(doc.markdown), "paragraphs": doc.paragraphs,
                       "headings": doc.headings, "boilerplate_ratio": 0.08}}


def write_sample_crawl(root: Path, store: SnapshotStore, *, canary_url: str | None = None,
                       filler_pages: int = 120) -> SampleCrawl:
    """Write the sample crawl into ``root`` (snapshots go to ``store``)."""
    root.mkdir(parents=True, exist_ok=True)
    w = _Writer(root, store)
    sample = SampleCrawl(root=root)
    t = "2026-11-30T12:{:02d}:{:02d}.000Z"

    def add(key: str, record: dict[str, Any]) -> None:
        sample.rows[key] = len(w.lines)

    home = _document("News Example", [("h1", "News Example"), ("p", "Today's stories."),
                                      ("h2", "Top stories"), *_paragraphs(3, "Story")])
    add("home", w.page("/", doc=home, fetched_at=t.format(0, 1), title="News Example",
                       validation=_passed(home), depth=0))

    old = _document("Election results", [
        ("h1", "Election results"), ("p", "Counting continues in most districts."),
        ("h2", "Turnout"), ("p", "Turnout was 61 percent, slightly below the last vote."),
    ])
    new = _document("Election results", [
        ("h1", "Election results"), ("p", "Counting has finished in all districts."),
        ("h2", "Turnout"), ("p", "Turnout was 63 percent, slightly above the last vote."),
        ("h2", "What happens next"), ("p", "The new council meets on Monday."),
    ])
    w.page("/politics/election", doc=old, fetched_at="2026-11-29T08:00:00.000Z",
           store_only=True)
    add("history", w.page("/politics/election", doc=new, fetched_at=t.format(0, 5),
                          title="Election results", validation=_passed(new)))

    moved = _document("Moved story", [("h1", "Moved story"), *_paragraphs(2, "Moved")])
    add("redirect", w.page(
        "/old-story", doc=moved, final_path="/stories/moved", fetched_at=t.format(0, 9),
        title="Moved story", validation=_passed(moved),
        redirects=(RedirectRecord(301, ORIGIN + "/stories/moved", "93.184.216.34"),),
    ))

    shell = _document("Live scores", [("h1", "Live scores"), *_paragraphs(2, "Score")])
    add("rendered", w.page(
        "/live", doc=shell, fetched_at=t.format(0, 12), title="Live scores", rendered=True,
        render_reason="shell: empty #root", warnings=("readiness: stability window reached",),
        validation=_passed(shell),
        readiness={"passed": True, "reason": "main_selector_text_threshold", "elapsed_ms": 840},
    ))

    thin = _document("Subscribe", [("h1", "Subscribe"), ("p", "Sign up to read more.")])
    add("failed", w.page(
        "/paywalled", doc=thin, fetched_at=t.format(0, 15), title="Subscribe",
        validation={"passed": False,
                    "reasons": ["too-little-text: 43 < 500 chars", "too-few-paragraphs: 1 < 3"],
                    "scores": {"markdown_chars": 43, "paragraphs": 1}},
    ))

    missing = "<!doctype html><title>Not found</title><h1>404 Not Found</h1>"
    add("http_error", w.page(
        "/gone", doc=None, body=missing, fetched_at=t.format(0, 18), status=404,
        outcome="error", title="Not found", error={"kind": "http-error", "message": "HTTP 404"},
    ))
    add("network_error", w.page(
        "/down", doc=None, fetched_at=t.format(0, 20), outcome="error",
        error={"kind": "network-error", "message": "connection refused"},
    ))

    blocks: list[tuple[str, str]] = [("h1", "The long read")]
    for section in range(15):
        blocks.append(("h2", f"Part {section + 1}"))
        blocks.extend(_paragraphs(14, f"Part {section + 1}, paragraph"))
    blocks.extend(_paragraphs(4, "Coda, paragraph"))
    big = _document("The long read", blocks)
    add("big", w.page("/long-read", doc=big, fetched_at=t.format(0, 25), title="The long read",
                      validation=_passed(big)))

    if canary_url:
        hostile = _hostile(canary_url)
        doc = _document("Hostile capture", [("h1", "This capture is hostile")])
        doc = _Doc(hostile, doc.markdown, doc.provenance, 1, 0)
        add("hostile", w.page("/hostile", doc=doc, fetched_at=t.format(0, 30),
                              title="Hostile capture", validation=_passed(doc)))

    for i in range(filler_pages):
        status, outcome = (200, "ok") if i % 10 else (304, "not-modified")
        filler = _document(f"Brief {i + 1}", [("h1", f"Brief {i + 1}"), *_paragraphs(3, "Brief")])
        validation = _passed(filler)
        if i % 17 == 3:
            validation = {"passed": False, "reasons": ["soft-404: 'not found' marker"],
                          "scores": {}}
        w.page(f"/briefs/{i + 1}", doc=filler, fetched_at=t.format(1 + i // 60, i % 60),
               status=status, outcome=outcome, title=f"Brief {i + 1}", validation=validation,
               warnings=("charset: default utf-8",) if i % 7 == 0 else (), depth=2)

    _finish(root, w.lines)
    sample.records = w.lines
    return sample


def _finish(root: Path, lines: list[dict[str, Any]]) -> None:
    with (root / "pages.jsonl").open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line, separators=(",", ":")) + "\n")
    outcomes = Counter(str(line["outcome"]) for line in lines)
    errors = Counter(line["error"]["kind"] for line in lines if line["error"])
    validated = [line["validation"] for line in lines if line["validation"]]
    reasons = Counter(r.split(":")[0] for v in validated for r in v["reasons"])
    manifest = {
        "format": "pressmark-crawl/1",
        "started_at": "2026-11-30T12:00:00.000Z",
        "finished_at": "2026-11-30T12:03:00.000Z",
        "seeds": [ORIGIN + "/"],
        "policy": {"max_pages": 1000, "render": "on-shell"},
        "summary": {
            "pages": len(lines),
            "by_outcome": dict(sorted(outcomes.items())),
            "errors_by_kind": dict(sorted(errors.items())),
            "render_rate": sum(1 for line in lines if line["rendered"]) / len(lines),
            "robots_denied": 0,
            "egress_denied": 0,
            "bytes": sum(line["bytes"] for line in lines),
            "duration_s": 180.0,
            "pages_per_s": len(lines) / 180.0,
            "validation_pass_rate": sum(1 for v in validated if v["passed"]) / len(validated),
            "mean_readiness_ms": 840.0,
            "failure_reasons": dict(sorted(reasons.items())),
        },
        "sitemap": {"documents_read": 1, "urls_discovered": len(lines), "errors": []},
        "complete": True,
    }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")


_WORDS = (
    "harbour", "orchard", "railway", "archive", "bakery", "canal", "kitchen", "market",
    "vineyard", "museum", "bridge", "library", "garden", "festival", "council", "river",
    "tower", "school", "ferry", "quarry", "mill", "lighthouse", "meadow", "station", "theatre",
    "workshop", "forest", "valley", "island", "village", "harvest", "storm", "winter",
    "summer", "record", "ledger", "lantern", "compass", "engine", "signal", "journey",
    "letter", "portrait",
)


def write_markdown_crawl(root: Path, pages: int, *, seed: int = 1) -> list[str]:
    """A crawl directory of ``pages`` pages with Markdown files only (no store), for the
    workbench's search at scale; returns one sentence of each page's Markdown.

    Deterministic for a seed: page ``i`` has a title, a few paragraphs of sentences drawn
    from a small vocabulary plus a unique token (``ref{seed}x{i}``), a validation verdict
    (every seventh page fails with ``too-little-text`` and is short) and a Markdown size.
    """
    import random  # noqa: PLC0415  # tests and the bench only

    rng = random.Random(seed)
    (root / "markdown").mkdir(parents=True, exist_ok=True)
    sentences: list[str] = []
    lines: list[str] = []
    for i in range(1, pages + 1):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 14))]
        sentence = f"The {' '.join(words)} ref{seed}x{i}."
        short = i % 7 == 0
        paragraphs = [sentence] if short else [
            " ".join(f"The {' '.join(rng.choice(_WORDS) for _ in range(12))}."
                     for _ in range(4)) for _ in range(rng.randint(2, 6))]
        if not short:
            paragraphs.insert(rng.randint(0, len(paragraphs)), sentence)
        title = f"{rng.choice(_WORDS).title()} {rng.choice(_WORDS)} {i}"
        name = f"markdown/{i:06d}.md"
        (root / name).write_text(f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n",
                                 encoding="utf-8")
        sentences.append(sentence)
        lines.append(json.dumps({
            "url": f"{ORIGIN}/p/{i}", "final_url": f"{ORIGIN}/p/{i}", "depth": 1,
            "status": 200, "outcome": "ok", "title": title, "rendered": False,
            "warnings": [], "error": None, "markdown_path": name, "evidence_path": None,
            "validation": {"passed": not short,
                           "reasons": ["too-little-text"] if short else []},
            "bytes": 4000 + i, "fetched_at": "2026-01-01T00:00:00.000Z",
        }))
    (root / "pages.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return sentences
