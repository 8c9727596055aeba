"""Open a durable snapshot store in whichever format it is, read-only."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def open_any_store(path: str | os.PathLike[str]) -> Any:
    """The store at ``path`` (or at ``path/store``, a crawl's); raises the store's error.

    WHY a helper: the store layer opens either format by its marker when it can
    (``open_store``); a build without it has the filesystem store only.
    """
    root = Path(path)
    if not (root / "pressmark-store.json").exists() and (root / "store").is_dir():
        root = root / "store"  # a crawl's output directory
    from pressmark import store as stores  # noqa: PLC0415

    opener = getattr(stores, "open_store", None)
    if opener is not None:
        return opener(root)
    return stores.FilesystemSnapshotStore(root, create=False)
