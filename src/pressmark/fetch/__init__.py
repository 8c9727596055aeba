"""Acquisition: one polite, bounded, honest fetch of a URL (``fetch_source``).

``fetch_source(SourceConfig, FetchOptions) -> FetchResult`` fetches through the
egress guard, obeys robots.txt on every redirect hop, paces each host, retries
only what is safe to retry, enforces byte and time limits while streaming,
records the charset a browser would use, revalidates against the store, and
applies the render policy (never / always / on-shell) with an injected renderer.
Ordinary failures come back as typed results (``FetchResult.error.kind``).
"""

from pressmark.fetch._config import (
    DEFAULT_USER_AGENT,
    FETCH_ERROR_KINDS,
    RENDER_POLICIES,
    Clock,
    FetchError,
    FetchErrorKind,
    FetchFailure,
    FetchOptions,
    FetchResult,
    FetchTimings,
    RenderEscalation,
    RenderPolicy,
    SourceConfig,
    SystemClock,
)
from pressmark.fetch._fetch import fetch_source
from pressmark.fetch._politeness import Politeness
from pressmark.fetch._render_policy import resolve_render_policy
from pressmark.fetch._robots import (
    RobotsAnswer,
    RobotsCache,
    RobotsEntry,
    RobotsRules,
    parse_robots,
    product_token,
)
from pressmark.fetch._shell import (
    EMBEDDED_STATE_WARNING_PREFIX,
    SHELL_WARNING_PREFIX,
    ShellCheck,
    ShellVerdict,
    classify_shell,
)

__all__ = [
    "DEFAULT_USER_AGENT",
    "EMBEDDED_STATE_WARNING_PREFIX",
    "FETCH_ERROR_KINDS",
    "RENDER_POLICIES",
    "SHELL_WARNING_PREFIX",
    "Clock",
    "FetchError",
    "FetchErrorKind",
    "FetchFailure",
    "FetchOptions",
    "FetchResult",
    "FetchTimings",
    "Politeness",
    "RenderEscalation",
    "RenderPolicy",
    "RobotsAnswer",
    "RobotsCache",
    "RobotsEntry",
    "RobotsRules",
    "ShellCheck",
    "ShellVerdict",
    "SourceConfig",
    "SystemClock",
    "classify_shell",
    "fetch_source",
    "parse_robots",
    "product_token",
    "resolve_render_policy",
]
