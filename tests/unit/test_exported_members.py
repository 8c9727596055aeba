"""Each public package's ``__all__`` is a contract: it resolves, it does not drift, and it
stays small.

Adding or removing a public name is a deliberate change: update the table here in the
same commit (and docs/contracts.md when other layers rely on the name). The package
``__init__``s together export at most :data:`MAX_PUBLIC_NAMES` names (issue #37: it had
grown to 263), no name is exported by two packages (``Politeness`` once meant a crawl's
settings in ``pressmark.crawl`` and the fetch layer's pacing clock in ``pressmark.fetch``,
now ``Pacer``), and every exported name is used outside its own package: by another layer,
an example, a benchmark, a test or the user guide. What only a package's own modules and
tests use is imported from the ``_`` module that defines it.

``pressmark.crawl.executor`` is not a package ``__init__``: it is the package-internal
surface the Ray executor builds on (its docstring says so), pinned here apart and not
counted.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAX_PUBLIC_NAMES = 120

PUBLIC: dict[str, tuple[str, ...]] = {
    "pressmark": (
        "PressmarkError", "__version__",
    ),
    "pressmark.egress": (
        "Connector", "DENIAL_CODES", "DnsFailure", "EgressConfigError", "EgressDenied",
        "EgressPolicy", "EgressProxy", "EgressTimeout", "GuardedClient", "GuardedResponse",
        "NetworkError", "ParsedURL", "RedirectHop", "Resolver", "ResponseTooLarge",
        "StaticResolver", "Timeout", "canonical_url", "evaluate_url", "is_canonical_url",
        "join_url", "parse_url",
    ),
    "pressmark.snapshot": (
        "InvalidSnapshot", "InvalidSourceRef", "RedirectRecord", "Snapshot", "SnapshotError",
        "build_source_ref", "classify_content_type", "decide_charset", "decode_text_body",
        "new_snapshot", "parse_source_ref", "resolve_source_ref", "source_id_for_url",
        "text_encoding",
    ),
    "pressmark.store": (
        "FilesystemSnapshotStore", "MemorySnapshotStore", "SegmentStore", "SnapshotCorrupt",
        "SnapshotHistoryFull", "SnapshotNotFound", "SnapshotRef", "SnapshotStore",
        "SnapshotStoreError", "SnapshotTooLarge", "StoreBusy", "StoreError", "export_warc",
        "import_warc", "open_store", "store_format",
    ),
    "pressmark.fetch": (
        "DEFAULT_USER_AGENT", "FetchError", "FetchFailure", "FetchOptions", "FetchResult", "Pacer",
        "RobotsCache", "ShellVerdict", "SourceConfig", "classify_shell", "fetch_source",
    ),
    "pressmark.render": (
        "LazyRenderer", "PlaywrightRenderer", "PoolLimits", "ReadinessReport", "ReadinessSpec",
        "RenderError", "RenderOptions", "RenderResult", "Renderer", "find_chromium",
    ),
    "pressmark.cite": (
        "CitationError", "QuoteCheck", "Verifier", "chunk", "chunk_id",
        "chunk_markdown", "citation", "diff_captures", "diff_pages", "divergence",
        "verify_quote",
    ),
    "pressmark.markdown": (
        "ConversionPolicy", "MarkdownError", "MarkdownResult", "POLICY_VERSION", "describe_output",
        "parse_html", "screen", "stability", "to_markdown",
    ),
    "pressmark.crawl": (
        "CrawlError", "CrawlManifest", "CrawlPolicy", "PageRecord", "Politeness", "Seed",
        "SitemapLimits", "Validation", "crawl", "crawl_sync",
    ),
    "pressmark.crawl.ray": (
        "LocalEngine", "RayEngine", "ShardLost",
    ),
    "pressmark.demo": (
        "DemoServer", "DemoSite", "run_demo_server_in_thread",
    ),
    "pressmark.mcp": (
        "McpOptions", "PressmarkTools", "build_server",
    ),
    "pressmark.testing": (
        "FakeRenderer", "RecordingConnector", "StragglerSite", "damage_every_record",
        "make_snapshot",
    ),
    "pressmark.web": (
        "create_app",
    ),
}

EXECUTOR: tuple[str, ...] = (
    "AgentViewReport", "Changes", "CrawlSummary", "Engine", "FrontierItem", "KEPT_PAGES",
    "Key", "Ledger", "Limits", "LiveFetcher", "NullProgress", "OutputDir", "PageFailure",
    "PageFetcher", "PageFile",
    "Progress", "ReplayFetcher",
    "ResumeJournal", "SeedLike", "StoreWriter", "TICK_S", "Via", "canonical_parts", "crawl_stores",
    "dumps_line", "hostname_of", "item_line", "make_pool", "normalise_seeds", "own_store",
    "registrable_domain", "split_host_key", "worker_store_spec", "write_atomic",
)


@pytest.mark.parametrize("module_name", sorted(PUBLIC))
def test_exported_names_do_not_drift(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert tuple(sorted(module.__all__)) == PUBLIC[module_name]


def test_the_executor_surface_does_not_drift() -> None:
    module = importlib.import_module("pressmark.crawl.executor")
    assert tuple(sorted(module.__all__)) == EXECUTOR


@pytest.mark.parametrize("module_name", [*sorted(PUBLIC), "pressmark.crawl.executor"])
def test_every_exported_name_resolves(module_name: str) -> None:
    module = importlib.import_module(module_name)
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{module_name}.{name}"


def test_the_public_surface_stays_small_and_without_clashes() -> None:
    total = sum(len(names) for names in PUBLIC.values())
    assert total <= MAX_PUBLIC_NAMES, total
    owners: dict[str, list[str]] = {}
    for module_name, names in PUBLIC.items():
        for name in names:
            owners.setdefault(name, []).append(module_name)
    assert {name: mods for name, mods in owners.items() if len(mods) > 1} == {}


def _package_dir(module_name: str) -> Path:
    return ROOT / "src" / Path(*module_name.split("."))


def test_every_exported_name_is_used_outside_its_package() -> None:
    """By another layer, an example, a benchmark, a test or the guide (the export tables
    in this file do not count)."""
    here = Path(__file__).resolve()
    texts: list[tuple[Path, str]] = [
        (path, path.read_text(encoding="utf-8"))
        for folder in ("src", "examples", "bench", "tests", "docs")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in {".py", ".md"} and path.resolve() != here]
    unused = []
    for module_name, names in PUBLIC.items():
        if module_name == "pressmark":
            continue  # the root package holds only the error root and the version
        own = _package_dir(module_name)
        outside = "\n".join(text for path, text in texts if not path.is_relative_to(own))
        unused += [f"{module_name}.{name}" for name in names
                   if not re.search(rf"\b{re.escape(name)}\b", outside)]
    assert unused == []
