"""Guarded egress: every connection pressmark opens goes through here.

Resolve once, validate every answer, pin one: a URL is parsed the way a browser
parses it, refused if it names an internal host or address, and connected to
only at an address that was checked, while TLS verifies the host name. See
``docs/contracts.md`` (egress) for the public surface.

The policy, the resolver, the client, the proxy, URL canonicalisation and the
address classifier load on first use, so ``import pressmark.egress`` stays light:
layers which only parse URLs (Markdown link resolution, ``pressmark md``) pay for the
URL parser alone, without asyncio, ssl or ``ipaddress``. The parser itself
(``ParsedURL``, ``parse_url``, ``join_url``) loads on first use as well: the Markdown
layer asks ``is_canonical_url`` first, and on most pages no link needs more.
"""

from __future__ import annotations

from pressmark._lazy import lazy_exports
from pressmark.egress._errors import (
    DENIAL_CODES,
    DnsFailure,
    EgressConfigError,
    EgressDenied,
    EgressTimeout,
    NetworkError,
    ResponseTooLarge,
)
from pressmark.egress._url_shape import is_canonical_url

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from pressmark.egress._canonical import canonical_url
    from pressmark.egress._client import GuardedClient
    from pressmark.egress._connector import Connector
    from pressmark.egress._policy import EgressPolicy, Timeout, evaluate_url
    from pressmark.egress._proxy import EgressProxy
    from pressmark.egress._resolver import Resolver, StaticResolver
    from pressmark.egress._response import GuardedResponse, RedirectHop
    from pressmark.egress._url import ParsedURL, join_url, parse_url

_LAZY: dict[str, str] = {
    "ParsedURL": "pressmark.egress._url",
    "join_url": "pressmark.egress._url",
    "parse_url": "pressmark.egress._url",
    "canonical_url": "pressmark.egress._canonical",
    "EgressPolicy": "pressmark.egress._policy",
    "Timeout": "pressmark.egress._policy",
    "evaluate_url": "pressmark.egress._policy",
    "Resolver": "pressmark.egress._resolver",
    "StaticResolver": "pressmark.egress._resolver",
    "GuardedClient": "pressmark.egress._client",
    "GuardedResponse": "pressmark.egress._response",
    "RedirectHop": "pressmark.egress._response",
    "Connector": "pressmark.egress._connector",
    "EgressProxy": "pressmark.egress._proxy",
}

__all__ = [
    "DENIAL_CODES",
    "Connector",
    "DnsFailure",
    "EgressConfigError",
    "EgressDenied",
    "EgressPolicy",
    "EgressProxy",
    "EgressTimeout",
    "GuardedClient",
    "GuardedResponse",
    "NetworkError",
    "ParsedURL",
    "RedirectHop",
    "Resolver",
    "ResponseTooLarge",
    "StaticResolver",
    "Timeout",
    "canonical_url",
    "evaluate_url",
    "is_canonical_url",
    "join_url",
    "parse_url",
]


__getattr__ = lazy_exports(__name__, _LAZY, globals())
