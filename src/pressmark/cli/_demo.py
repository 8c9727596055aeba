"""``pressmark demo``: serve the bundled demo site on loopback, crawl it, show where output went.

The demo is the whole product on a site that lives on this machine: static articles
with real-world chrome, JavaScript shells (rendered in Chromium because they are
shells, not because we asked), robots.txt and sitemaps. Nothing leaves loopback: the
crawl's egress policy admits exactly the demo server's origin as a test-only origin.

Running it again keeps ``OUT/store`` (so every page gains a second capture, which
the review workbench shows as history) and rewrites the rest of ``OUT``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shlex
import shutil
import textwrap
from pathlib import Path

import click

from pressmark.cli._hints import (
    EXIT_CODES_EPILOG,
    EXIT_FAILURE,
    activate_hint,
    command_prefix,
)
from pressmark.demo import DemoServer, DemoSite
from pressmark.demo._site import MAX_PAGES
from pressmark.egress import EgressDenied, parse_url

# What a previous demo crawl leaves in OUT besides the store.
_REWRITTEN = ("manifest.json", "pages.jsonl", "markdown", "evidence", ".state")


def guide(url: str, site: DemoSite, out: Path) -> str:
    shells = sum(page.is_shell for page in site.generated)
    prefix = command_prefix()
    return "\n".join([
        f"pressmark demo site: {url}/",
        f"  {len(site.generated)} generated pages ({shells} JavaScript shells), "
        f"{len(site.pages) - len(site.generated)} special pages, seed {site.seed}",
        "",
        "Try:",
        f"  curl {url}/robots.txt",
        f"  curl {url}/sitemap.xml",
        f"  curl {url}{site.paths_of_kind('shell-next')[0] if shells else '/'}",
        f"  {prefix} crawl {url}/ --out {out} --allow-loopback {url}",
        f"  {prefix} fetch {url}/about --allow-loopback {url}",
        "",
        "The URL map is in docs/demo-site.md. Press Ctrl-C to stop.",
    ])


def _clear_previous_output(out: Path) -> None:
    """Remove what the last demo wrote, except its store (captures accumulate)."""
    manifest = out / "manifest.json"
    if out.exists() and any(out.iterdir()) and not manifest.exists() \
            and not (out / "store").exists():
        raise click.UsageError(f"{out} exists and is not a pressmark crawl directory; "
                               "choose another --out")
    for name in _REWRITTEN:
        path = out / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def _previous_port(out: Path) -> int | None:
    """The demo server's port in the last demo crawl into OUT, if there was one."""
    try:
        seeds = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["seeds"]
        parsed = parse_url(str(seeds[0]))
        if parsed.host == "127.0.0.1" and parsed.explicit_port:
            return parsed.explicit_port
    except (OSError, ValueError, KeyError, IndexError, TypeError, EgressDenied):
        pass
    return None


def where_to_look(out: Path) -> str:
    pages = out / "pages.jsonl"
    lines = pages.read_text(encoding="utf-8").splitlines() if pages.exists() else []
    rendered = sum(1 for line in lines if json.loads(line).get("rendered"))
    md_files = len(list((out / "markdown").rglob("*.md"))) if (out / "markdown").exists() else 0
    ev_files = len(list((out / "evidence").rglob("*.json"))) \
        if (out / "evidence").exists() else 0
    return "\n".join([
        "",
        "Where to look:",
        f"  {out / 'manifest.json'}   the summary above, as JSON",
        f"  {pages}   one line per page ({len(lines)} pages, {rendered} rendered in Chromium)",
        f"  {out / 'markdown'}/   {md_files} Markdown files",
        f"  {out / 'evidence'}/   {ev_files} evidence packets (selectors, rules, provenance)",
        f"  {out / 'store'}/   the snapshots behind every sourceRef",
    ])


def next_steps(out: Path, prefix: str) -> str:
    """Commands to run next, spelled so that they work when copied (``prefix`` is how to
    type ``pressmark`` here: ``.venv/bin/pressmark`` after ``make demo``)."""
    first = _first_page(out / "pages.jsonl")
    store = out / "store"
    lines = ["", "Next (each works as typed, from this directory):",
             f"  {prefix} serve {out}",
             "      the review workbench on http://127.0.0.1:8765: pages, Markdown, evidence,",
             "      search, history, citations",
             f"  {prefix} store verify {store}",
             "      re-check every digest in the snapshot store"]
    if first is not None:
        ref, url = first
        copy = out / "first-page.html"
        lines += [f"  {prefix} replay {shlex.quote(ref)} --store {store} --out {copy}",
                  "      the exact bytes a citation names, offline",
                  f"  {prefix} md {copy} --url {url}",
                  "      those bytes as Markdown again, byte for byte what the crawl wrote"]
    lines += [f"  {prefix} demo --serve-only --port 8000",
              "      keep the demo site up and crawl it yourself: it prints the command"]
    activate = activate_hint(prefix)
    if activate is not None:
        lines.append(activate)
    lines.append("The user guide: docs/index.md")
    return "\n".join(lines)


def _first_page(pages: Path) -> tuple[str, str] | None:
    """(sourceRef, URL) of the first fetched page in ``pages.jsonl``, if there is one."""
    with contextlib.suppress(OSError, ValueError), pages.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if isinstance(row, dict) and row.get("outcome") == "ok" \
                    and isinstance(row.get("source_ref"), str):
                return row["source_ref"], str(row.get("final_url") or row["url"])
    return None


# Why the demo's robots.txt denies so much: its articles link share URLs, the way news
# sites do, and the site's robots.txt keeps crawlers out of them.
ROBOTS_NOTE = ("the demo site's robots.txt denies /share/* on purpose, as news sites do for "
               "the share links on every article")


async def _crawl_demo(site: DemoSite, port: int, out: Path, render: str, quiet: bool,
                      *, previous: int | None = None) -> None:
    from rich.console import Console  # noqa: PLC0415  # the CLI's output only

    from pressmark.cli._summary import browser_problem, explanations, summary_table  # noqa: PLC0415
    from pressmark.crawl import CrawlPolicy, crawl  # noqa: PLC0415
    from pressmark.crawl._progress import default_progress  # noqa: PLC0415
    from pressmark.egress import EgressPolicy  # noqa: PLC0415

    problem = browser_problem() if render != "never" else None
    async with contextlib.AsyncExitStack() as stack:
        server = None
        if previous is not None:
            # The same origin as last time keeps the same source ids, so the store gains a
            # second capture of every page (history) instead of a second set of sources.
            with contextlib.suppress(OSError):
                server = await stack.enter_async_context(DemoServer(site, port=previous))
        if server is None:
            server = await stack.enter_async_context(DemoServer(site, port=port))
        click.echo(f"pressmark demo site: {server.url}/  (crawling into {out}/)")
        if problem is not None:
            click.echo(f"note: JavaScript shells will be kept unrendered: {problem}")
        policy = CrawlPolicy(
            max_pages=len(site.pages) + 100,
            discovery="both",
            render=render,  # type: ignore[arg-type]  # checked by click.Choice
            egress=EgressPolicy(test_only_allowed_loopback_origins=(server.url,)),
        )
        manifest = await crawl([server.url + "/"], policy, out_dir=out,
                               progress=default_progress(quiet=quiet))
    Console().print(summary_table(manifest))
    for line in explanations(manifest, browser_problem=problem, robots_note=ROBOTS_NOTE):
        click.echo(textwrap.fill(line, width=100, subsequent_indent="  "))
    click.echo(where_to_look(out))
    click.echo(next_steps(out, command_prefix()))


async def _serve(site: DemoSite, port: int, out: Path, stop_after: float) -> None:
    async with DemoServer(site, port=port) as server:
        click.echo(guide(server.url, site, out))
        if stop_after > 0:
            await asyncio.sleep(stop_after)
        else:
            await asyncio.Event().wait()


@click.command("demo", epilog=EXIT_CODES_EPILOG)
@click.option("--pages", type=click.IntRange(1, MAX_PAGES), default=200, show_default=True,
              help="Number of generated pages.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 (0 picks a free one).")
@click.option("--seed", type=int, default=7, show_default=True, help="Site generator seed.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              default=Path("pressmark-demo"), show_default=True,
              help="Where the crawl of the demo writes its output.")
@click.option("--render", type=click.Choice(["never", "on-shell", "always"]),
              default="on-shell", show_default=True,
              help="When the crawl asks Chromium (on-shell: only for JavaScript shells).")
@click.option("--serve-only", is_flag=True, help="Only serve the site; do not crawl it.")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@click.option("--stop-after", type=float, default=0.0, hidden=True,
              help="With --serve-only: stop after this many seconds (for tests).")
def demo(*, pages: int, port: int, seed: int, out: Path, render: str, serve_only: bool,
         quiet: bool, stop_after: float) -> None:
    """Start the bundled demo site on loopback and crawl it."""
    site = DemoSite(seed=seed, pages=pages)
    if serve_only:
        with contextlib.suppress(KeyboardInterrupt):   # Ctrl-C is how serving ends: exit 0
            asyncio.run(_serve(site, port, out, stop_after))
        return
    previous = _previous_port(out) if port == 0 else None   # read before clearing
    _clear_previous_output(out)
    try:
        asyncio.run(_crawl_demo(site, port, out, render, quiet, previous=previous))
    except KeyboardInterrupt:
        # A crawl cut short is not a finished demo: say so, and exit as `crawl` does.
        click.echo(f"interrupted: {out} holds a partial crawl; run pressmark demo again to "
                   "redo it", err=True)
        raise SystemExit(EXIT_FAILURE) from None
