"""Crawl the bundled demo site on loopback and cite one page.

Run: python examples/crawl_demo_site.py [OUT_DIR]
"""

from __future__ import annotations

import sys
import tempfile

from pressmark.crawl import CrawlPolicy, crawl_sync
from pressmark.demo import DemoSite, run_demo_server_in_thread
from pressmark.egress import EgressPolicy
from pressmark.snapshot import resolve_source_ref
from pressmark.store import open_store


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="pressmark-example-")

    with run_demo_server_in_thread(DemoSite(pages=40)) as server:
        # Loopback is denied by default; a test-only origin admits exactly this server.
        policy = CrawlPolicy(
            max_pages=40,
            egress=EgressPolicy(test_only_allowed_loopback_origins=(server.url,)),
        )
        manifest = crawl_sync([server.url + "/"], policy, out_dir=out)

    print(f"{manifest.summary['pages']} pages written to {out}")
    first = next(page for page in manifest.pages if page.source_ref)
    store = open_store(f"{out}/store")  # the crawl's store, in whichever format it is
    replayed = resolve_source_ref(store, first.source_ref)
    print("cite:", first.source_ref[:96], "...")
    if replayed.ok and replayed.snapshot is not None:
        print("resolves offline to", len(replayed.snapshot.bytes), "exact bytes")
    else:
        print("does not resolve:", replayed.error)


if __name__ == "__main__":  # the crawl's parser processes re-import this module
    main()
