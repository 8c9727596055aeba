"""The links each snapshot yielded, kept in the crawl directory for recrawls.

WHY: a 304 keeps the earlier snapshot, and the links of a snapshot depend only on its
bytes, its URL and the link options; so the links the earlier crawl found in it are the
ones a parse would find again. A recrawl admits them in the same order without decoding,
screening and parsing the page (most of an unchanged recrawl's CPU otherwise).

``DIR/.cache/links.jsonl`` holds one line per (snapshot, link options, pressmark version):
``<key>\\t<json>\\n``, appended in batches beside the page records. It is derived data,
not part of the public format: a missing file, a torn or foreign line, or a key from
another version only means the page is parsed again. Lines are only ever appended; a
key already in the file is not written twice.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from hashlib import blake2b
from pathlib import Path

from pressmark._version import __version__
from pressmark.crawl._frontier import KeySet
from pressmark.crawl._output import append_whole, open_append

Link = tuple[str, str]


def memo_key(snapshot_sha256: str, *, respect_nofollow: bool, strip_tracking: bool) -> str:
    """What the links of a snapshot depend on besides its bytes and URL (both in the
    snapshot's digest): the link options, and the extractor's version."""
    return f"{snapshot_sha256}:{int(respect_nofollow)}{int(strip_tracking)}:{__version__}"


@dataclass(frozen=True, slots=True, kw_only=True)
class KnownLinks:
    """What a parse of the snapshot returned: its ``<title>``, links in page order,
    refusals, parse caps."""

    title: str | None
    links: tuple[Link, ...]
    refused: tuple[tuple[str, int], ...]
    warnings: tuple[str, ...]


def _digest(key: str) -> int:
    """A memo key's 64-bit BLAKE2b digest: what the memo remembers of a key it holds (a
    crawl of a million pages keeps 8 bytes of digest a page, not a 90-character key).
    Two keys sharing one would only leave a line unwritten (that page is parsed again by a
    later recrawl), the same on every run."""
    return int.from_bytes(blake2b(key.encode(), digest_size=8).digest())


class LinkMemo:
    """Reads the earlier crawls' lines once (kept as text until asked for), appends new ones."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lines: dict[str, str] = {}
        self._known = KeySet()
        """The digests of the keys the file holds or will hold (``_digest``)."""
        self._buffer: list[str] = []
        self._fd: int | None = None
        self._torn = False

    def load(self) -> None:
        """Index the file's complete lines by key (a torn last line is ignored)."""
        try:
            raw = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return
        lines = raw.split("\n")
        self._torn = lines.pop() != ""  # the text after the last newline: a torn line
        for line in lines:
            key, tab, rest = line.partition("\t")
            if tab:
                self._lines[key] = rest
        for key in self._lines:
            self._known.add(_digest(key))

    def get(self, key: str) -> KnownLinks | None:
        """The links recorded for ``key`` (each is handed out once), or ``None``."""
        text = self._lines.pop(key, None)
        if text is None:
            return None
        try:
            data = json.loads(text)
            title = data["title"]
            return KnownLinks(
                title=None if title is None else str(title),
                links=tuple((str(u), str(h)) for u, h in data["links"]),
                refused=tuple((str(c), int(n)) for c, n in data["refused"]),
                warnings=tuple(str(w) for w in data["warnings"]))
        except (ValueError, KeyError, TypeError):
            return None  # a damaged line: the page is parsed again

    def add(self, key: str, found: KnownLinks) -> None:
        if not self._known.add(_digest(key)):
            return
        body = json.dumps({"title": found.title, "links": found.links, "refused": found.refused,
                           "warnings": found.warnings},
                          ensure_ascii=False, separators=(",", ":"))
        self._buffer.append(f"{key}\t{body}\n")

    def flush(self) -> None:
        """Append the buffered lines whole or not at all. Derived data: lines that cannot
        be written (a full disk) are dropped, and the error is raised for the crawl."""
        if not self._buffer:
            return
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = open_append(self.path)  # closed in close()
            if self._torn:  # end the torn line, so the new lines stay whole
                self._buffer.insert(0, "\n")
                self._torn = False
        data = "".join(self._buffer).encode("utf-8")
        self._buffer.clear()
        append_whole(self._fd, data)

    def close(self) -> None:
        try:
            self.flush()
        finally:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
