"""A tiny programmable loopback HTTP server for fetch-layer unit tests.

Each test registers the responses it needs (``site.add(path, ...)``) and reads
back what was requested (``site.requests``). The demo site covers the same
ground end to end in ``tests/integration``; this server keeps unit tests small.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest
from aiohttp import web

from pressmark.egress import EgressPolicy
from pressmark.fetch import FetchOptions

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass
class LoopbackSite:
    origin: str = ""
    routes: dict[str, Handler] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    def add(self, path: str, body: bytes | str = b"", *, status: int = 200,
            headers: dict[str, str] | None = None, content_type: str = "text/html") -> None:
        data = body.encode("utf-8") if isinstance(body, str) else body
        hdrs = {"Content-Type": content_type, **(headers or {})}

        async def handler(request: web.Request) -> web.StreamResponse:
            return web.Response(body=data, status=status, headers=hdrs)

        self.routes[path] = handler

    def handle(self, path: str, handler: Handler) -> None:
        self.routes[path] = handler

    def url(self, path: str) -> str:
        return self.origin + path

    def paths(self) -> list[str]:
        return [p for p, _ in self.requests]

    def policy(self) -> EgressPolicy:
        return EgressPolicy(test_only_allowed_loopback_origins=(self.origin,))

    def options(self, **kwargs: object) -> FetchOptions:
        return FetchOptions(egress=self.policy(), **kwargs)  # type: ignore[arg-type]


@pytest.fixture
async def site() -> AsyncIterator[LoopbackSite]:
    state = LoopbackSite()

    async def dispatch(request: web.Request) -> web.StreamResponse:
        state.requests.append((request.path_qs, {k.lower(): v for k, v in request.headers.items()}))
        handler = state.routes.get(request.path_qs) or state.routes.get(request.path)
        if handler is None:
            return web.Response(status=404, text="not found", content_type="text/plain")
        return await handler(request)

    server = web.Server(dispatch)
    runner = web.ServerRunner(server, handle_signals=False, shutdown_timeout=0.2)
    await runner.setup()
    tcp = web.TCPSite(runner, "127.0.0.1", 0)
    await tcp.start()
    port = tcp._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    state.origin = f"http://127.0.0.1:{port}"
    try:
        yield state
    finally:
        await runner.cleanup()
        await asyncio.sleep(0)
