"""Guarded vs unguarded client on loopback: median per-request overhead at 64 concurrent requests.

A minimal keep-alive HTTP server runs in a child process on 127.0.0.1. Rounds
alternate between an unguarded client (aiohttp by default, or plain httpcore)
and GuardedClient; each round fetches N pages with 64 concurrent workers. The
overhead of a round pair is guarded time per request over unguarded time per
request, minus one; the median over pairs is reported (target: <= 5 %).
The guard's own cost (parse + check per request, resolve/validate/pin per new
connection) is also measured in isolation. Nothing leaves loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import time

BODY = b"<html><body>" + b"<p>benchmark page body text</p>" * 300 + b"</body></html>"
RESPONSE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(BODY)
) + BODY


class _Http(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            _, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
            self.transport.write(RESPONSE)  # type: ignore[attr-defined]


def _serve(port_queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(_Http, "127.0.0.1", 0)
        port_queue.put(server.sockets[0].getsockname()[1])
        await server.serve_forever()

    asyncio.run(main())


async def _run(fetch, urls: list[str], concurrency: int) -> float:  # type: ignore[no-untyped-def]
    queue = list(reversed(urls))

    async def worker() -> None:
        while queue:
            await fetch(queue.pop())

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return (time.perf_counter() - start) / len(urls)


async def bench(
    port: int, requests: int, rounds: int, concurrency: int, baseline: str
) -> dict[str, float]:
    from pressmark.egress import EgressPolicy, GuardedClient, StaticResolver

    origin = f"http://127.0.0.1:{port}"
    urls = [f"{origin}/page/{i}" for i in range(requests)]
    accept = {"Accept-Encoding": "gzip, deflate, br, zstd"}
    if baseline == "aiohttp":
        import aiohttp

        plain = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=100, limit_per_host=100), trust_env=False
        )

        async def fetch_plain(url: str) -> None:
            async with plain.get(url, headers=accept, allow_redirects=False) as r:
                body = await r.read()
            assert r.status == 200 and len(body) == len(BODY)

        close_plain = plain.close
    else:
        import httpcore

        pool = httpcore.AsyncConnectionPool(
            max_connections=100, max_keepalive_connections=100, retries=0, http2=False
        )

        async def fetch_plain(url: str) -> None:
            r = await pool.request("GET", url, headers=accept)
            assert r.status == 200 and len(r.content) == len(BODY)

        close_plain = pool.aclose

    policy = EgressPolicy(test_only_allowed_loopback_origins=(origin,))
    guarded = GuardedClient(policy, StaticResolver({}), max_connections_per_host=100)

    async def fetch_guarded(url: str) -> None:
        r = await guarded.get(url)
        assert r.status == 200 and len(r.content) == len(BODY)

    await _run(fetch_plain, urls[:200], concurrency)  # warm-up: connections and caches
    await _run(fetch_guarded, urls[:200], concurrency)
    ratios, plain_times, guarded_times = [], [], []
    for i in range(rounds):
        order = [(fetch_plain, plain_times), (fetch_guarded, guarded_times)]
        if i % 2:
            order.reverse()
        for fetch, sink in order:
            sink.append(await _run(fetch, urls, concurrency))
        ratios.append(guarded_times[-1] / plain_times[-1] - 1.0)
    await close_plain()
    await guarded.aclose()
    return {
        "median_overhead_pct": 100 * statistics.median(ratios),
        "plain_req_per_s": 1 / statistics.median(plain_times),
        "guarded_req_per_s": 1 / statistics.median(guarded_times),
    }


def policy_cost_us(origin: str, n: int = 20000) -> tuple[float, float]:
    """Microseconds spent in the guard itself: (parse + check per request, pin per connection)."""
    from pressmark.egress import EgressPolicy, StaticResolver
    from pressmark.egress._connector import pin
    from pressmark.egress._policy import check_url
    from pressmark.egress._url import parse_url

    policy = EgressPolicy(test_only_allowed_loopback_origins=(origin,))
    resolver = StaticResolver({})
    urls = [f"{origin}/page/{i}?q={i}" for i in range(n)]

    async def run() -> tuple[float, float]:
        start = time.perf_counter()
        parsed = None
        for url in urls:
            parsed = parse_url(url)
            check_url(parsed, policy)
        per_request = (time.perf_counter() - start) / n * 1e6
        assert parsed is not None
        start = time.perf_counter()
        for _ in range(n):
            await pin(parsed.host, parsed.port, policy, resolver, 10.0, scheme="http")
        return per_request, (time.perf_counter() - start) / n * 1e6

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--baseline", choices=("aiohttp", "httpcore"), default="aiohttp")
    args = parser.parse_args()
    ctx = multiprocessing.get_context("spawn")
    ports: multiprocessing.Queue[int] = ctx.Queue()
    server = ctx.Process(target=_serve, args=(ports,), daemon=True)
    server.start()
    try:
        port = ports.get(timeout=10)
        result = asyncio.run(
            bench(port, args.requests, args.rounds, args.concurrency, args.baseline)
        )
    finally:
        server.terminate()
        server.join(5)
    request_us, pin_us = policy_cost_us(f"http://127.0.0.1:{port}")
    guarded_us = 1e6 / result["guarded_req_per_s"]
    print(
        f"guard cost: parse + check {request_us:.1f} us per request "
        f"({100 * request_us / guarded_us:.1f}% of a guarded request's {guarded_us:.0f} us), "
        f"pin {pin_us:.1f} us per new connection"
    )
    print(
        f"egress overhead: median {result['median_overhead_pct']:+.1f}% per request "
        f"(unguarded {args.baseline} {result['plain_req_per_s']:.0f} req/s, "
        f"guarded {result['guarded_req_per_s']:.0f} req/s, "
        f"{args.concurrency} concurrent, {args.rounds} rounds x {args.requests})"
    )


if __name__ == "__main__":
    main()
