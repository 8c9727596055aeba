"""The streamable-HTTP transport: loopback only, and nothing without the bearer token.

A fetch tool on an open port is an SSRF proxy for anyone who can reach it, and a
browser page can reach loopback ports. So the listener binds a loopback address
(nothing else is accepted), every request must carry ``Authorization: Bearer
<token>`` (compared in constant time), and the SDK's Host/Origin checks refuse a
DNS-rebound name. The token is random per start unless the operator supplies one.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from pressmark.mcp._options import McpOptions

    Receive = Callable[[], Any]
    Send = Callable[[dict[str, Any]], Any]

MCP_PATH = "/mcp"
MIN_TOKEN_CHARS = 16


def parse_listen(value: str) -> tuple[str, int]:
    """``127.0.0.1:PORT`` (any 127/8 address, or ``[::1]:PORT``); anything else is refused."""
    host, sep, port_text = value.rpartition(":")
    if not sep or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"expected 127.0.0.1:PORT, got {value!r}")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"{host!r} is not an IP address: the server binds loopback "
                         "addresses only (127.0.0.1:PORT)") from None
    if not address.is_loopback:
        raise ValueError(f"{host} is not a loopback address: the server binds loopback "
                         "addresses only (127.0.0.1:PORT)")
    return str(address), int(port_text)


def read_token(path: Path) -> str:
    token = path.read_text(encoding="utf-8").strip()
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise ValueError(f"the token in {path} must be at least {MIN_TOKEN_CHARS} characters "
                         "with no spaces")
    return token


def new_token() -> str:
    return secrets.token_urlsafe(32)


class BearerGate:
    """ASGI middleware: an HTTP request without the exact bearer token gets 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode("ascii")

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = b""
            for name, value in scope.get("headers", ()):
                if name == b"authorization":
                    given = value
                    break
            if not hmac.compare_digest(given, self.expected):
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b'Bearer realm="pressmark"')]})
                await send({"type": "http.response.body",
                            "body": b'{"error":"unauthorized","code":"missing-or-bad-token"}'})
                return
        await self.app(scope, receive, send)


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def run_http(options: McpOptions, sock: socket.socket, token: str) -> None:
    """Serve the streamable-HTTP transport on the bound loopback socket ``sock``."""
    import uvicorn  # noqa: PLC0415  # only for --http
    from mcp.server.transport_security import TransportSecuritySettings  # noqa: PLC0415

    from pressmark.mcp._server import build_server  # noqa: PLC0415
    from pressmark.mcp._tools import PressmarkTools  # noqa: PLC0415

    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=[f"{shown}:{port}"],
        allowed_origins=[f"http://{shown}:{port}"])
    tools = PressmarkTools(options)
    app = build_server(options, tools=tools).streamable_http_app(
        streamable_http_path=MCP_PATH, transport_security=security, host=host)
    config = uvicorn.Config(BearerGate(app, token), log_level="warning", lifespan="on",
                            access_log=False)
    try:
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        await tools.aclose()
