"""Root command group with lazily imported sub-commands.

Exit codes are part of the contract and shared by all sub-commands:

====  =====================================================
0     success
1     unexpected internal error (a bug: please report the traceback)
2     invalid configuration or usage
3     denied: egress policy or robots.txt
4     HTTP error, or a reference that does not resolve
5     any other failure (interrupted crawl, damaged store, failed conversion)
====  =====================================================
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

from pressmark._version import __version__
from pressmark.cli._hints import EXIT_CODES_EPILOG

# name -> "module:attribute"; each module owns one sub-command (or group).
_COMMANDS: dict[str, tuple[str, str]] = {
    "chunks": ("pressmark.cli._cite:chunks", "Write a crawl's pages as citable chunks (JSONL)."),
    "cite": ("pressmark.cli._cite:cite", "Check a quote against the snapshot it cites."),
    "crawl": ("pressmark.cli._crawl:crawl", "Crawl a site into snapshots, Markdown, a manifest."),
    "demo": ("pressmark.cli._demo:demo", "Start the bundled demo site on loopback and crawl it."),
    "diff": ("pressmark.cli._diff:diff", "Blocks added, removed, changed between two captures."),
    "egress": ("pressmark.cli._egress:egress", "Check URLs against the egress policy."),
    "fetch": ("pressmark.cli._fetch:fetch", "Fetch one URL through the guarded, polite fetcher."),
    "mcp": ("pressmark.cli._mcp:mcp", "Serve pressmark's tools to AI agents (MCP)."),
    "md": ("pressmark.cli._md:main", "Convert HTML to deterministic Markdown."),
    "replay": ("pressmark.cli._replay:replay", "Write the exact bytes a sourceRef names."),
    "serve": ("pressmark.cli._serve:serve", "Serve the review workbench for a crawl directory."),
    "store": ("pressmark.cli._store:store", "Inspect, verify, prune and export snapshot stores."),
}


class _LazyGroup(click.Group):
    """A click group that imports each sub-command module on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = _COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, _, attr = entry[0].partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            return _unavailable(cmd_name, entry[1])
        command = getattr(module, attr)
        if isinstance(command, click.Command):
            return command
        return _passthrough(cmd_name, entry[1], command)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Short help comes from the table so listing commands imports nothing.
        rows = [(name, help_text) for name, (_, help_text) in sorted(_COMMANDS.items())]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _passthrough(name: str, help_text: str, run: Callable[[Sequence[str], str], int]
                 ) -> click.Command:
    """A sub-command that reads its own arguments (``pressmark md``, see ``cli._md``).

    Everything after the command's name goes to ``run`` untouched, ``--help`` included.
    """
    settings = {"ignore_unknown_options": True, "allow_interspersed_args": False,
                "help_option_names": []}

    @click.command(name, help=help_text, context_settings=settings, add_help_option=False)
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    @click.pass_context
    def command(ctx: click.Context, args: tuple[str, ...]) -> None:
        sys.exit(run(args, ctx.command_path))

    return command


def _unavailable(name: str, help_text: str) -> click.Command:
    def run(**_: Any) -> None:
        raise click.ClickException(f"'pressmark {name}' is not available in this build")

    return click.Command(name, callback=run, help=help_text)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]},
             epilog=EXIT_CODES_EPILOG + "\n\nRun 'pressmark COMMAND --help' for a command's "
                                        "options.")
@click.version_option(__version__, prog_name="pressmark")
def main() -> None:
    """pressmark: crawl URLs you do not trust into citable, replayable Markdown evidence."""
