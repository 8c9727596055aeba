"""A crawl's agent views (``CrawlPolicy.agent_views``): for each fetched HTML page, the
versions the site serves to agents, captured beside it (:mod:`pressmark.fetch._agent`).

The engine hands each page here once its own snapshot is stored. The requests go through
the fetcher (its egress guard, robots cache and per-host pacing); each captured view is put
into the crawl's store like a page, and compared with the page's Markdown in the crawl's
parser process when it has one (:func:`~pressmark.cite._divergence.view_divergences`: the
page is converted again there, as the crawl converted it). The page's record lists its
views (``agent_views``); the manifest counts them (:meth:`AgentViewReport.report`). A view
that could not be stored or compared says so in its ``error``: it never fails the page.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pressmark.crawl._frontier import FrontierItem
    from pressmark.crawl._policy import Seed
    from pressmark.crawl._workers import ParseWorkers
    from pressmark.crawl._writer import StoreWriter
    from pressmark.fetch._agent import AgentView
    from pressmark.snapshot import Snapshot


class AgentViewFetcher(Protocol):
    """A fetcher that can request a page's agent views (the live one can)."""

    async def agent_views(self, item: FrontierItem, seed: Seed | None, page: Snapshot,
                          ) -> list[tuple[AgentView, Snapshot | None]]: ...


class AgentViewReport:
    """Running counts of a crawl's agent views: the manifest's ``agent_views``."""

    def __init__(self) -> None:
        self.pages = 0
        self.outcomes: dict[str, Counter[str]] = {}
        self.diverging = 0
        self.compared = 0
        self.llms_txt: dict[str, dict[str, Any]] = {}

    def add(self, views: tuple[dict[str, Any], ...]) -> None:
        if any(view["outcome"] == "captured" for view in views):
            self.pages += 1
        for view in views:
            self.outcomes.setdefault(view["kind"], Counter())[view["outcome"]] += 1
            divergence = view.get("divergence")
            if divergence is not None:
                self.compared += 1
                self.diverging += 0 if divergence["agrees"] else 1
            if view["kind"] == "llms-txt":
                origin = view["url"].removesuffix("/llms.txt")
                self.llms_txt[origin] = {"url": view["url"], "outcome": view["outcome"],
                                         "status": view["status"],
                                         "source_ref": view["source_ref"]}

    def report(self) -> dict[str, Any]:
        return {"pages_with_views": self.pages,
                "by_kind": {kind: dict(sorted(counts.items()))
                            for kind, counts in sorted(self.outcomes.items())},
                "compared": self.compared, "diverging": self.diverging,
                "llms_txt": dict(sorted(self.llms_txt.items()))}


async def page_views(fetcher: AgentViewFetcher, item: FrontierItem, seed: Seed | None,
                     page: Snapshot, page_ref: str | None, *, writer: StoreWriter | None,
                     pool: ParseWorkers | None) -> tuple[dict[str, Any], ...]:
    """The agent views of one fetched page, stored and compared (see the module doc)."""
    found = await fetcher.agent_views(item, seed, page)
    views: list[AgentView] = []
    compare: list[tuple[int, Snapshot, str]] = []
    for found_view, found_snapshot in found:
        view, snapshot = found_view, found_snapshot
        if snapshot is not None and writer is not None:
            try:
                ref = await writer.put(snapshot)
            except Exception as exc:  # the view is not kept; the page stands
                view = dataclasses.replace(view, source_ref=None, error={
                    "kind": "store-error", "message": f"{type(exc).__name__}: {exc}"})
                snapshot = None
            else:
                view = dataclasses.replace(view, source_ref=ref.source_ref)
        if snapshot is not None and view.source_ref is not None and view.kind != "llms-txt":
            compare.append((len(views), snapshot, view.source_ref))
        views.append(view)
    if compare and page_ref is not None:
        job = (page, page_ref, tuple((snap, ref) for _, snap, ref in compare))
        try:
            scores = await _divergences(job, pool)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a page the comparison could not finish: said, not fatal
            message = {"kind": "divergence-failed", "message": f"{type(exc).__name__}: {exc}"}
            for index, _, _ in compare:
                views[index] = dataclasses.replace(views[index], error=message)
        else:
            for (index, _, _), score in zip(compare, scores, strict=True):
                views[index] = dataclasses.replace(views[index], divergence=score)
    return tuple(view.to_dict() for view in views)


async def _divergences(job: tuple[Snapshot, str, tuple[tuple[Snapshot, str], ...]],
                       pool: ParseWorkers | None) -> list[dict[str, Any]]:
    from pressmark.cite._divergence import view_divergences  # noqa: PLC0415  # on first use

    if pool is None:
        return await asyncio.to_thread(view_divergences, job)
    return await pool.run(view_divergences, job)
