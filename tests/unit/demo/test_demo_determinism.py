"""Same seed and size give byte-identical responses, whatever PYTHONHASHSEED says."""

from __future__ import annotations

import os
import subprocess
import sys

_DIGEST = r"""
import hashlib
from pressmark.demo import DemoSite
from pressmark.demo._http import Request

site = DemoSite(seed=11, pages=60)
digest = hashlib.sha256()
paths = [p.path for p in site.pages if p.kind != "live"]
paths += ["/robots.txt", "/sitemap.xml", "/sitemaps/articles.xml", "/sitemaps/more.xml.gz",
          "/api/lazy/2.json", "/redirect/chain/2", "/nowhere"]
paths += [f"/api/pages/{p.page_id:04d}.json" for p in site.generated if p.is_shell]
for path in paths:
    r = site.respond(Request(method="GET", target=path, version="HTTP/1.1", headers=(),
                             origin="http://127.0.0.1:1"))
    digest.update(path.encode() + b"\0" + str(r.status).encode() + b"\0" + r.body + b"\0")
    digest.update(repr((r.etag, r.last_modified, r.headers)).encode())
print(digest.hexdigest())
"""


def _digest(hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    out = subprocess.run([sys.executable, "-c", _DIGEST], capture_output=True, text=True,
                         check=True, env=env)
    return out.stdout.strip()


def test_byte_identical_across_hash_seeds() -> None:
    first = _digest("1")
    assert len(first) == 64
    assert _digest("2") == first
    assert _digest("random") == first


def test_different_seeds_differ() -> None:
    from pressmark.demo import DemoSite

    a, b = DemoSite(seed=1, pages=30), DemoSite(seed=2, pages=30)
    assert [p.path for p in a.generated] != [p.path for p in b.generated]
    assert [p.path for p in DemoSite(seed=1, pages=30).generated] == [
        p.path for p in a.generated]
