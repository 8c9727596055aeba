"""Writer threads for snapshot puts, fed by a queue and answered in batches.

A filesystem put is many small syscalls; run from the default thread pool, six
threads and the event loop fight over the GIL (hundreds of thousands of futex
calls per thousand pages). One thread that drains the queue, and one wake-up of
the event loop per batch of finished puts, keep that cost flat. A few writers
(not one) for the filesystem store, because on a slow disk a put waits on
metadata I/O, not on the CPU. A store with ``put_many`` (the segment store) gets
one writer that hands it everything queued at once: one append, one fsync and
one index commit per batch (group commit), its compression and hashing running
outside the GIL beside the event loop.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pressmark.snapshot import Snapshot
    from pressmark.store import SnapshotRef, SnapshotStore

_Job = tuple["Snapshot", "asyncio.Future[SnapshotRef]"]
_Done = tuple["asyncio.Future[SnapshotRef]", "SnapshotRef | None", "BaseException | None"]
_GROUP = 128  # puts committed together at most (they are the ones queued meanwhile)


class StoreWriter:
    def __init__(self, store: SnapshotStore, *, threads: int = 3) -> None:
        from pressmark.store import MemorySnapshotStore  # noqa: PLC0415  # loaded on first use

        self.store = store
        self._inline = isinstance(store, MemorySnapshotStore)
        self._put_many = getattr(store, "put_many", None)
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._count = 1 if self._put_many is not None else max(1, threads)
        self._batch = _GROUP if self._put_many is not None else 8
        self._loop: asyncio.AbstractEventLoop | None = None

    async def put(self, snapshot: Snapshot) -> SnapshotRef:
        if self._inline:
            return self.store.put(snapshot)
        if not self._threads:
            self._loop = asyncio.get_running_loop()
            for n in range(self._count):
                thread = threading.Thread(target=self._run, name=f"pressmark-crawl-store-{n}",
                                          daemon=True)
                thread.start()
                self._threads.append(thread)
        future: asyncio.Future[SnapshotRef] = asyncio.get_running_loop().create_future()
        self._queue.put((snapshot, future))
        return await future

    def _run(self) -> None:
        assert self._loop is not None
        while True:
            job = self._queue.get()
            if job is None:
                return
            batch = [job]
            stop = False
            while True:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                if len(batch) >= self._batch:  # leave work for the other writers
                    self._queue.put(more)
                    break
                batch.append(more)
            done = self._put_batch(batch)
            try:
                self._loop.call_soon_threadsafe(_settle, done)
            except RuntimeError:  # the loop is closed: nobody is waiting any more
                return
            if stop:
                return

    def _put_batch(self, batch: list[_Job]) -> list[_Done]:
        if self._put_many is not None:
            try:
                results = self._put_many([snapshot for snapshot, _ in batch])
            except BaseException as exc:  # the whole batch failed: every page hears why
                return [(future, None, exc) for _, future in batch]
            return [(future, None, result) if isinstance(result, BaseException)
                    else (future, result, None)
                    for (_, future), result in zip(batch, results, strict=True)]
        done: list[_Done] = []
        for snapshot, future in batch:
            try:
                done.append((future, self.store.put(snapshot), None))
            except BaseException as exc:  # handed to the awaiting page, never lost
                done.append((future, None, exc))
        return done

    def close(self) -> None:
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            thread.join()
        self._threads.clear()


def _settle(done: list[_Done]) -> None:
    for future, ref, exc in done:
        if future.done():
            continue
        if exc is not None:
            future.set_exception(exc)
        else:
            assert ref is not None
            future.set_result(ref)
