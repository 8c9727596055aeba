from __future__ import annotations

import hashlib
from pathlib import Path

from pressmark.snapshot import Snapshot
from pressmark.testing import make_snapshot


def snap(n: int, source: str = "src", body: bytes | None = None) -> Snapshot:
    return make_snapshot(source, f"http://a.test/{source}", body or f"<p>{n}</p>".encode(),
                         fetched_at=f"2026-11-30T12:00:{n // 1000:02d}.{n % 1000:03d}Z")


def source_dir(root: Path, source_id: str) -> Path:
    return root / "sources" / hashlib.sha256(source_id.encode()).hexdigest()


def record_path(root: Path, s: Snapshot) -> Path:
    return source_dir(root, s.source_id) / f"{s.fetched_at}_{s.snapshot_sha256}.rec"
