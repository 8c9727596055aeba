"""``pressmark crawl URL... --out DIR``: crawl a site into snapshots, Markdown and a manifest.

Exit codes (the table in :mod:`pressmark.cli._hints`): 0 when at least one page was
fetched, 2 for invalid configuration, 3 when every page was denied (egress policy or
robots.txt), 4 when the seeds were not reached (HTTP error, DNS failure, network error,
timeout: the same status ``pressmark fetch`` gives the seed), 5 when the crawl was
interrupted, could not write its output (a full disk) or failed otherwise.
"""

from __future__ import annotations

import contextlib
import json
import textwrap
from pathlib import Path

import click

from pressmark.cli._egress_options import build_policy, egress_options
from pressmark.cli._hints import (
    EXIT_CODES_EPILOG,
    EXIT_DENIED,
    EXIT_FAILURE,
    command_prefix,
    exit_code_for,
    loopback_hint,
)
from pressmark.crawl import (
    CrawlError,
    CrawlManifest,
    CrawlPolicy,
    Politeness,
    Seed,
    crawl_sync,
)
from pressmark.crawl._progress import default_progress

_FAILED_STOPS = ("interrupted", "disk-full", "output-error")


def _exit_code(manifest: CrawlManifest, out_dir: Path) -> int:
    s = manifest.summary
    if not manifest.complete and manifest.stop_reason in _FAILED_STOPS:
        return EXIT_FAILURE
    outcomes = s["by_outcome"]
    if s["pages"] == 0 or outcomes.get("ok", 0) + outcomes.get("not-modified", 0) > 0:
        return 0
    if outcomes.get("denied", 0) == s["pages"]:
        return EXIT_DENIED
    # Nothing was fetched: the crawl fails the way its first failed seed did, so a 404 seed
    # exits as `pressmark fetch` of it would.
    seeds = _seed_errors_of(manifest, out_dir)
    return exit_code_for(seeds[0][1]) if seeds else EXIT_FAILURE


@click.command("crawl", epilog=EXIT_CODES_EPILOG)
@click.argument("urls", nargs=-1, required=True)
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Output directory (manifest.json, pages.jsonl, store/, markdown/ and "
                   "evidence/ or bundles/).")
@click.option("--max-pages", type=click.IntRange(min=0), default=100_000, show_default=True,
              help="Stop after fetching this many pages (robots-denied URLs are listed in "
                   "pages.jsonl but not counted).")
@click.option("--max-depth", type=click.IntRange(min=0), default=None,
              help="Link depth limit (seeds are 0).")
@click.option("--discovery", type=click.Choice(["links", "sitemap", "both"]), default="links",
              show_default=True,
              help="Find pages by following links, from the sites' sitemaps (robots.txt "
                   "Sitemap: lines, else /sitemap.xml), or both.")
@click.option("--render", type=click.Choice(["never", "on-shell", "always"]), default="on-shell",
              show_default=True,
              help="When to ask a browser: on-shell renders only JavaScript shells "
                   "(needs pressmark[render] and a Chromium).")
@click.option("--concurrency", type=click.IntRange(min=1), default=16, show_default=True,
              help="Requests in flight across all hosts, for the whole crawl (with --engine "
                   "ray, split across the shards).")
@click.option("--render-concurrency", type=click.IntRange(min=1), default=None,
              help="Browser pages rendering at once (default: sized from CPUs and memory); "
                   "a render holds a request slot only while its document is requested.")
@click.option("--per-host-concurrency", type=click.IntRange(min=1), default=4, show_default=True,
              help="Requests in flight to one host.")
@click.option("--delay-ms", type=click.IntRange(min=0), default=0, show_default=True,
              help="Minimum gap between requests to one host (Crawl-delay may raise it).")
@click.option("--scope", default="same-host", show_default=True,
              help="same-host, same-site (registrable domain by the Public Suffix List, "
                   "exact port), or a comma-separated list of allowed hosts.")
@click.option("--include", multiple=True, help="Regex a URL must match (repeatable).")
@click.option("--exclude", multiple=True, help="Regex that excludes a URL (repeatable).")
@egress_options
@click.option("--no-robots", is_flag=True, help="Ignore robots.txt (be sure you may).")
@click.option("--no-markdown", is_flag=True, help="Store snapshots only; skip Markdown.")
@click.option("--store", "store_path", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Snapshot store root (default OUT/store); replay reads it.")
@click.option("--store-format", type=click.Choice(["segments", "files"]), default="segments",
              show_default=True,
              help="Format of a store the crawl creates: WARC segments with an index (a few "
                   "files whatever the page count), or one file per snapshot. An existing "
                   "store keeps its format.")
@click.option("--output", "output", type=click.Choice(["files", "bundles"]), default="files",
              show_default=True,
              help="Markdown and evidence as files (in 256 sharded directories), or appended "
                   "to compressed JSONL bundles under OUT/bundles/.")
@click.option("--workers", type=click.IntRange(min=0), default=None,
              help="Parser processes (default: CPU count with Markdown, inline without).")
@click.option("--page-timeout", type=click.FloatRange(min=0, min_open=True), default=10.0,
              show_default=True,
              help="Seconds of parse/convert work one page may take before its worker is "
                   "killed (the page is recorded as parse-timeout).")
@click.option("--time-budget", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Stop after this many seconds.")
@click.option("--user-agent", default=None,
              help="User-Agent (its product token is matched in robots.txt).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display and no summary.")
@click.option("--resume", is_flag=True, help="Continue the interrupted crawl in OUT.")
@click.option("--no-revalidate", is_flag=True,
              help="Recrawling into an OUT (or --store) that holds earlier snapshots: fetch "
                   "every page in full instead of sending If-None-Match / If-Modified-Since.")
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
@click.option("--expect-heading", metavar="REGEX", default=None,
              help="Each seed page must have a heading matching REGEX, or its validation "
                   "fails with required-heading-missing (a wrong route that answered 200).")
@click.option("--expect-language", metavar="LANG", default=None,
              help="Each seed page must declare this language (en, de-AT), or its "
                   "validation fails with language-mismatch.")
@click.option("--replay", is_flag=True,
              help="Re-run from the store (--store, or OUT/store: then OUT is re-derived in "
                   "place) with no network at all.")
@click.option("--keep-hidden-text", is_flag=True,
              help="Keep text a reader would not see (display:none, off-screen, "
                   "aria-hidden, ...) in the Markdown; by default it is left out. The "
                   "evidence lists it and the manifest counts it either way.")
@click.option("--agent-views", is_flag=True,
              help="Also capture each HTML page's agent-facing versions (its answer to "
                   "Accept: text/markdown, its rel=alternate text/markdown link, the "
                   "site's /llms.txt once) and compare them with the page's Markdown.")
def crawl(  # noqa: PLR0917  # click passes every option as a parameter
          urls: tuple[str, ...], out_dir: Path, max_pages: int, max_depth: int | None,
          discovery: str, render: str, concurrency: int, render_concurrency: int | None,
          per_host_concurrency: int,
          delay_ms: int, scope: str, include: tuple[str, ...], exclude: tuple[str, ...],
          origins: tuple[str, ...], ports: tuple[int, ...], proxy: str | None,
          no_robots: bool, no_markdown: bool,
          store_path: Path | None, store_format: str, output: str, workers: int | None,
          page_timeout: float,
          time_budget: float | None,
          user_agent: str | None, quiet: bool, resume: bool, no_revalidate: bool, engine: str,
          ray_address: str | None, shards: int, render_workers: int,
          expect_heading: str | None, expect_language: str | None, replay: bool,
          keep_hidden_text: bool, agent_views: bool) -> None:
    """Crawl from URL... into OUT: snapshots, Markdown, evidence and a manifest."""
    egress = build_policy(origins, ports, proxy)
    if resume:
        finished = _finished_crawl(out_dir)
        if finished is not None:   # nothing to continue: say so, not "the policy differs"
            click.echo(f"nothing to resume: {out_dir} holds a complete crawl ({finished}); "
                       "run the same command without --resume to crawl it again (pages "
                       "already stored are revalidated)", err=True)
            raise SystemExit(0)
    store = None
    if replay and store_path is None:
        store_path = out_dir / "store"
        if not store_path.is_dir():
            raise click.UsageError("--replay needs --store PATH (or an OUT with a store/)")
    if store_path is not None:
        from pressmark.store import StoreError, open_store  # noqa: PLC0415  # loaded on use

        try:  # an existing store keeps its format; a new one gets --store-format
            store = open_store(store_path, create=True,
                               format=None if (store_path / "pressmark-store.json").exists()
                               else store_format)  # type: ignore[arg-type]
        except StoreError as exc:
            raise click.UsageError(f"--store: {exc.message}") from exc
    scope_value: str | tuple[str, ...] = scope
    if scope not in ("same-host", "same-site"):
        scope_value = tuple(h.strip().lower() for h in scope.split(",") if h.strip())
        if not scope_value:
            raise click.BadParameter("expected same-host, same-site or host names",
                                     param_hint="--scope")
    try:
        policy = CrawlPolicy(
            max_pages=max_pages, max_depth=max_depth, scope=scope_value,  # type: ignore[arg-type]
            include=include, exclude=exclude, discovery=discovery,  # type: ignore[arg-type]
            render=render,  # type: ignore[arg-type]
            politeness=Politeness(delay_ms=delay_ms, per_host_concurrency=per_host_concurrency,
                                  concurrency=concurrency),
            robots=not no_robots, egress=egress, store=store,
            store_format=store_format, output=output,  # type: ignore[arg-type]
            mode="replay" if replay else "live", markdown=not no_markdown,
            time_budget_s=time_budget, user_agent=user_agent, workers=workers,
            revalidate=not no_revalidate,
            page_deadline_s=page_timeout,
            render_concurrency=render_concurrency, agent_views=agent_views,
            keep_hidden_text=keep_hidden_text,
        )
        runner = None
        if engine == "ray":
            from pressmark.crawl.ray import RayEngine  # noqa: PLC0415  # Ray only when asked

            runner = RayEngine(address=ray_address, shards=shards, render_workers=render_workers)
        seeds = [Seed(url, expected_heading=expect_heading, expected_language=expect_language)
                 for url in urls]
        if render != "never" and not quiet and not replay and engine == "local":
            from pressmark.cli._summary import browser_problem  # noqa: PLC0415  # on use

            problem = browser_problem()
            if problem is not None:   # said before the crawl, not only after it
                click.echo(f"note: JavaScript shells will be kept unrendered: {problem}",
                           err=True)
        manifest = crawl_sync(seeds, policy, handle_sigint=True, out_dir=out_dir,
                              resume=resume, progress=default_progress(quiet=quiet),
                              engine=runner)
    except CrawlError as exc:
        if exc.code == "output-error":  # the output directory failed, not the command line
            click.echo(f"error: {exc}", err=True)
            raise SystemExit(EXIT_FAILURE) from exc
        raise click.UsageError(str(exc)) from exc
    code = _exit_code(manifest, out_dir)
    if not quiet:
        from rich.console import Console  # noqa: PLC0415  # loaded on use

        from pressmark.cli._summary import (  # noqa: PLC0415  # loaded on use
            browser_problem,
            explanations,
            summary_table,
        )

        Console().print(summary_table(manifest))
        problem = browser_problem() if manifest.summary.get("render_fallbacks") else None
        for line in explanations(manifest, browser_problem=problem):
            click.echo(textwrap.fill(line, width=100, subsequent_indent="  "))
        click.echo(where_it_went(out_dir, manifest, store_path))
    if code != 0:   # errors are not progress: --quiet keeps them
        for line in _why(manifest, out_dir, origins):
            click.echo(line, err=True)
    raise SystemExit(code)


def where_it_went(out_dir: Path, manifest: CrawlManifest, store_path: Path | None) -> str:
    """Every path the crawl wrote, so nobody has to guess where the Markdown went."""
    outcomes = manifest.summary.get("by_outcome", {})
    fetched = outcomes.get("ok", 0) + outcomes.get("not-modified", 0)
    store = store_path if store_path is not None else out_dir / "store"
    prefix = command_prefix()
    return "\n".join([
        f"wrote {out_dir / 'manifest.json'}  (summary)",
        f"      {out_dir / 'pages.jsonl'}  (one line per page: "
        f"{manifest.summary.get('pages', 0)} pages, {fetched} fetched)",
        (f"      {out_dir / 'markdown'}/ and {out_dir / 'evidence'}/  (Markdown, evidence)"
         if manifest.policy.get("output", "files") == "files" else
         f"      {out_dir / 'bundles'}/  (Markdown and evidence, compressed JSONL bundles)"),
        f"      {store}/  (snapshots; {prefix} store verify {store})",
        f"review: {prefix} serve {out_dir}",
    ])


def _why(manifest: CrawlManifest, out_dir: Path, loopback: tuple[str, ...]) -> list[str]:
    """Why nothing (or not everything) was fetched, on stderr: seed errors and the way on."""
    if not manifest.complete and manifest.stop_reason == "interrupted":
        return [f"interrupted: {out_dir} holds the pages so far; run the same command with "
                "--resume to continue"]
    if not manifest.complete and manifest.stop_reason in _FAILED_STOPS:
        what = "the disk is full" if manifest.stop_reason == "disk-full" else \
            "its output could not be written"
        return [f"stopped: {what}; {out_dir / 'manifest.json'} and pages.jsonl describe the "
                f"{manifest.summary.get('pages', 0)} pages written; free space, then run the "
                "same command with --resume to continue"]
    lines: list[str] = []
    seeds = _seed_errors_of(manifest, out_dir)
    for url, kind, message in seeds[:10]:
        lines.append(f"error: {url}: {kind}: {message}")
        if kind == "egress-denied" and not loopback:
            hint = loopback_hint(url)
            if hint is not None and hint not in lines:
                lines.append(hint)
    return lines


def _finished_crawl(out_dir: Path) -> str | None:
    """"N pages, finished at T" when ``out_dir`` holds a crawl that ran to its end."""
    try:
        manifest = json.loads((out_dir / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("complete") is not True:
        return None
    pages = (manifest.get("summary") or {}).get("pages", "?")
    return f"{pages} pages, finished at {manifest.get('finished_at', '?')}"


def _seed_errors_of(manifest: CrawlManifest, out_dir: Path) -> list[tuple[str, str, str]]:
    """(url, kind, message) of every failed seed, from the manifest or ``pages.jsonl``."""
    if manifest.pages:
        return [(p.url, p.error.kind, p.error.message) for p in manifest.pages
                if p.depth == 0 and p.error is not None]
    return _seed_errors(out_dir / "pages.jsonl")


def _seed_errors(pages_path: Path) -> list[tuple[str, str, str]]:
    """(url, kind, message) of every failed seed in ``pages.jsonl``."""
    rows: list[tuple[str, str, str]] = []
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError), \
            pages_path.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row.get("depth") == 0 and row.get("error"):
                rows.append((row["url"], row["error"]["kind"], row["error"]["message"]))
    return rows
