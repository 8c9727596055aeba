"""``pressmark mcp --render on-shell``: a JavaScript shell comes back rendered, in real Chromium."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters, stdio_client

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

PRESSMARK = str(Path(sys.executable).with_name("pressmark"))


async def test_a_shell_is_rendered_and_its_markdown_is_pressmark_md(
    tmp_path: Path, make_demo_server: Any,
) -> None:
    server = make_demo_server(pages=20)
    shell = next(p for p in server.site.pages if p.kind == "shell")
    store = tmp_path / "store"
    params = StdioServerParameters(command=PRESSMARK, args=[
        "mcp", "--store", str(store), "--allow-loopback", server.url, "--render", "on-shell"])
    with (tmp_path / "server.stderr").open("w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("fetch_page", {"url": server.url + shell.path})
            assert not result.is_error, result.content
            page = result.structured_content
            assert page is not None
            cited = await session.call_tool("resolve_citation",
                                            {"source_ref": page["source_ref"]})
            assert not cited.is_error
    assert page["rendered"] is True and page["status"] == 200
    assert page["title"].startswith(shell.title)   # the rendered <title> adds the site name
    html = tmp_path / "rendered.html"
    replay = await asyncio.create_subprocess_exec(
        PRESSMARK, "replay", page["source_ref"], "--store", str(store), "--out", str(html))
    assert await replay.wait() == 0
    md = await asyncio.create_subprocess_exec(
        PRESSMARK, "md", str(html), "--url", page["final_url"], stdout=asyncio.subprocess.PIPE)
    out, _ = await md.communicate()
    assert page["markdown"] == out.decode("utf-8")
    assert shell.title in page["markdown"]
