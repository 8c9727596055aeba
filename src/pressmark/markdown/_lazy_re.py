"""Regular expressions compiled on their first use instead of at import.

WHY: compiling a pattern is Python's own work (``re``'s parser and code generator: from
ten microseconds to a millisecond a pattern). The Markdown layer's sixty-odd module-level
patterns, compiled at import, were about a fifth of a ``pressmark md`` start-up (some
55 M of its 315 M instructions), and a batch of ordinary pages uses only half of them
(the copyright line, the pager words, the code-block language, a table cell's markup
are read only on pages that have them). A :class:`LazyPattern` stands where the compiled
pattern stood: the module names the pattern once, as before, and ``.get()`` at the point
of use compiles it the first time (one attribute test after that). A compiled module
calls ``get`` as a native method, so the hot loops pay next to nothing for it.
"""

from __future__ import annotations

import re


class LazyPattern:
    """``re.compile(pattern, flags)``, done on the first :meth:`get` and kept.

    The compiled pattern is the one ``re.compile`` returns at import (the same pattern
    string and flags: equal, ``==``, to it), so every match is the same.
    """

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def get(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if this is its first use)."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self.flags)
        return compiled
