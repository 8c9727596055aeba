"""The public names of pressmark.crawl do not drift silently."""

from __future__ import annotations

import io

import pressmark.crawl
from pressmark.crawl import CrawlManifest
from pressmark.crawl._crawl import render_summary_table
from pressmark.crawl._progress import LogProgress

EXPECTED = {
    "CrawlError", "CrawlManifest", "CrawlPolicy", "PageRecord", "Politeness", "Seed",
    "SitemapLimits", "Validation", "crawl", "crawl_sync"
}


def test_exported_names() -> None:
    assert set(pressmark.crawl.__all__) == EXPECTED
    for name in EXPECTED:
        assert getattr(pressmark.crawl, name) is not None


def manifest() -> CrawlManifest:
    from pressmark.crawl._manifest import CrawlSummary

    return CrawlManifest(
        started_at="2026-11-30T12:00:00.000Z", finished_at="2026-11-30T12:00:01.000Z",
        seeds=("http://a.test/",), policy={}, summary=CrawlSummary().to_dict(1.0),
        sitemap={"documents_read": 0, "urls_discovered": 0, "errors": []}, complete=True,
    )


def test_summary_table_and_log_progress() -> None:
    from rich.console import Console

    console = Console(file=io.StringIO(), width=100)
    console.print(render_summary_table(manifest()))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "pages/s" in text and "complete" in text
    stream = io.StringIO()
    LogProgress(stream).finish(manifest())
    assert "crawl complete: 0 pages" in stream.getvalue()


def test_page_names_are_stable_and_safe() -> None:
    from pressmark.crawl._output import page_name

    name = page_name("url-abc", "http://a.test/Articles/Ünïcode Title?x=1")
    assert name.startswith("7f0ff7bd2b2c9d3b-") or len(name.split("-", 1)[0]) == 16
    assert name.split("-", 1)[1] == "articles-n-code-title"
    assert page_name("url-abc", "http://a.test/") .endswith("-index")
    assert "/" not in page_name("url-abc", "http://a.test/../../etc/passwd")


def test_the_ray_executor_imports_no_private_crawl_module() -> None:
    """``pressmark.crawl.ray`` builds on ``pressmark.crawl`` and its executor surface
    (``pressmark.crawl.executor``), never on the crawl package's ``_`` modules."""
    import ast
    from pathlib import Path

    import pressmark.crawl.ray

    offending = []
    for path in sorted(Path(pressmark.crawl.ray.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            offending += [f"{path.name}: {name}" for name in names
                          if name.startswith("pressmark.crawl._")]
    assert not offending
