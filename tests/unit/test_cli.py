from __future__ import annotations

from click.testing import CliRunner

from pressmark import __version__
from pressmark.cli import main


def test_version() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


def test_help_lists_every_subcommand() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in ("crawl", "demo", "egress", "fetch", "md", "replay", "serve", "store"):
        assert name in result.output
