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
    assert code == 5 and json.loads(out)["error"]["kind"] == "timeout"


def test_user_agent_reaches_the_server(demo_server: DemoServer, demo_origin: str) -> None:
    mark = len(demo_server.requests)
    assert run(demo_origin + "/about", "--allow-loopback", demo_origin,
               "--user-agent", "clitest/1.0")[0] == 0
    agents = {dict(r.headers).get("user-agent") for r in demo_server.requests[mark:]}
    assert agents == {"clitest/1.0"}
