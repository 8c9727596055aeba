"""Where the dev corpus lives and what each page is: one place for the bench and the tests.

The corpus is made of *splits* in the layout the shared scorer reads
(``ground-truth.json`` = ``{id: {"articleBody", "url"}}`` beside ``html/<id>.html.gz``):

- the three shared dev sets, found beside the checkout (``../shared/bench``), never copied
  into the repository (their READMEs forbid it);
- the families gathered from installable packages, kept here under ``data/<family>/``
  (rebuilt by ``build.py``).

Every split has a label file ``labels/<split>.json`` = ``{id: {"kind", "lang"}}``: the page
kinds of ``KINDS.md`` and the language of the main content, our own annotation.

Imported by path (``bench/`` is no package): ``bench/extraction_vs_peers.py`` and
``tests/unit/markdown/test_quality_gate.py`` both load it with importlib.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DATA = HERE / "data"
LABELS = HERE / "labels"
SHARED_SETS = ("extraction-dev", "extraction-dev-readability", "extraction-dev-cleaneval")
KINDS = ("article", "documentation", "listing", "forum", "product", "application", "other")


@dataclass(frozen=True, slots=True, kw_only=True)
class Split:
    """One scored set of pages: its name, its directory and each page's label."""

    name: str
    path: Path
    shared: bool  # one of the shared dev sets (outside the repository)
    labels: dict[str, dict[str, str]]

    def kind(self, page: str) -> str:
        return self.labels.get(page, {}).get("kind", "unlabelled")

    def lang(self, page: str) -> str:
        return self.labels.get(page, {}).get("lang", "und")


def shared_bench_dir() -> Path | None:
    """The shared benchmark folder beside the checkout, else None.

    ``../shared/bench`` beside a clone (CI's layout), or one level up for a worktree kept
    in a folder beside it (``../../shared/bench``); ``PRESSMARK_SHARED_BENCH`` overrides both.
    """
    override = os.environ.get("PRESSMARK_SHARED_BENCH")
    candidates = [Path(override)] if override else [
        REPO.parent / "shared" / "bench", REPO.parents[1] / "shared" / "bench"]
    for candidate in candidates:
        if (candidate / "extraction_eval.py").is_file():
            return candidate
    return None


def load_labels(name: str) -> dict[str, dict[str, str]]:
    path = LABELS / f"{name}.json"
    if not path.is_file():
        return {}
    labels: dict[str, dict[str, str]] = json.loads(path.read_text(encoding="utf-8"))
    return labels


def families() -> list[str]:
    """The gathered families kept in the repository, sorted by name."""
    if not DATA.is_dir():
        return []
    return sorted(p.name for p in DATA.iterdir() if (p / "ground-truth.json").is_file())


def splits(names: list[str] | None = None) -> list[Split]:
    """The splits found on this machine (shared sets first, then families), or those named.

    A named split that cannot be found raises ``FileNotFoundError``: asking for a set and
    silently scoring fewer pages is how a figure drifts.
    """
    bench = shared_bench_dir()
    found: dict[str, Split] = {}
    for name in SHARED_SETS:
        if bench is not None and (bench / name / "ground-truth.json").is_file():
            found[name] = Split(name=name, path=bench / name, shared=True,
                                labels=load_labels(name))
    for name in families():
        found[name] = Split(name=name, path=DATA / name, shared=False, labels=load_labels(name))
    if names is None:
        return list(found.values())
    missing = [n for n in names if n not in found]
    if missing:
        raise FileNotFoundError(f"split(s) not found: {', '.join(missing)} "
                                f"(known here: {', '.join(found) or 'none'})")
    return [found[n] for n in names]
