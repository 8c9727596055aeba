"""Canonical timestamps: ``YYYY-MM-DDTHH:MM:SS.mmmZ``, always UTC, always milliseconds.

One spelling per instant keeps record filenames sortable by plain string order,
which is what lets the filesystem store find the head without reading history.
"""

from __future__ import annotations

import functools
import re
import time
from datetime import UTC, datetime

# [0-9], not \d: \d also matches other scripts' digits, which int() accepts.
_CANONICAL = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z\Z")


def format_timestamp(moment: datetime) -> str:
    """The canonical spelling of an aware ``datetime`` (naive ones are taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    moment = moment.astimezone(UTC)
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:"
        f"{moment.minute:02d}:{moment.second:02d}.{moment.microsecond // 1000:03d}Z"
    )


def utc_now_iso() -> str:
    """Now, in the canonical spelling (the wall clock ``datetime.now`` reads, truncated to ms)."""
    seconds, nanos = divmod(time.time_ns(), 1_000_000_000)
    return f"{_second_prefix(seconds)}.{nanos // 1_000_000:03d}Z"


@functools.lru_cache(maxsize=4)
def _second_prefix(seconds: int) -> str:
    return format_timestamp(datetime.fromtimestamp(seconds, UTC))[:-5]  # drop ".mmmZ"


def is_canonical_timestamp(value: object) -> bool:
    """True when ``value`` is a real instant spelled exactly as :func:`format_timestamp` would."""
    return isinstance(value, str) and _is_canonical(value)


@functools.lru_cache(maxsize=256)  # a snapshot's stamp is checked several times on its way
def _is_canonical(value: str) -> bool:
    if _CANONICAL.match(value) is None:
        return False
    try:
        datetime(int(value[0:4]), int(value[5:7]), int(value[8:10]),
                 int(value[11:13]), int(value[14:16]), int(value[17:19]))
    except ValueError:
        return False
    return True
