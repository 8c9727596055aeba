"""``pressmark egress check URL``: would pressmark connect to this URL, and where?

Prints one JSON object ``{"allowed": bool, "code": str | null, "addresses": [...]}``
and exits 0 when allowed, 3 when denied, 4 when the name does not resolve
(``dns-failure``: a network error, not a denial), 2 for invalid options. With
``--resolve`` the given answers are the *only* DNS answers (a name not listed fails
with ``dns-failure``), so a check never touches the network; without it the system
resolver is asked.
"""

from __future__ import annotations

import asyncio
import json

import click

from pressmark.cli._egress_options import ALLOW_PORT_HELP, allow_loopback_option, build_policy
from pressmark.cli._hints import EXIT_CODES_EPILOG, EXIT_DENIED, EXIT_UNRESOLVED
from pressmark.egress import (
    DnsFailure,
    EgressDenied,
    Resolver,
    StaticResolver,
    evaluate_url,
    parse_url,
)
from pressmark.egress._resolver import SystemResolver


def _parse_resolve(values: tuple[str, ...]) -> dict[str, list[str]]:
    table: dict[str, list[str]] = {}
    for item in values:
        host, sep, ips = item.partition("=")
        # "[2001:db8::1]" is accepted as a convenience; the answer itself must be a literal.
        addresses = [_unbracket(ip.strip()) for ip in ips.split(",") if ip.strip()]
        if not sep or not host.strip() or not addresses:
            raise click.BadParameter(
                f"expected HOST=IP[,IP...], got {item!r}", param_hint="--resolve"
            )
        table.setdefault(_canonical_host(host.strip()), []).extend(addresses)
    return table


def _unbracket(ip: str) -> str:
    return ip[1:-1] if ip.startswith("[") and ip.endswith("]") else ip


def _canonical_host(host: str) -> str:
    """The name as evaluate_url will ask the resolver for it (IDNA A-labels, no trailing dot)."""
    try:
        parsed = parse_url(f"http://{host}/")
    except EgressDenied:
        return host.lower().rstrip(".")
    return parsed.host


@click.group(epilog=EXIT_CODES_EPILOG)
def egress() -> None:
    """Check URLs against the egress policy."""


@egress.command(epilog=EXIT_CODES_EPILOG)
@click.argument("url")
@click.option(
    "--resolve", "resolve", multiple=True, metavar="HOST=IP[,IP...]",
    help="Answer DNS for HOST with these addresses (repeatable); disables real DNS.",
)
@allow_loopback_option
@click.option(
    "--allow-port", "--port", "ports", multiple=True, type=click.IntRange(1, 65535),
    metavar="PORT", help=ALLOW_PORT_HELP,
)
def check(url: str, resolve: tuple[str, ...], origins: tuple[str, ...],
          ports: tuple[int, ...]) -> None:
    """Evaluate URL exactly as pressmark's client would, without connecting."""
    policy = build_policy(origins, ports)
    resolver: Resolver = StaticResolver(_parse_resolve(resolve)) if resolve else SystemResolver()
    try:
        target = asyncio.run(evaluate_url(url, policy=policy, resolver=resolver))
    except EgressDenied as exc:
        click.echo(json.dumps({"allowed": False, "code": exc.code, "addresses": []}))
        click.echo(f"denied: {exc.message}", err=True)
        raise SystemExit(EXIT_DENIED) from None
    except DnsFailure as exc:
        click.echo(json.dumps({"allowed": False, "code": exc.code, "addresses": []}))
        click.echo(f"error: dns-failure: {exc.message}", err=True)
        raise SystemExit(EXIT_UNRESOLVED) from None
    click.echo(json.dumps({"allowed": True, "code": None, "addresses": list(target.addresses)}))
