"""EgressProxy shutdown with requests in flight, and how it counts the 407 handshake."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Callable

from pressmark.egress import EgressPolicy, EgressProxy, StaticResolver
from pressmark.testing import RecordingConnector

from ._server import TEXT, LoopbackOrigin
from .test_proxy import RESOLVER, auth, read_response


async def eventually(predicate: Callable[[], bool], seconds: float = 5.0) -> None:
    for _ in range(int(seconds * 100)):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition not reached")


async def test_close_while_waiting_on_upstream_closes_every_stream(
    policy: EgressPolicy, origin: LoopbackOrigin
) -> None:
    proxy = EgressProxy(policy, StaticResolver(RESOLVER), RecordingConnector())
    await proxy.start()
    clients = []
    for _ in range(3):
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        writer.write(
            f"GET {origin.url('/slow?s=30')} HTTP/1.1\r\nHost: x\r\n{auth(proxy)}\r\n".encode()
        )
        clients.append((reader, writer))
    await eventually(lambda: len(origin.requests) == 3)
    async with asyncio.timeout(3):
        await proxy.close()
    for reader, writer in clients:
        async with asyncio.timeout(3):
            assert await reader.read() == b""  # the proxy closed its side
        writer.close()
        await writer.wait_closed()
    await proxy.close()  # idempotent
    gc.collect()  # an unclosed transport would warn here (filterwarnings=error)


async def test_connection_accepted_during_close_is_not_served(
    policy: EgressPolicy, origin: LoopbackOrigin
) -> None:
    proxy = EgressProxy(policy, StaticResolver(RESOLVER), RecordingConnector())
    await proxy.start()
    _, busy = await asyncio.open_connection("127.0.0.1", proxy.port)
    busy.write(f"GET {origin.url('/slow?s=30')} HTTP/1.1\r\nHost: x\r\n{auth(proxy)}\r\n".encode())
    await eventually(lambda: len(origin.requests) == 1)
    late_reader, late = await asyncio.open_connection("127.0.0.1", proxy.port)
    late.write(f"GET {origin.url('/page')} HTTP/1.1\r\nHost: x\r\n{auth(proxy)}\r\n".encode())
    await proxy.close()
    try:
        async with asyncio.timeout(3):
            assert await late_reader.read() == b""
    except ConnectionResetError:
        pass  # closed with the request unread: a reset is as good as an end
    assert len(origin.requests) == 1
    for writer in (busy, late):
        writer.close()
        with contextlib.suppress(ConnectionResetError):
            await writer.wait_closed()
    gc.collect()


async def test_first_challenge_then_credentials_is_not_a_denial(
    policy: EgressPolicy, origin: LoopbackOrigin
) -> None:
    async with EgressProxy(policy, StaticResolver(RESOLVER), RecordingConnector()) as proxy:
        # Chromium's handshake: no credentials, 407, the same request again with them;
        # on the same connection, and on a new one.
        url = origin.url("/page")
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        writer.write(f"GET {url} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        assert (await read_response(reader))[0] == 407
        writer.write(f"GET {url} HTTP/1.1\r\nHost: x\r\n{auth(proxy)}\r\n".encode())
        status, _, body = await read_response(reader)
        assert status == 200 and body == TEXT
        writer.write(f"GET {url}?2 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        assert (await read_response(reader))[0] == 407
        other_reader, other = await asyncio.open_connection("127.0.0.1", proxy.port)
        other.write(f"GET {url}?2 HTTP/1.1\r\nHost: x\r\n{auth(proxy)}\r\n".encode())
        assert (await read_response(other_reader))[0] == 200
        for w in (writer, other):
            w.close()
            await w.wait_closed()
        await asyncio.sleep(0.05)
        assert proxy.challenges == 2
        assert proxy.denied == []

        # A challenge nobody answers is a refusal once its connection ends.
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        writer.write(b"CONNECT public.test:443 HTTP/1.1\r\n\r\n")
        assert (await read_response(reader))[0] == 407
        writer.close()
        await writer.wait_closed()
        await eventually(lambda: len(proxy.denied) == 1)
        (denial,) = proxy.denied
        assert (denial.code, denial.method, denial.host) == ("PROXY_AUTH", "CONNECT", "public.test")
        assert proxy.challenges == 2


def test_refused_host_is_recorded_from_the_target() -> None:
    from pressmark.egress._proxy_wire import target_host

    assert target_host("CONNECT", "Public.test:443") == "public.test"
    assert target_host("GET", "http://u:p@host.test:8080/x") == "host.test"
    assert target_host("GET", "http://[::1]/x") == "::1"
    assert target_host("GET", "http://[::1]:80/x") == "::1"
    assert target_host("GET", "/relative") is None


async def test_a_peer_that_never_authenticates_is_denied_at_once(
    policy: EgressPolicy, origin: LoopbackOrigin
) -> None:
    async with EgressProxy(policy, StaticResolver(RESOLVER), RecordingConnector()) as proxy:
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        for i in range(40):
            writer.write(f"GET {origin.url('/page')}?{i} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert (await read_response(reader))[0] == 407
        assert len(proxy.denied) == 8  # beyond 32 pending challenges, at once
        writer.close()
        await writer.wait_closed()
        await eventually(lambda: len(proxy.denied) == 40)
        assert proxy.challenges == 0
        assert origin.requests == []
