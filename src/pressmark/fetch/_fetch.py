"""``fetch_source``: the one door through which page bytes enter pressmark.

Order of a call: validate the config (``invalid-config`` before any I/O), pick
the render policy, then run the plain attempt (robots on every hop, pacing,
retries, limits, charset, revalidation) and/or the rendered attempt (egress and
robots checked once, never retried, no validators), store what was selected and
return one :class:`FetchResult`. Ordinary failures are results, not exceptions.

The render policy (seed decisions 1-12) is the three functions below; each
returns exactly one selected outcome, and ``render_escalation`` only audits.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from pressmark.egress import GuardedClient, evaluate_url
from pressmark.fetch._attempt import AttemptFailed, translate
from pressmark.fetch._call import CallState, borrow_robots, validate_source
from pressmark.fetch._config import (
    FetchFailure,
    FetchOptions,
    FetchResult,
    RenderEscalation,
    RenderPolicy,
    SourceConfig,
)
from pressmark.fetch._render_policy import (
    WARN_RENDERER_MISSING,
    eligible_for_shell_check,
    inert_render_warnings,
    render_failed_warning,
    resolve_render_policy,
    should_escalate,
)
from pressmark.fetch._shell import classify_shell
from pressmark.snapshot import build_source_ref

if TYPE_CHECKING:
    from pressmark.snapshot import Snapshot
    from pressmark.store import SnapshotRef

_POLICY_REASON = "policy:always"


async def fetch_source(source: SourceConfig, options: FetchOptions) -> FetchResult:
    """Fetch one URL under its render policy; never raises for an ordinary failure."""
    resolved = resolve_render_policy(source)
    problem = validate_source(source)
    if problem is None and resolved not in ("never", "always", "on-shell"):
        problem = resolved
    if problem is None and resolved == "always" and options.renderer is None:
        problem = "render_policy 'always' needs a renderer (FetchOptions.renderer)"
    if problem is not None:
        call = CallState(source, options, "never")
        url = source.url if isinstance(source.url, str) else None
        return call.result(error=FetchFailure(kind="invalid-config", message=problem, url=url))
    policy: RenderPolicy = resolved  # type: ignore[assignment]
    call = CallState(source, options, policy)
    try:
        borrow_robots(call)
        if options.client is not None:  # shared: connections are reused across calls
            call.client = options.client
            return await _run(call, policy)
        async with GuardedClient(options.egress, options.resolver,
                                 user_agent=call.user_agent) as client:
            call.client = client
            return await _run(call, policy)
    except AttemptFailed as exc:
        return call.result(error=exc.failure)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a lower layer failed in a way we do not model: still a result
        return call.result(error=translate(exc, source.url).failure)


async def _run(call: CallState, policy: RenderPolicy) -> FetchResult:
    if policy == "always":
        return await _always(call)
    return await _plain_first(call, escalate=policy == "on-shell")


async def _stored(call: CallState, snapshot: Snapshot) -> tuple[SnapshotRef | None, str]:
    try:
        return await call.keep(snapshot)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        raise AttemptFailed(FetchFailure(
            kind="adapter-error", message=f"the snapshot store failed: {type(exc).__name__}: "
            f"{exc}", code=getattr(exc, "code", None), url=call.url)) from exc


async def _always(call: CallState) -> FetchResult:
    """One rendered attempt; validators, headers and retries are inert (decisions 6, 7)."""
    inert = inert_render_warnings(call.source, policy="always")
    try:
        await _egress_check(call)
        snapshot, readiness = await call.rendered()
    except AttemptFailed as exc:
        escalation = RenderEscalation(attempted=call.render_called, reason=_POLICY_REASON,
                                      render_error=exc.failure)
        return call.result(error=exc.failure, warnings=inert, escalation=escalation,
                           http_status=exc.failure.status)
    ref, source_ref = await _stored(call, snapshot)
    return call.result(snapshot=snapshot, ref=ref, source_ref=source_ref,
                       warnings=inert + tuple(snapshot.warnings),
                       escalation=RenderEscalation(attempted=True, reason=_POLICY_REASON),
                       http_status=snapshot.status, readiness=readiness)


async def _egress_check(call: CallState) -> None:
    """The renderer reaches the page through its own proxy; refuse a denied URL up front."""
    try:
        await evaluate_url(call.url, policy=call.options.egress, resolver=call.options.resolver)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        raise translate(exc, call.url) from exc


async def _plain_first(call: CallState, *, escalate: bool) -> FetchResult:
    """``never`` (escalate=False) and ``on-shell`` (escalate=True)."""
    try:
        snapshot, wire, prior = await call.plain(use_validators=True)
    except AttemptFailed as exc:
        exc_warnings = tuple(call.warnings) + exc.warnings
        return call.result(error=exc.failure, warnings=exc_warnings,
                           http_status=exc.failure.status)
    if snapshot is None:
        # A trustworthy 304: final, never rendered (decision 6).
        assert prior is not None
        ref = call.prior_ref(prior)
        source_ref = ref.source_ref if ref is not None else build_source_ref(prior)
        return call.result(snapshot=prior, ref=ref, source_ref=source_ref, not_modified=True,
                           http_status=wire.status)
    plain_warnings = list(call.warnings) + list(snapshot.warnings)
    reason: str | None = None
    if escalate and eligible_for_shell_check(snapshot):
        check = call.options.shell_check
        verdict = (classify_shell(snapshot.body, snapshot.url) if check is None
                   else await check(snapshot.body, snapshot.url))
        plain_warnings.extend(verdict.warnings)
        reason = should_escalate(verdict.warnings)
    ref, source_ref = await _stored(call, snapshot)
    if reason is None:
        return call.result(snapshot=snapshot, ref=ref, source_ref=source_ref,
                           warnings=tuple(plain_warnings), http_status=wire.status)
    if call.options.renderer is None:
        return call.result(
            snapshot=snapshot, ref=ref, source_ref=source_ref,
            warnings=(*plain_warnings, WARN_RENDERER_MISSING), http_status=wire.status,
            escalation=RenderEscalation(attempted=False, reason=reason,
                                        first_snapshot_ref=source_ref))
    inert = inert_render_warnings(call.source, policy="on-shell")
    try:
        rendered, readiness = await call.rendered(plain=snapshot)
    except AttemptFailed as exc:
        return call.result(
            snapshot=snapshot, ref=ref, source_ref=source_ref,
            warnings=(*plain_warnings, *inert, render_failed_warning(exc.failure.kind)),
            http_status=wire.status,
            escalation=RenderEscalation(attempted=call.render_called, reason=reason,
                                        first_snapshot_ref=source_ref,
                                        render_error=exc.failure))
    rendered_ref, rendered_source_ref = await _stored(call, rendered)
    # The discarded plain attempt's shell warnings stay out of the winner's warnings
    # (decision 10); its retry notes are still true of this call.
    retry_notes = tuple(w for w in call.warnings if w.startswith("retry"))
    return call.result(
        snapshot=rendered, ref=rendered_ref, source_ref=rendered_source_ref,
        warnings=(*retry_notes, *inert, *rendered.warnings), http_status=rendered.status,
        readiness=readiness,
        escalation=RenderEscalation(attempted=True, reason=reason,
                                    first_snapshot_ref=source_ref))
