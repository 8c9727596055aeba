"""Judge URLs the way pressmark's guard does, with a hostile DNS answer simulated.

Run: python examples/check_urls.py
"""

from __future__ import annotations

import asyncio

from pressmark.egress import EgressDenied, StaticResolver, evaluate_url

URLS = [
    "https://example.test/article",          # resolves to a public address: allowed
    "http://169.254.169.254/latest/meta-data",  # cloud metadata: denied by address
    "http://0x7f.1/",                         # 127.0.0.1 spelled in hex: denied
    "http://metadata.google.internal/",       # denied by name, before any lookup
    "https://rebind.test/",                   # answers public *and* private: denied
]

# Hostile DNS is simulated; nothing here sends a packet.
RESOLVER = StaticResolver({
    "example.test": ["93.184.216.34"],
    "rebind.test": ["93.184.216.34", "10.0.0.7"],
})


async def main() -> None:
    for url in URLS:
        try:
            target = await evaluate_url(url, resolver=RESOLVER)
        except EgressDenied as denied:
            print(f"denied   {denied.code:<16} {url}")
        else:
            print(f"allowed  {','.join(target.addresses):<16} {url}")


if __name__ == "__main__":
    asyncio.run(main())
