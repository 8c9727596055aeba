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
    FetchError,
    FetchFailure,
    FetchOptions,
    FetchResult,
    SourceConfig,
)
from pressmark.fetch._fetch import fetch_source
from pressmark.fetch._politeness import Pacer
from pressmark.fetch._robots import RobotsCache
from pressmark.fetch._shell import ShellVerdict, classify_shell

__all__ = [
    "DEFAULT_USER_AGENT",
    "FetchError",
    "FetchFailure",
    "FetchOptions",
    "FetchResult",
    "Pacer",
    "RobotsCache",
    "ShellVerdict",
    "SourceConfig",
    "classify_shell",
    "fetch_source",
]
