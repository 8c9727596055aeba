"""The ``pressmark`` command line.

Sub-commands live in their own modules and are imported only when invoked, so
``pressmark --help`` stays fast and does not import the browser driver.

``run`` is the console script (and ``python -m pressmark``): ``main``, imported with the
garbage collector off. Importing click (with ``typing`` and ``inspect``) creates some
14,000 objects the collector tracks, all alive until the process exits: the collections
their allocation sets off walk them again and again and free nothing (about 2 % of a
``pressmark md`` start-up). This package imports neither click nor ``typing`` itself,
so that all of it loads inside ``run``.
"""

from __future__ import annotations

import gc
import sys

TYPE_CHECKING = False  # mypy reads the name; ``typing`` is left to load inside ``run``
if TYPE_CHECKING:
    from pressmark.cli._main import main

__all__ = ["main", "run"]


def run() -> None:
    """The console script: ``main()`` with the command line's imports kept from the collector.

    Once loaded they are frozen (``gc.freeze``): later collections, and a forked
    worker's, never walk them again. ``pressmark md`` reads its own arguments and runs
    without click at all (see ``cli._md``): its start-up is most of what it costs.
    """
    if sys.argv[1:2] == ["md"]:
        from pressmark.cli._md import main as md  # noqa: PLC0415 - click stays unloaded

        sys.exit(md(sys.argv[2:]))
    collecting = gc.isenabled()
    gc.disable()
    try:
        from pressmark.cli._main import main  # noqa: PLC0415 - loads with collection off
    finally:
        gc.freeze()
        if collecting:
            gc.enable()
    main()


def __getattr__(name: str) -> object:
    """``main`` (the click group) loads on first use; ``run`` imports it itself."""
    if name != "main":
        raise AttributeError(f"module 'pressmark.cli' has no attribute {name!r}")
    from pressmark.cli._main import main  # noqa: PLC0415 - see the module docstring

    globals()["main"] = main
    return main
