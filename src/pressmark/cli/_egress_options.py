"""The egress options every command that connects shares, and the policy they build.

``--allow-loopback``, ``--allow-port`` and ``--proxy`` read the same (and mean the same) in
``crawl``, ``fetch``, ``mcp`` and ``egress check``. None of them weakens the guard for other
targets: a loopback origin admits exactly itself, a port admits public addresses only on it,
and a proxy is only ever asked to tunnel to an address pressmark vetted itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from pressmark.egress import EgressPolicy

F = TypeVar("F", bound=Callable[..., Any])

ALLOW_LOOPBACK_HELP = ("Admit a test-only loopback origin such as http://127.0.0.1:4173 or "
                       "http://localhost:4173 (repeatable).")
ALLOW_PORT_HELP = ("Also allow this port on public addresses, besides 80 and 443 "
                   "(repeatable); internal addresses stay refused on every port.")
PROXY_HELP = ("Send every connection through this HTTP proxy (http://[user:pass@]host:port) "
              "as a CONNECT tunnel to the address pressmark resolved and vetted itself; "
              "proxy environment variables are never read.")


def allow_loopback_option(f: F) -> F:
    return click.option("--allow-loopback", "origins", multiple=True, metavar="ORIGIN",
                        help=ALLOW_LOOPBACK_HELP)(f)


def egress_options(f: F) -> F:
    """``--allow-loopback``, ``--allow-port`` and ``--proxy`` (parameters ``origins``,
    ``ports``, ``proxy``)."""
    f = click.option("--proxy", metavar="URL", default=None, help=PROXY_HELP)(f)
    f = click.option("--allow-port", "ports", multiple=True, type=click.IntRange(1, 65535),
                     metavar="PORT", help=ALLOW_PORT_HELP)(f)
    return allow_loopback_option(f)


def build_policy(origins: tuple[str, ...] = (), ports: tuple[int, ...] = (),
                 proxy: str | None = None) -> EgressPolicy:
    """The :class:`~pressmark.egress.EgressPolicy` the options describe; a usage error
    naming the option when one is malformed."""
    from pressmark.egress import EgressConfigError, EgressPolicy  # noqa: PLC0415  # fast --help

    try:
        policy = EgressPolicy(proxy=proxy)
    except EgressConfigError as exc:
        raise click.BadParameter(exc.message, param_hint="--proxy") from exc
    try:
        policy = policy.allow_loopback(*origins)
    except EgressConfigError as exc:
        raise click.BadParameter(exc.message, param_hint="--allow-loopback") from exc
    return policy.allow_ports(*ports) if ports else policy
