"""``pressmark serve DIR``: the review workbench on loopback."""

from __future__ import annotations

import contextlib
import socket
from pathlib import Path

import click
import uvicorn

from pressmark.cli._hints import EXIT_CODES_EPILOG, EXIT_FAILURE
from pressmark.web import create_app
from pressmark.web._security import DEFAULT_ALLOWED_HOSTS


@click.command("serve", epilog=EXIT_CODES_EPILOG)
@click.argument(
    "directory", type=click.Path(exists=True, file_okay=False, dir_okay=True, path_type=Path)
)
@click.option("--port", "-p", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="TCP port (0 picks a free one).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind. Anything but loopback exposes the crawl to the network.")
def serve(directory: Path, port: int, host: str) -> None:
    """Serve the review workbench for the crawl output DIRECTORY (read-only)."""
    if not (directory / "pages.jsonl").exists() and not (directory / "manifest.json").exists():
        raise click.UsageError(f"{directory} has no manifest.json or pages.jsonl")
    allowed = tuple(DEFAULT_ALLOWED_HOSTS)
    if host not in allowed:
        click.echo(f"warning: binding {host}; the workbench is meant for loopback", err=True)
        allowed = (*allowed, host)
    app = create_app(directory, allowed_hosts=allowed)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        click.echo(f"error: cannot bind {host}:{port}: {exc.strerror}"
                   f"{' (try --port 0 for a free port)' if port else ''}", err=True)
        raise SystemExit(EXIT_FAILURE) from exc
    bound = sock.getsockname()[1]
    shown = f"[{host.strip('[]')}]" if family == socket.AF_INET6 else host
    click.echo(f"pressmark workbench: http://{shown}:{bound}/  (Ctrl+C to stop)", err=True)
    config = uvicorn.Config(app, log_level="warning", server_header=False, proxy_headers=False)
    # uvicorn shuts down on the first Ctrl-C, then re-raises the signal: a stop the
    # user asked for is a clean exit, not click's "Aborted!" with status 1.
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(config).run(sockets=[sock])
    click.echo("pressmark workbench: stopped", err=True)
