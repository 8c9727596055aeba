"""``pressmark fetch --agent-views``: the fetched page's agent-facing versions, requested as
the page was (:func:`pressmark.fetch._agent.fetch_agent_views`), kept in ``--store`` when
given, and compared with the page's Markdown (:mod:`pressmark.cite._divergence`).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from pressmark.fetch import FetchOptions, FetchResult, SourceConfig
    from pressmark.fetch._agent import AgentView
    from pressmark.snapshot import Snapshot
    from pressmark.store import SnapshotStore


async def agent_views(result: FetchResult, source: SourceConfig, options: FetchOptions,
                      store: SnapshotStore | None) -> list[dict[str, Any]]:
    """The views of ``result``'s page (none when it has no HTML snapshot)."""
    from pressmark.cite._divergence import view_divergences  # noqa: PLC0415  # on use
    from pressmark.fetch._agent import fetch_agent_views  # noqa: PLC0415  # on use

    page = result.snapshot
    if page is None or result.source_ref is None:
        return []
    found = await fetch_agent_views(page, source, options)
    views: list[AgentView] = []
    compare: list[tuple[int, Snapshot, str]] = []
    for view, snapshot in found:
        if snapshot is not None and store is not None:
            view = dataclasses.replace(view, source_ref=store.put(snapshot).source_ref)  # noqa: PLW2901  # the stored one
        if snapshot is not None and view.source_ref is not None and view.kind != "llms-txt":
            compare.append((len(views), snapshot, view.source_ref))
        views.append(view)
    if compare:
        scores = view_divergences((page, result.source_ref,
                                   tuple((snap, ref) for _, snap, ref in compare)))
        for (index, _, _), score in zip(compare, scores, strict=True):
            views[index] = dataclasses.replace(views[index], divergence=score)
    return [view.to_dict() for view in views]


def say_views(views: list[dict[str, Any]]) -> None:
    """One line per view on stderr (the body went to stdout)."""
    for view in views:
        line = f"agent view {view['kind']}: {view['outcome']}"
        if view["content_type"]:
            line += f" ({view['content_type']})"
        if view["error"]:
            line += f": {view['error']['kind']}: {view['error']['message']}"
        divergence = view["divergence"]
        if divergence is not None:
            line += (f", divergence {divergence['score']:.4f} "
                     f"({'agrees' if divergence['agrees'] else 'diverges'}; "
                     f"{len(divergence['only_in_page'])} passage(s) only in the page, "
                     f"{len(divergence['only_in_view'])} only in the agent version)")
        click.echo(line + f": {view['url']}", err=True)
