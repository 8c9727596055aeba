"""``pressmark mcp``: serve pressmark's tools to AI agents over the Model Context Protocol.

stdio by default (the client starts ``pressmark mcp`` and talks on its stdin/stdout);
``--http 127.0.0.1:PORT`` serves streamable HTTP on a loopback address only, behind a
bearer token printed at start (or read from ``--token-file``). Needs the extra
``pressmark[mcp]``. Exit status 2 for invalid options or a missing extra.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from pressmark.cli._egress_options import allow_loopback_option
from pressmark.cli._hints import EXIT_CODES_EPILOG

_INSTALL_HINT = "pressmark mcp needs the MCP SDK: pip install 'pressmark[mcp]'"


@click.command("mcp", epilog=EXIT_CODES_EPILOG)
@click.option("--http", "listen", metavar="127.0.0.1:PORT",
              help="Serve streamable HTTP on this loopback address (PORT 0 picks one) at /mcp, "
                   "instead of stdio. Requests need the bearer token printed at start.")
@click.option("--token-file", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="With --http: read the bearer token from this file instead of making one "
                   "(at least 16 characters).")
@click.option("--store", "store_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Snapshot store the captures go to (default: "
                   "$XDG_DATA_HOME/pressmark/store, i.e. ~/.local/share/pressmark/store).")
@allow_loopback_option
@click.option("--max-pages", type=click.IntRange(min=1), default=100, show_default=True,
              help="Hard cap on the pages one crawl_site call fetches, whatever it asks.")
@click.option("--max-bytes", type=click.IntRange(min=1), default=10 * 1024 * 1024,
              show_default=True, help="Response size limit in bytes, for every page fetched.")
@click.option("--render", type=click.Choice(["never", "on-shell", "always"]), default="on-shell",
              show_default=True,
              help="The most rendering a call may ask for (on-shell: a browser only for "
                   "JavaScript shells; needs pressmark[render] and a Chromium).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0, min_open=True),
              default=60.0, show_default=True,
              help="Seconds one tool call may take, fetch and conversion included.")
def mcp(  # noqa: PLR0917  # click passes every option as a parameter
        listen: str | None, token_file: Path | None, store_dir: Path | None,
        origins: tuple[str, ...], max_pages: int, max_bytes: int, render: str,
        timeout_s: float) -> None:
    """Serve fetch_page, crawl_site, read_markdown and resolve_citation to an MCP client.

    Every fetch goes through pressmark's guarded egress and robots.txt; page text is
    returned marked as untrusted web content. Logs go to stderr.
    """
    from pressmark.mcp import McpOptions  # noqa: PLC0415  # --help stays fast
    from pressmark.mcp._options import default_store_dir  # noqa: PLC0415  # --help stays fast

    if token_file is not None and listen is None:
        raise click.UsageError("--token-file only applies with --http")
    try:
        options = McpOptions(store_dir=store_dir or default_store_dir(), allow_loopback=origins,
                             max_pages=max_pages, max_bytes=max_bytes,
                             render=render,  # type: ignore[arg-type]  # click.Choice checked
                             call_timeout_s=timeout_s)
        from pressmark.egress import EgressPolicy  # noqa: PLC0415  # validate the origins now

        EgressPolicy().allow_loopback(*origins)
    except Exception as exc:
        raise click.UsageError(str(exc)) from exc
    try:
        if listen is None:
            from pressmark.mcp._server import run_stdio  # noqa: PLC0415  # imports the SDK

            asyncio.run(run_stdio(options))
        else:
            _serve_http(options, listen, token_file)
    except ModuleNotFoundError as exc:
        if exc.name is not None and exc.name.split(".")[0] in ("mcp", "mcp_types", "pydantic"):
            raise click.UsageError(_INSTALL_HINT) from exc
        raise
    except KeyboardInterrupt:
        sys.exit(0)


def _serve_http(options: object, listen: str, token_file: Path | None) -> None:
    from pressmark.mcp._http import (  # noqa: PLC0415  # imports the SDK
        MCP_PATH,
        bind,
        new_token,
        parse_listen,
        read_token,
        run_http,
    )

    try:
        host, port = parse_listen(listen)
        token = read_token(token_file) if token_file is not None else new_token()
    except (ValueError, OSError) as exc:
        raise click.UsageError(str(exc)) from exc
    try:
        sock = bind(host, port)
    except OSError as exc:
        raise click.UsageError(f"--http {listen}: {exc.strerror or exc}") from exc
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    click.echo(f"pressmark mcp: http://{shown}:{bound_port}{MCP_PATH}", err=True)
    if token_file is None:
        click.echo(f"token: {token}", err=True)
    else:
        click.echo(f"token: read from {token_file}", err=True)
    asyncio.run(run_http(options, sock, token))  # type: ignore[arg-type]
