"""Resume state: which URLs were admitted to the frontier, and the crawl they belong to.

The journal ``.state/frontier.jsonl`` gets one line per admitted URL, written
(and flushed) before the page that discovered it is recorded in
``pages.jsonl``. So after a SIGKILL every recorded page's links are in the
journal, and resuming re-queues exactly the admitted URLs that have no record:
the finished crawl has the same page set as an uninterrupted one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pressmark.crawl._frontier import FrontierItem
from pressmark.crawl._output import append_whole, dumps_line, open_append, write_atomic
from pressmark.crawl._policy import CrawlError


def item_line(item: FrontierItem) -> str:
    """One frontier item as a line of the resume journal (read back by ``ResumeJournal.load``)."""
    entry: dict[str, Any] = {"u": item.url, "h": item.host, "d": item.depth}
    if item.score:
        entry["s"] = item.score
    if item.parent_url is not None:
        entry["p"] = item.parent_url
    if item.via != "link":
        entry["v"] = item.via
    if item.seed_index is not None:
        entry["i"] = item.seed_index
    if item.path:
        entry["k"] = list(item.path)
    return dumps_line(entry)


class ResumeJournal:
    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.frontier_path = state_dir / "frontier.jsonl"
        self.crawl_path = state_dir / "crawl.json"
        self._fd: int | None = None
        self._pending: list[str] = []

    def check_or_write_identity(self, identity: dict[str, Any], *, resume: bool) -> None:
        """A resumed crawl must have the same seeds and policy as the one it continues."""
        if resume and self.crawl_path.exists():
            old = json.loads(self.crawl_path.read_text(encoding="utf-8"))
            if old != identity:
                changed = ", ".join(
                    f"{key}: {before!r} -> {after!r}"
                    for key, before, after in _differences(old, identity)[:5])
                raise CrawlError("--resume with different seeds or policy than the original "
                                 f"crawl ({changed}); repeat the original options")
            return
        write_atomic(self.crawl_path, json.dumps(identity, sort_keys=True).encode(), durable=True)

    def load(self) -> list[FrontierItem]:
        if not self.frontier_path.exists():
            return []
        raw = self.frontier_path.read_bytes()
        good_end = raw.rfind(b"\n") + 1
        if good_end != len(raw):
            with self.frontier_path.open("r+b") as fh:
                fh.truncate(good_end)
        return [self.parse_line(line) for line in raw[:good_end].splitlines()]

    @staticmethod
    def parse_line(line: bytes | str) -> FrontierItem:
        """One journal line (``item_line``) back as a frontier item."""
        d = json.loads(line)
        return FrontierItem(url=d["u"], host=d["h"], depth=d["d"], score=d.get("s", 0.0),
                            parent_url=d.get("p"), via=d.get("v", "link"),
                            seed_index=d.get("i"), path=tuple(d.get("k", ())))

    def open(self) -> None:
        self._fd = open_append(self.frontier_path)  # closed in close()

    def record(self, item: FrontierItem) -> None:
        self._pending.append(item_line(item))

    def flush(self) -> None:
        """Append the pending lines whole or not at all; on an error they stay pending."""
        if self._pending and self._fd is not None:
            append_whole(self._fd, "".join(self._pending).encode("utf-8"))
        self._pending.clear()

    def drop(self) -> None:
        """Forget pending lines that cannot be written (their pages are not recorded either)."""
        self._pending.clear()

    def close(self) -> None:
        try:
            self.flush()
        finally:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


def _differences(old: Any, new: Any, prefix: str = "") -> list[tuple[str, Any, Any]]:
    """Dotted keys whose values differ between two identity documents (for the message)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[tuple[str, Any, Any]] = []
        for key in sorted(set(old) | set(new)):
            out += _differences(old.get(key), new.get(key), f"{prefix}{key}.")
        return out
    return [] if old == new else [(prefix.rstrip("."), old, new)]
