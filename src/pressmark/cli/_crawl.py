"""``pressmark crawl URL... --out DIR``: crawl a site into snapshots, Markdown and a manifest.

Exit codes (see :mod:`pressmark.cli._main`): 0 when at least one page was
fetched, 2 for invalid configuration, 3 when every page was denied (egress
policy or robots.txt), 5 when the crawl was interrupted or every page failed.
"""

from __future__ import annotations

from pathlib import Path

import click

from pressmark.crawl import (
    CrawlError,
    CrawlManifest,
    CrawlPolicy,
    Politeness,
    crawl_sync,
    render_summary_table,
)
from pressmark.crawl._progress import default_progress


def _exit_code(manifest: CrawlManifest) -> int:
    s = manifest.summary
    if not manifest.complete and manifest.stop_reason == "interrupted":
        return 5
    outcomes = s["by_outcome"]
    if s["pages"] == 0 or outcomes.get("ok", 0) + outcomes.get("not-modified", 0) > 0:
        return 0
    return 3 if outcomes.get("denied", 0) == s["pages"] else 5


@click.command("crawl")
@click.argument("urls", nargs=-1, required=True)
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Output directory (manifest.json, pages.jsonl, store/, markdown/, evidence/).")
@click.option("--max-pages", type=int, default=100_000, show_default=True)
@click.option("--max-depth", type=int, default=None, help="Link depth limit (seeds are 0).")
@click.option("--discovery", type=click.Choice(["links", "sitemap", "both"]), default="links",
              show_default=True)
@click.option("--render", type=click.Choice(["never", "on-shell", "always"]), default="on-shell",
              show_default=True,
              help="When to ask a browser: on-shell renders only JavaScript shells "
                   "(needs pressmark[render] and a Chromium).")
@click.option("--concurrency", type=int, default=16, show_default=True)
@click.option("--per-host-concurrency", type=int, default=4, show_default=True)
@click.option("--delay-ms", type=int, default=0, show_default=True,
              help="Minimum gap between requests to one host (Crawl-delay may raise it).")
@click.option("--scope", default="same-host", show_default=True,
              help="same-host, same-site, or a comma-separated list of allowed hosts.")
@click.option("--include", multiple=True, help="Regex a URL must match (repeatable).")
@click.option("--exclude", multiple=True, help="Regex that excludes a URL (repeatable).")
@click.option("--allow-loopback", "loopback", multiple=True, metavar="ORIGIN",
              help="Test only: allow this exact loopback origin, e.g. http://127.0.0.1:8080.")
@click.option("--no-robots", is_flag=True, help="Ignore robots.txt (be sure you may).")
@click.option("--no-markdown", is_flag=True, help="Store snapshots only; skip Markdown.")
@click.option("--store", "store_path", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Snapshot store root (default OUT/store); replay reads it.")
@click.option("--workers", type=int, default=None,
              help="Parser processes (default: CPU count with Markdown, inline without).")
@click.option("--time-budget", type=float, default=None, help="Stop after this many seconds.")
@click.option("--user-agent", default=None)
@click.option("--quiet", "-q", is_flag=True, help="No progress display and no summary.")
@click.option("--resume", is_flag=True, help="Continue the interrupted crawl in OUT.")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Where the crawl runs: in this process, or sharded by host on Ray "
                   "(needs pressmark[ray]).")
@click.option("--ray-address", default=None, metavar="ADDR",
              help="Ray cluster to join ('auto' or ray://host:port); default: a local, "
                   "loopback-only Ray for this crawl.")
@click.option("--shards", type=click.IntRange(1, 1024), default=2, show_default=True,
              help="With --engine ray: host-partitioned shard actors.")
@click.option("--render-workers", type=click.IntRange(0, 256), default=1, show_default=True,
              help="With --engine ray: render actors (one Chromium each).")
@click.option("--replay", is_flag=True,
              help="Re-run from the store (--store, or OUT/store: then OUT is re-derived in "
                   "place) with no network at all.")
def crawl(  # noqa: PLR0917  # click passes every option as a parameter
          urls: tuple[str, ...], out_dir: Path, max_pages: int, max_depth: int | None,
          discovery: str, render: str, concurrency: int, per_host_concurrency: int,
          delay_ms: int, scope: str, include: tuple[str, ...], exclude: tuple[str, ...],
          loopback: tuple[str, ...], no_robots: bool, no_markdown: bool,
          store_path: Path | None, workers: int | None, time_budget: float | None,
          user_agent: str | None, quiet: bool, resume: bool, engine: str,
          ray_address: str | None, shards: int, render_workers: int, replay: bool) -> None:
    """Crawl from URL... into OUT: snapshots, Markdown, evidence and a manifest."""
    from pressmark.egress import EgressPolicy  # noqa: PLC0415  # keeps `pressmark --help` fast

    try:
        egress = EgressPolicy().allow_loopback(*loopback) if loopback else EgressPolicy()
    except Exception as exc:
        raise click.UsageError(f"--allow-loopback: {exc}") from exc
    store = None
    if replay and store_path is None:
        store_path = out_dir / "store"
        if not store_path.is_dir():
            raise click.UsageError("--replay needs --store PATH (or an OUT with a store/)")
    if store_path is not None:
        from pressmark.store import FilesystemSnapshotStore  # noqa: PLC0415  # loaded on use

        store = FilesystemSnapshotStore(store_path)
    scope_value: str | tuple[str, ...] = scope
    if scope not in ("same-host", "same-site"):
        scope_value = tuple(h.strip().lower() for h in scope.split(",") if h.strip())
    try:
        policy = CrawlPolicy(
            max_pages=max_pages, max_depth=max_depth, scope=scope_value,  # type: ignore[arg-type]
            include=include, exclude=exclude, discovery=discovery,  # type: ignore[arg-type]
            render=render,  # type: ignore[arg-type]
            politeness=Politeness(delay_ms=delay_ms, per_host_concurrency=per_host_concurrency,
                                  concurrency=concurrency),
            robots=not no_robots, egress=egress, store=store,
            mode="replay" if replay else "live", markdown=not no_markdown,
            time_budget_s=time_budget, user_agent=user_agent, workers=workers,
        )
        runner = None
        if engine == "ray":
            from pressmark.crawl.ray import RayEngine  # noqa: PLC0415  # Ray only when asked

            runner = RayEngine(address=ray_address, shards=shards, render_workers=render_workers)
        manifest = crawl_sync(list(urls), policy, handle_sigint=True, out_dir=out_dir,
                              resume=resume, progress=default_progress(quiet=quiet),
                              engine=runner)
    except CrawlError as exc:
        raise click.UsageError(str(exc)) from exc
    if not quiet:
        from rich.console import Console  # noqa: PLC0415  # loaded on use

        Console().print(render_summary_table(manifest))
        click.echo(f"wrote {out_dir / 'manifest.json'}")
    raise SystemExit(_exit_code(manifest))

