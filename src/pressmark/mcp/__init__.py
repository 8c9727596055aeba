"""pressmark for agents: an MCP server whose fetch cannot be turned against its network.

``pressmark mcp`` (extra ``pressmark[mcp]``, the official ``mcp`` SDK) serves six tools
over stdio or loopback streamable HTTP: ``fetch_page``, ``crawl_site``,
``read_markdown``, ``resolve_citation``, ``get_chunks`` and ``verify_quote``. Every
fetch goes through the guarded egress and robots.txt, every limit is the operator's
(:class:`McpOptions`), every page text is marked untrusted, and every failure is a tool
error with a stable code.

Built on the public APIs of the layers below, like :mod:`pressmark.cli`. The SDK is
imported on first use of :func:`build_server` / :func:`run_stdio`, so importing this
package costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pressmark._lazy import lazy_exports
from pressmark.mcp._options import McpOptions

if TYPE_CHECKING:
    from pressmark.mcp._server import build_server
    from pressmark.mcp._tools import PressmarkTools


_LAZY: dict[str, str] = {
    "PressmarkTools": "pressmark.mcp._tools",
    "build_server": "pressmark.mcp._server",
}

__all__ = [
    "McpOptions",
    "PressmarkTools",
    "build_server",
]


__getattr__ = lazy_exports(__name__, _LAZY, globals())
