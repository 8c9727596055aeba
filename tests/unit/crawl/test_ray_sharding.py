"""The sharded crawl without Ray: ownership, the global budget, routing between shards,
termination, restart and resume (``pressmark.crawl.ray.LocalEngine``)."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
from pathlib import Path
from typing import Any

import pytest

from pressmark.crawl import CrawlPolicy, Politeness, Seed, crawl
from pressmark.crawl._fetcher import Fetched
from pressmark.crawl._frontier import FrontierItem
from pressmark.crawl._manifest import PageFailure
from pressmark.crawl.ray import LocalEngine
from pressmark.crawl.ray._sharding import registrable_host, shard_of
from pressmark.snapshot import new_snapshot, source_id_for_url
from pressmark.store import MemorySnapshotStore

HOSTS = ("a.test", "b.test", "c.test", "d.test")


def multi_host_site(per_host: int = 12) -> dict[str, str]:
    """Each host: / links to /p0../p{n-1}; page i links to the next page on the next host."""
    pages: dict[str, str] = {}
    for h, host in enumerate(HOSTS):
        kids = "".join(f'<a href="/p{i}">p{i}</a>' for i in range(per_host))
        pages[f"http://{host}/"] = f"<html><body><main><h1>{host}</h1>{kids}</main></body></html>"
        for i in range(per_host):
            other = HOSTS[(h + 1) % len(HOSTS)]
            pages[f"http://{host}/p{i}"] = (
                f"<html><body><main><h1>{host} {i}</h1><p>text {i}</p>"
                f'<a href="http://{other}/x{i}">x</a><a href="/">home</a></main></body></html>')
            pages[f"http://{host}/x{i}"] = (
                f"<html><body><main><h1>{host} x{i}</h1><p>leaf</p></main></body></html>")
    return pages


class MultiHostFetcher:
    def __init__(self, pages: dict[str, str], *, disallow: tuple[str, ...] = (),
                 delay: float = 0.0) -> None:
        self.pages = pages
        self.store = MemorySnapshotStore()
        self.requested: list[str] = []
        self.disallow = disallow
        self.delay = delay

    async def fetch_page(self, item: FrontierItem, seed: Seed | None) -> Fetched:
        self.requested.append(item.url)
        if self.delay:
            await asyncio.sleep(self.delay)
        if any(d in item.url for d in self.disallow):
            return Fetched(url=item.url, snapshot=None, source_ref=None, status=None,
                           error=PageFailure(kind="robots-denied", message="robots"))
        body = self.pages.get(item.url)
        snap = new_snapshot(
            source_id=source_id_for_url(item.url), requested_url=item.url, url=item.url,
            status=200 if body is not None else 404,
            headers=[("content-type", "text/html; charset=utf-8")],
            body=(body or "<p>missing</p>").encode(), fetched_at="2026-11-30T12:00:00.000Z")
        ref = self.store.put(snap)
        return Fetched(url=item.url, snapshot=snap, source_ref=ref.source_ref, status=snap.status)

    async def fetch_document(self, url: str) -> bytes:
        raise RuntimeError("no sitemaps")

    async def sitemap_roots(self, origin: str) -> list[str]:
        return []

    async def crawl_delay(self, origin: str) -> float | None:
        return None

    def robots_allows(self, url: str) -> bool | None:
        return None

    async def aclose(self) -> None:
        return None


def _policy(**kw: object) -> CrawlPolicy:
    kw.setdefault("render", "never")
    return CrawlPolicy(markdown=False, workers=0, **kw)  # type: ignore[arg-type]


SEEDS = [f"http://{h}/" for h in HOSTS]


def test_importing_pressmark_crawl_ray_does_not_import_ray() -> None:
    import subprocess
    import sys

    code = ("import sys, pressmark, pressmark.crawl, pressmark.crawl.ray; "
            "print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert out.stdout.strip() == "False"


def test_registrable_host_and_stable_shards() -> None:
    assert registrable_host("www.Example.com:8080") == "example.com"
    assert registrable_host("a.b.example.co.uk") == "example.co.uk"
    assert registrable_host("alice.github.io") != registrable_host("mallory.github.io")
    assert registrable_host("127.0.0.2:4173") == "127.0.0.2"
    assert registrable_host("[::1]:80") == "::1"
    assert registrable_host("localhost") == "localhost"
    assert shard_of("a.example.com", 4) == shard_of("b.example.com:81", 4)
    assert shard_of("anything", 1) == 0
    # pinned: the rule must not drift between releases (a resumed crawl relies on it)
    assert [shard_of(f"127.0.0.{i}", 2) for i in range(2, 8)] == \
        [int(__import__("hashlib").sha256(f"127.0.0.{i}".encode()).hexdigest(), 16) % 2
         for i in range(2, 8)]


async def _in_process(pages: dict[str, str], policy: CrawlPolicy) -> set[str]:
    manifest = await crawl(SEEDS, policy, fetcher=MultiHostFetcher(pages))
    return {p.url for p in manifest.pages}


@pytest.mark.parametrize("shards", [1, 2, 3])
async def test_sharded_page_set_equals_in_process(tmp_path: Path, shards: int) -> None:
    pages = multi_host_site()
    policy = _policy()
    expected = await _in_process(pages, policy)
    fetchers = [MultiHostFetcher(pages) for _ in range(shards)]
    manifest = await LocalEngine(shards=shards).run(SEEDS, policy, out_dir=tmp_path / "out",
                                                    fetchers=fetchers)
    got = [p.url for p in manifest.pages]
    assert len(got) == len(set(got))
    assert set(got) == expected
    assert manifest.complete
    # every URL was fetched by exactly one shard, its owner
    for index, fetcher in enumerate(fetchers):
        for url in fetcher.requested:
            assert shard_of(url.split("/")[2], shards) == index
    lines = (tmp_path / "out" / "pages.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["url"] for line in lines) == sorted(got)
    written = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert written["summary"]["pages"] == len(got)


@pytest.mark.parametrize("max_pages", [1, 7, 20])
async def test_global_budget_exact(tmp_path: Path, max_pages: int) -> None:
    pages = multi_host_site()
    fetchers = [MultiHostFetcher(pages, disallow=("/x3",)) for _ in range(3)]
    manifest = await LocalEngine(shards=3).run(SEEDS, _policy(max_pages=max_pages),
                                               out_dir=tmp_path / "o", fetchers=fetchers)
    requested = sum(len(f.requested) for f in fetchers)
    charged = [p for p in manifest.pages if p.error is None or p.error.kind != "robots-denied"]
    assert len(charged) == max_pages
    assert requested >= max_pages  # robots-denied ones were "requested" by the fake only
    assert manifest.stop_reason == "max-pages"


@pytest.mark.parametrize("max_pages", [1, 5, 9, 23, 40])
async def test_any_max_pages_gives_one_page_set_whatever_the_executor(
        tmp_path: Path, max_pages: int) -> None:
    """Breadth-first by depth, then discovery order: the page set depends on the site and
    the policy only, not on concurrency, timing or the number of shards."""
    pages = multi_host_site()
    sets = []
    for concurrency, delay in ((1, 0.0), (16, 0.0), (16, 0.002)):
        policy = _policy(max_pages=max_pages,
                         politeness=Politeness(concurrency=concurrency, per_host_concurrency=4))
        m = await crawl(SEEDS, policy, fetcher=MultiHostFetcher(pages, delay=delay))
        sets.append({p.url: p.status for p in m.pages})
    for shards in (2, 3):
        m = await LocalEngine(shards=shards).run(
            SEEDS, _policy(max_pages=max_pages), out_dir=tmp_path / f"s{shards}",
            fetchers=[MultiHostFetcher(pages, delay=0.001 * i) for i in range(shards)])
        sets.append({p.url: p.status for p in m.pages})
    assert all(s == sets[0] for s in sets[1:])
    assert len(sets[0]) == max_pages


async def test_max_depth_across_shards(tmp_path: Path) -> None:
    pages = multi_host_site()
    policy = _policy(max_depth=1)
    expected = await _in_process(pages, policy)
    manifest = await LocalEngine(shards=2).run(
        SEEDS, policy, out_dir=tmp_path / "o", fetchers=[MultiHostFetcher(pages)] * 2)
    assert {p.url for p in manifest.pages} == expected
    assert max(p.depth for p in manifest.pages) == 1


async def test_resume_after_stop_gives_same_page_set(tmp_path: Path) -> None:
    pages = multi_host_site()
    policy = _policy()
    expected = await _in_process(pages, policy)
    stop = asyncio.Event()
    fetchers = [MultiHostFetcher(pages, delay=0.01) for _ in range(2)]

    async def stopper() -> None:
        for _ in range(2000):
            if sum(len(f.requested) for f in fetchers) >= 15:
                break
            await asyncio.sleep(0.005)
        stop.set()

    task = asyncio.create_task(stopper())
    first = await LocalEngine(shards=2).run(SEEDS, policy, out_dir=tmp_path / "o", stop=stop,
                                            fetchers=fetchers)
    await task
    assert not first.complete
    assert len(first.pages) < len(expected)
    # resume with another shard count: the state is re-partitioned
    second = await LocalEngine(shards=3).run(
        SEEDS, policy, out_dir=tmp_path / "o", resume=True,
        fetchers=[MultiHostFetcher(pages) for _ in range(3)])
    urls = [p.url for p in second.pages]
    assert second.complete
    assert len(urls) == len(set(urls))
    assert set(urls) == expected


async def test_restarted_shard_retries_in_flight_once(tmp_path: Path) -> None:
    """A shard that died with pages in flight: on restart they are queued again, and a page
    that was already started twice is recorded as worker-lost instead."""
    pages = multi_host_site(per_host=3)
    policy = _policy()
    out = tmp_path / "o"
    await LocalEngine(shards=2).run(SEEDS, policy, out_dir=out,
                                    fetchers=[MultiHostFetcher(pages)] * 2)
    lines = (out / "pages.jsonl").read_text().splitlines()
    # simulate a crash: drop two records, mark one of them as started twice already
    dropped = [json.loads(line)["url"] for line in lines[-2:]]
    (out / "pages.jsonl").write_text("".join(line + "\n" for line in lines[:-2]))
    owner = shard_of(dropped[0].split("/")[2], 2)
    log = out / ".state" / "ray" / f"shard-{owner}" / "started.log"
    log.write_text(log.read_text() + dropped[0] + "\n")
    (out / "manifest.json").unlink()
    resumed = await LocalEngine(shards=2).run(SEEDS, policy, out_dir=out, resume=True,
                                              fetchers=[MultiHostFetcher(pages)] * 2)
    by_url = {p.url: p for p in resumed.pages}
    assert len(by_url) == len(resumed.pages) == len(lines)
    lost = by_url[dropped[0]].error
    assert lost is not None
    assert lost.kind == "worker-lost"
    assert by_url[dropped[1]].outcome == "ok"


async def test_progress_aggregates_across_shards(tmp_path: Path) -> None:
    import io

    from pressmark.crawl._progress import LogProgress

    stream = io.StringIO()
    pages = multi_host_site(per_host=4)
    manifest = await LocalEngine(shards=2).run(
        SEEDS, _policy(), out_dir=tmp_path / "o", fetchers=[MultiHostFetcher(pages)] * 2,
        progress=LogProgress(stream, every_s=0.0, per_page=True))
    lines = stream.getvalue().splitlines()
    assert sum(1 for line in lines if line.endswith("/")) >= len(HOSTS)  # per-page lines
    assert any(line.startswith(f"crawl: {len(manifest.pages)} done") for line in lines)
    assert lines[-1].startswith(f"crawl complete: {len(manifest.pages)} pages")


class _GatedCluster:
    """Routes that wait for the test to let each batch through (an owner slow to answer)."""

    def __init__(self) -> None:
        self.batches: list[tuple[list[str], asyncio.Future[None]]] = []
        self.acknowledged: set[str] = set()

    async def route(self, shard: int, links: list[Any]) -> None:
        gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.batches.append(([link.url for link in links], gate))
        await gate
        self.acknowledged.update(link.url for link in links)

    async def fetch_document(self, shard: int, url: str) -> Any:
        raise AssertionError("no documents here")

    async def pace(self, shard: int, url: str) -> None:
        return None


async def _run_ready() -> None:
    """Let every task that can run, run (no clock involved)."""
    for _ in range(20):
        await asyncio.sleep(0)


async def test_a_page_is_recorded_only_after_its_foreign_links_are_acknowledged(
    tmp_path: Path,
) -> None:
    """CI failure of 9919234 (Ray crawl fetched 7 pages past max_pages): page B's foreign
    links waited in the outbox while B awaited its store put; page A's flush, looping,
    took them, and B's own flush found the outbox empty and returned at once. B's record
    reached pages.jsonl before its links reached their owner's journal, the driver saw B
    finished without children and released pages ranked after them. Now a flush returns
    only once every batch that may carry the caller's links is acknowledged."""
    from pressmark.crawl.executor import NullProgress
    from pressmark.crawl.ray._files import StartedLog
    from pressmark.crawl.ray._shard import ShardEngine

    foreign = next(h for h in (f"h{i}.test" for i in range(64)) if shard_of(h, 2) == 1)
    cluster = _GatedCluster()
    engine = ShardEngine(index=0, shards=2, cluster=cluster,
                         started=StartedLog(tmp_path / "started.log"),
                         policy=_policy(scope=(foreign,)),
                         seeds=[], fetcher=MultiHostFetcher({}), out=None, journal=None,
                         progress=NullProgress(), pool=None, stop=asyncio.Event())
    a, b = f"http://{foreign}/a", f"http://{foreign}/b"
    assert engine.admit(a, foreign, 1, "http://x.test/", "link", path=(0, 0))
    first = asyncio.create_task(engine.flush_outbox())  # page A
    await _run_ready()
    assert [urls for urls, _ in cluster.batches] == [[a]]
    assert engine.admit(b, foreign, 1, "http://x.test/", "link", path=(0, 1))  # page B
    cluster.batches[0][1].set_result(None)  # A's batch acknowledged
    await _run_ready()

    async def flush_b() -> bool:
        await engine.flush_outbox()
        return b in cluster.acknowledged  # what B's record may be written after

    second = asyncio.create_task(flush_b())
    while not second.done():
        await _run_ready()
        for _, gate in cluster.batches:
            if not gate.done():
                gate.set_result(None)
    assert second.result() is True
    await first
    assert cluster.acknowledged == {a, b}


# -- politeness across shards ------------------------------------------------------------------


def test_concurrency_is_split_across_shards_exactly() -> None:
    from pressmark.crawl.ray._sharding import concurrency_share

    assert [concurrency_share(16, 3, k) for k in range(3)] == [6, 5, 5]
    assert [concurrency_share(4, 4, k) for k in range(4)] == [1, 1, 1, 1]
    assert [concurrency_share(2, 3, k) for k in range(3)] == [1, 1, 1]  # at least one each
    for total in range(1, 40):
        for shards in range(1, total + 1):
            assert sum(concurrency_share(total, shards, k) for k in range(shards)) == total


class _CountingFetcher(MultiHostFetcher):
    """Counts its own requests in flight, and those of every shard (they share ``live``)."""

    def __init__(self, pages: dict[str, str], live: list[int]) -> None:
        super().__init__(pages, delay=0.01)
        self.live = live
        self.mine = [0, 0]

    async def fetch_page(self, item: FrontierItem, seed: Seed | None) -> Fetched:
        for count in (self.live, self.mine):
            count[0] += 1
            count[1] = max(count[1], count[0])
        try:
            return await super().fetch_page(item, seed)
        finally:
            self.live[0] -= 1
            self.mine[0] -= 1


async def test_overall_concurrency_is_crawl_wide(tmp_path: Path) -> None:
    from pressmark.crawl import Politeness

    assert sorted({shard_of(h, 3) for h in HOSTS}) == [0, 1, 2]  # every shard owns hosts
    live = [0, 0]  # in flight now, most ever
    fetchers = [_CountingFetcher(multi_host_site(), live) for _ in range(3)]
    policy = _policy(politeness=Politeness(concurrency=4, per_host_concurrency=4))
    manifest = await LocalEngine(shards=3).run(SEEDS, policy, out_dir=tmp_path / "c",
                                               fetchers=fetchers)
    assert manifest.complete and len(manifest.pages) == len(multi_host_site())
    # 4 split over 3 shards is 2 + 1 + 1: never more than 4 requests at once in all
    assert all(f.mine[1] <= share for f, share in zip(fetchers, (2, 1, 1), strict=True))
    assert live[1] <= 4


_SITE_SERVER = r"""
import http.server, json, sys, time, urllib.parse
host, routes = sys.argv[1], json.loads(sys.argv[2])
log, peers = [], {}

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/__peers?"):
            peers.update(urllib.parse.parse_qsl(self.path.partition("?")[2]))
            status, kind, body = 200, "text/plain", "ok"
        elif self.path == "/__log":
            status, kind, body = 200, "application/json", json.dumps(log)
        else:
            log.append((time.monotonic(), self.path))
            status, kind, body = routes.get(self.path, (404, "text/plain", "missing"))
            for name, url in peers.items():
                body = body.replace("{" + name + "}", url)
        data = body.encode()
        self.send_response(status)
        if status in (301, 302):
            self.send_header("location", body)
            data = b""
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer((host, 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


class _Site:
    """A tiny HTTP server on one loopback address, in its own process (so the crawler's
    event loop and this server's threads do not share a GIL), logging when each request
    arrived."""

    def __init__(self, host: str, routes: dict[str, tuple[int, str, str]]) -> None:
        import subprocess
        import sys

        self.proc = subprocess.Popen(  # our own interpreter and script
            [sys.executable, "-c", _SITE_SERVER, host, json.dumps(routes)],
            stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.url = f"http://{host}:{int(self.proc.stdout.readline())}"

    def _get(self, path: str) -> bytes:
        import urllib.request

        with urllib.request.urlopen(self.url + path, timeout=10) as resp:
            return bytes(resp.read())

    def peers(self, **urls: str) -> None:
        import urllib.parse

        self._get("/__peers?" + urllib.parse.urlencode(urls))

    def log(self) -> list[tuple[float, str]]:
        return [(float(t), str(p)) for t, p in json.loads(self._get("/__log"))]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _html(title: str, links: str = "") -> tuple[int, str, str]:
    return 200, "text/html; charset=utf-8", (
        f"<html><body><main><h1>{title}</h1><p>text</p>{links}</main></body></html>")


async def test_foreign_sitemaps_and_redirect_hops_are_paced_by_the_owner(
    tmp_path: Path,
) -> None:
    """127.0.0.4 (shard 0 of 2) names a sitemap on 127.0.0.2 (shard 1) in its robots.txt
    and redirects to it from four pages. The server on 127.0.0.2 sees every request at
    least the delay apart: shard 0's sitemap read and redirect hops are paced by shard 1."""
    await foreign_requests_are_paced_by_the_owner(LocalEngine(shards=2), tmp_path)


async def foreign_requests_are_paced_by_the_owner(engine: Any, tmp_path: Path) -> None:
    """The scenario above on any engine with two shards (the Ray tests reuse it)."""
    from pressmark.crawl import Politeness
    from pressmark.egress import EgressPolicy

    assert (shard_of("127.0.0.4", 2), shard_of("127.0.0.2", 2)) == (0, 1)
    xml = "application/xml"
    n = 4
    a_routes = {
        "/robots.txt": (200, "text/plain", "User-agent: *\nAllow: /\nSitemap: {B}/b.xml\n"),
        "/": _html("A", "".join(f'<a href="/r{i}">r</a>' for i in range(n))),
        "/sitemap.xml": (404, "text/plain", "none"),
        **{f"/r{i}": (302, "text/plain", f"{{B}}/t{i}") for i in range(n)},
    }
    urlset = ('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
              + "".join(f"<url><loc>{{B}}/q{i}</loc></url>" for i in range(4)) + "</urlset>")
    b_routes = {
        "/robots.txt": (200, "text/plain", "User-agent: *\nAllow: /\n"),
        "/": _html("B", "".join(f'<a href="/p{i}">p</a>' for i in range(n))),
        "/sitemap.xml": (404, "text/plain", "none"),
        "/b.xml": (200, xml, urlset),
        **{f"/{k}{i}": _html(f"{k}{i}") for k in "pqt" for i in range(n)},
    }
    a, b = _Site("127.0.0.4", a_routes), _Site("127.0.0.2", b_routes)
    try:
        for site in (a, b):
            site.peers(A=a.url, B=b.url)
        delay_ms = 400
        policy = CrawlPolicy(
            render="never", markdown=False, workers=0, discovery="both",
            egress=EgressPolicy(test_only_allowed_loopback_origins=(a.url, b.url)),
            politeness=Politeness(delay_ms=delay_ms, per_host_concurrency=2))
        manifest = await engine.run([a.url + "/", b.url + "/"], policy,
                                    out_dir=tmp_path / "polite")
        b_log = b.log()
    finally:
        a.close()
        b.close()
    assert manifest.complete
    by_url = {p.url: p for p in manifest.pages}
    assert all(by_url[f"{a.url}/r{i}"].final_url == f"{b.url}/t{i}" for i in range(n))
    assert {f"{b.url}/q{i}" for i in range(4)} <= set(by_url)  # from the foreign sitemap
    assert manifest.sitemap["documents_read"] >= 1
    reqs = [(t, path) for t, path in b_log if path != "/robots.txt"]
    assert sum(path.startswith("/t") for _, path in reqs) == n
    assert [path for _, path in reqs].count("/b.xml") == 1
    # The owner's own requests (pages, the sitemap it reads for shard 0) go one at a time,
    # each no sooner than the delay after the previous one ended, which the server saw
    # before answering: those gaps hold exactly, however loaded the machine. A hop holds
    # no slot (docs/scaling.md): it is spaced from the reserved start, and the time from
    # that reservation to the server's accept (a call between shards, two event loops on
    # a loaded box) is its allowance.
    def too_close(p: str, q: str, gap: float) -> bool:
        hop = p.startswith("/t") or q.startswith("/t")
        return gap < delay_ms / 1000 * (0.25 if hop else 0.99)

    gaps = [(p, q, t2 - t1) for (t1, p), (t2, q) in itertools.pairwise(reqs)
            if too_close(p, q, t2 - t1)]
    assert not gaps, gaps
