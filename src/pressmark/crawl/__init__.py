"""The crawler: a concurrent, polite, host-partitioned frontier with link and sitemap
discovery, crawl-and-convert, resume and offline replay.

``await crawl(seeds, policy, out_dir=...)`` returns a :class:`CrawlManifest`;
``crawl_sync`` is the same behind ``asyncio.run``. The output directory format
(``pressmark-crawl/1``) is described in ``docs/contracts.md``.
"""

from pressmark.crawl._crawl import crawl, crawl_sync
from pressmark.crawl._manifest import CrawlManifest, PageRecord, Validation
from pressmark.crawl._policy import CrawlError, CrawlPolicy, Politeness, Seed, SitemapLimits

__all__ = [
    "CrawlError",
    "CrawlManifest",
    "CrawlPolicy",
    "PageRecord",
    "Politeness",
    "Seed",
    "SitemapLimits",
    "Validation",
    "crawl",
    "crawl_sync",
]
