"""Help text a newcomer reads first: exit codes everywhere, every option explained."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from pressmark.cli import main
from pressmark.cli._hints import loopback_hint

COMMANDS = [["crawl"], ["fetch"], ["mcp"], ["md"], ["replay"], ["serve"], ["demo"], ["egress"],
            ["egress", "check"], ["store"], ["store", "ls"], ["store", "verify"],
            ["store", "prune"], ["store", "export-warc"], ["store", "import-warc"]]


def test_root_help_documents_the_exit_codes() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for line in ("0  success", "2  invalid configuration or usage",
                 "3  denied by the egress policy or robots.txt",
                 "4  not reached: HTTP error, DNS failure, network error or timeout",
                 "or a reference that does not resolve", "5  any other failure"):
        assert line in result.output


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_help_documents_the_exit_codes(command: list[str]) -> None:
    result = CliRunner().invoke(main, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Exit codes:" in result.output and "3  denied" in result.output


@pytest.mark.parametrize("name", ["crawl", "mcp"])
def test_every_option_is_explained(name: str) -> None:
    command = main.get_command(click.Context(main), name)
    assert command is not None
    missing = [p.name for p in command.params
               if isinstance(p, click.Option) and not p.hidden and not p.help]
    assert missing == []


def test_allow_loopback_reads_the_same_in_every_command() -> None:
    texts = set()
    for name, sub in (("crawl", None), ("fetch", None), ("mcp", None), ("egress", "check")):
        command = main.get_command(click.Context(main), name)
        assert command is not None
        if sub is not None:
            assert isinstance(command, click.Group)
            command = command.get_command(click.Context(command), sub)
            assert command is not None
        option = next(p for p in command.params if "--allow-loopback" in p.opts)
        assert isinstance(option, click.Option)
        texts.add(option.help)
    assert len(texts) == 1, texts


def test_loopback_hint_names_the_origin_to_allow() -> None:
    assert loopback_hint("http://127.0.0.1:4173/x") == (
        "hint: 127.0.0.1 is a loopback address, refused by default; for a local test server "
        "pass --allow-loopback http://127.0.0.1:4173")
    assert "--allow-loopback http://127.0.0.1:80" in (loopback_hint("http://0x7f.1/") or "")
    assert "--allow-loopback http://[::1]:8080" in (loopback_hint("http://[::1]:8080/") or "")
    assert "--allow-loopback http://localhost:8080" in (
        loopback_hint("http://localhost:8080/") or "")
    assert "use the address (http://127.0.0.1:8080/...)" in (
        loopback_hint("http://app.localhost:8080/") or "")
    assert "plain http" in (loopback_hint("https://127.0.0.1:8443/") or "")
    assert loopback_hint("http://10.0.0.1/") is None
    assert loopback_hint("https://example.com/") is None
    assert loopback_hint("not a url") is None
