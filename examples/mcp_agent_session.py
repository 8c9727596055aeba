"""An agent's session with ``pressmark mcp``: fetch a page, try an SSRF, verify the citation.

Starts the demo site on loopback, launches ``pressmark mcp`` the way an MCP client does
(a child process on stdio), and talks to it with the official SDK's client.

Run: python examples/mcp_agent_session.py        (needs pressmark[mcp])
"""

from __future__ import annotations

import asyncio
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters, stdio_client

from pressmark.demo import DemoSite, run_demo_server_in_thread


async def session(origin: str, article: str, store: str) -> None:
    # What goes in the client's configuration: the command and its arguments.
    server = StdioServerParameters(command=sys.executable, args=[
        "-m", "pressmark", "mcp", "--store", store, "--render", "never",
        "--allow-loopback", origin])   # the demo site is on loopback: test-only admission
    async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        page = await client.call_tool("fetch_page", {"url": origin + article})
        data = page.structured_content or {}
        print(f"fetch_page -> {data['status']} {data['title']!r}, "
              f"{data['total_chars']} characters of Markdown, valid: "
              f"{data['validation']['passed']}")
        ssrf = await client.call_tool("fetch_page",
                                      {"url": "http://169.254.169.254/latest/meta-data/"})
        print(f"fetch_page(metadata) -> isError={ssrf.is_error}: "
              f"{(ssrf.structured_content or {})['error']['code']}")
        cited = await client.call_tool("resolve_citation", {"source_ref": data["source_ref"]})
        check = cited.structured_content or {}
        print(f"resolve_citation -> ok={check['ok']} ({check['integrity']}), "
              f"{check['bytes']} bytes captured at {check['fetched_at']}")


def main() -> None:
    site = DemoSite(pages=20)
    with run_demo_server_in_thread(site) as demo, \
            tempfile.TemporaryDirectory(prefix="pressmark-mcp-") as store:
        asyncio.run(session(demo.url, site.paths_of_kind("article")[0], store))


if __name__ == "__main__":
    main()
