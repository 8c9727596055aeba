"""The operator's bounds: a call may ask for less, never for more."""

from __future__ import annotations

from pathlib import Path

import pytest

from pressmark.mcp import McpOptions
from pressmark.mcp._http import BearerGate, parse_listen, read_token
from pressmark.mcp._options import clamp_render, default_store_dir


@pytest.mark.parametrize(("asked", "allowed", "got", "warned"), [
    ("never", "on-shell", "never", False),
    ("on-shell", "on-shell", "on-shell", False),
    ("always", "on-shell", "on-shell", True),
    ("on-shell", "never", "never", True),
    ("always", "always", "always", False),
])
def test_render_is_clamped_to_the_servers_bound(asked: str, allowed: str, got: str,
                                                warned: bool) -> None:
    mode, warning = clamp_render(asked, allowed)  # type: ignore[arg-type]
    assert mode == got and (warning is not None) == warned


def test_an_unknown_render_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="never, on-shell, always"):
        clamp_render("sometimes", "always")


@pytest.mark.parametrize("bad", [{"max_pages": 0}, {"max_bytes": 0}, {"max_depth": -1},
                                 {"call_timeout_s": 0.0}, {"render": "maybe"}])
def test_options_refuse_nonsense(bad: dict[str, object], tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        McpOptions(store_dir=tmp_path, **bad)  # type: ignore[arg-type]


def test_default_store_is_per_user(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_store_dir() == tmp_path / "pressmark" / "store"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_store_dir() == Path.home() / ".local" / "share" / "pressmark" / "store"


@pytest.mark.parametrize(("listen", "expected"), [
    ("127.0.0.1:0", ("127.0.0.1", 0)), ("127.0.0.2:8000", ("127.0.0.2", 8000)),
    ("[::1]:9000", ("::1", 9000)),
])
def test_loopback_listen_addresses(listen: str, expected: tuple[str, int]) -> None:
    assert parse_listen(listen) == expected


@pytest.mark.parametrize("listen", ["0.0.0.0:80", "10.0.0.1:80", "localhost:80", "[::]:80",
                                    "127.0.0.1", "127.0.0.1:http", "127.0.0.1:70000"])
def test_other_listen_addresses_are_refused(listen: str) -> None:
    with pytest.raises(ValueError, match=r"127\.0\.0\.1:PORT"):
        parse_listen(listen)


def test_a_short_token_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("short\n", encoding="utf-8")
    with pytest.raises(ValueError, match="at least 16"):
        read_token(path)
    path.write_text("  long-enough-token-value  \n", encoding="utf-8")
    assert read_token(path) == "long-enough-token-value"


async def test_the_gate_passes_only_the_exact_bearer_token() -> None:
    reached: list[str] = []

    async def app(scope: dict[str, object], receive: object, send: object) -> None:
        reached.append(str(scope["type"]))

    gate = BearerGate(app, "t" * 20)
    sent: list[dict[str, object]] = []

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    for value in (None, b"Bearer " + b"t" * 19, b"Bearer " + b"t" * 21, b"Basic " + b"t" * 20):
        headers = [] if value is None else [(b"authorization", value)]
        await gate({"type": "http", "headers": headers}, None, send)
    assert reached == [] and [m["status"] for m in sent if "status" in m] == [401] * 4
    await gate({"type": "http", "headers": [(b"authorization", b"Bearer " + b"t" * 20)]},
               None, send)
    await gate({"type": "lifespan"}, None, send)
    assert reached == ["http", "lifespan"]


def test_without_the_sdk_the_command_says_what_to_install(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = ("import sys; sys.modules['mcp'] = None; from pressmark.cli import main; "
            f"main(['mcp', '--store', {str(tmp_path)!r}])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2
    assert "pip install 'pressmark[mcp]'" in done.stderr
