"""Names a package exports but loads on first use (PEP 562 module ``__getattr__``).

WHY: ``import pressmark.egress`` must stay cheap for layers that only parse URLs, and
``pressmark md`` must not pay for the snapshot model or the MCP SDK at start-up; yet
each package keeps one public surface (``__all__``) whatever loads when. The
packages list the lazy names beside their eager imports and let this build the hook.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Any


def lazy_exports(package: str, modules: Mapping[str, str],
                 namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: ``modules`` maps a name to the module holding
    it; the first lookup imports that module and keeps the value in ``namespace``."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
