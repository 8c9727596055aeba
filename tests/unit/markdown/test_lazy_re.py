"""Module-level patterns compile on first use (``_lazy_re``), not at import."""

from __future__ import annotations

import re
import subprocess
import sys

from pressmark.markdown._lazy_re import LazyPattern


def test_a_lazy_pattern_is_the_compiled_pattern_once_used() -> None:
    lazy = LazyPattern(r"\bco(?:lou?r)\b", re.IGNORECASE | re.ASCII)
    compiled = lazy.get()
    assert compiled == re.compile(r"\bco(?:lou?r)\b", re.IGNORECASE | re.ASCII)
    assert compiled.flags == re.compile(r"\bco(?:lou?r)\b", re.I | re.A).flags
    assert lazy.get() is compiled  # compiled once, kept
    assert compiled.search("The COLOR red").group() == "COLOR"


def test_importing_the_converter_compiles_none_of_its_module_patterns() -> None:
    """A ``pressmark md`` start-up pays for no pattern: each is compiled by the first page
    that uses it (a fresh process, as the command is)."""
    code = (
        "import sys, pressmark.markdown\n"
        "from pressmark.markdown._lazy_re import LazyPattern\n"
        "lazy = [(m, k, v) for m, mod in list(sys.modules.items())\n"
        "        if m.startswith('pressmark.markdown.')\n"
        "        for k, v in vars(mod).items() if isinstance(v, LazyPattern)]\n"
        "print(len(lazy), sorted(f'{m}.{k}' for m, k, v in lazy if v._compiled is not None))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    count, compiled = out.stdout.split(" ", 1)
    assert int(count) >= 40
    assert compiled.strip() == "[]"
