"""``damage_every_record``: bit rot on demand, in either durable store format, for tests."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def damage_every_record(root: str | Path) -> int:
    """Flip one byte of every stored snapshot record under ``root``; returns how many.

    A filesystem store's ``*.rec`` files get their last byte replaced; a segment store's
    records (each a gzip member its index locates) get a byte in their middle inverted,
    so every read of them must fail closed.
    """
    root = Path(root)
    damaged = 0
    for record in root.rglob("*.rec"):
        record.write_bytes(record.read_bytes()[:-1] + b"!")
        damaged += 1
    index = root / "index.sqlite3"
    if index.exists():
        with sqlite3.connect(index) as db:
            places = list(db.execute(
                "SELECT s.path, n.offset + n.length / 2 FROM snapshots n "
                "JOIN segments s ON s.id = n.segment"))
        for path, middle in places:
            target = root / path
            target.chmod(0o644)  # a sealed segment is read-only
            with target.open("r+b") as fh:
                fh.seek(middle)
                byte = fh.read(1)[0]
                fh.seek(middle)
                fh.write(bytes([byte ^ 0xFF]))
            damaged += 1
    return damaged
