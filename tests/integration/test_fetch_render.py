"""`pressmark fetch --render` with the real PlaywrightRenderer against the demo site."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pressmark.cli import main
from pressmark.demo import DemoSite


@pytest.mark.browser
def test_cli_renders_a_shell_page_on_shell(demo_site: DemoSite, demo_origin: str,
                                           tmp_path: Path) -> None:
    shell = demo_site.paths_of_kind("shell")[0]
    result = CliRunner().invoke(main, [
        "fetch", demo_origin + shell, "--render", "on-shell", "--json", "--timeout-ms", "20000",
        "--allow-loopback", demo_origin, "--store", str(tmp_path / "store")])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    snapshot = doc["snapshot"]
    assert snapshot["rendered"] is True and snapshot["hash_basis"] == "decoded-utf8"
    assert snapshot["redirects"] == [] and snapshot["etag"] is None
    escalation = doc["render_escalation"]
    assert escalation["attempted"] and escalation["render_error"] is None
    assert escalation["reason"].startswith("js-shell-suspected:")
    assert escalation["first_snapshot_ref"] != doc["source_ref"]
    # The rendered DOM carries the article the shell's script builds.
    text = CliRunner().invoke(main, [
        "fetch", demo_origin + shell, "--render", "always", "--timeout-ms", "20000",
        "--allow-loopback", demo_origin, "--store", str(tmp_path / "store")])
    assert text.exit_code == 0, text.output
    assert demo_site.page(shell).title in text.stdout
    assert "render-revalidate-inert" not in text.stderr  # --store alone asks for no revalidation
