"""Byte-identical output across processes and hash seeds, and a no-crash sweep over
every page we have (the shared benchmark corpus and the demo site)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pressmark.markdown import MarkdownError, to_markdown

from ._bench import bench_dir

GOLDEN = Path(__file__).parent / "golden"

_DIGEST_SCRIPT = """
import hashlib, sys
from pathlib import Path
from pressmark.markdown import to_markdown
h = hashlib.sha256()
for name in sys.argv[1:]:
    r = to_markdown(Path(name).read_text(encoding="utf-8"), url="https://example.test/a/b")
    h.update(r.markdown.encode() + b"\\0" + r.to_json().encode() + b"\\0")
print(h.hexdigest())
"""


def _pages() -> list[Path]:
    pages = sorted(GOLDEN.glob("*.html"))
    bench = bench_dir()
    if bench is not None:
        pages += sorted((bench / "extraction-dev").glob("*.html"))[:12]
    return pages


def test_same_bytes_across_processes_and_hash_seeds() -> None:
    files = [str(p) for p in _pages()]
    digests = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", _DIGEST_SCRIPT, *files], env=env,
                             capture_output=True, text=True, check=True, timeout=120)
        digests.add(out.stdout.strip())
    local = hashlib.sha256()
    for name in files:
        r = to_markdown(Path(name).read_text(encoding="utf-8"), url="https://example.test/a/b")
        local.update(r.markdown.encode() + b"\0" + r.to_json().encode() + b"\0")
    digests.add(local.hexdigest())
    assert len(digests) == 1


def _compiled() -> bool:
    from pressmark.markdown import _tree

    return not (_tree.__file__ or "").endswith(".py")


@pytest.mark.skipif(not _compiled(), reason="pure-Python install: nothing compiled to compare")
def test_compiled_modules_give_the_pure_python_bytes(tmp_path: Path) -> None:
    """The mypyc build and the C screen are optimisations only: the same source, interpreted
    (the screen by its regular expressions), gives the same Markdown and evidence for
    every golden page and a dozen dev pages."""
    import shutil

    import pressmark

    shutil.copytree(Path(pressmark.__file__).parent, tmp_path / "pressmark",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    script = ("import pressmark.markdown._tree as t; assert t.__file__.endswith('.py')\n"
              "import pressmark.markdown._screen as s; assert s.NATIVE is None\n")  # regex pass
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    files = [str(p) for p in _pages()]
    out = subprocess.run([sys.executable, "-c", script + _DIGEST_SCRIPT, *files], env=env,
                         capture_output=True, text=True, check=True, timeout=120)
    local = hashlib.sha256()
    for name in files:
        r = to_markdown(Path(name).read_text(encoding="utf-8"), url="https://example.test/a/b")
        local.update(r.markdown.encode() + b"\0" + r.to_json().encode() + b"\0")
    assert out.stdout.strip() == local.hexdigest()


def _every_html_file() -> list[Path]:
    """Every HTML file the repository tracks, and every one under ``../shared/bench``."""
    repo = Path(__file__).resolve().parents[3]
    found: set[Path] = set()
    for pattern in ("*.html", "*.htm", "*.xhtml"):
        found.update(p for p in repo.glob(f"**/{pattern}")
                     if not any(part.startswith(".") for part in p.relative_to(repo).parts))
        bench = bench_dir()
        if bench is not None:
            found.update(bench.glob(f"**/{pattern}"))
    return sorted(found)


SWEEP_SECONDS = 20.0  # per page, on a loaded 2-core machine; a hang shows as far more


def test_no_crash_sweep_over_every_html_file() -> None:
    """Markdown or a typed error for every page anywhere; none takes unbounded time."""
    pages = _every_html_file()
    assert pages
    for page in pages:
        started = time.monotonic()
        try:
            result = to_markdown(page.read_text(encoding="utf-8", errors="replace"),
                                 url="https://example.test/")
        except MarkdownError:
            continue
        assert time.monotonic() - started < SWEEP_SECONDS, page
        assert result.markdown == "" or result.markdown.endswith("\n"), page
        json.loads(result.to_json())
        for span in result.evidence.sample_provenance:
            start, end = span.markdown_span
            assert 0 <= start < end <= len(result.markdown), page


@pytest.mark.skipif(bench_dir() is None, reason="benchmark corpus (../shared/bench) not found")
def test_sweep_reaches_both_dev_sets() -> None:
    names = {p.parent.name for p in _every_html_file()}
    assert {"extraction-dev", "extraction-dev-readability"} <= names


def _demo_pages() -> list[tuple[str, str]]:
    try:
        from pressmark.demo import DemoSite
        from pressmark.demo._http import Request
    except ImportError:  # the demo layer is optional for this package's tests
        return []
    site = DemoSite(seed=7, pages=40)
    out = []
    for page in site.pages:
        req = Request(method="GET", target=page.path, version="HTTP/1.1", headers=(),
                      origin="http://127.0.0.1:1")
        resp = site.respond(req)
        body = getattr(resp, "body", b"")
        if getattr(resp, "status", 0) == 200 and body:
            out.append((page.path, body.decode("utf-8", errors="replace")))
    return out


def test_demo_site_pages_no_crash_and_articles_complete() -> None:
    import re

    pages = _demo_pages()
    if not pages:
        pytest.skip("pressmark.demo is not available")
    from pressmark.demo import DemoSite

    site = DemoSite(seed=7, pages=40)

    def words(text: str) -> str:
        return " ".join(re.findall(r"\w+", re.sub(r"\]\([^)]*\)", "]", text)))

    articles = 0
    for path, html in pages:
        result = to_markdown(html, url=f"http://127.0.0.1:1{path}")
        if site.page(path).kind != "article":
            continue
        articles += 1
        md = words(result.markdown)
        content = site.content(path)
        for para in content.paragraphs():
            assert words(para) in md, (path, para[:60])
        for heading in content.headings():
            assert words(heading) in md, (path, heading)
        for chrome in ("We use cookies", "Related articles", "Terms of use", "Copy link"):
            assert chrome not in result.markdown, (path, chrome)
        assert result.validation.passed, (path, result.validation.reasons)
    assert articles
