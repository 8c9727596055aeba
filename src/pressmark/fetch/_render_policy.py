"""The render policy as pure decisions (seed ``000_84a069ce703bb28e``, decisions 1-12).

Nothing here does I/O; :mod:`pressmark.fetch._fetch` asks these functions what
to do and does it. Summary:

* ``never``: one plain attempt; validators as configured; the plain result.
* ``always``: one rendered attempt; no validators (a warning if revalidation was
  configured); the rendered result; no renderer at all is ``invalid-config``.
* ``on-shell``: a plain attempt, then at most one render when the plain HTML
  escalates (``js-shell-suspected:``); only the plain attempt uses validators;
  a successful render wins, otherwise the plain snapshot is kept.

The legacy ``render: bool`` maps ``True`` to ``always`` and ``False`` to
``never``; when both keys are given they must agree, else ``invalid-config``
before any I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pressmark.fetch._config import RENDER_POLICIES, RenderPolicy, SourceConfig
from pressmark.fetch._shell import SHELL_WARNING_PREFIX

if TYPE_CHECKING:
    from pressmark.snapshot import Snapshot

WARN_REVALIDATE_INERT = "render-revalidate-inert: revalidation is not used for a rendered fetch"
WARN_HEADERS_INERT = ("render-headers-not-forwarded: SourceConfig.headers are not sent by "
                      "the renderer")
WARN_RETRIES_INERT = "render-retries-not-applied: the renderer is never retried"
WARN_RENDERER_MISSING = "render-fallback:no-renderer: shell suspected but no renderer is configured"
WARN_RENDER_FAILED = "render-fallback:render-failed"


def resolve_render_policy(source: SourceConfig) -> RenderPolicy | str:
    """The effective policy, or an ``invalid-config`` message (a plain ``str``)."""
    policy = source.render_policy
    legacy: object = source.render
    if policy is not None and policy not in RENDER_POLICIES:
        return f"render_policy must be one of {', '.join(RENDER_POLICIES)}, not {policy!r}"
    if legacy is not None and not isinstance(legacy, bool):
        return f"render must be a bool, not {type(legacy).__name__}"
    if policy is None:
        return "always" if legacy else "never"
    if legacy is None:
        return policy
    if (legacy is True and policy == "always") or (legacy is False and policy == "never"):
        return policy
    return (f"render={legacy!r} disagrees with render_policy={policy!r} "
            "(true only agrees with 'always', false only with 'never')")


def should_escalate(warnings: Iterable[str]) -> str | None:
    """The first warning with the exact escalating prefix, if any (decision 10)."""
    for warning in warnings:
        if warning.startswith(SHELL_WARNING_PREFIX):
            return warning
    return None


def eligible_for_shell_check(snapshot: Snapshot) -> bool:
    """Only a fresh, unrendered HTML snapshot is classified (decision 10)."""
    return (snapshot.content_type == "html" and not snapshot.rendered
            and not snapshot.not_modified)


def inert_render_warnings(source: SourceConfig, *, policy: RenderPolicy) -> tuple[str, ...]:
    """Warnings for knobs the caller set that a rendered attempt cannot honour (decisions 6, 7).

    Revalidation is inert only under ``always``: under ``on-shell`` the plain
    attempt used it. Headers and retries are inert for every rendered attempt.
    """
    warnings: list[str] = []
    if policy == "always" and source.revalidate:
        warnings.append(WARN_REVALIDATE_INERT)
    if source.headers:
        warnings.append(WARN_HEADERS_INERT)
    if source.retries is not None:
        warnings.append(WARN_RETRIES_INERT)
    return tuple(warnings)


def render_failed_warning(kind: str) -> str:
    return f"{WARN_RENDER_FAILED}:{kind}: the renderer failed; the plain snapshot is kept"
