"""``pressmark mcp --http``: loopback only, and nothing answers without the bearer token."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("mcp")

import httpx2
import psutil
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from pressmark.cli import main
from pressmark.mcp._options import TOOL_NAMES

pytestmark = pytest.mark.timeout(120)

PRESSMARK = str(Path(sys.executable).with_name("pressmark"))
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "raw", "version": "0"}}})


@contextlib.asynccontextmanager
async def http_server(*args: str) -> AsyncIterator[tuple[asyncio.subprocess.Process, str, str]]:
    """(process, endpoint URL, the token line's value) of ``pressmark mcp --http 127.0.0.1:0``."""
    process = await asyncio.create_subprocess_exec(
        PRESSMARK, "mcp", "--http", "127.0.0.1:0", *args, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    try:
        assert process.stderr is not None
        first = (await asyncio.wait_for(process.stderr.readline(), 30)).decode()
        second = (await asyncio.wait_for(process.stderr.readline(), 30)).decode()
        assert first.startswith("pressmark mcp: http://127.0.0.1:"), first
        assert second.startswith("token: "), second
        yield process, first.split(": ", 1)[1].strip(), second.split(": ", 1)[1].strip()
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 30)


def post(url: str, headers: dict[str, str]) -> tuple[int, bytes]:
    target = httpx2.URL(url)
    conn = http.client.HTTPConnection(target.host, target.port, timeout=10)
    try:
        conn.request("POST", target.path, body=INIT, headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            **headers})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


async def test_requests_without_the_token_are_refused(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token = "s3cret-token-for-this-test-only"
    token_file.write_text(token + "\n", encoding="utf-8")
    async with http_server("--store", str(tmp_path / "store"),
                           "--token-file", str(token_file)) as (process, url, shown):
        assert shown == f"read from {token_file}"   # a token from a file is never printed
        for headers in ({}, {"Authorization": "Bearer wrong-token-of-some-length"},
                        {"Authorization": token}, {"Authorization": f"bearer  {token}"}):
            status, body = await asyncio.to_thread(post, url, headers)
            assert status == 401, (headers, body)
            assert json.loads(body)["code"] == "missing-or-bad-token"
        auth = {"Authorization": f"Bearer {token}"}
        status, _ = await asyncio.to_thread(post, url, {**auth, "Host": "rebound.example"})
        assert status in (400, 403, 421)   # the SDK's DNS-rebinding check: wrong Host
        async with httpx2.AsyncClient(headers=auth, trust_env=False) as client, \
                streamable_http_client(url, http_client=client) as (read, write, *_), \
                ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
        assert sorted(t.name for t in tools) == sorted(TOOL_NAMES)
        listening = [c.laddr for c in psutil.Process(process.pid).net_connections(kind="inet")
                     if c.status == psutil.CONN_LISTEN]
    assert listening and all(address.ip == "127.0.0.1" for address in listening), listening


async def test_a_fresh_token_is_printed_and_required(tmp_path: Path) -> None:
    async with http_server("--store", str(tmp_path / "store")) as (_, url, token):
        assert len(token) >= 32
        status, _ = await asyncio.to_thread(post, url, {})
        assert status == 401
        status, body = await asyncio.to_thread(post, url, {"Authorization": f"Bearer {token}"})
        assert status == 200, body


@pytest.mark.parametrize("listen", ["0.0.0.0:0", "192.168.1.10:8000", "localhost:8000",
                                    "[::]:0", "127.0.0.1", "127.0.0.1:99999"])
def test_only_a_loopback_address_is_accepted(listen: str) -> None:
    result = CliRunner().invoke(main, ["mcp", "--http", listen])
    assert result.exit_code == 2
    assert "127.0.0.1:PORT" in result.output
