"""The egress policy and its pure checks: (URL, host, addresses, port, policy) -> ok or why not.

Nothing here does I/O except :func:`evaluate_url`, which asks the resolver seam
once and then applies the same pure checks the guarded connector applies.
"""

from __future__ import annotations

import base64
import ipaddress
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Final, Literal
from urllib.parse import unquote, urlsplit

from pressmark.egress._address import INVALID_ADDRESS, classify_address
from pressmark.egress._errors import (
    DENIED_ADDRESS,
    DENIED_HOST,
    INVALID_PORT,
    DnsFailure,
    EgressConfigError,
    EgressDenied,
)
from pressmark.egress._resolver import Resolver, SystemResolver
from pressmark.egress._url import ParsedURL, parse_url

logger = logging.getLogger("pressmark.egress")

MAX_REDIRECTS_CAP: Final = 20

# Names refused before any resolution: metadata services and names that only
# ever mean "this machine" or "this network".
_DENIED_NAMES: Final = frozenset(
    {
        "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback",
        "ip6-allnodes", "ip6-allrouters", "broadcasthost",
        "metadata", "metadata.google.internal", "instance-data",
    }
)
# .internal (ICANN, private use), .local (mDNS), .localhost (RFC 6761), .home.arpa
# (RFC 8375, residential networks) and .localdomain (the hosts-file convention)
# only ever name things inside the network.
_DENIED_SUFFIXES: Final = (".internal", ".local", ".localhost", ".home.arpa", ".localdomain")


@dataclass(frozen=True, slots=True, kw_only=True)
class Timeout:
    """Deadlines in seconds; ``None`` means none. ``total`` covers redirects and the body."""

    connect: float | None = 10.0
    read: float | None = 30.0
    total: float | None = 60.0

    @classmethod
    def coerce(cls, value: Timeout | float | None) -> Timeout:
        if value is None:
            return DEFAULT_TIMEOUT
        if isinstance(value, Timeout):
            return value
        return cls(connect=float(value), read=float(value), total=float(value))


DEFAULT_TIMEOUT: Final = Timeout()

# ``localhost`` as a test-only origin is never asked of DNS (RFC 6761 6.3: it names this
# machine's loopback, and a hosts file or resolver could say otherwise): these are the only
# addresses it reaches, in the order they are tried.
LOCALHOST: Final = "localhost"
LOCALHOST_ADDRESSES: Final = ("127.0.0.1", "::1")


def _loopback_origin_key(origin: str) -> tuple[str, int]:
    try:
        parsed = parse_url(origin)
    except EgressDenied as exc:
        raise EgressConfigError(f"test-only loopback origin {origin!r} is not a URL") from exc
    stripped = origin.strip()
    is_loopback_literal = parsed.host == LOCALHOST or (
        parsed.host_kind != "domain" and ipaddress.ip_address(parsed.host).is_loopback
        and parsed.host != "::ffff:7f00:1")
    if (
        parsed.scheme != "http"
        or not is_loopback_literal
        or parsed.explicit_port is None
        or parsed.target != "/"
        or parsed.fragment is not None
        or not stripped.lower().startswith("http://")
        or stripped.rstrip("/") != parsed.origin
    ):
        raise EgressConfigError(
            f"test-only loopback origin {origin!r} must look like http://127.0.0.1:PORT or "
            "http://localhost:PORT (http, a loopback address or localhost, an explicit port, "
            "nothing else)"
        )
    return parsed.host, parsed.port


@dataclass(frozen=True, slots=True, kw_only=True)
class UpstreamProxy:
    """An HTTP proxy named by the policy. Every connection is a ``CONNECT ip:port`` tunnel
    to an address pressmark resolved and validated itself, so the pin holds through it."""

    host: str
    port: int
    authorization: str | None  # a ready Proxy-Authorization value, from userinfo


def _parse_proxy(proxy: str) -> UpstreamProxy:
    parts = urlsplit(proxy.strip())
    try:
        port = parts.port
    except ValueError as exc:
        raise EgressConfigError("the policy's proxy has an invalid port") from exc
    if parts.scheme != "http" or not parts.hostname or port is None:
        raise EgressConfigError("proxy must look like http://[user:password@]host:port")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise EgressConfigError("proxy must look like http://[user:password@]host:port")
    authorization = None
    if parts.username is not None:
        secret = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        authorization = "Basic " + base64.b64encode(secret).decode("ascii")
    return UpstreamProxy(host=parts.hostname, port=port, authorization=authorization)


@dataclass(frozen=True, slots=True, kw_only=True)
class EgressPolicy:
    """What pressmark may connect to. The default refuses every internal target.

    ``test_only_allowed_loopback_origins`` admits exactly the listed loopback
    origins (for tests and the demo site; ``http://localhost:PORT`` reaches 127.0.0.1 or
    ::1 and nothing else, DNS unasked); ``allowed_ports`` are the ports any other URL may
    name (a public site on :8080 needs 8080 here); ``guarded=False`` turns every check
    off and logs a warning each time it is used. ``proxy``
    (``http://[user:password@]host:port``) sends every connection through that
    proxy as a CONNECT tunnel to the already validated IP; environment proxy
    variables are never read.
    """

    guarded: bool = True
    allowed_ports: tuple[int, ...] = (80, 443)
    test_only_allowed_loopback_origins: tuple[str, ...] = ()
    redirects: Literal["follow", "same-host"] = "follow"
    max_redirects: int = 10
    proxy: str | None = None
    _loopback: frozenset[tuple[str, int]] = field(
        init=False, repr=False, compare=False, default=frozenset()
    )
    _upstream: UpstreamProxy | None = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        origins: object = self.test_only_allowed_loopback_origins
        if isinstance(origins, str):  # a lone string would iterate as characters
            raise EgressConfigError("test_only_allowed_loopback_origins must be a tuple of origins")
        if not 0 <= self.max_redirects <= MAX_REDIRECTS_CAP:
            raise EgressConfigError(f"max_redirects must be between 0 and {MAX_REDIRECTS_CAP}")
        if self.redirects not in ("follow", "same-host"):
            raise EgressConfigError("redirects must be 'follow' or 'same-host'")
        if any(not isinstance(p, int) or not 0 < p < 65536 for p in self.allowed_ports):
            raise EgressConfigError("allowed_ports must be TCP ports (1-65535)")
        if self.proxy is not None:
            object.__setattr__(self, "_upstream", _parse_proxy(self.proxy))
        keys = frozenset(_loopback_origin_key(o) for o in self.test_only_allowed_loopback_origins)
        object.__setattr__(self, "_loopback", keys)

    def allow_loopback(self, *origins: str) -> EgressPolicy:
        """A copy that also admits ``origins`` (each ``http://127.0.0.1:PORT`` or
        ``http://localhost:PORT``)."""
        return replace(
            self,
            test_only_allowed_loopback_origins=self.test_only_allowed_loopback_origins
            + tuple(origins),
        )

    def allow_ports(self, *ports: int) -> EgressPolicy:
        """A copy that also admits ``ports`` (public addresses only, as for 80 and 443)."""
        return replace(self, allowed_ports=tuple(dict.fromkeys((*self.allowed_ports, *ports))))

    @property
    def upstream_proxy(self) -> UpstreamProxy | None:
        return self._upstream

    def is_test_origin(self, host: str, port: int) -> bool:
        return (host, port) in self._loopback

    def warn_unguarded(self, host: str | None) -> None:
        logger.warning("egress UNGUARDED (EgressPolicy(guarded=False)): connecting to %s", host)


def is_test_localhost(scheme: str, host: str, port: int, policy: EgressPolicy) -> bool:
    """``http://localhost:PORT`` admitted as a test-only origin: it reaches loopback only."""
    return (scheme == "http" and host == LOCALHOST and policy.guarded
            and policy.is_test_origin(host, port))


def host_name_denial(host: str) -> str | None:
    """Why a host name is refused before resolution, or ``None``."""
    name = host.lower().rstrip(".")
    if name in _DENIED_NAMES:
        return f"reserved name {name!r}"
    for suffix in _DENIED_SUFFIXES:
        if name.endswith(suffix) or name == suffix[1:]:
            return f"reserved suffix {suffix!r}"
    return None


def normalise_answer(answer: object) -> str | None:
    """A resolver answer as a canonical IP literal, or ``None`` when it is not exactly one.

    Strict on purpose: the string returned is what gets dialled, so an answer
    with padding, brackets, a zone index or a legacy IPv4 form (``127.1``) must
    not slip through a lenient check and then be re-resolved by the socket layer.
    """
    if isinstance(answer, ipaddress.IPv4Address | ipaddress.IPv6Address):
        answer = str(answer)
    if not isinstance(answer, str) or not answer.isascii():
        return None
    try:
        address = ipaddress.ip_address(answer)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        if address.scope_id is not None:  # a zone only makes sense for link-local
            return None
        return address.compressed
    return str(address)


def check_url(parsed: ParsedURL, policy: EgressPolicy) -> None:
    """The checks that need no resolution: name, an IP-literal host's address, then port.

    The host comes first because it is the decisive reason: ``http://127.0.0.1:8000/`` is
    refused for being loopback, and admitting port 8000 would not change that.
    """
    if not policy.guarded:
        policy.warn_unguarded(parsed.host)
        return
    if parsed.scheme == "http" and policy.is_test_origin(parsed.host, parsed.port):
        return
    if parsed.host_kind == "domain":
        reason = host_name_denial(parsed.host)
        if reason is not None:
            raise EgressDenied(
                DENIED_HOST, parsed.host, f"host {parsed.host} is denied: {reason}",
                reason=reason, url=parsed.url,
            )
    else:
        check_addresses(parsed.host, (parsed.host,), parsed.port, policy, scheme=parsed.scheme)
    if parsed.port not in policy.allowed_ports:
        allowed = ", ".join(str(p) for p in policy.allowed_ports) or "none"
        raise EgressDenied(
            INVALID_PORT, parsed.host,
            f"port {parsed.port} is not allowed for {parsed.host} (allowed: {allowed})",
            url=parsed.url,
        )


def check_addresses(
    host: str, addresses: Sequence[str], port: int, policy: EgressPolicy, *, scheme: str = ""
) -> None:
    """Every answer must be allowed: one denied answer denies the host.

    A test-only loopback origin is exempt only as itself: an ``http`` URL whose
    host is that IP literal (never a name resolving to it, never https).
    """
    if not addresses:
        raise DnsFailure(f"no addresses for {host}", host=host)
    for address in addresses:
        if scheme == "http" and address == host and policy.is_test_origin(address, port):
            continue
        reason = classify_address(address)
        if reason is not None:
            raise EgressDenied(
                DENIED_ADDRESS, host, f"host {host} is denied: address in {reason}", reason=reason
            )


class Addresses(tuple[str, ...]):
    """The vetted addresses, in resolver order: a tuple that also compares equal to a list."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, list):
            return list(self) == other
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__


@dataclass(frozen=True, slots=True, kw_only=True)
class EgressTarget:
    """An allowed URL: canonical ``url``, ``host``, ``port`` and the vetted ``addresses``."""

    url: str
    scheme: str
    host: str
    port: int
    addresses: Addresses


def _answer_list(result: object) -> list[object]:
    """A custom resolver's result as a list; one string must not iterate as characters."""
    if isinstance(result, str | bytes):
        return [result]
    if isinstance(result, Iterable):
        return list(result)
    raise TypeError("the resolver answered with neither a list nor a string")


async def resolve_checked(
    host: str, port: int, policy: EgressPolicy, resolver: Resolver
) -> list[str]:
    """Resolve once through the seam and validate every answer."""
    try:
        raw = _answer_list(await resolver.resolve(host))
    except (EgressDenied, DnsFailure):
        raise
    except Exception as exc:  # any resolver failure is a failed lookup, never a crash
        raise DnsFailure(f"could not resolve {host}", host=host) from exc
    if not raw:
        raise DnsFailure(f"no addresses for {host}", host=host)
    answers: dict[str, None] = {}
    for item in raw:
        address = normalise_answer(item)
        if address is None:
            if not policy.guarded:
                raise DnsFailure(f"{host} resolved to a non-address", host=host)
            raise EgressDenied(
                DENIED_ADDRESS, host, f"host {host} is denied: an answer is not an IP address",
                reason=INVALID_ADDRESS,
            )
        answers.setdefault(address, None)
    vetted = list(answers)
    if policy.guarded:
        check_addresses(host, vetted, port, policy)
    return vetted


async def evaluate_url(
    url: str, *, policy: EgressPolicy | None = None, resolver: Resolver | None = None
) -> EgressTarget:
    """Parse, check and resolve ``url`` exactly as :class:`GuardedClient` would; raise if denied."""
    policy = policy or EgressPolicy()
    parsed = parse_url(url)
    check_url(parsed, policy)
    if parsed.host_kind != "domain":
        addresses = [parsed.host]
    elif is_test_localhost(parsed.scheme, parsed.host, parsed.port, policy):
        addresses = list(LOCALHOST_ADDRESSES)
    else:
        addresses = await resolve_checked(
            parsed.host, parsed.port, policy, resolver or SystemResolver()
        )
    return EgressTarget(
        url=parsed.url, scheme=parsed.scheme, host=parsed.host, port=parsed.port,
        addresses=Addresses(addresses),
    )
