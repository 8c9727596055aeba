"""One plain (wire) attempt: retries, back-off, limits, and error translation.

The attempt runs inside one time budget (``SourceConfig.timeout_ms``) that
covers every retry, redirect and back-off sleep. Retries are bounded and
jittered ("full jitter") and happen only for network errors, timeouts and 5xx;
429 and 503 wait for ``Retry-After`` when it is within the cap and the budget.
Any other status is final and returned to the caller as it is.

Lower-layer exceptions are translated here into :class:`AttemptFailed` carrying
a :class:`FetchFailure`; nothing else leaves this module for an ordinary failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

from pressmark._errors import PressmarkError
from pressmark.egress import (
    DnsFailure,
    EgressDenied,
    EgressTimeout,
    NetworkError,
    ResponseTooLarge,
    Timeout,
)
from pressmark.fetch._config import Clock, FetchErrorKind, FetchFailure, FetchOptions

if TYPE_CHECKING:
    from pressmark.egress import GuardedClient, GuardedResponse, RedirectHop
    from pressmark.fetch._politeness import Pacer

_RETRY_STATUSES_WITH_AFTER = (429, 503)
HEADERS_TOO_LARGE = "headers-too-large"   # a network-error code; deterministic, never retried
_EGRESS_HEAD_LIMITS = ("too many response headers", "response head too large")


class RobotsDenied(PressmarkError):
    """Raised from the per-hop check when robots.txt disallows a URL."""

    code = "robots-denied"

    def __init__(self, url: str, reason: str = "ok") -> None:
        if reason == "ok":
            message = "robots.txt disallows this URL for our user agent"
        else:  # unreachable (5xx, timeout, network, refused redirect): disallow all for now
            message = f"robots.txt is unreachable ({reason}); the site is disallowed until retried"
        super().__init__(message)
        self.url = url
        self.reason = reason


class HeadersTooLarge(NetworkError):
    """The response headers broke the count or size limit (a network error, never retried)."""

    code = HEADERS_TOO_LARGE


class AttemptFailed(Exception):
    def __init__(self, failure: FetchFailure, warnings: tuple[str, ...] = ()) -> None:
        super().__init__(failure.message)
        self.failure = failure
        self.warnings = warnings


@dataclass(slots=True)
class Meter:
    """Mutable timing accumulator for one fetch_source call."""

    robots_ms: float = 0.0
    wait_ms: float = 0.0
    network_ms: float = 0.0
    render_ms: float = 0.0
    store_ms: float = 0.0
    attempts: int = 0


@dataclass(frozen=True, slots=True)
class WireResponse:
    status: int
    headers: tuple[tuple[str, str], ...]
    url: str
    redirects: tuple[RedirectHop, ...]
    body: bytes
    peer_ip: str | None = None  # who answered the final hop
    request_headers: tuple[tuple[str, str], ...] = ()  # what was sent for it (no Host)

    def header(self, name: str) -> str | None:
        name = name.lower()
        for key, value in self.headers:
            if key == name:
                return value
        return None


def fail(kind: FetchErrorKind, message: str, *, status: int | None = None,
         code: str | None = None, url: str | None = None) -> AttemptFailed:
    return AttemptFailed(FetchFailure(kind=kind, message=message, status=status, code=code,
                                      url=url))


def translate(exc: BaseException, url: str) -> AttemptFailed:
    """Map a lower-layer exception to a typed failure (raise ... from exc at the caller)."""
    if isinstance(exc, RobotsDenied):
        return fail("robots-denied", exc.message, code=exc.code, url=exc.url)
    if isinstance(exc, EgressDenied):
        return fail("egress-denied", exc.message, code=exc.code, url=url)
    if isinstance(exc, EgressTimeout | TimeoutError):
        return fail("timeout", str(exc) or "the fetch ran out of time", code="timeout", url=url)
    if isinstance(exc, ResponseTooLarge):
        return fail("response-too-large", exc.message, code=exc.code, url=url)
    if isinstance(exc, DnsFailure):  # the network had no answer: not retried, not a denial
        return fail("dns-failure", exc.message, code=exc.code, url=url)
    if isinstance(exc, NetworkError):
        code = exc.code
        if code == "network-error" and exc.message.endswith(_EGRESS_HEAD_LIMITS):
            # The egress layer enforces its own fixed head limits but reports them as a
            # generic protocol error; name them so they are not retried like a reset.
            code = HEADERS_TOO_LARGE
        return fail("network-error", exc.message, code=code, url=url)
    if isinstance(exc, PressmarkError):
        kind: FetchErrorKind = "invalid-config" if exc.code == "invalid-config" else "network-error"
        return fail(kind, exc.message, code=exc.code, url=url)
    return fail("network-error", f"{type(exc).__name__}: {exc}", url=url)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delta-seconds or HTTP-date)."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())


def backoff_s(attempt: int, options: FetchOptions) -> float:
    ceiling = min(options.backoff_max_ms, options.backoff_base_ms * (2 ** attempt)) / 1000.0
    return random.uniform(0.0, ceiling)  # jitter, not a secret


async def _read_response(response: GuardedResponse, max_bytes: int,
                         options: FetchOptions) -> WireResponse:
    headers = response.headers
    if len(headers) > options.max_headers or (  # each line: name, ": ", value, CRLF
            sum(map(len, chain.from_iterable(headers))) + 4 * len(headers)
            > options.max_header_bytes):
        raise HeadersTooLarge("the response headers exceed the header count or size limit")
    status = response.status
    body = b""
    if 200 <= status < 300:
        declared = response.header("content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > max_bytes:
            raise ResponseTooLarge(f"declared Content-Length {declared.strip()} exceeds the "
                                   f"{max_bytes}-byte limit", limit=max_bytes)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > max_bytes:
                raise ResponseTooLarge(f"the body exceeds the {max_bytes}-byte limit",
                                       limit=max_bytes)
            chunks.append(chunk)
        body = b"".join(chunks)
    return WireResponse(status=status, headers=headers, url=response.url,
                        redirects=response.redirects, body=body, peer_ip=response.peer_ip,
                        request_headers=response.request_headers)


async def plain_attempt(*, client: GuardedClient, url: str, headers: list[tuple[str, str]],
                        timeout_s: float, max_bytes: int, retries: int,
                        hop_check: Callable[[str], Awaitable[None]] | None,
                        politeness: Pacer | None, host: str, delay_s: float | None,
                        clock: Clock, options: FetchOptions, meter: Meter,
                        warnings: list[str], spent_s: float = 0.0,
                        validators_for: str | None = None) -> WireResponse:
    """Send the request (with retries) and return the final response; raise AttemptFailed.

    The time budget starts when the first request may start: queueing behind other
    requests to a slow host (``Crawl-delay``) is politeness, not a slow response.
    Back-off and ``Retry-After`` waits after that count against the budget, and so
    does ``spent_s``: time already spent for this page (downloading robots.txt).
    Conditional headers go only to the hop ``validators_for`` names (egress keeps them
    off every other hop).
    """
    deadline = float("inf")
    attempt = 0
    while True:
        if deadline - clock.now() <= 0:
            raise fail("timeout", f"the {timeout_s:g} s fetch budget ran out", code="timeout",
                       url=url)
        retry_in: float | None = None
        try:
            slot = (politeness.slot(host, delay_s=delay_s) if politeness is not None
                    else contextlib.nullcontext(0.0))
            async with slot as waited:
                meter.wait_ms += waited * 1000.0
                if attempt == 0:
                    deadline = clock.now() + timeout_s - spent_s
                remaining = deadline - clock.now()
                if remaining <= 0:
                    raise fail("timeout", "the fetch budget ran out while waiting for the host",
                               code="timeout", url=url)
                started = clock.now()
                meter.attempts += 1
                try:
                    async with asyncio.timeout(remaining + 0.25):
                        timeout = Timeout(connect=min(remaining, timeout_s),
                                          read=min(remaining, timeout_s), total=remaining)
                        async with client.stream(url, headers=headers, timeout=timeout,
                                                 max_body_bytes=max_bytes,
                                                 hop_check=hop_check,
                                                 validators_for=validators_for) as response:
                            wire = await _read_response(response, max_bytes, options)
                finally:
                    meter.network_ms += (clock.now() - started) * 1000.0
        except AttemptFailed:
            raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            failure = translate(exc, url)
            if (failure.failure.kind in ("network-error", "timeout") and attempt < retries
                    and failure.failure.code != HEADERS_TOO_LARGE):
                retry_in = backoff_s(attempt, options)
                if clock.now() + retry_in >= deadline:
                    raise failure from exc
                warnings.append(f"retry:{failure.failure.kind}")
            else:
                raise failure from exc
        else:
            status = wire.status
            if not (status >= 500 or status == 429):
                return wire
            after = (parse_retry_after(wire.header("retry-after"))
                     if status in _RETRY_STATUSES_WITH_AFTER else None)
            cap = options.retry_after_cap_ms / 1000.0
            if attempt >= retries:
                # No retry of ours, but the host asked every client to hold off.
                if after is not None and politeness is not None:
                    politeness.defer(host, min(after, cap))
                return wire
            if after is not None:
                if after > cap:
                    if politeness is not None:
                        politeness.defer(host, cap)
                    warnings.append(f"retry-after-exceeds-cap:{after:g}s")
                    return wire
                retry_in = after
                if politeness is not None:
                    politeness.defer(host, after)
            else:
                retry_in = backoff_s(attempt, options)
            if clock.now() + retry_in >= deadline:
                return wire
            warnings.append(f"retry:http-{status}")
        attempt += 1
        # With a shared Pacer the deferred slot already waits; sleep only the rest.
        if retry_in and (politeness is None or politeness.next_start_in(host) < retry_in):
            meter.wait_ms += retry_in * 1000.0
            await clock.sleep(retry_in)
