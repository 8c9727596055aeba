"""``python -m pressmark.demo serve [--host H] [--port P] [--pages N] [--seed S] [--faults]``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Sequence

from pressmark.demo._server import DemoServer
from pressmark.demo._site import MAX_PAGES, DemoSite


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pressmark.demo",
                                     description="Serve the pressmark demo site on loopback.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the demo site until Ctrl-C")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=0, help="0 picks a free port")
    serve.add_argument("--pages", type=int, default=200, help=f"1..{MAX_PAGES}")
    serve.add_argument("--seed", type=int, default=7)
    serve.add_argument("--faults", action="store_true", help="enable /fault/* endpoints")
    serve.add_argument("--crawl-delay", type=float, default=None)
    serve.add_argument("--robots", default="normal",
                       choices=["normal", "500", "404", "timeout", "redirect", "huge"])
    return parser


async def _serve(site: DemoSite, host: str, port: int) -> None:
    async with DemoServer(site, host=host, port=port) as server:
        print(f"pressmark demo site: {server.url}/", flush=True)
        await asyncio.Event().wait()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        site = DemoSite(seed=args.seed, pages=args.pages, faults=args.faults,
                        crawl_delay=args.crawl_delay, robots=args.robots)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(site, args.host, args.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
