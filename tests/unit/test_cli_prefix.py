"""Commands printed for the user work when copied: ``pressmark`` is spelled as it was run."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pressmark.cli._hints import activate_hint, command_prefix


def _script(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_venv_script_not_on_path_is_spelled_with_its_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = _script(tmp_path / ".venv" / "bin" / "pressmark")
    (tmp_path / ".venv" / "bin" / "activate").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "elsewhere"))
    prefix = command_prefix(".venv/bin/pressmark", "/usr/bin/python3")
    assert prefix == os.path.join(".venv", "bin", "pressmark")
    assert Path(prefix).resolve() == script.resolve()
    hint = activate_hint(prefix)
    assert hint is not None and "source .venv/bin/activate" in hint


def test_the_script_on_path_is_just_pressmark(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = _script(tmp_path / "bin" / "pressmark")
    monkeypatch.setenv("PATH", str(script.parent))
    assert command_prefix(str(script), "/usr/bin/python3") == "pressmark"
    assert activate_hint("pressmark") is None


def test_python_dash_m_is_spelled_with_the_interpreter(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    python = tmp_path / "venv" / "bin" / "python"
    prefix = command_prefix("/somewhere/pressmark/__main__.py", str(python))
    assert prefix == os.path.join("venv", "bin", "python") + " -m pressmark"


def test_a_path_outside_the_working_directory_is_absolute(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = _script(tmp_path / "tools" / "pressmark")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("PATH", str(work))
    assert command_prefix(str(script), "/usr/bin/python3") == str(script)
