"""What a crawl may do: seeds, limits, scope, politeness. Pure data, no I/O.

:class:`CrawlPolicy` is the one options object; the CLI builds it from flags.
Invalid combinations raise :class:`CrawlError` (``invalid-config``) when the
crawl starts, never halfway through.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pressmark._errors import PressmarkError
from pressmark.crawl._site import site_of

if TYPE_CHECKING:
    from pressmark.egress import EgressPolicy
    from pressmark.store import SnapshotStore

HARD_MAX_PAGES = 1_000_000
"""``max_pages`` is clamped to this ceiling whatever the caller asks for."""
WORKER_MEMORY_BYTES = 1 << 30
"""Default address-space limit of one parser process (``RLIMIT_AS``): a worker maps under
100 MiB before its first page, and the costliest page within the parse caps converts in
a few hundred more."""
MIN_WORKER_MEMORY_BYTES = 256 << 20
"""Below this a parser process cannot even import what it runs."""

Discovery = Literal["links", "sitemap", "both"]
RenderMode = Literal["never", "on-shell", "always"]
Mode = Literal["live", "replay"]
ScopeName = Literal["same-host", "same-site"]


class CrawlError(PressmarkError):
    """Invalid crawl configuration (``invalid-config``) or an unusable output directory."""

    code = "invalid-config"


@dataclass(frozen=True, slots=True, kw_only=True)
class FollowCandidate:
    """What a ``should_follow`` hook sees for each discovered link."""

    url: str
    depth: int
    parent_url: str | None
    via: Literal["seed", "link", "sitemap"]


ShouldFollow = Callable[[FollowCandidate], "bool | float"]
"""Returns ``False`` to drop a link, ``True`` to keep it, or a float priority (higher first)."""


@dataclass(frozen=True, slots=True)
class Seed:
    """A start URL. ``render=True`` asks a browser for this page whatever the policy says.

    ``expected_heading`` (a regular expression) and ``expected_language`` (``"en"``,
    ``"de-AT"``) are checked by the seed page's Markdown validation: a page that has no
    matching heading or declares another language fails with ``required-heading-missing``
    or ``language-mismatch`` (a wrong route that answered 200)."""

    url: str
    render: bool | None = None
    headers: Mapping[str, str] | None = None
    user_agent: str | None = None
    expected_heading: str | None = None
    expected_language: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Politeness:
    """How hard the crawl may hit servers. ``delay_ms`` is per host, counted from the start
    and from the end of the previous request (one request at a time then); a robots.txt
    ``Crawl-delay`` larger than it wins."""

    delay_ms: int = 0
    per_host_concurrency: int = 4
    concurrency: int = 16


@dataclass(frozen=True, slots=True, kw_only=True)
class SitemapLimits:
    """Bounds on sitemap discovery (sitemaps.org limits by default)."""

    max_index_depth: int = 3
    max_documents: int = 50
    max_bytes: int = 50 * 1024 * 1024
    max_urls_per_document: int = 50_000


@dataclass(frozen=True, slots=True, kw_only=True)
class CrawlPolicy:
    """Everything that decides which pages a crawl fetches and how."""

    max_pages: int = 100_000
    """Pages requested (robots-denied URLs are recorded but not charged), clamped to
    :data:`HARD_MAX_PAGES`."""
    max_depth: int | None = None
    scope: ScopeName | tuple[str, ...] = "same-host"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    discovery: Discovery = "links"
    render: RenderMode = "on-shell"
    politeness: Politeness = field(default_factory=Politeness)
    robots: bool = True
    egress: EgressPolicy | None = None
    store: SnapshotStore | None = None
    mode: Mode = "live"
    should_follow: ShouldFollow | None = None
    markdown: bool = True
    max_response_bytes: int | None = 10 * 1024 * 1024
    time_budget_s: float | None = None
    user_agent: str | None = None
    respect_nofollow: bool = True
    strip_tracking_params: bool = False
    sitemaps: SitemapLimits = field(default_factory=SitemapLimits)
    timeout_ms: int | None = None
    retries: int | None = None
    store_durability: Literal["fsync", "flush"] = "flush"
    """For the output directory's own store: ``flush`` survives a crashed or killed process
    (resume works); ``fsync`` also survives power loss, at a cost per page."""
    store_format: Literal["segments", "files"] = "segments"
    """The format of the output directory's own store when the crawl creates it: WARC
    segments with an index (a few files for any number of pages), or one file per
    snapshot (``files``, the earlier format). An existing store keeps its format."""
    output: Literal["files", "bundles"] = "files"
    """Markdown and evidence as one file each per page (in 256 sharded directories), or
    appended to compressed JSONL bundles (a few files for any number of pages)."""
    workers: int | None = None
    """Parser processes for links and Markdown; ``None`` picks by CPU count, 0 runs inline."""
    revalidate: bool = True
    """Recrawls send ``If-None-Match`` / ``If-Modified-Since`` from the newest plain snapshot
    of each URL (in ``store``, or in the output directory's store when it holds an earlier
    crawl); a 304 keeps that snapshot and its Markdown (outcome ``not-modified``).
    ``False`` fetches every page in full."""
    page_deadline_s: float = 10.0
    """Limit on one page's parse/extract/convert work; past it the page's worker is killed
    and the page recorded as ``error`` kind ``parse-timeout`` (not with ``workers=0``)."""
    worker_memory_bytes: int | None = WORKER_MEMORY_BYTES
    """Address-space limit (``RLIMIT_AS``) of each parser process: a page whose work passes
    it is recorded as ``error`` kind ``parse-out-of-memory`` and its worker replaced (not
    with ``workers=0``). ``None``: no limit."""
    keep_hidden_text: bool = False
    """Keep text a reader would not see in the Markdown (``ConversionPolicy.keep_hidden_text``);
    by default it is left out. Either way the evidence lists it and the manifest counts it."""
    agent_views: bool = False
    """Also request each HTML page's agent-facing versions (``Accept: text/markdown``, its
    ``rel="alternate" type="text/markdown"`` link, its site's ``/llms.txt`` once), store
    them and compare them with the page's Markdown (``crawl._agentviews``). Off: not one
    extra request."""
    render_concurrency: int | None = None
    """Browser pages rendering at once, apart from ``politeness.concurrency`` (a render
    holds a request slot only while its document is requested); ``None`` sizes them
    from the machine's CPUs and memory (``PoolLimits.for_machine``)."""

    def effective_max_pages(self) -> int:
        return max(0, min(self.max_pages, HARD_MAX_PAGES))

    def validate(self) -> None:
        """Raise :class:`CrawlError` for a configuration no crawl can run with."""
        if self.max_pages < 0:
            raise CrawlError("max_pages must be >= 0")
        if self.max_depth is not None and self.max_depth < 0:
            raise CrawlError("max_depth must be >= 0")
        if self.discovery not in ("links", "sitemap", "both"):
            raise CrawlError(f"unknown discovery {self.discovery!r}")
        if self.render not in ("never", "on-shell", "always"):
            raise CrawlError(f"unknown render policy {self.render!r}")
        if self.mode not in ("live", "replay"):
            raise CrawlError(f"unknown mode {self.mode!r}")
        if isinstance(self.scope, str) and self.scope not in ("same-host", "same-site"):
            raise CrawlError(f"unknown scope {self.scope!r}")
        p = self.politeness
        if p.concurrency < 1 or p.per_host_concurrency < 1 or p.delay_ms < 0:
            raise CrawlError("politeness needs concurrency >= 1 and delay_ms >= 0")
        if self.workers is not None and self.workers < 0:
            raise CrawlError("workers must be >= 0")
        if not self.page_deadline_s > 0:
            raise CrawlError("page_deadline_s must be > 0")
        if self.worker_memory_bytes is not None \
                and self.worker_memory_bytes < MIN_WORKER_MEMORY_BYTES:
            raise CrawlError(f"worker_memory_bytes must be >= {MIN_WORKER_MEMORY_BYTES >> 20} MiB "
                             "(a parser process cannot start with less)")
        if self.render_concurrency is not None and self.render_concurrency < 1:
            raise CrawlError("render_concurrency must be >= 1")
        if self.store_format not in ("segments", "files"):
            raise CrawlError(f"unknown store format {self.store_format!r}")
        if self.agent_views and self.mode != "live":
            raise CrawlError("agent_views needs a live crawl (a replay requests nothing)")
        if self.output not in ("files", "bundles"):
            raise CrawlError(f"unknown output layout {self.output!r}")
        for pattern in (*self.include, *self.exclude):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise CrawlError(f"bad URL pattern {pattern!r}: {exc}") from exc

    def describe(self) -> dict[str, Any]:
        """The JSON-safe view written to ``manifest.json`` (hooks and objects by name only)."""
        return {
            "max_pages": self.effective_max_pages(),
            "max_depth": self.max_depth,
            "scope": self.scope if isinstance(self.scope, str) else list(self.scope),
            "include": list(self.include),
            "exclude": list(self.exclude),
            "discovery": self.discovery,
            "render": self.render,
            "politeness": {
                "delay_ms": self.politeness.delay_ms,
                "per_host_concurrency": self.politeness.per_host_concurrency,
                "concurrency": self.politeness.concurrency,
            },
            "robots": self.robots,
            "egress_guarded": self.egress is None or bool(getattr(self.egress, "guarded", True)),
            "mode": self.mode,
            "should_follow": self.should_follow is not None,
            "markdown": self.markdown,
            "max_response_bytes": self.max_response_bytes,
            "time_budget_s": self.time_budget_s,
            "respect_nofollow": self.respect_nofollow,
            "strip_tracking_params": self.strip_tracking_params,
            "revalidate": self.revalidate,
            # only when not the default, so identities of earlier crawls still match
            **({"output": self.output} if self.output != "files" else {}),
            **({"agent_views": True} if self.agent_views else {}),
            **({"keep_hidden_text": True} if self.keep_hidden_text else {}),
        }


class Scope:
    """Decides whether a canonical URL is in scope for the crawl (pure, precompiled).

    ``same-site`` compares :func:`~pressmark.crawl._site.site_of` keys (Public Suffix
    List registrable domain, exact port; an IP address only matches itself)."""

    __slots__ = ("_exclude", "_hosts", "_include", "_kind", "_sites")

    def __init__(self, policy: CrawlPolicy, seed_hosts: list[str]) -> None:
        self._include = [re.compile(p) for p in policy.include]
        self._exclude = [re.compile(p) for p in policy.exclude]
        self._kind: str
        if isinstance(policy.scope, str):
            self._kind = policy.scope
            self._hosts = frozenset(seed_hosts)
        else:
            self._kind = "hosts"
            self._hosts = frozenset(h.lower() for h in (*policy.scope, *seed_hosts))
        # Only same-site needs the Public Suffix List (loading it costs ~40 ms and ~2 MiB).
        self._sites = (frozenset(site_of(h) for h in self._hosts)
                       if self._kind == "same-site" else frozenset())

    def host_allowed(self, host: str) -> bool:
        if self._kind == "same-site":
            return site_of(host) in self._sites
        return host in self._hosts

    def allows(self, url: str, host: str) -> bool:
        if not self.host_allowed(host):
            return False
        if self._include and not any(p.search(url) for p in self._include):
            return False
        return not any(p.search(url) for p in self._exclude)
