"""same-site scope on the demo site under Public Suffix List private suffixes.

The demo server answers for any Host name; a ``StaticResolver`` maps the test names to its
loopback address (no real DNS). The seed page links hosts on the same private suffix; only
the seed's own registrable domain is crawled, and the server log shows no request for the
others.
"""

from __future__ import annotations

from pressmark.crawl import CrawlPolicy, Politeness, crawl
from pressmark.demo import DemoServer
from pressmark.egress import EgressPolicy, StaticResolver

NAMES = ("alice.github.io", "www.alice.github.io", "mallory.github.io",
         "bob.blogspot.com", "carol.blogspot.com")


async def test_same_site_follows_the_psl_not_the_last_two_labels(
        demo_server: DemoServer) -> None:
    port = int(demo_server.url.rsplit(":", 1)[1].strip("/"))
    targets = [f"http://{name}:{port}/about" for name in NAMES[1:]]
    seed = f"http://alice.github.io:{port}/special/links?to={','.join(targets)}"
    # Names that resolve to loopback are denied by a guarded policy; the resolver is static
    # and points only at the demo server, so an unguarded policy stays on loopback.
    policy = CrawlPolicy(scope="same-site", max_depth=1, markdown=False, workers=0,
                         render="never", egress=EgressPolicy(guarded=False),
                         politeness=Politeness(per_host_concurrency=4, concurrency=8))
    resolver = StaticResolver({name: ["127.0.0.1"] for name in NAMES})
    mark = len(demo_server.requests)
    m = await crawl(seed, policy, resolver=resolver)
    got = {p.url for p in m.pages if p.status == 200}
    assert f"http://www.alice.github.io:{port}/about" in got
    crawled_hosts = {u.split("/")[2].rsplit(":", 1)[0] for u in got}
    assert crawled_hosts == {"alice.github.io", "www.alice.github.io"}
    hosts = {(r.header("host") or "").rsplit(":", 1)[0]
             for r in demo_server.requests[mark:]}
    assert hosts == {"alice.github.io", "www.alice.github.io"}
