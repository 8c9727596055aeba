"""`pressmark fetch`: output and exit codes against the demo site."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from pressmark.cli import main
from pressmark.demo import DemoServer, DemoSite


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["fetch", *args])
    return result.exit_code, result.stdout, result.stderr


def test_prints_the_decoded_body(demo_site: DemoSite, demo_origin: str) -> None:
    code, out, _ = run(demo_origin + "/charset/shift_jis", "--allow-loopback", demo_origin)
    assert code == 0
    assert demo_site.charset_text("/charset/shift_jis") in out


def test_json_and_store_revalidation(demo_origin: str, tmp_path: Path) -> None:
    url = demo_origin + "/cache/both"
    args = (url, "--json", "--allow-loopback", demo_origin, "--store", str(tmp_path / "s"))
    code, out, _ = run(*args)
    first = json.loads(out)
    assert code == 0 and first["ok"] and first["status"] == 200
    assert first["snapshot"]["status"] == 200 and first["not_modified"] is False
    assert first["source_ref"].startswith("pressmark:snapshot:")
    assert first["error"] is None and isinstance(first["warnings"], list)
    code, out, _ = run(*args)
    second = json.loads(out)
    assert code == 0 and second["not_modified"] is True and second["status"] == 304
    assert second["source_ref"] == first["source_ref"]


def test_exit_codes(demo_origin: str, fault_server: DemoServer) -> None:
    allow = ("--allow-loopback", demo_origin)
    assert run(demo_origin + "/no/such/page", *allow)[0] == 4
    assert run(demo_origin + "/private/1", *allow)[0] == 3
    assert run(demo_origin + "/private/1", *allow, "--no-robots")[0] == 0
    assert run("http://10.0.0.1/", *allow)[0] == 3
    assert run(demo_origin + "/", "--allow-loopback", "http://example.com")[0] == 2
    assert run(demo_origin + "/", *allow, "--retries", "99")[0] == 2
    code, out, _ = run(fault_server.url + "/fault/huge?mb=5", "--allow-loopback",
                       fault_server.url, "--max-bytes", "1000", "--json")
    assert code == 5 and json.loads(out)["error"]["kind"] == "response-too-large"
    code, out, _ = run(fault_server.url + "/fault/slow-headers?seconds=2", "--allow-loopback",
                       fault_server.url, "--timeout-ms", "300", "--json")
    assert code == 4 and json.loads(out)["error"]["kind"] == "timeout"  # not reached


def test_user_agent_reaches_the_server(demo_server: DemoServer, demo_origin: str) -> None:
    mark = len(demo_server.requests)
    assert run(demo_origin + "/about", "--allow-loopback", demo_origin,
               "--user-agent", "clitest/1.0")[0] == 0
    agents = {dict(r.headers).get("user-agent") for r in demo_server.requests[mark:]}
    assert agents == {"clitest/1.0"}


NO_BROWSER = {"PRESSMARK_CHROMIUM": "/nonexistent/chromium"}


def run_env(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["fetch", *args], env=env)
    return result.exit_code, result.stdout, result.stderr


def test_json_keys_are_the_same_for_a_config_error(demo_origin: str) -> None:
    code, out, _ = run(demo_origin + "/", "--allow-loopback", "http://example.com", "--json")
    doc = json.loads(out)
    assert code == 2
    assert doc["ok"] is False and doc["snapshot"] is None and doc["warnings"] == []
    assert doc["error"]["kind"] == "invalid-config"
    assert {"status", "not_modified", "source_ref", "render_escalation"} <= doc.keys()


def test_render_always_without_a_browser_is_invalid_config(demo_origin: str) -> None:
    code, out, _ = run_env(NO_BROWSER, demo_origin + "/about", "--allow-loopback", demo_origin,
                           "--render", "always", "--json")
    doc = json.loads(out)
    assert code == 2 and doc["error"]["kind"] == "invalid-config"
    assert "browser" in doc["error"]["message"]


def test_render_on_shell_without_a_browser_keeps_the_plain_page(demo_site: DemoSite,
                                                                 demo_origin: str) -> None:
    shell = demo_site.paths_of_kind("shell")[0]
    allow = ("--allow-loopback", demo_origin, "--render", "on-shell", "--json")
    code, out, _ = run_env(NO_BROWSER, demo_origin + shell, *allow)
    doc = json.loads(out)
    assert code == 0 and doc["snapshot"]["rendered"] is False
    assert any(w.startswith("render-fallback:render-failed:adapter-error")
               for w in doc["warnings"])
    assert doc["render_escalation"]["render_error"]["kind"] == "adapter-error"
    # A page that is no shell never needs the browser, so nothing fails to start.
    code, out, _ = run_env(NO_BROWSER, demo_origin + "/about", *allow)
    doc = json.loads(out)
    assert code == 0 and doc["render_escalation"] is None
    assert not any(w.startswith("render-fallback") for w in doc["warnings"])
