"""A conversion job for the MCP tests: pages whose URL says "slow" take a minute.

Imported by name in the parser process, as every job is; nothing else changes.
"""

from __future__ import annotations

import time
from typing import Any

from pressmark.mcp._pages import convert_page


def convert_slowly_marked(job: Any) -> Any:
    snapshot = job[0]
    if "slow" in (snapshot.url or ""):
        time.sleep(60)
    return convert_page(job)
