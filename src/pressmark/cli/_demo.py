"""``pressmark demo``: start the bundled demo site on loopback and show where to look.

Until the crawler lands this only serves the site; the crawl of the demo (rendering
shells, writing ``--out``) is wired in by the crawl layer.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import click

from pressmark.demo import DemoServer, DemoSite
from pressmark.demo._site import MAX_PAGES


def guide(url: str, site: DemoSite, out: Path) -> str:
    shells = sum(page.is_shell for page in site.generated)
    return "\n".join([
        f"pressmark demo site: {url}/",
        f"  {len(site.generated)} generated pages ({shells} JavaScript shells), "
        f"{len(site.pages) - len(site.generated)} special pages, seed {site.seed}",
        "",
        "Try:",
        f"  curl {url}/robots.txt",
        f"  curl {url}/sitemap.xml",
        f"  curl {url}{site.paths_of_kind('shell-next')[0] if shells else '/'}",
        f"  pressmark crawl {url}/ --out {out}",
        "",
        "The URL map is in docs/demo-site.md. Press Ctrl-C to stop.",
    ])


async def _serve(site: DemoSite, port: int, out: Path, serve_only: bool,
                 stop_after: float) -> None:
    async with DemoServer(site, port=port) as server:
        click.echo(guide(server.url, site, out))
        if not serve_only:
            click.echo("(crawling the demo is not wired in yet; serving only)")
        if stop_after > 0:
            await asyncio.sleep(stop_after)
        else:
            await asyncio.Event().wait()


@click.command("demo")
@click.option("--pages", type=click.IntRange(1, MAX_PAGES), default=200, show_default=True,
              help="Number of generated pages.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 (0 picks a free one).")
@click.option("--seed", type=int, default=7, show_default=True, help="Site generator seed.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              default=Path("pressmark-demo"), show_default=True,
              help="Where the crawl of the demo writes its output.")
@click.option("--serve-only", is_flag=True, help="Only serve the site; do not crawl it.")
@click.option("--stop-after", type=float, default=0.0, hidden=True,
              help="Stop after this many seconds (for tests).")
def demo(*, pages: int, port: int, seed: int, out: Path, serve_only: bool,
         stop_after: float) -> None:
    """Start the bundled demo site on loopback and crawl it."""
    site = DemoSite(seed=seed, pages=pages)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(site, port, out, serve_only, stop_after))
