"""Errors raised by :mod:`pressmark.egress`.

::

    PressmarkError
    ├── EgressDenied         code in DENIAL_CODES; .host, .url, .hops
    ├── EgressConfigError    code "invalid-config" (also a ValueError)
    ├── NetworkError         code "network-error": refused, reset, TLS, protocol errors
    │   ├── DnsFailure       code "dns-failure": the name does not resolve (no answer at all)
    │   └── EgressTimeout    code "timeout": connect, read or total
    └── ResponseTooLarge     code "response-too-large": declared, streamed, or a bomb

Messages name at most the host: a URL may carry secrets (tokens in the query
string) and an address may be something a caller should not learn, so neither
is echoed. The full URL travels on attributes for callers who want it.
"""

from __future__ import annotations

from pressmark._errors import PressmarkError

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

    from pressmark.egress._response import RedirectHop

DENIED_ADDRESS: Final = "DENIED_ADDRESS"
DENIED_HOST: Final = "DENIED_HOST"
INVALID_URL: Final = "INVALID_URL"
INVALID_HOST: Final = "INVALID_HOST"
INVALID_SCHEME: Final = "INVALID_SCHEME"
INVALID_PORT: Final = "INVALID_PORT"
USERINFO: Final = "USERINFO"
REDIRECT_DOWNGRADE: Final = "REDIRECT_DOWNGRADE"
REDIRECT_CROSS_HOST: Final = "REDIRECT_CROSS_HOST"
TOO_MANY_REDIRECTS: Final = "TOO_MANY_REDIRECTS"

# A name that does not resolve is not a denial: nothing was refused, the network had no
# answer (:class:`DnsFailure`, a network error). An answer that is *not an address* is
# still a denial (``DENIED_ADDRESS``): it would have been dialled.
DENIAL_CODES: Final = frozenset(
    {
        DENIED_ADDRESS, DENIED_HOST, INVALID_URL, INVALID_HOST, INVALID_SCHEME, INVALID_PORT,
        USERINFO, REDIRECT_DOWNGRADE, REDIRECT_CROSS_HOST, TOO_MANY_REDIRECTS,
    }
)


class EgressDenied(PressmarkError):
    """The policy refused a URL, a host, an address or a redirect hop.

    ``reason`` names the denied range or rule (for ``DENIED_ADDRESS`` the range,
    including the IPv4 address an IPv6 address embeds).
    """

    code: str = DENIED_ADDRESS

    def __init__(
        self,
        code: str,
        host: str | None,
        message: str,
        *,
        reason: str | None = None,
        url: str | None = None,
        hops: tuple[RedirectHop, ...] = (),
    ) -> None:
        if code not in DENIAL_CODES:  # pragma: no cover - programming error
            raise ValueError(f"unknown denial code {code!r}")
        super().__init__(message, code=code)
        self.host = host
        self.reason = reason
        self.url = url
        self.hops = hops


class EgressConfigError(PressmarkError, ValueError):
    """An :class:`EgressPolicy` (or a CLI option building one) is malformed."""

    code = "invalid-config"


class NetworkError(PressmarkError):
    """The connection failed: refused, reset, TLS or HTTP protocol error."""

    code = "network-error"

    def __init__(self, message: str, *, host: str | None = None, url: str | None = None) -> None:
        super().__init__(message)
        self.host = host
        self.url = url


class DnsFailure(NetworkError):
    """The host name has no address: NXDOMAIN, no answer, or the resolver failed.

    A network error, not a denial: the same URL may work on another network or later.
    """

    code = "dns-failure"


class EgressTimeout(NetworkError):
    """A connect, read or total deadline passed."""

    code = "timeout"


class ResponseTooLarge(PressmarkError):
    """The body (declared, streamed or decoded) exceeds the cap, or is a compression bomb."""

    code = "response-too-large"

    def __init__(
        self, message: str, *, host: str | None = None, limit: int | None = None
    ) -> None:
        super().__init__(message)
        self.host = host
        self.limit = limit
