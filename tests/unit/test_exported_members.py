"""Each public package's ``__all__`` is a contract: it resolves, and it does not drift.

Adding or removing a public name is a deliberate change: update the table here in the
same commit (and docs/contracts.md when other layers rely on the name).
"""

from __future__ import annotations

import importlib

import pytest

PUBLIC: dict[str, tuple[str, ...]] = {
    "pressmark": (
        "PressmarkError", "__version__",
    ),
    "pressmark.egress": (
        "AsyncioConnector", "Connector", "DENIAL_CODES", "DnsFailure", "EgressConfigError",
        "EgressDenied",
        "EgressPolicy", "EgressProxy", "EgressTarget", "EgressTimeout", "GuardedClient",
        "GuardedResponse", "NetworkError", "ParsedURL", "ProxyDenial", "RedirectHop", "Resolver",
        "ResponseTooLarge", "StaticResolver", "SystemResolver", "Timeout", "canonical_url",
        "classify_address", "evaluate_url", "is_canonical_url", "join_url",
        "normalise_percent_encoding", "parse_url",
    ),
    "pressmark.snapshot": (
        "CharsetDecision", "CharsetSource", "ContentKind", "DecodedText", "HashBasis",
        "InvalidSnapshot", "InvalidSourceRef", "RedirectRecord", "ReplayError", "ReplayResult",
        "Snapshot", "SnapshotError", "SourceRef", "build_source_ref", "canonical_json",
        "classify_content_type", "decide_charset", "decode_text_body", "header_charset",
        "is_canonical_timestamp", "lookup_encoding", "new_snapshot", "parse_source_ref",
        "prescan_meta_charset", "resolve_source_ref", "snapshot_envelope",
        "snapshot_from_envelope", "sniff_charset", "source_id_for_url", "text_encoding",
        "utc_now_iso",
    ),
    "pressmark.store": (
        "DEBRIS_CODES", "FilesystemSnapshotStore", "HeadWitness", "MemorySnapshotStore",
        "MigrateReport", "PruneReport", "RepairReport", "SegmentStore",
        "SnapshotCorrupt", "SnapshotHistoryFull", "SnapshotNotFound", "SnapshotRef",
        "SnapshotStore", "SnapshotStoreError", "SnapshotTooLarge", "StoreBusy", "StoreError",
        "StoreFormat", "VerifyProblem", "VerifyReport", "WarcImportReport", "WitnessStatus",
        "export_warc", "import_warc", "migrate_store", "open_store", "store_format",
    ),
    "pressmark.fetch": (
        "Clock", "DEFAULT_USER_AGENT", "EMBEDDED_STATE_WARNING_PREFIX", "FETCH_ERROR_KINDS",
        "FetchError", "FetchErrorKind", "FetchFailure", "FetchOptions", "FetchResult",
        "FetchTimings", "Politeness", "RENDER_POLICIES", "RenderEscalation", "RenderPolicy",
        "RobotsAnswer", "RobotsCache", "RobotsEntry", "RobotsRules", "SHELL_WARNING_PREFIX",
        "ShellCheck", "ShellVerdict",
        "SourceConfig", "SystemClock", "classify_shell", "fetch_source", "parse_robots",
        "product_token", "resolve_render_policy",
    ),
    "pressmark.render": (
        "ConsentPolicy", "LazyRenderer", "NavigationGuard", "PageState", "PlaywrightRenderer",
        "PoolLimits", "ReadinessReport", "ReadinessSpec", "RenderError", "RenderOptions",
        "RenderResult", "Renderer", "find_chromium",
    ),
    "pressmark.cite": (
        "BlockChange", "CaptureDiff", "Chunk", "CitationError", "CitedPage", "DEFAULT_MAX_CHARS",
        "DiffSide", "OtherSnapshot", "Passage", "QuoteCheck", "Verifier", "chunk", "chunk_id",
        "chunk_markdown", "citation", "diff_captures", "diff_pages", "latest_two", "page_of",
        "verify_quote",
    ),
    "pressmark.markdown": (
        "BoundedHtml", "ConversionPolicy", "EvidencePacket", "MarkdownError", "MarkdownResult",
        "POLICY_VERSION", "PageMetadata", "Provenance", "ReadinessFacts",
        "StabilityReport", "Structure", "ValidationReport", "block_hash", "bound_html",
        "describe_output", "parse_html", "screen", "stability", "to_markdown",
    ),
    "pressmark.crawl": (
        "CrawlError", "CrawlManifest", "CrawlPolicy", "CrawlSummary", "ExtractedLinks", "FORMAT",
        "Fetched", "FollowCandidate", "Frontier", "FrontierItem", "HARD_MAX_PAGES",
        "HostPartition", "LogProgress", "NullProgress", "PageError", "PageFetcher", "PageRecord",
        "Politeness", "Progress", "RichProgress", "Seed", "SitemapDocument", "SitemapLimits",
        "SitemapParseError", "SitemapReport", "TRACKING_PARAMS", "Validation", "canonicalize_url",
        "crawl", "crawl_sync", "extract_links", "page_name", "parse_sitemap",
        "remove_dot_segments", "render_summary_table",
    ),
    "pressmark.crawl.executor": (
        "Engine", "Key", "Ledger", "Limits", "LiveFetcher", "OutputDir", "ReplayFetcher",
        "ResumeJournal", "SeedLike", "StoreWriter", "TICK_S", "Via", "canonical_parts",
        "crawl_stores", "dumps_line", "hostname_of", "item_line", "make_pool",
        "normalise_seeds", "own_store", "registrable_domain", "split_host_key",
        "worker_store_spec",
        "write_atomic",
    ),
    "pressmark.crawl.ray": (
        "ClusterView", "LocalEngine", "RayEngine", "RoutedLink",
        "ShardLost", "ShardStatus", "registrable_host", "shard_of",
    ),
    "pressmark.demo": (
        "DemoPage", "DemoServer", "DemoSite", "PageKind", "RequestRecord", "RobotsMode",
        "SHELL_KINDS", "run_demo_server_in_thread",
    ),
    "pressmark.mcp": (
        "MARKDOWN_PAGE_BYTES", "McpOptions", "PressmarkTools", "TOOL_NAMES", "ToolFailure",
        "UNTRUSTED_NOTICE", "build_server", "default_store_dir", "run_stdio",
    ),
    "pressmark.testing": (
        "FakeRenderer", "RecordingConnector", "StragglerSite", "damage_every_record",
        "make_snapshot",
    ),
    "pressmark.web": (
        "APP_CSP", "CrawlDir", "PageIndex", "PageQuery", "SNAPSHOT_CSP", "create_app",
    ),
}


@pytest.mark.parametrize("module_name", sorted(PUBLIC))
def test_exported_names_do_not_drift(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert tuple(sorted(module.__all__)) == PUBLIC[module_name]


@pytest.mark.parametrize("module_name", sorted(PUBLIC))
def test_every_exported_name_resolves(module_name: str) -> None:
    module = importlib.import_module(module_name)
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{module_name}.{name}"
