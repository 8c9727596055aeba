"""A deterministic demo web site and the asyncio server that serves it on loopback.

Used by the tests, the benchmarks and ``pressmark demo``; the URL map is documented in
``docs/demo-site.md``. Only the standard library is imported here.
"""

from pressmark.demo._server import DemoServer, run_demo_server_in_thread
from pressmark.demo._site import DemoSite

__all__ = [
    "DemoServer",
    "DemoSite",
    "run_demo_server_in_thread",
]
