"""Build hook: compiles the five C modules (four of the Markdown layer, one of cite).

- ``_native_screen.c``, the parse screen's tokenizer pass;
- ``_native_sheet.c``, the stylesheet scan of the hidden-element check;
- ``_native_dom.c``, the reader of Lexbor's tree (through the functions selectolax's
  extension exports);
- ``_native_words.c``, the boilerplate rules' reading of class and id values;
- ``pressmark/cite/_native_json.c``, the JSON strings of ``md --batch --chunks``' lines.

WHY a hook of our own beside hatch-mypyc: mypyc compiles typed Python, and these loops
are C's work: a tokenizer over a page's characters (about a tenth of the regular-
expression pass's CPU), and walks of a C library's tree that selectolax would otherwise
wrap node by node in Python objects, and a split of class names into words that
Python does with regular expressions and a list per name, a scan of MB-size style
sheets for the few rules that may hide, and JSON strings written straight from the
Markdown as UTF-8 (json.encoder makes str, then the lines are copied and encoded). All
are optional at run time: without them (``HATCH_BUILD_NO_HOOKS=true``, no compiler)
``pressmark.markdown._screen`` uses its regular expressions, ``pressmark.markdown._dom``
selectolax's API, ``pressmark.markdown._boilerplate`` its Python reading,
``pressmark.markdown._sheet`` its ``candidates_in_python`` and
``pressmark.cite._jsonbytes`` ``json.encoder``'s, with the same results.

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

SOURCES = (Path("src/pressmark/markdown/_native_screen.c"),
           Path("src/pressmark/markdown/_native_dom.c"),
           Path("src/pressmark/markdown/_native_words.c"),
           Path("src/pressmark/markdown/_native_sheet.c"),
           Path("src/pressmark/cite/_native_json.c"))


class NativeScreenBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
        compiler = shlex.split(sysconfig.get_config_var("CC") or "cc")
        for source in SOURCES:
            target = source.with_name(source.stem + suffix)
            command = [
                *compiler, "-O2", "-fPIC", "-shared", "-Wall",
                "-I", sysconfig.get_paths()["include"],
                str(root / source), "-o", str(root / target), "-ldl",
            ]
            subprocess.run(command, check=True)
            build_data["artifacts"].append(target.as_posix())
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
