"""Scale a crawl out over many processes and machines on Ray, sharded by host.

``await RayEngine(shards=4).run(seeds, policy, out_dir=...)`` returns the same
:class:`~pressmark.crawl.CrawlManifest` and writes the same crawl directory as
``pressmark.crawl.crawl``. Each host belongs to exactly one shard actor
(:func:`shard_of`), so per-host politeness, robots.txt and dedupe stay local and exact
(a request to a host owned elsewhere, a sitemap document or a redirect hop, is paced by
the owner); ``politeness.concurrency`` is split across the shards;
``max_pages`` is cut per breadth-first level over all shards' candidates (the same page
set as the in-process crawl, whatever the number of shards); render actors (one Chromium
each) serve every shard. Only this subpackage imports Ray; ``pressmark.crawl`` never does.
:class:`LocalEngine` runs the same shards in one process, without Ray.
"""

from pressmark.crawl.ray._driver import LocalEngine, ShardLost
from pressmark.crawl.ray._engine import RayEngine

__all__ = [
    "LocalEngine",
    "RayEngine",
    "ShardLost",
]
