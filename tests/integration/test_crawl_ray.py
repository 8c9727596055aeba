"""The sharded crawl on a real local Ray cluster (loopback only) against the demo site
served on several loopback addresses.

One Ray instance for the module (starting it is most of the cost); every test stays
within a few seconds of crawling so the whole file runs in well under three minutes.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pressmark.crawl import CrawlManifest, CrawlPolicy, Politeness, crawl
from pressmark.egress import EgressPolicy

if TYPE_CHECKING:
    from pressmark.demo import DemoServer

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(240),
    # Ray's own deprecation chatter on import/startup is not ours to fix
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
]

# 127.0.0.2/.3 go to shard 1 of 2 and 127.0.0.4 to shard 0 (sha256 of the address), so
# both shards own hosts.
HOSTS = ("127.0.0.2", "127.0.0.3", "127.0.0.4")
CHANGING = ("/special/live", "/cache/changing")  # differ on every request, by design


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    from pressmark.crawl.ray._engine import local_ray_init

    local_ray_init(num_cpus=2)
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture
def servers(make_demo_server: Callable[..., DemoServer]) -> list[DemoServer]:
    return [make_demo_server(host=host, pages=20) for host in HOSTS]


def _policy(servers: list[DemoServer], **options: Any) -> CrawlPolicy:
    egress = EgressPolicy(test_only_allowed_loopback_origins=tuple(s.url for s in servers))
    options.setdefault("render", "never")
    return CrawlPolicy(egress=egress, workers=0, **options)


def _pages(manifest: CrawlManifest) -> dict[str, Any]:
    urls = [p.url for p in manifest.pages]
    assert len(urls) == len(set(urls)), "a page was recorded twice"
    return {p.url: p for p in manifest.pages}


def _markdown(out: Path, record: Any) -> bytes | None:
    return None if record.markdown_path is None else (out / record.markdown_path).read_bytes()


def _lines(path: Path) -> int:
    return path.read_text().count("\n") if path.exists() else 0


async def _until_pages(path: Path, n: int) -> None:
    """Wait (up to a minute) until ``path``, a pages.jsonl being written, has ``n`` lines."""
    for _ in range(3000):
        if _lines(path) >= n:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never reached {n} lines")


def _engine(**options: Any) -> Any:
    from pressmark.crawl.ray import RayEngine

    return RayEngine(shards=2, shard_cpus=0.5, **options)


def test_ray_listens_and_dials_on_loopback_only(ray_cluster: Any) -> None:
    import ipaddress

    psutil = pytest.importorskip("psutil")
    ray = ray_cluster

    def pid() -> int:
        return os.getpid()

    ray.get(ray.remote(num_cpus=0)(pid).remote())  # a worker process is up too
    ours = {p.pid for p in psutil.process_iter(["name", "cmdline"])
            if "ray" in " ".join(p.info["cmdline"] or []) or p.info["name"] in (
                "raylet", "gcs_server")}
    assert ours
    def loopback(ip: str) -> bool:
        addr = ipaddress.ip_address(ip)
        mapped = getattr(addr, "ipv4_mapped", None)
        return (mapped or addr).is_loopback

    seen = 0
    for conn in psutil.net_connections(kind="inet"):
        if conn.pid not in ours:
            continue
        seen += 1
        assert loopback(conn.laddr.ip), conn
        if conn.raddr:
            assert loopback(conn.raddr.ip), conn
    assert seen


async def test_same_pages_and_markdown_as_in_process_and_polite(
    ray_cluster: Any, servers: list[DemoServer], tmp_path: Path,
) -> None:
    seeds = [s.url for s in servers]
    expected = await crawl(seeds, _policy(servers), out_dir=tmp_path / "local")
    marks = [len(s.requests) for s in servers]
    delay_ms = 50
    polite = _policy(servers, politeness=Politeness(delay_ms=delay_ms, per_host_concurrency=4))
    got = await _engine().run(seeds, polite, out_dir=tmp_path / "ray")
    assert got.complete
    want, have = _pages(expected), _pages(got)
    assert set(have) == set(want)
    assert len(have) > 250
    for url, record in want.items():
        other = have[url]
        assert (other.status, other.outcome, other.source_id) == \
            (record.status, record.outcome, record.source_id), url
        if not url.endswith(CHANGING):
            assert other.body_hash == record.body_hash, url
            assert _markdown(tmp_path / "ray", other) == _markdown(tmp_path / "local", record)
            assert other.evidence_path == record.evidence_path
    written = json.loads((tmp_path / "ray" / "manifest.json").read_text())
    assert written["format"] == "pressmark-crawl/1"
    assert written["summary"]["pages"] == len(have)
    assert written["summary"]["by_outcome"] == expected.summary["by_outcome"]
    # per-host politeness, from the servers' own clocks: request starts >= delay apart
    for server, mark in zip(servers, marks, strict=True):
        reqs = [r for r in server.requests[mark:] if r.path != "/robots.txt"]
        assert len(reqs) > 40
        # a redirect hop belongs to the request before it; the allowance is for the time
        # between the crawler's start and the server's accept (scheduling on a loaded box)
        bad = [(a.path, b.path, b.time - a.time) for a, b in itertools.pairwise(reqs)
               if b.time - a.time < delay_ms / 1000 * 0.6 and not a.path.startswith("/redirect/")]
        assert not bad, bad


async def test_exact_global_budget(ray_cluster: Any, servers: list[DemoServer],
                                   tmp_path: Path) -> None:
    got = await _engine().run([s.url for s in servers], _policy(servers, max_pages=37),
                              out_dir=tmp_path / "o")
    charged = [p for p in got.pages if p.error is None or p.error.kind != "robots-denied"]
    assert len(charged) == 37
    assert got.stop_reason == "max-pages"
    requested = 0  # page requests the servers saw (a redirect hop is part of its page)
    for server in servers:
        reqs = [r.path for r in server.requests if r.path != "/robots.txt"]
        requested += sum(1 for i, path in enumerate(reqs)
                         if i == 0 or not reqs[i - 1].startswith("/redirect/"))
    assert requested == 37


async def _restarted_pid(actor: Any, old: int) -> int:
    """The actor's pid once Ray has restarted it (the kill lands asynchronously)."""
    new = old
    for _ in range(300):
        with contextlib.suppress(Exception):  # calls fail while the actor restarts
            new = await actor.pid.remote()
        if new != old:
            break
        await asyncio.sleep(0.1)
    return int(new)


async def test_killing_a_shard_mid_crawl_loses_nothing(
    ray_cluster: Any, servers: list[DemoServer], tmp_path: Path,
) -> None:
    ray = ray_cluster
    seeds = [s.url for s in servers]
    policy = _policy(servers, politeness=Politeness(delay_ms=20))
    expected = await crawl(seeds, _policy(servers), out_dir=tmp_path / "local")
    out = tmp_path / "ray"
    task = asyncio.create_task(_engine().run(seeds, policy, out_dir=out))
    pages = out / "pages.jsonl"
    await _until_pages(pages, 60)
    assert not task.done()
    names = [a["name"] for a in ray.util.list_named_actors(all_namespaces=True)
             if a["name"].startswith("pressmark-") and a["name"].endswith("-shard-1")]
    assert len(names) == 1
    actor = ray.get_actor(names[0], namespace="pressmark")
    pid = await actor.pid.remote()
    ray.kill(actor, no_restart=False)
    assert await _restarted_pid(actor, pid) != pid  # Ray restarted it in a new process
    got = await task
    assert got.complete
    have = _pages(got)
    assert set(have) == set(_pages(expected))
    lines = [json.loads(line)["url"] for line in pages.read_text().splitlines()]
    assert len(lines) == len(set(lines)) == len(have)


async def test_max_pages_gives_the_in_process_page_set_statuses_and_markdown(
    ray_cluster: Any, make_demo_server: Callable[..., DemoServer], tmp_path: Path,
) -> None:
    """Breadth-first by depth, then discovery order, on both executors: on the demo site
    (430 pages) with ``max_pages`` 150, Ray (2 shards) fetches exactly the in-process
    crawl's pages, with the same statuses and Markdown bytes."""
    server = make_demo_server(host="127.0.0.2", seed=7, pages=388)
    assert len(server.site.pages) == 430
    seeds = [server.url + "/"]
    policy = _policy([server], max_pages=150, markdown=True)
    expected = await crawl(seeds, policy, out_dir=tmp_path / "local")
    got = await _engine().run(seeds, policy, out_dir=tmp_path / "ray")
    want, have = _pages(expected), _pages(got)
    assert set(have) == set(want)
    assert got.stop_reason == expected.stop_reason == "max-pages"
    charged = [p for p in have.values() if p.error is None or p.error.kind != "robots-denied"]
    assert len(charged) == 150
    for url, record in want.items():
        assert (have[url].status, have[url].outcome) == (record.status, record.outcome), url
        if not url.endswith(CHANGING):
            assert _markdown(tmp_path / "ray", have[url]) == \
                _markdown(tmp_path / "local", record), url


async def test_killing_a_shard_keeps_max_pages_exact(
    ray_cluster: Any, servers: list[DemoServer], tmp_path: Path,
) -> None:
    ray = ray_cluster
    out = tmp_path / "o"
    seeds = [s.url for s in servers]
    policy = _policy(servers, max_pages=150, politeness=Politeness(delay_ms=10))
    expected = await crawl(seeds, _policy(servers, max_pages=150), out_dir=tmp_path / "local")
    task = asyncio.create_task(_engine().run(seeds, policy, out_dir=out))
    await _until_pages(out / "pages.jsonl", 50)
    names = [a["name"] for a in ray.util.list_named_actors(all_namespaces=True)
             if a["name"].startswith("pressmark-") and a["name"].endswith("-shard-0")]
    assert len(names) == 1
    ray.kill(ray.get_actor(names[0], namespace="pressmark"), no_restart=False)
    got = await task
    charged = [p for p in _pages(got).values()
               if p.error is None or p.error.kind != "robots-denied"]
    assert len(charged) == 150
    assert got.stop_reason == "max-pages"
    assert set(_pages(got)) == set(_pages(expected))


async def test_resume_on_ray_after_stop(ray_cluster: Any, servers: list[DemoServer],
                                        tmp_path: Path) -> None:
    seeds = [s.url for s in servers]
    policy = _policy(servers, politeness=Politeness(delay_ms=10))
    out = tmp_path / "o"
    stop = asyncio.Event()
    task = asyncio.create_task(_engine().run(seeds, policy, out_dir=out, stop=stop))
    await _until_pages(out / "pages.jsonl", 40)
    stop.set()
    first = await task
    assert not first.complete
    second = await _engine().run(seeds, policy, out_dir=out, resume=True)
    assert second.complete
    expected = await crawl(seeds, _policy(servers), out_dir=tmp_path / "local")
    assert set(_pages(second)) == set(_pages(expected))


@pytest.mark.browser
async def test_render_actors_render_shells_like_the_in_process_crawl(
    ray_cluster: Any, make_demo_server: Callable[..., DemoServer], tmp_path: Path,
) -> None:
    server = make_demo_server(host="127.0.0.2", pages=20)
    policy = _policy([server], render="on-shell")
    expected = await crawl([server.url], policy, out_dir=tmp_path / "local")
    got = await _engine(render_workers=1, render_cpus=0.5).run(
        [server.url], policy, out_dir=tmp_path / "ray")
    rendered = {url for url, p in _pages(got).items() if p.rendered}
    assert rendered
    assert rendered == {url for url, p in _pages(expected).items() if p.rendered}
    assert set(_pages(got)) == set(_pages(expected))  # incl. links only rendering reveals


async def test_replay_on_ray_is_byte_identical_with_the_network_off(
    ray_cluster: Any, servers: list[DemoServer], tmp_path: Path,
) -> None:
    from dataclasses import replace

    from pressmark.store import open_store

    seeds = [s.url for s in servers]
    live = await crawl(seeds, _policy(servers), out_dir=tmp_path / "live")
    offline = replace(_policy(servers), mode="replay", egress=EgressPolicy(),  # no loopback
                      store=open_store(tmp_path / "live" / "store"))
    marks = [len(s.requests) for s in servers]
    got = await _engine().run(seeds, offline, out_dir=tmp_path / "replay")
    assert [len(s.requests) for s in servers] == marks  # not one request
    want, have = _pages(live), _pages(got)
    assert set(have) == set(want)
    for url, record in want.items():
        assert have[url].snapshot_sha256 == record.snapshot_sha256, url
        assert _markdown(tmp_path / "replay", have[url]) == _markdown(tmp_path / "live", record)


async def test_sitemap_discovery_sharded_equals_in_process(
    servers: list[DemoServer], tmp_path: Path,
) -> None:
    """Sitemaps are read by the shard that owns the seed's host (LocalEngine: no Ray)."""
    from pressmark.crawl.ray import LocalEngine

    seeds = [s.url for s in servers]
    policy = _policy(servers, discovery="sitemap", markdown=False)
    expected = await crawl(seeds, policy, out_dir=tmp_path / "local")
    got = await LocalEngine(shards=2).run(seeds, policy, out_dir=tmp_path / "sharded")
    assert set(_pages(got)) == set(_pages(expected))
    assert got.sitemap["documents_read"] == expected.sitemap["documents_read"] > 0
    assert got.sitemap["urls_discovered"] == expected.sitemap["urls_discovered"]


async def test_foreign_sitemaps_and_redirect_hops_are_paced_by_the_owner_on_ray(
    ray_cluster: Any, tmp_path: Path,
) -> None:
    """The LocalEngine scenario of the unit tests, with the shards as Ray actors: a sitemap
    document and redirect hops on a host shard 1 owns are paced by shard 1's actor."""
    import importlib.util

    path = Path(__file__).parents[1] / "unit" / "crawl" / "test_ray_sharding.py"
    spec = importlib.util.spec_from_file_location("_ray_sharding_scenarios", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    await module.foreign_requests_are_paced_by_the_owner(_engine(), tmp_path)


async def test_sharded_crawl_stores_robots_and_replay_reports_denied(
    servers: list[DemoServer], tmp_path: Path,
) -> None:
    """Each shard stores the robots.txt files it read; a replay judges denials by them."""
    from dataclasses import replace

    from pressmark.crawl.ray import LocalEngine
    from pressmark.store import open_store

    seeds = [s.url for s in servers]
    policy = _policy(servers, markdown=False)
    live = await LocalEngine(shards=2).run(seeds, policy, out_dir=tmp_path / "live")
    denied = {p.url for p in live.pages if p.outcome == "denied"}
    assert denied
    offline = replace(policy, mode="replay", egress=EgressPolicy(),
                      store=open_store(tmp_path / "live" / "store"))
    got = await LocalEngine(shards=2).run(seeds, offline, out_dir=tmp_path / "replay")
    have = _pages(got)
    for url in denied:
        assert have[url].outcome == "denied", have[url]
    assert not [p for p in got.pages if p.error and p.error.kind == "not-in-store"]


async def test_stragglers_do_not_change_the_budgets_page_set_on_ray(
    ray_cluster: Any, tmp_path: Path,
) -> None:
    """Issue #35: the straggler site on two hosts (so both shards crawl), a page at depth 1
    answering after 3 s: under ``max_pages`` 100, Ray (2 shards) fetches exactly the first
    100 pages in (depth, discovery order), the in-process crawl's page set."""
    from pressmark.testing import StragglerSite

    site = StragglerSite(slow_s=3.0)
    with contextlib.ExitStack() as stack:
        stack.enter_context(site.serve("127.0.0.2"))
        stack.enter_context(site.serve("127.0.0.4"))
        egress = EgressPolicy(test_only_allowed_loopback_origins=tuple(site.origins))
        policy = CrawlPolicy(egress=egress, workers=0, max_pages=100, render="never",
                             markdown=False,
                             scope=tuple(o.split("//", 1)[1] for o in site.origins))
        local = await crawl(site.origin + "/", policy, out_dir=tmp_path / "local")
        got = await _engine().run(site.origin + "/", policy, out_dir=tmp_path / "ray")
    assert set(_pages(got)) == set(_pages(local))
    assert len(got.pages) == 100 and got.stop_reason == local.stop_reason == "max-pages"
    assert {u.split("/", 3)[2] for u in _pages(got)} == {o.split("//", 1)[1] for o in site.origins}


async def test_shards_write_their_own_segments_and_the_driver_merges_them(
    servers: list[DemoServer], tmp_path: Path,
) -> None:
    """No store is written by two shards: each has DIR/store/shards/<k>; the driver's merge
    makes every page resolve from DIR/store, which verifies clean."""
    from pressmark.crawl.ray import LocalEngine
    from pressmark.snapshot import resolve_source_ref
    from pressmark.store import SegmentStore, open_store

    seeds = [s.url for s in servers]
    got = await LocalEngine(shards=2).run(seeds, _policy(servers, markdown=False),
                                          out_dir=tmp_path / "sharded")
    root = tmp_path / "sharded" / "store"
    assert sorted(p.name for p in (root / "shards").iterdir()) == ["0", "1"]
    assert not list((root / "segments").iterdir())  # the main store wrote nothing itself
    store = open_store(root)
    assert isinstance(store, SegmentStore)
    refs = [p.source_ref for p in got.pages if p.source_ref]
    assert refs and all(resolve_source_ref(store, ref).ok for ref in refs)
    report = store.verify()
    assert report.ok and report.notes == (), (report.problems, report.notes)
