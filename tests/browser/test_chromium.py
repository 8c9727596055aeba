"""Finding the system Chromium (no browser started here)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pressmark.render import RenderError, find_chromium


def _exe(path: Path, text: str = "#!/bin/sh\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_env_variable_wins(tmp_path: Path) -> None:
    exe = _exe(tmp_path / "mychrome", "\x7fELF")
    assert find_chromium({"PRESSMARK_CHROMIUM": str(exe), "PATH": ""}) == str(exe)


def test_env_variable_must_be_executable(tmp_path: Path) -> None:
    with pytest.raises(RenderError) as info:
        find_chromium({"PRESSMARK_CHROMIUM": str(tmp_path / "missing"), "PATH": ""})
    assert info.value.code == "browser-not-found"


def test_path_search(tmp_path: Path) -> None:
    exe = _exe(tmp_path / "bin" / "google-chrome", "\x7fELF")
    assert find_chromium({"PATH": str(tmp_path / "bin")}) == str(exe)


def test_playwright_managed_build(tmp_path: Path) -> None:
    exe = _exe(tmp_path / "pw" / "chromium-1200" / "chrome-linux" / "chrome", "\x7fELF")
    found = find_chromium({"PATH": "", "PLAYWRIGHT_BROWSERS_PATH": str(tmp_path / "pw")})
    assert found == str(exe)


def test_nothing_found_names_what_to_install(tmp_path: Path) -> None:
    with pytest.raises(RenderError) as info:
        find_chromium({"PATH": str(tmp_path), "HOME": str(tmp_path)})
    assert info.value.code == "browser-not-found"
    assert "apt-get install chromium" in info.value.message
    assert "PRESSMARK_CHROMIUM" in info.value.message


@pytest.mark.skipif(not Path("/usr/lib/chromium/chromium").exists(), reason="Debian layout only")
def test_debian_wrapper_is_unwrapped() -> None:
    found = find_chromium({"PATH": "/usr/bin", "HOME": os.environ.get("HOME", "/")})
    assert found == "/usr/lib/chromium/chromium"


def test_renderer_class_loads_lazily() -> None:
    from pressmark import render

    cls = render.PlaywrightRenderer
    assert isinstance(cls, type)
    assert "PlaywrightRenderer" in render.__all__
