"""``pressmark fetch URL``: one guarded, polite fetch, printed as HTML, text, Markdown or JSON.

``--format html`` (the default) prints the body as fetched; ``text`` the main content's
plain text and ``markdown`` its Markdown (the same conversion a crawl writes); ``json``
(or ``--json``) the whole result. Exit codes: 0 ok (a 304 included), 2 invalid
configuration or usage, 3 denied by the egress policy or robots.txt, 4 not reached
(HTTP error, DNS failure, network error, timeout), 5 any other failure (a page that is not
HTML asked for as Markdown included).

``--render on-shell|always`` uses :class:`pressmark.render.PlaywrightRenderer`,
started lazily (on-shell: only when a page turns out to be a shell) with the
same egress policy; ``always`` without a browser that starts is ``invalid-config``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import click

from pressmark import render as render_module
from pressmark import store as store_module
from pressmark._errors import PressmarkError
from pressmark.cli._egress_options import build_policy, egress_options
from pressmark.cli._fetch_views import agent_views, say_views
from pressmark.cli._hints import (
    EXIT_CODES_EPILOG,
    EXIT_FAILURE,
    EXIT_USAGE,
    exit_code_for,
    loopback_hint,
)
from pressmark.egress import EgressPolicy, Resolver
from pressmark.fetch import (
    FetchFailure,
    FetchOptions,
    FetchResult,
    RobotsCache,
    SourceConfig,
    classify_shell,
    fetch_source,
)

# Denial codes that mean "this is not a URL we could ever fetch": usage errors (exit 2).
_MALFORMED = frozenset({"INVALID_URL", "INVALID_SCHEME", "INVALID_HOST"})


FORMATS = ("html", "text", "markdown", "json")

# What --json says of a sourceRef nothing keeps (no --store): it names the bytes, but no
# store holds them, so it can never be resolved (pressmark replay) later.
UNRESOLVABLE_NOTE = ("no --store: these bytes are kept nowhere, so source_ref cannot be "
                     "resolved later; pass --store DIR to keep them")


def result_to_json(result: FetchResult) -> dict[str, Any]:
    """The ``--json`` document (stable keys; ``snapshot`` is metadata, never the body)."""
    snap = result.snapshot
    snapshot: dict[str, Any] | None = None
    if snap is not None:
        snapshot = {
            "source_id": snap.source_id,
            "requested_url": snap.requested_url,
            "url": snap.url,
            "status": snap.status,
            "not_modified": bool(result.not_modified or snap.not_modified),
            "rendered": bool(snap.rendered),
            "content_type": snap.content_type,
            "declared_charset": snap.declared_charset,
            "charset_source": snap.charset_source,
            "bytes": len(snap.bytes),
            "body_hash": snap.body_hash,
            "hash_basis": snap.hash_basis,
            "snapshot_sha256": snap.snapshot_sha256,
            "fetched_at": snap.fetched_at,
            "etag": snap.etag,
            "last_modified": snap.last_modified,
            "redirects": [{"status": r.status, "location": r.location, "ip": r.ip}
                          for r in snap.redirects],
            "source_ref": result.source_ref,
        }
    escalation = result.render_escalation
    return {
        "ok": result.ok,
        "url": result.url,
        "status": result.http_status if result.http_status is not None else (
            snap.status if snap is not None else None),
        "not_modified": result.not_modified,
        "source_ref": result.source_ref,
        "snapshot": snapshot,
        "warnings": list(result.warnings),
        "error": None if result.error is None else result.error.to_dict(),
        "render_escalation": None if escalation is None else escalation.to_dict(),
        "readiness": None if result.readiness is None else {
            "passed": result.readiness.passed, "reason": result.readiness.reason,
            "elapsed_ms": result.readiness.elapsed_ms},
        "timings": result.timings.to_dict(),
    }


def _failure_json(url: str, kind: str, message: str, code: str | None) -> dict[str, Any]:
    """The ``--json`` document for a failure found before fetch_source ran (same keys)."""
    result = FetchResult(url=url, error=FetchFailure(kind=kind,  # type: ignore[arg-type]
                                                     message=message, code=code, url=url))
    return result_to_json(result)


async def _run(url: str, *, render: str, store_dir: Path | None, policy: EgressPolicy,
               max_bytes: int | None, timeout_ms: int | None, retries: int | None,
               user_agent: str | None, respect_robots: bool, views: bool = False,
               ) -> tuple[FetchResult, list[dict[str, Any]] | None]:
    store: store_module.SnapshotStore | None = None
    if store_dir is not None:
        store = store_module.open_store(store_dir, create=True)  # either format
    # --store means "keep and revalidate"; a rendered fetch never revalidates (decision 6),
    # so --render always does not switch it on only to warn that it was inert.
    source = SourceConfig(url=url, render_policy=render,  # type: ignore[arg-type]
                          max_response_bytes=max_bytes, timeout_ms=timeout_ms, retries=retries,
                          user_agent=user_agent, respect_robots=respect_robots,
                          revalidate=store is not None and render != "always")
    resolver: Resolver | None = None   # the system resolver, for the fetch and the browser
    renderer = None if render == "never" else render_module.LazyRenderer(policy, resolver)
    try:
        if render == "always" and renderer is not None:
            try:
                await renderer.start()
            except Exception as exc:
                message = (f"--render always needs a browser, and none could start: "
                           f"{type(exc).__name__}: {exc}")
                return FetchResult(url=url, error=FetchFailure(
                    kind="invalid-config", message=message, code=getattr(exc, "code", None),
                    url=url)), None
        # One robots.txt download for the page and its agent views.
        robots = RobotsCache(policy=policy, resolver=resolver) if views else None
        options = FetchOptions(egress=policy, resolver=resolver, store=store, renderer=renderer,
                               robots=robots)
        result = await fetch_source(source, options)
        if not views:
            return result, None
        return result, await agent_views(result, source, options, store)
    finally:
        if renderer is not None:
            await renderer.aclose()


@click.command("fetch", epilog=EXIT_CODES_EPILOG)
@click.argument("url")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="What to print: the body as fetched (html, the default), the main "
                   "content as plain text or as Markdown, or the whole result as JSON.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Same as --format markdown.")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option("--render", type=click.Choice(["never", "on-shell", "always"]), default="never",
              show_default=True, help="Render policy (a browser renders JavaScript shells).")
@click.option("--store", "store_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Keep the snapshot in this filesystem store (and revalidate against it); "
                   "its sourceRef then resolves later.")
@egress_options
@click.option("--max-bytes", type=click.IntRange(min=1), help="Response size limit in bytes.")
@click.option("--timeout-ms", type=click.IntRange(min=1), help="Time budget for the fetch.")
@click.option("--retries", type=click.IntRange(min=0, max=10), help="Retries of a plain fetch.")
@click.option("--user-agent", help="User-Agent (its product token is matched in robots.txt).")
@click.option("--no-robots", is_flag=True, help="Do not consult robots.txt.")
@click.option("--keep-hidden-text", is_flag=True,
              help="With --format markdown or text: keep text a reader would not see "
                   "(display:none, off-screen, aria-hidden, ...); by default it is left out.")
@click.option("--agent-views", "views", is_flag=True,
              help="Also fetch the page's agent-facing versions (Accept: text/markdown, its "
                   "rel=alternate text/markdown link, the site's /llms.txt) and compare them "
                   "with its Markdown (JSON: agent_views; otherwise a line each on stderr).")
def fetch(url: str, *, fmt: str | None, as_markdown: bool, as_json: bool, render: str,
          store_dir: Path | None, origins: tuple[str, ...], ports: tuple[int, ...],
          proxy: str | None, max_bytes: int | None, timeout_ms: int | None,
          retries: int | None, user_agent: str | None, no_robots: bool,
          keep_hidden_text: bool, views: bool) -> None:
    """Fetch URL through the guarded, polite fetcher and print it (see --format).

    The output goes to stdout; warnings, errors and hints go to stderr.
    """
    chosen = {f for f, flag in (("markdown", as_markdown), ("json", as_json)) if flag}
    if fmt is not None:
        chosen.add(fmt)
    if len(chosen) > 1:
        raise click.UsageError(f"choose one output format, not {' and '.join(sorted(chosen))}")
    fmt = chosen.pop() if chosen else "html"
    as_json = fmt == "json"
    try:
        policy = build_policy(origins, ports, proxy)
    except click.BadParameter as exc:
        if not as_json:
            raise
        click.echo(json.dumps(_failure_json(url, "invalid-config", exc.format_message(),
                                            "invalid-config"), indent=2, ensure_ascii=False))
        sys.exit(EXIT_USAGE)
    invalid = _invalid_url(url)
    if invalid is not None:   # a malformed URL is a usage error, as in `pressmark crawl`
        if as_json:
            click.echo(json.dumps(_failure_json(url, "invalid-config", invalid.message,
                                                invalid.code), indent=2, ensure_ascii=False))
        else:
            click.echo(f"error: invalid-config: {invalid.message}", err=True)
        sys.exit(EXIT_USAGE)
    try:
        result, found = asyncio.run(_run(
            url, render=render, store_dir=store_dir, policy=policy, max_bytes=max_bytes,
            timeout_ms=timeout_ms, retries=retries, user_agent=user_agent,
            respect_robots=not no_robots, views=views))
    except PressmarkError as exc:
        if as_json:
            click.echo(json.dumps(_failure_json(url, "invalid-config", exc.message, exc.code),
                                  indent=2, ensure_ascii=False))
        else:
            click.echo(f"error: invalid-config: {exc.message}", err=True)
        sys.exit(EXIT_USAGE)
    code = exit_code_for(None if result.error is None else result.error.kind)
    if as_json:
        document = result_to_json(result)
        if store_dir is None and result.source_ref is not None:
            document["source_ref_resolvable"] = False
            document["note"] = UNRESOLVABLE_NOTE
        if found is not None:
            document["agent_views"] = found
        click.echo(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        for warning in result.warnings:
            click.echo(f"warning: {warning}", err=True)
        if result.error is not None:
            status = f" (HTTP {result.error.status})" if result.error.status and \
                str(result.error.status) not in result.error.message else ""
            click.echo(f"error: {result.error.kind}{status}: {result.error.message}", err=True)
        elif result.snapshot is not None:
            code = _print_body(result, fmt, keep_hidden=keep_hidden_text)
        if store_dir is not None and result.source_ref is not None:
            # the body went to stdout; say where the snapshot went and how to cite it
            click.echo(f"stored in {store_dir}: {result.source_ref}", err=True)
        if found is not None:
            say_views(found)
    if render == "never" and result.snapshot is not None and \
            result.snapshot.content_type == "html" and not result.snapshot.not_modified:
        verdict = classify_shell(result.snapshot.body, result.url)
        if verdict.escalate:   # the body printed is an empty shell: say how to get the page
            click.echo(f"hint: this looks like a JavaScript shell ({verdict.reason}); "
                       "--render on-shell renders it in a browser", err=True)
    if result.error is not None and result.error.kind == "egress-denied" and not origins:
        hint = loopback_hint(url)   # the URL asked for: never a redirect target
        if hint is not None:
            click.echo(hint, err=True)
    sys.exit(code)


def _print_body(result: FetchResult, fmt: str, *, keep_hidden: bool = False) -> int:
    """Print the fetched page as ``fmt`` (html, text or markdown); the exit status."""
    snap = result.snapshot
    assert snap is not None
    if fmt == "html":
        click.echo(snap.body.encode("utf-8", "surrogatepass"), nl=False)
        return 0
    if snap.content_type != "html":
        click.echo(f"error: not-html: the page is {snap.content_type} content, which has no "
                   "Markdown or main text; --format html prints it as fetched", err=True)
        return EXIT_FAILURE
    from pressmark.markdown import ConversionPolicy, to_markdown  # noqa: PLC0415  # on use

    if keep_hidden:
        converted = to_markdown(snap.body, url=snap.url, requested_url=snap.requested_url,
                                policy=ConversionPolicy(keep_hidden_text=True))
    else:
        converted = to_markdown(snap.body, url=snap.url, requested_url=snap.requested_url)
    for warning in converted.warnings:
        click.echo(f"warning: {warning}", err=True)
    if not converted.validation.passed:
        click.echo("warning: validation failed (" + ", ".join(converted.validation.reasons)
                   + "): the page's main content may be missing", err=True)
    if fmt == "markdown":
        text = converted.markdown
    else:
        text = "\n\n".join(block for block in converted.block_texts if block) + "\n"
    click.echo(text.encode("utf-8", "surrogatepass"), nl=False)
    return 0


def _invalid_url(url: str) -> PressmarkError | None:
    """The egress layer's parse error when URL is not an absolute http(s) URL at all."""
    from pressmark.egress import EgressDenied, parse_url  # noqa: PLC0415

    try:
        parse_url(url)
    except EgressDenied as exc:
        if exc.code in _MALFORMED:
            return exc
    return None
