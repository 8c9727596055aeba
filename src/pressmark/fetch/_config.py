"""Configuration and result records of the fetch layer.

Error tree::

    PressmarkError
    └── FetchError                 .kind in FETCH_ERROR_KINDS (also its ``code``)

Ordinary page failures are not raised: :func:`pressmark.fetch.fetch_source`
returns them as :class:`FetchFailure` on the :class:`FetchResult`. The exception
exists for callers that prefer to raise a failure (:meth:`FetchResult.raise_for_error`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args

from pressmark._errors import PressmarkError
from pressmark._version import __version__

if TYPE_CHECKING:
    from pressmark.egress import EgressPolicy, GuardedClient, Resolver
    from pressmark.fetch._politeness import Pacer
    from pressmark.fetch._robots import RobotsCache
    from pressmark.fetch._shell import ShellCheck
    from pressmark.render import ReadinessReport, ReadinessSpec, Renderer
    from pressmark.snapshot import Snapshot
    from pressmark.store import SnapshotRef, SnapshotStore

FetchErrorKind = Literal[
    "invalid-config",
    "egress-denied",
    "robots-denied",
    "http-error",
    "timeout",
    "dns-failure",
    "network-error",
    "response-too-large",
    "adapter-error",
]
FETCH_ERROR_KINDS: tuple[str, ...] = get_args(FetchErrorKind)

RenderPolicy = Literal["never", "always", "on-shell"]
RENDER_POLICIES: tuple[str, ...] = get_args(RenderPolicy)

DEFAULT_USER_AGENT = f"pressmark/{__version__} (+https://github.com/pressmark/pressmark)"
DEFAULT_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


class FetchError(PressmarkError):
    """A fetch failure raised on request (``code`` equals ``kind``)."""

    def __init__(self, kind: FetchErrorKind, message: str, *, status: int | None = None,
                 url: str | None = None) -> None:
        super().__init__(message, code=kind)
        self.kind: FetchErrorKind = kind
        self.status = status
        self.url = url


class Clock(Protocol):
    """Monotonic time and sleeping, injectable so pacing tests need not wait."""

    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The default clock: ``time.monotonic`` and ``asyncio.sleep``."""

    __slots__ = ()

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceConfig:
    """What to fetch, and how, for one URL.

    ``None`` means "not set by the caller": the :class:`FetchOptions` default
    applies, and the inert-knob warnings of a rendered fetch (seed decision 7)
    fire only for values the caller actually set.
    """

    url: str
    source_id: str | None = None
    headers: Mapping[str, str] | None = None
    user_agent: str | None = None
    timeout_ms: int | None = None          # connect, read and total budget of the fetch
    min_delay_ms: int | None = None        # per-host spacing (Crawl-delay may raise it)
    retries: int | None = None             # plain attempts only; never the renderer
    respect_robots: bool = True
    revalidate: bool = False
    render_policy: RenderPolicy | None = None
    render: bool | None = None             # legacy spelling, see resolve_render_policy
    max_response_bytes: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class FetchOptions:
    """Shared machinery for many fetches (one per crawl, not one per page).

    Pass a shared ``client``, ``robots`` and ``politeness`` to get connection
    reuse, one robots.txt download per origin and crawl-wide pacing. A missing
    ``client`` or ``robots`` is created for the call and discarded after it; with
    no ``politeness`` a call is not paced (there is nothing to pace it against).
    ``store`` enables revalidation and keeps every selected snapshot; ``renderer``
    is needed for ``always`` and used by ``on-shell``. With ``keep_snapshots=False``
    the store only lends validators: new snapshots come back unstored, for a caller
    that puts them itself (a crawl does, on its writer threads or worker processes).
    """

    egress: EgressPolicy | None = None
    resolver: Resolver | None = None
    client: GuardedClient | None = None
    store: SnapshotStore | None = None
    renderer: Renderer | None = None
    robots: RobotsCache | None = None
    politeness: Pacer | None = None
    clock: Clock | None = None
    user_agent: str = DEFAULT_USER_AGENT
    timeout_ms: int = 30_000
    retries: int = 2
    max_response_bytes: int = 10 * 1024 * 1024
    max_headers: int = 256
    max_header_bytes: int = 64 * 1024
    backoff_base_ms: int = 250
    backoff_max_ms: int = 5_000
    retry_after_cap_ms: int = 30_000
    readiness: ReadinessSpec | None = None
    keep_snapshots: bool = True
    shell_check: ShellCheck | None = None
    """Runs ``on-shell`` classification; ``None``: :func:`classify_shell` right here."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FetchFailure:
    """Why a fetch produced no snapshot. ``code`` is the lower layer's code, if any."""

    kind: FetchErrorKind
    message: str
    status: int | None = None
    code: str | None = None
    url: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "status": self.status,
                "code": self.code, "url": self.url}


@dataclass(frozen=True, slots=True, kw_only=True)
class RenderEscalation:
    """Audit of the render decision (seed decision 10); not a second result.

    ``reason`` says why a render was wanted (``"policy:always"`` or the
    ``js-shell-suspected:...`` warning); ``attempted`` whether the renderer ran;
    ``first_snapshot_ref`` names the plain snapshot a render replaced or fell
    back to; ``render_error`` is the renderer's failure, if it failed.
    """

    attempted: bool
    reason: str | None = None
    first_snapshot_ref: str | None = None
    render_error: FetchFailure | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"attempted": self.attempted, "reason": self.reason,
                "first_snapshot_ref": self.first_snapshot_ref,
                "render_error": None if self.render_error is None else self.render_error.to_dict()}


@dataclass(frozen=True, slots=True, kw_only=True)
class FetchTimings:
    """Where the time of one fetch went, in milliseconds."""

    total_ms: float = 0.0
    robots_ms: float = 0.0
    wait_ms: float = 0.0        # politeness and Retry-After / backoff sleeps
    network_ms: float = 0.0
    render_ms: float = 0.0
    store_ms: float = 0.0
    attempts: int = 0           # plain HTTP requests sent (redirect hops not counted)

    def to_dict(self) -> dict[str, float]:
        return {"total_ms": self.total_ms, "robots_ms": self.robots_ms, "wait_ms": self.wait_ms,
                "network_ms": self.network_ms, "render_ms": self.render_ms,
                "store_ms": self.store_ms, "attempts": float(self.attempts)}


@dataclass(frozen=True, slots=True, kw_only=True)
class FetchResult:
    """The one selected outcome of :func:`fetch_source`: a snapshot or an error.

    For a trustworthy 304, ``not_modified`` is true and ``snapshot`` is the
    stored prior snapshot (marked ``not_modified``); ``source_ref`` names it.
    """

    url: str
    snapshot: Snapshot | None = None
    snapshot_ref: SnapshotRef | None = None
    source_ref: str | None = None
    error: FetchFailure | None = None
    warnings: tuple[str, ...] = ()
    render_escalation: RenderEscalation | None = None
    timings: FetchTimings = FetchTimings()
    not_modified: bool = False
    http_status: int | None = None      # status of the last response seen (304 included)
    readiness: ReadinessReport | None = None   # the renderer's, when the result was rendered

    @property
    def ok(self) -> bool:
        return self.error is None and self.snapshot is not None

    @property
    def rendered(self) -> bool:
        return self.snapshot is not None and bool(self.snapshot.rendered)

    def raise_for_error(self) -> None:
        if self.error is not None:
            raise FetchError(self.error.kind, self.error.message, status=self.error.status,
                             url=self.error.url)


def headers_items(headers: Mapping[str, str] | Sequence[tuple[str, str]] | None,
                  ) -> list[tuple[str, str]]:
    if headers is None:
        return []
    if isinstance(headers, Mapping):
        return [(str(k), str(v)) for k, v in headers.items()]
    return [(str(k), str(v)) for k, v in headers]
