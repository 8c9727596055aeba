"""fetch records what an archive needs: who answered each hop and when, what was sent,
and how a rendered DOM was made."""

from __future__ import annotations

from pressmark.fetch import FetchOptions, SourceConfig, fetch_source
from pressmark.render import ReadinessReport
from pressmark.snapshot._time import is_canonical_timestamp
from pressmark.testing import FakeRenderer

from .conftest import LoopbackSite

PAGE = "<html><body><main><p>" + "Plain server text. " * 40 + "</p></main></body></html>"


async def test_hops_peer_and_request_headers_are_recorded(site: LoopbackSite) -> None:
    site.add("/start", "", status=301, headers={"Location": "/end"})
    site.add("/end", PAGE)
    source = SourceConfig(url=site.url("/start"), headers={"Authorization": "Bearer s3cret",
                                                           "X-Trace": "t1"})
    result = await fetch_source(source, FetchOptions(egress=site.policy()))
    snap = result.snapshot
    assert snap is not None and snap.url == site.url("/end")
    (hop,) = snap.redirects
    assert (hop.status, hop.location, hop.url, hop.ip) == (301, "/end", site.url("/start"),
                                                           "127.0.0.1")
    assert hop.fetched_at is not None and is_canonical_timestamp(hop.fetched_at)
    assert hop.fetched_at <= snap.fetched_at
    assert snap.peer_ip == "127.0.0.1"
    sent = {k.lower(): v for k, v in snap.request_headers}
    assert sent["user-agent"].startswith("pressmark/") and sent["x-trace"] == "t1"
    assert sent["authorization"] == "[redacted]"  # a secret never reaches the archive


async def test_a_rendered_snapshot_names_its_renderer_and_readiness(site: LoopbackSite) -> None:
    site.add("/app", PAGE)
    renderer = FakeRenderer(PAGE)
    result = await fetch_source(SourceConfig(url=site.url("/app"), render_policy="always"),
                                FetchOptions(egress=site.policy(), renderer=renderer))
    snap = result.snapshot
    assert snap is not None and snap.rendered
    info = dict(snap.render_info)
    assert info["renderer"] == "FakeRenderer" and info["status"] == "200"
    assert isinstance(result.readiness, ReadinessReport | None)
