"""`pressmark egress check`: JSON on stdout, exit 0 allowed / 3 denied / 4 no DNS answer /
2 bad options."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pressmark.cli import main


def run(*args: str) -> tuple[int, dict[str, object]]:
    result = CliRunner().invoke(main, ["egress", "check", *args])
    payload = json.loads(result.stdout) if result.exit_code in (0, 3, 4) else {}
    return result.exit_code, payload


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["http://127.0.0.1/"], "DENIED_ADDRESS"),
        (["http://2130706433/"], "DENIED_ADDRESS"),
        (["http://[::ffff:169.254.169.254]/"], "DENIED_ADDRESS"),
        (["http://localhost/"], "DENIED_HOST"),
        (["http://metadata.google.internal/"], "DENIED_HOST"),
        (["gopher://x/"], "INVALID_SCHEME"),
        (["http://u@x.test/"], "USERINFO"),
        (["http://x.test:22/", "--resolve", "x.test=93.184.216.34"], "INVALID_PORT"),
        (["http://r.test/", "--resolve", "r.test=93.184.216.34,10.0.0.1"], "DENIED_ADDRESS"),
        # the decisive reason: loopback, whatever the port (4173 alone is admitted)
        (["http://127.0.0.1:4174/", "--allow-loopback", "http://127.0.0.1:4173"],
         "DENIED_ADDRESS"),
        (["http://10.0.0.1:8080/", "--allow-port", "8080"], "DENIED_ADDRESS"),
        (["http://localhost:4174/", "--allow-loopback", "http://localhost:4173"], "DENIED_HOST"),
        (["http://localhost:4173/", "--allow-loopback", "http://127.0.0.1:4173"], "DENIED_HOST"),
        (["http://x.test:8080/", "--resolve", "x.test=93.184.216.34"], "INVALID_PORT"),
    ],
)
def test_denied(args: list[str], code: str) -> None:
    exit_code, payload = run(*args)
    assert exit_code == 3
    assert payload == {"allowed": False, "code": code, "addresses": []}


def test_a_name_without_an_answer_is_a_network_error_not_a_denial() -> None:
    exit_code, payload = run("http://other.test/", "--resolve", "r.test=93.184.216.34")
    assert exit_code == 4
    assert payload == {"allowed": False, "code": "dns-failure", "addresses": []}


def test_allow_port_admits_a_public_address_on_that_port() -> None:
    exit_code, payload = run("http://x.test:8080/", "--resolve", "x.test=93.184.216.34",
                             "--allow-port", "8080")
    assert (exit_code, payload["addresses"]) == (0, ["93.184.216.34"])


def test_localhost_origin_reaches_loopback_only_without_dns() -> None:
    exit_code, payload = run("http://localhost:4173/a", "--allow-loopback",
                             "http://localhost:4173", "--resolve", "localhost=10.0.0.1")
    assert exit_code == 0
    assert payload["addresses"] == ["127.0.0.1", "::1"]  # never the resolver's 10.0.0.1


def test_allowed_with_resolve() -> None:
    exit_code, payload = run(
        "https://A.test./x", "--resolve", "a.test=93.184.216.34,2606:4700::1111"
    )
    assert exit_code == 0
    assert payload == {
        "allowed": True, "code": None, "addresses": ["93.184.216.34", "2606:4700::1111"]
    }


def test_allowed_ip_literal_and_loopback_origin() -> None:
    assert run("http://8.8.8.8/") == (0, {"allowed": True, "code": None, "addresses": ["8.8.8.8"]})
    exit_code, payload = run("http://127.0.0.1:4173/a", "--allow-loopback", "http://127.0.0.1:4173")
    assert exit_code == 0 and payload["addresses"] == ["127.0.0.1"]


@pytest.mark.parametrize(
    "args",
    [
        ["http://x/", "--allow-loopback", "http://10.0.0.1:80"],
        ["http://x/", "--allow-loopback", "https://127.0.0.1:443"],
        ["http://x/", "--allow-loopback", "http://127.0.0.1"],
        ["http://x/", "--allow-loopback", "https://localhost:4173"],
        ["http://x/", "--allow-loopback", "http://localhost"],
        ["http://x/", "--allow-loopback", "http://foo.localhost:4173"],
        ["http://x/", "--resolve", "nothing"],
    ],
)
def test_bad_options_exit_2(args: list[str]) -> None:
    assert run(*args)[0] == 2
