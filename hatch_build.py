"""Build hook: compiles the parse screen's C tokenizer pass (``_native_screen.c``).

WHY a hook of our own beside hatch-mypyc: mypyc compiles typed Python, and the screen's
hot loop is a tokenizer over a page's characters, which is C's work (about a tenth of
the regular-expression pass's CPU). The module is optional at run time: without it
(``HATCH_BUILD_NO_HOOKS=true``, no compiler) ``pressmark.markdown._screen`` uses its
regular expressions, with the same decisions.

Like hatch-mypyc, it builds in place next to the source, so an editable install
imports the compiled module from ``src/`` and a wheel ships it as an artifact.
"""

from __future__ import annotations

import shlex
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCE = Path("src/pressmark/markdown/_native_screen.c")


class NativeScreenBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
        target = SOURCE.with_name("_native_screen" + suffix)
        compiler = shlex.split(sysconfig.get_config_var("CC") or "cc")
        command = [
            *compiler, "-O2", "-fPIC", "-shared", "-Wall",
            "-I", sysconfig.get_paths()["include"],
            str(root / SOURCE), "-o", str(root / target),
        ]
        subprocess.run(command, check=True)
        build_data["artifacts"].append(target.as_posix())
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
