"""Errors of the snapshot layer.

::

    PressmarkError
    └── SnapshotError            code "snapshot-error"
        ├── InvalidSnapshot      code "invalid-snapshot"  (also a ValueError)
        └── InvalidSourceRef     code "invalid-ref"       (also a ValueError)

Store failures (``not-found``, ``snapshot-corrupt``, ...) live in
:mod:`pressmark.store`. Messages never quote record contents or file paths.
"""

from __future__ import annotations

from pressmark._errors import PressmarkError


class SnapshotError(PressmarkError):
    """Base of the snapshot subtree."""

    code = "snapshot-error"


class InvalidSnapshot(SnapshotError, ValueError):
    """A snapshot field breaks an invariant (timestamp form, hash, size)."""

    code = "invalid-snapshot"


class InvalidSourceRef(SnapshotError, ValueError):
    """A sourceRef string is not in the current grammar, or cannot be built."""

    code = "invalid-ref"
