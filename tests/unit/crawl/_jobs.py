"""Jobs for the parser-process tests: importable by module path, as a worker needs."""

from __future__ import annotations

import os
import signal
import sys
import time


def main_module_file(_: object) -> str | None:
    """What ``__main__`` is in the worker: a file would mean the caller's script ran."""
    return getattr(sys.modules["__main__"], "__file__", None)


def allocate(size: int) -> int:
    return len(bytearray(size))


def die(_: object) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def fail(message: str) -> None:
    raise ValueError(message)
