"""The crawler: a concurrent, polite, host-partitioned frontier with link and sitemap
discovery, crawl-and-convert, resume and offline replay.

``await crawl(seeds, policy, out_dir=...)`` returns a :class:`CrawlManifest`;
``crawl_sync`` is the same behind ``asyncio.run``. The output directory format
(``pressmark-crawl/1``) is described in ``docs/contracts.md``.
"""

from pressmark.crawl._canonical import TRACKING_PARAMS, canonicalize_url, remove_dot_segments
from pressmark.crawl._crawl import crawl, crawl_sync, render_summary_table
from pressmark.crawl._fetcher import Fetched, PageFetcher
from pressmark.crawl._frontier import Frontier, FrontierItem, HostPartition
from pressmark.crawl._links import ExtractedLinks, extract_links
from pressmark.crawl._manifest import (
    FORMAT,
    CrawlManifest,
    CrawlSummary,
    PageError,
    PageRecord,
    Validation,
)
from pressmark.crawl._output import page_name
from pressmark.crawl._policy import (
    HARD_MAX_PAGES,
    CrawlError,
    CrawlPolicy,
    FollowCandidate,
    Politeness,
    Seed,
    SitemapLimits,
)
from pressmark.crawl._progress import LogProgress, NullProgress, Progress, RichProgress
from pressmark.crawl._sitemaps import (
    SitemapDocument,
    SitemapParseError,
    SitemapReport,
    parse_sitemap,
)

__all__ = [
    "FORMAT",
    "HARD_MAX_PAGES",
    "TRACKING_PARAMS",
    "CrawlError",
    "CrawlManifest",
    "CrawlPolicy",
    "CrawlSummary",
    "ExtractedLinks",
    "Fetched",
    "FollowCandidate",
    "Frontier",
    "FrontierItem",
    "HostPartition",
    "LogProgress",
    "NullProgress",
    "PageError",
    "PageFetcher",
    "PageRecord",
    "Politeness",
    "Progress",
    "RichProgress",
    "Seed",
    "SitemapDocument",
    "SitemapLimits",
    "SitemapParseError",
    "SitemapReport",
    "Validation",
    "canonicalize_url",
    "crawl",
    "crawl_sync",
    "extract_links",
    "page_name",
    "parse_sitemap",
    "remove_dot_segments",
    "render_summary_table",
]
