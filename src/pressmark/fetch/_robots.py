"""robots.txt (RFC 9309): fetched through the egress guard, parsed by protego, cached.

Parsing is pure (:func:`parse_robots`); :class:`RobotsCache` does the I/O and
keeps one entry per origin:

* 2xx: the rules, the first 500 KiB only (the rest is ignored, as RFC 9309 allows);
* 4xx, or more than 5 redirects: "unavailable", everything allowed;
* 5xx, timeout, network error or a denied hop: "unreachable", everything
  disallowed until the short error TTL passes and the next lookup retries (a
  denied first hop means the origin itself is denied: the page gets ``egress-denied``);
* kept for 24 hours, or less when ``Cache-Control: max-age`` / ``Expires`` say so
  (but at least ``min_ttl_s``, a minute: ``no-cache`` does not mean once per page).

Concurrent lookups of one origin share one download. Rules are matched with the
product token of the user agent (``pressmark`` for ``pressmark/0.1 (+...)``).
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import re
import time
from collections.abc import Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from protego import Protego

from pressmark.egress import (
    DnsFailure,
    EgressDenied,
    EgressTimeout,
    GuardedClient,
    NetworkError,
    ResponseTooLarge,
    Timeout,
    parse_url,
)
from pressmark.fetch._config import Clock, SystemClock
from pressmark.fetch._provenance import archive_fields

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from pressmark.egress import EgressPolicy, GuardedResponse, Resolver

ROBOTS_MAX_BYTES = 500 * 1024
ROBOTS_MAX_REDIRECTS = 5
DEFAULT_TTL_S = 24 * 3600.0
DEFAULT_ERROR_TTL_S = 60.0
# robots.txt downloads are not paced by Crawl-delay, so even "no-cache" keeps it a minute:
# a crawl does not fetch robots.txt again before every page.
DEFAULT_MIN_TTL_S = 60.0
DEFAULT_CRAWL_DELAY_CAP_S = 10.0

RobotsState = Literal["rules", "allow-all", "disallow-all"]
_MAX_AGE = re.compile(r"(?:^|,)\s*(s-maxage|max-age)\s*=\s*\"?(\d+)", re.IGNORECASE)
_TOKEN = re.compile(r"[A-Za-z_-]+")


@functools.lru_cache(maxsize=64)
def product_token(user_agent: str) -> str:
    """The RFC 9309 product token of a User-Agent: ``pressmark/0.1 (...)`` -> ``pressmark``."""
    match = _TOKEN.match(user_agent.strip())
    return match.group(0).lower() if match else "*"


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` as the egress layer parses it (the key of the cache)."""
    try:
        return parse_url(url).origin
    except EgressDenied:
        return url  # not fetchable anyway (egress refuses it first): the URL is its own key


_UA_LINE = re.compile(r"^(\s*user[- ]?agent\s*(?::|\s)\s*)([^#\r\n]*)(.*)$",
                      re.IGNORECASE | re.DOTALL)


def _group_token(value: str) -> str:
    """The product token a ``User-agent:`` line names, marked so protego matches it whole."""
    value = value.strip()
    if value == "*":
        return "*"
    match = _TOKEN.match(value)
    # "/" ends every token, so protego's prefix match becomes an exact match (RFC 9309):
    # a "press" group never applies to "pressmark", nor "pressmark" to "pressmarker".
    return f"{match.group(0).lower()}/" if match else "(no-token)/"


class RobotsRules:
    """Parsed robots.txt rules, matched by exact product token (RFC 9309 section 2.2.1).

    protego picks a group by prefix (``User-agent: press`` would apply to
    ``pressmark``); here each group line is reduced to its product token first and
    every lookup uses the product token of the caller's user agent, so only the
    group naming exactly our token (case-insensitively) applies, else ``*``.
    """

    __slots__ = ("_delays", "_parser")

    def __init__(self, text: str) -> None:
        self._delays: dict[str, float | None] = {}  # agent -> Crawl-delay (rules never change)
        lines = []
        for line in text.splitlines():
            match = _UA_LINE.match(line)
            if match is not None and match.group(2).strip():
                lines.append(f"User-agent: {_group_token(match.group(2))}")
            else:
                lines.append(line)
        self._parser = Protego.parse("\n".join(lines))

    @staticmethod
    def _agent(user_agent: str) -> str:
        token = product_token(user_agent)
        return "*" if token == "*" else f"{token}/"

    def can_fetch(self, url: str, user_agent: str) -> bool:
        return bool(self._parser.can_fetch(url, self._agent(user_agent)))

    def crawl_delay(self, user_agent: str) -> float | None:
        agent = self._agent(user_agent)
        try:
            return self._delays[agent]
        except KeyError:
            delay = self._parser.crawl_delay(agent)
            found = self._delays[agent] = None if delay is None else float(delay)
            return found

    @property
    def sitemaps(self) -> list[str]:
        return list(self._parser.sitemaps)


def parse_robots(text: str) -> RobotsRules:
    """Parse robots.txt text (pure); ``can_fetch(url, user_agent)`` matches the product token."""
    return RobotsRules(text)


@dataclass(frozen=True, slots=True, kw_only=True)
class RobotsEntry:
    """What one origin's robots.txt said, and until when we believe it."""

    origin: str
    state: RobotsState
    status: int | None
    expires_at: float
    rules: RobotsRules | None = None
    reason: str = ""
    detail: str = ""   # for "denied:CODE" and network failures: the egress layer's own words
    truncated: bool = False

    def allowed(self, url: str, token: str) -> bool:
        if self.state == "allow-all":
            return True
        if self.state == "disallow-all" or self.rules is None:
            return False
        return bool(self.rules.can_fetch(url, token))

    def crawl_delay(self, token: str) -> float | None:
        if self.rules is None:
            return None
        return self.rules.crawl_delay(token)

    def sitemaps(self) -> list[str]:
        return [] if self.rules is None else self.rules.sitemaps


def _ttl_from_headers(cache_control: str | None, default: float,
                      expires: str | None = None, date: str | None = None) -> float:
    """How long the server lets us keep robots.txt: ``max-age``, else ``Expires``; never
    longer than ``default`` (24 h, RFC 9309 section 2.4)."""
    lowered = (cache_control or "").lower()
    if "no-store" in lowered or "no-cache" in lowered:
        return 0.0
    match = _MAX_AGE.search(lowered)
    if match is not None:
        return min(default, float(match.group(2)))
    if expires:
        try:
            until = email.utils.parsedate_to_datetime(expires).timestamp()
        except (TypeError, ValueError, IndexError):
            return 0.0  # an invalid Expires means "already expired" (RFC 9111 5.3)
        try:
            now = email.utils.parsedate_to_datetime(date).timestamp() if date else time.time()
        except (TypeError, ValueError, IndexError):
            now = time.time()
        return max(0.0, min(default, until - now))
    return default


class _TooManyRedirects(Exception):
    """Raised from the robots.txt hop check after ROBOTS_MAX_REDIRECTS redirects."""


def _decode_robots(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", "replace")


@dataclass(frozen=True, slots=True, kw_only=True)
class RobotsAnswer:
    """One robots.txt answer received, for a caller that keeps it as evidence (a crawl
    stores it, so replay can judge). ``provenance`` is :func:`archive_fields` of the
    answer: who served it, its hops and the request sent (``new_snapshot`` keywords)."""

    url: str
    final_url: str
    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    provenance: dict[str, Any]


RobotsSink = Callable[[RobotsAnswer], None]


class RobotsCache:
    """Per-origin robots.txt cache, shared by every fetch of a crawl.

    ``client`` is used to download robots.txt; when it is omitted, the client a
    caller passes to a lookup is used, else a temporary :class:`GuardedClient`
    is built from ``policy`` and ``resolver`` for that one download.
    """

    def __init__(self, client: GuardedClient | None = None, *, policy: EgressPolicy | None = None,
                 resolver: Resolver | None = None, user_agent: str | None = None,
                 ttl_s: float = DEFAULT_TTL_S, error_ttl_s: float = DEFAULT_ERROR_TTL_S,
                 min_ttl_s: float = DEFAULT_MIN_TTL_S,
                 crawl_delay_cap_s: float = DEFAULT_CRAWL_DELAY_CAP_S,
                 timeout_s: float = 10.0, max_bytes: int = ROBOTS_MAX_BYTES,
                 clock: Clock | None = None,
                 on_download: RobotsSink | None = None) -> None:
        self.client = client
        self.on_download = on_download
        self.policy = policy
        self.resolver = resolver
        self.user_agent = user_agent
        self.ttl_s = ttl_s
        self.error_ttl_s = error_ttl_s
        self.min_ttl_s = min(min_ttl_s, ttl_s)
        self.crawl_delay_cap_s = crawl_delay_cap_s
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.clock: Clock = clock or SystemClock()
        self._entries: dict[str, RobotsEntry] = {}
        self._pending: dict[str, asyncio.Future[RobotsEntry]] = {}
        self.downloads = 0

    def adopt(self, policy: EgressPolicy | None, resolver: Resolver | None) -> None:
        """Take the egress settings of the fetches that use this cache, if it has none.

        So ``RobotsCache()`` shared through ``FetchOptions`` can also answer a direct
        ``sitemaps(origin)`` call with the crawl's policy.
        """
        if self.policy is None:
            self.policy = policy
        if self.resolver is None:
            self.resolver = resolver

    def __iter__(self) -> Iterator[RobotsEntry]:
        return iter(list(self._entries.values()))

    def cached(self, origin: str) -> RobotsEntry | None:
        entry = self._entries.get(origin)
        if entry is not None and entry.expires_at > self.clock.now():
            return entry
        return None

    def forget(self, origin: str | None = None) -> None:
        if origin is None:
            self._entries.clear()
        else:
            self._entries.pop(origin, None)

    async def entry(self, origin: str, *, client: GuardedClient | None = None,
                    user_agent: str | None = None) -> RobotsEntry:
        """The cached entry for ``origin`` (``scheme://host[:port]``), downloading it if needed."""
        entry = self._entries.get(origin)
        if entry is not None and entry.expires_at > self.clock.now():
            return entry
        pending = self._pending.get(origin)
        if pending is not None:
            await asyncio.wait([pending])
            if pending.cancelled():
                return await self.entry(origin, client=client, user_agent=user_agent)
            return pending.result()
        future: asyncio.Future[RobotsEntry] = asyncio.get_running_loop().create_future()
        self._pending[origin] = future
        try:
            entry = await self._download(origin, client, user_agent or self.user_agent)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters re-raise it themselves
            raise
        finally:
            self._pending.pop(origin, None)
        if not entry.reason.startswith("denied:"):
            # A denial says more about the policy used than about the site (and is cheap
            # to find again): not cached, so a cache shared by differently-configured
            # callers never pins one caller's denial on another.
            self._entries[origin] = entry
        future.set_result(entry)
        return entry

    async def allowed(self, url: str, user_agent: str, *,
                      client: GuardedClient | None = None) -> bool:
        """May ``user_agent`` fetch ``url``? (robots.txt itself is always allowed.)"""
        origin = origin_of(url)
        entry = self._entries.get(origin)
        if entry is None or entry.expires_at <= self.clock.now():
            entry = await self.entry(origin, client=client, user_agent=user_agent)
        return entry.allowed(url, product_token(user_agent))

    async def crawl_delay(self, origin: str, user_agent: str, *,
                          client: GuardedClient | None = None) -> float | None:
        """The site's Crawl-delay for our product token, capped, in seconds."""
        entry = await self.entry(origin_of(origin), client=client, user_agent=user_agent)
        delay = entry.crawl_delay(product_token(user_agent))
        if delay is None:
            return None
        return max(0.0, min(delay, self.crawl_delay_cap_s))

    def cached_crawl_delay(self, origin: str, token: str) -> float | None:
        """The Crawl-delay (capped, seconds) for product ``token`` from the cached robots.txt
        of ``origin``, or ``None`` (none given, or robots.txt not loaded yet)."""
        entry = self.cached(origin)
        delay = None if entry is None else entry.crawl_delay(token)
        return None if delay is None else max(0.0, min(delay, self.crawl_delay_cap_s))

    async def sitemaps(self, origin: str, *, client: GuardedClient | None = None) -> list[str]:
        entry = await self.entry(origin_of(origin), client=client)
        return entry.sitemaps()

    @asynccontextmanager
    async def _client(self, client: GuardedClient | None) -> AsyncIterator[GuardedClient]:
        chosen = self.client or client
        if chosen is not None:
            yield chosen
            return
        async with GuardedClient(self.policy, self.resolver,
                                 user_agent=self.user_agent) as temporary:
            yield temporary

    def _tell(self, url: str, response: GuardedResponse, body: bytes) -> None:
        if self.on_download is not None:
            self.on_download(RobotsAnswer(
                url=url, final_url=response.url, status=response.status,
                headers=tuple(response.headers), body=body,
                provenance=archive_fields(response.peer_ip, response.redirects,
                                          response.request_headers)))

    async def _download(self, origin: str, client: GuardedClient | None,
                        user_agent: str | None) -> RobotsEntry:
        url = f"{origin}/robots.txt"
        now = self.clock.now()
        headers = {"accept": "text/plain,*/*;q=0.5"}
        if user_agent:
            headers["user-agent"] = user_agent
        self.downloads += 1
        requests = 0

        async def count_hops(_url: str) -> None:
            nonlocal requests
            requests += 1
            if requests > ROBOTS_MAX_REDIRECTS + 1:
                raise _TooManyRedirects

        try:
            async with self._client(client) as http, http.stream(
                url, headers=headers, hop_check=count_hops,
                timeout=Timeout(connect=self.timeout_s, read=self.timeout_s,
                                total=self.timeout_s),
            ) as response:
                status = response.status
                if not 200 <= status < 300:
                    self._tell(url, response, b"")
                ttl = max(self.min_ttl_s, _ttl_from_headers(
                    response.header("cache-control"), self.ttl_s, response.header("expires"),
                    response.header("date")))
                if 400 <= status < 500:
                    return RobotsEntry(origin=origin, state="allow-all", status=status,
                                       expires_at=now + ttl, reason=f"status-{status}")
                if 300 <= status < 400:
                    return self._unavailable(origin, status, now, f"status-{status}")
                if status >= 500 or status < 200:
                    return RobotsEntry(origin=origin, state="disallow-all", status=status,
                                       expires_at=now + self.error_ttl_s,
                                       reason=f"status-{status}")
                chunks: list[bytes] = []
                size = 0
                truncated = False
                try:
                    async for chunk in response.aiter_bytes():
                        chunks.append(chunk)
                        size += len(chunk)
                        if size >= self.max_bytes:
                            truncated = True
                            break
                except ResponseTooLarge:
                    truncated = True
                data = b"".join(chunks)
                self._tell(url, response, data)
        except _TooManyRedirects:
            return self._unavailable(origin, None, now, "too-many-redirects")
        except EgressDenied as exc:
            if exc.code == "TOO_MANY_REDIRECTS":
                return self._unavailable(origin, None, now, "too-many-redirects")
            if exc.hops:
                # robots.txt redirected somewhere we may not go: the origin itself is fine,
                # its rules are unreachable, so everything is disallowed until retried.
                return RobotsEntry(origin=origin, state="disallow-all", status=None,
                                   expires_at=now + self.error_ttl_s,
                                   reason=f"redirect-denied:{exc.code}")
            return RobotsEntry(origin=origin, state="disallow-all", status=None,
                               expires_at=now + self.error_ttl_s, reason=f"denied:{exc.code}",
                               detail=exc.message)
        except DnsFailure as exc:
            # Nothing on that name can be fetched: the page fails with the same DNS
            # failure (a network error), not as a robots.txt denial (see UNREACHABLE).
            return RobotsEntry(origin=origin, state="disallow-all", status=None,
                               expires_at=now + self.error_ttl_s, reason=DnsFailure.code,
                               detail=exc.message)
        except EgressTimeout:
            return RobotsEntry(origin=origin, state="disallow-all", status=None,
                               expires_at=now + self.error_ttl_s, reason="timeout")
        except (NetworkError, ResponseTooLarge) as exc:
            return RobotsEntry(origin=origin, state="disallow-all", status=None,
                               expires_at=now + self.error_ttl_s, reason=exc.code,
                               detail=exc.message)
        if truncated:
            data = data[: self.max_bytes]
            cut = data.rfind(b"\n")
            data = data[: cut + 1] if cut >= 0 else b""
        rules = parse_robots(_decode_robots(data))
        return RobotsEntry(origin=origin, state="rules", status=status, expires_at=now + ttl,
                           rules=rules, truncated=truncated, reason="ok")

    def _unavailable(self, origin: str, status: int | None, now: float,
                     reason: str) -> RobotsEntry:
        return RobotsEntry(origin=origin, state="allow-all", status=status,
                           expires_at=now + self.ttl_s, reason=reason)


class RobotsNavigationGuard:
    """The renderer's :class:`~pressmark.render.NavigationGuard` for robots.txt: every
    top-level navigation the browser makes (redirect hops, client-side redirects) is
    judged by its own origin's robots.txt, through the crawl's shared cache.

    An origin the egress policy refuses is let through here: the egress proxy refuses the
    request itself, with the egress layer's code. Pickled (to a Ray render actor), the
    guard takes its egress settings along and starts with an empty cache there.
    """

    __slots__ = ("_robots", "_timeout_s", "_token", "_user_agent")

    def __init__(self, robots: RobotsCache, user_agent: str, *, timeout_s: float = 10.0) -> None:
        self._robots = robots
        self._user_agent = user_agent
        self._token = product_token(user_agent)
        self._timeout_s = timeout_s

    async def allows(self, url: str) -> bool:
        try:
            parsed = parse_url(url)
        except EgressDenied:
            return True  # never dialled: the proxy refuses it with the egress code
        entry = self._robots.cached(parsed.origin)
        if entry is None:
            async with asyncio.timeout(self._timeout_s):
                entry = await self._robots.entry(parsed.origin, user_agent=self._user_agent)
        if entry.reason.startswith("denied:"):
            return True
        return entry.allowed(parsed.url, self._token)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (_detached_guard, (self._robots.policy, self._robots.resolver, self._user_agent,
                                  self._timeout_s))


def _detached_guard(policy: EgressPolicy | None, resolver: Resolver | None, user_agent: str,
                    timeout_s: float) -> RobotsNavigationGuard:
    return RobotsNavigationGuard(RobotsCache(policy=policy, resolver=resolver),
                                 user_agent, timeout_s=timeout_s)
