"""``RayEngine``: the sharded crawl with shards, the page budget and renderers as Ray
actors.

Ray is imported when a crawl runs, never at import time (``pressmark.crawl.ray`` stays
importable without it; the error names the ``pressmark[ray]`` extra). Actors are named
``pressmark-<crawl id>-shard-<k>`` in the ``pressmark`` namespace, so a shard finds its
peers by name, also after Ray restarted it.

Faults: shard and render actors have ``max_restarts``; a call to an actor that is being
restarted is retried on the new incarnation (``max_task_retries=-1``). A restarted shard
rebuilds itself from the crawl directory (journal, ``started.log``, ``pages.jsonl``) and
re-queues its in-flight pages (each is retried once) as the driver's limits allow them
again. The driver (this process) holds no state a restart could lose: its ledger is read
from the same directory.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pressmark.crawl import CrawlError
from pressmark.crawl.executor import Limits, NullProgress, Progress
from pressmark.crawl.ray._driver import ShardLost, coordinate, prepare
from pressmark.crawl.ray._shard import ShardConfig, ShardRuntime
from pressmark.crawl.ray._sharding import DocumentResult, RoutedLink, ShardStatus

if TYPE_CHECKING:
    from pressmark.crawl import CrawlManifest, CrawlPolicy
    from pressmark.crawl.executor import SeedLike
    from pressmark.egress import EgressPolicy, Resolver

NAMESPACE = "pressmark"


def import_ray() -> Any:
    try:
        import ray  # noqa: PLC0415  # optional dependency, loaded on first use
    except ImportError as exc:
        raise CrawlError("the Ray engine needs Ray: pip install 'pressmark[ray]'") from exc
    return ray


@dataclass(frozen=True, slots=True, kw_only=True)
class _Names:
    crawl_id: str
    shards: int
    render_workers: int

    def shard(self, index: int) -> str:
        return f"pressmark-{self.crawl_id}-shard-{index}"

    def render(self, index: int) -> str:
        return f"pressmark-{self.crawl_id}-render-{index}"


class _RayCluster:
    """A shard's view of its peers, found by name."""

    def __init__(self, names: _Names) -> None:
        self.names = names
        self._cache: dict[str, Any] = {}

    def _actor(self, name: str) -> Any:
        actor = self._cache.get(name)
        if actor is None:
            actor = import_ray().get_actor(name, namespace=NAMESPACE)
            self._cache[name] = actor
        return actor

    async def route(self, shard: int, links: list[RoutedLink]) -> None:
        await self._actor(self.names.shard(shard)).accept.remote(links)

    async def fetch_document(self, shard: int, url: str) -> DocumentResult:
        return await self._actor(self.names.shard(shard)).serve_document.remote(url)  # type: ignore[no-any-return]

    async def pace(self, shard: int, url: str) -> None:
        await self._actor(self.names.shard(shard)).pace.remote(url)


class _RayRenderer:
    """A ``Renderer`` that sends each page to one of the render actors (round robin)."""

    def __init__(self, names: _Names) -> None:
        self.names = names
        self._next = itertools.count()
        self._cluster = _RayCluster(names)

    async def render(self, url: str, options: Any) -> Any:
        index = next(self._next) % self.names.render_workers
        actor = self._cluster._actor(self.names.render(index))  # same module
        return await actor.render.remote(url, options)


class _ShardActor:
    def __init__(self, config: ShardConfig, names: _Names) -> None:
        ray = import_ray()
        restarted = bool(ray.get_runtime_context().was_current_actor_reconstructed)
        factory = (functools.partial(_RayRenderer, names) if names.render_workers > 0 else None)
        self.runtime = ShardRuntime(config, _RayCluster(names), renderer_factory=factory,
                                    restarts=int(restarted))

    async def status(self) -> ShardStatus:
        return await self.runtime.status()

    async def allow(self, version: int, limits: Limits, over: bool) -> None:
        await self.runtime.allow(version, limits, over)

    async def accept(self, links: list[RoutedLink]) -> None:
        await self.runtime.accept(links)

    async def serve_document(self, url: str) -> DocumentResult:
        return await self.runtime.serve_document(url)

    async def pace(self, url: str) -> None:
        await self.runtime.pace(url)

    async def finish(self) -> dict[str, Any]:
        return await self.runtime.finish()

    async def stop(self) -> None:
        self.runtime.stop()

    def pid(self) -> int:
        return os.getpid()


class _RenderActor:
    """One Chromium (through its own egress proxy), started on the first render."""

    def __init__(self, egress: EgressPolicy | None, resolver: Resolver | None) -> None:
        from pressmark.render import LazyRenderer  # noqa: PLC0415  # actor process

        self.renderer = LazyRenderer(egress, resolver)

    async def render(self, url: str, options: Any) -> Any:
        return await self.renderer.render(url, options)

    async def close(self) -> None:
        await self.renderer.aclose()


@functools.cache
def _remote_classes() -> tuple[Any, Any]:
    ray = import_ray()
    return ray.remote(_ShardActor), ray.remote(_RenderActor)


class _RayHandle:
    def __init__(self, actor: Any) -> None:
        self.actor = actor

    async def status(self) -> ShardStatus:
        ray = import_ray()
        try:
            return await self.actor.status.remote()  # type: ignore[no-any-return]
        except ray.exceptions.RayActorError as exc:
            raise ShardLost(f"a shard actor died for good: {exc}") from exc

    async def allow(self, version: int, limits: Limits, over: bool) -> None:
        await self.actor.allow.remote(version, limits, over)

    async def finish(self) -> dict[str, Any]:
        return await self.actor.finish.remote()  # type: ignore[no-any-return]

    async def stop(self) -> None:
        await self.actor.stop.remote()


def local_ray_init(**options: Any) -> None:
    """Start a single-machine Ray bound to loopback only (no dashboard, no usage stats).

    Ray swaps a ``127.0.0.1`` node address for the machine's outward one (and then binds
    its gRPC servers on every interface) unless it believes it may not form a cluster, which
    it decides from ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER`` when ``ray`` is first imported.
    A local crawl has no business listening beyond loopback, so that switch is set here,
    for this process and for the Ray processes it starts.
    """
    ray = import_ray()
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    constants = getattr(getattr(ray, "_private", None), "ray_constants", None)
    if constants is not None and hasattr(constants, "ENABLE_RAY_CLUSTER"):
        constants.ENABLE_RAY_CLUSTER = False
    defaults: dict[str, Any] = {"include_dashboard": False, "_node_ip_address": "127.0.0.1",
                                "log_to_driver": False, "configure_logging": False}
    ray.init(**{**defaults, **options})


@dataclass(frozen=True, slots=True, kw_only=True)
class RayEngine:
    """Run a crawl on Ray. ``address``: ``None`` starts a local, loopback-only Ray for this
    crawl (and stops it after); ``"auto"`` or ``"ray://host:port"`` joins a cluster. When
    Ray is already initialised in this process, it is used as is.

    ``shards`` host-partitioned shard actors (``shard_cpus`` logical CPUs each);
    ``render_workers`` render actors (one Chromium each), created only when the policy or
    a seed may render. ``policy.politeness.concurrency`` is crawl-wide: it is split
    across the shards (:func:`~pressmark.crawl.ray._sharding.concurrency_share`).
    """

    address: str | None = None
    shards: int = 2
    render_workers: int = 1
    shard_cpus: float = 1.0
    render_cpus: float = 1.0
    max_restarts: int = 3
    poll_s: float = 0.05
    init_options: Mapping[str, Any] = field(default_factory=dict)

    async def run(
        self, seeds: SeedLike | Sequence[SeedLike], policy: CrawlPolicy | None = None, *,
        out_dir: str | Path | None = None, resume: bool = False,
        resolver: Resolver | None = None, progress: Progress | None = None,
        stop: asyncio.Event | None = None,
    ) -> CrawlManifest:
        if self.render_workers < 0:
            raise CrawlError("render_workers must be >= 0")
        prep = prepare(seeds, policy, out_dir=out_dir, resume=resume, shards=self.shards)
        ray = import_ray()
        started_ray = False
        if not ray.is_initialized():
            if self.address is None:
                local_ray_init(**self.init_options)
            else:
                ray.init(address=self.address, **self.init_options)
            started_ray = True
        shard_cls, render_cls = _remote_classes()
        wants_browser = prep.policy.render != "never" or any(s.render for s, _, _ in prep.seeds)
        names = _Names(crawl_id=uuid.uuid4().hex[:12], shards=self.shards,
                       render_workers=self.render_workers if wants_browser else 0)
        actors: list[Any] = []
        renderers: list[Any] = []
        try:
            for index in range(names.render_workers):
                renderers.append(render_cls.options(
                    name=names.render(index), namespace=NAMESPACE, num_cpus=self.render_cpus,
                    max_restarts=self.max_restarts, max_task_retries=1,
                    max_concurrency=64,
                ).remote(prep.policy.egress, resolver))
            actors.extend(renderers)
            shards = []
            for index in range(self.shards):
                config = ShardConfig(index=index, shards=self.shards, seeds=prep.seeds,
                                     policy=prep.shipped_policy, out_root=str(prep.out.root),
                                     store_root=prep.store_root, resolver=resolver)
                shards.append(shard_cls.options(
                    name=names.shard(index), namespace=NAMESPACE, num_cpus=self.shard_cpus,
                    max_restarts=self.max_restarts, max_task_retries=-1,
                    max_concurrency=1000,
                ).remote(config, names))
            actors.extend(shards)
            return await coordinate(prep, [_RayHandle(a) for a in shards],
                                    progress=progress or NullProgress(),
                                    stop=stop or asyncio.Event(), poll_s=self.poll_s)
        finally:
            if renderers:  # Chromium must exit with its actor, not be orphaned by a kill
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(
                        asyncio.gather(*(r.close.remote() for r in renderers)), 30)
            for actor in actors:
                ray.kill(actor, no_restart=True)
            if started_ray:
                ray.shutdown()
            if prep.temporary is not None:
                prep.temporary.cleanup()
