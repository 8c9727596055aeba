"""Every command, on every kind of failure, exits as the one table says.

The table is ``pressmark.cli._hints`` (and the guide's errors page, which a test holds to
it): 0 success, 2 usage, 3 denied, 4 not reached, 5 any other failure. A 404 seed exits
the same in ``crawl`` as in ``fetch``; a missing store the same in ``replay`` as in
``store verify``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from pressmark.cli import main
from pressmark.cli._hints import EXIT_BY_KIND, exit_code_for
from pressmark.testing import damage_every_record

if TYPE_CHECKING:
    from pressmark.demo import DemoServer, DemoSite


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stderr


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory, demo_origin: str) -> Path:
    out = tmp_path_factory.mktemp("exit") / "out"
    code, err = _run("crawl", demo_origin + "/", "--out", str(out), "--allow-loopback",
                     demo_origin, "--max-pages", "3", "--render", "never", "--workers", "0",
                     "-q")
    assert code == 0, err
    return out


def _ref(out: Path) -> str:
    for line in (out / "pages.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["outcome"] == "ok":
            return str(row["source_ref"])
    raise AssertionError("no page fetched")


# (id, expected exit, arguments built from the demo origin, the crawl dir and tmp_path)
Case = tuple[str, int, Callable[[str, Path, Path], list[str]]]

CASES: list[Case] = [
    # crawl and fetch fail alike on the same seed
    ("crawl ok", 0, lambda o, c, t: ["crawl", o + "/about", "--allow-loopback", o, "--out",
                                     str(t / "a"), "--max-pages", "1", "--render", "never",
                                     "--workers", "0", "-q"]),
    ("crawl usage", 2, lambda o, c, t: ["crawl", "not a url", "--out", str(t / "b"), "-q"]),
    ("crawl bad option", 2, lambda o, c, t: ["crawl", o + "/", "--out", str(t / "b"),
                                             "--allow-loopback", "http://10.0.0.1:80"]),
    ("crawl egress-denied", 3, lambda o, c, t: ["crawl", o + "/", "--out", str(t / "c"), "-q"]),
    ("crawl robots-denied", 3, lambda o, c, t: ["crawl", o + "/private/1", "--allow-loopback", o,
                                                "--out", str(t / "d"), "--max-depth", "0",
                                                "-q", "--render", "never"]),
    ("crawl 404 seed", 4, lambda o, c, t: ["crawl", o + "/no/such/page", "--allow-loopback", o,
                                           "--out", str(t / "e"), "-q", "--render", "never"]),
    ("crawl network-error", 4, lambda o, c, t: ["crawl", "http://127.0.0.1:1/",
                                                "--allow-loopback", "http://127.0.0.1:1",
                                                "--out", str(t / "f"), "-q"]),
    ("fetch ok", 0, lambda o, c, t: ["fetch", o + "/about", "--allow-loopback", o]),
    ("fetch usage", 2, lambda o, c, t: ["fetch", "not a url"]),
    ("fetch egress-denied", 3, lambda o, c, t: ["fetch", o + "/"]),
    ("fetch robots-denied", 3, lambda o, c, t: ["fetch", o + "/private/1", "--allow-loopback",
                                                o]),
    ("fetch 404", 4, lambda o, c, t: ["fetch", o + "/no/such/page", "--allow-loopback", o]),
    ("fetch network-error", 4, lambda o, c, t: ["fetch", "http://127.0.0.1:1/",
                                                "--allow-loopback", "http://127.0.0.1:1"]),
    ("fetch markdown of text", 5, lambda o, c, t: ["fetch", o + "/robots.txt", "--markdown",
                                                   "--allow-loopback", o]),
    # a missing store is the same slip for replay and for store verify
    ("replay ok", 0, lambda o, c, t: ["replay", _ref(c), "--store", str(c / "store"), "--out",
                                      str(t / "page.html")]),
    ("replay missing store", 2, lambda o, c, t: ["replay", _ref(c), "--store",
                                                 str(t / "nowhere")]),
    ("replay crawl dir", 2, lambda o, c, t: ["replay", _ref(c), "--store", str(c)]),
    ("replay unknown ref", 4, lambda o, c, t: ["replay", _ref(c).replace("snapshot_sha256=",
                                                                        "snapshot_sha256=0"),
                                               "--store", str(c / "store")]),
    ("replay invalid ref", 4, lambda o, c, t: ["replay", "pressmark:nothing", "--store",
                                               str(c / "store")]),
    ("store verify ok", 0, lambda o, c, t: ["store", "verify", str(c / "store")]),
    ("store verify missing", 2, lambda o, c, t: ["store", "verify", str(t / "nowhere")]),
    ("store verify crawl dir", 2, lambda o, c, t: ["store", "verify", str(c)]),
    ("store ls unknown source", 4, lambda o, c, t: ["store", "ls", str(c / "store"), "url-x"]),
    ("egress check denied", 3, lambda o, c, t: ["egress", "check", "http://10.0.0.1/"]),
    ("egress check no address", 4, lambda o, c, t: ["egress", "check", "http://x.test/",
                                                    "--resolve", "y.test=93.184.216.34"]),
    ("egress check usage", 2, lambda o, c, t: ["egress", "check", "http://x.test/",
                                               "--allow-loopback", "http://10.0.0.1:80"]),
    ("serve not a crawl", 2, lambda o, c, t: ["serve", str(t)]),
    ("serve missing", 2, lambda o, c, t: ["serve", str(t / "nowhere")]),
    ("mcp usage", 2, lambda o, c, t: ["mcp", "--token-file", str(c / "manifest.json")]),
]


@pytest.mark.parametrize(("name", "expected", "args"), CASES, ids=[c[0] for c in CASES])
def test_each_command_on_each_failure(  # noqa: PLR0917  # parameters and fixtures
        name: str, expected: int,
                                      args: Callable[[str, Path, Path], list[str]],
                                      demo_origin: str, crawled: Path, tmp_path: Path) -> None:
    code, err = _run(*args(demo_origin, crawled, tmp_path))
    assert code == expected, f"{name}: {err}"
    if expected:
        assert err.strip(), f"{name}: a failure says why on stderr"


def test_store_verify_of_a_crawl_dir_says_did_you_mean(crawled: Path) -> None:
    code, err = _run("store", "verify", str(crawled))
    assert code == 2
    assert f"did you mean {crawled / 'store'}?" in err


def test_a_damaged_store_is_5(crawled: Path, tmp_path: Path) -> None:
    copy = tmp_path / "store"
    shutil.copytree(crawled / "store", copy, symlinks=True)
    assert damage_every_record(copy)  # either store format
    assert _run("store", "verify", str(copy))[0] == 5
    assert _run("replay", _ref(crawled), "--store", str(copy))[0] == 5


@pytest.mark.parametrize("command", ["fetch", "crawl"])
def test_a_name_that_does_not_resolve_is_4_in_both(command: str, tmp_path: Path) -> None:
    """In a network namespace of its own (``unshare -n``) no name resolves and no packet
    leaves the machine."""
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-n", "true"], check=False).returncode:
        pytest.skip("unshare -n is not available here")
    args = [unshare, "-n", sys.executable, "-m", "pressmark", command, "http://nowhere.test/"]
    if command == "crawl":
        args += ["--out", str(tmp_path / "out"), "-q"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 4, done.stderr
    assert "dns-failure" in done.stderr


def test_md_exit_codes(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["md"], input=b"<h1>Hi</h1>").exit_code == 0
    assert runner.invoke(main, ["md"], input=b"").exit_code == 2
    assert runner.invoke(main, ["md"], input=b"\x00\x01\x02binary").exit_code == 2
    assert runner.invoke(main, ["md", str(tmp_path)]).exit_code == 2
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "x.html").write_bytes(b"\x00\x01binary")
    batch = runner.invoke(main, ["md", "--batch", str(tmp_path / "in"), str(tmp_path / "o")])
    assert batch.exit_code == 5


def test_every_fetch_error_kind_has_its_exit_code() -> None:
    from pressmark.fetch._config import FETCH_ERROR_KINDS

    assert set(EXIT_BY_KIND) <= set(FETCH_ERROR_KINDS)
    assert {kind: exit_code_for(kind) for kind in FETCH_ERROR_KINDS} == {
        "invalid-config": 2, "egress-denied": 3, "robots-denied": 3, "http-error": 4,
        "timeout": 4, "dns-failure": 4, "network-error": 4, "response-too-large": 5,
        "adapter-error": 5}


def test_the_demo_exits_0(demo_site: DemoSite, demo_server: DemoServer, tmp_path: Path) -> None:
    code, err = _run("demo", "--pages", "5", "--render", "never", "--out", str(tmp_path / "d"),
                     "-q")
    assert code == 0, err
