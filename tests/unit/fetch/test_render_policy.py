from __future__ import annotations

import pytest

from pressmark.fetch import SourceConfig
from pressmark.fetch._render_policy import (
    inert_render_warnings,
    resolve_render_policy,
    should_escalate,
)

URL = "http://example.test/"


@pytest.mark.parametrize(
    ("policy", "legacy", "expected"),
    [
        (None, None, "never"),
        (None, True, "always"),
        (None, False, "never"),
        ("never", None, "never"),
        ("always", None, "always"),
        ("on-shell", None, "on-shell"),
        ("always", True, "always"),
        ("never", False, "never"),
        ("never", True, None),
        ("on-shell", True, None),
        ("always", False, None),
        ("on-shell", False, None),
    ],
)
def test_policy_and_legacy_key(policy: str | None, legacy: bool | None,
                               expected: str | None) -> None:
    got = resolve_render_policy(SourceConfig(url=URL, render_policy=policy,  # type: ignore[arg-type]
                                             render=legacy))
    if expected is None:
        assert got not in ("never", "always", "on-shell")
        assert "disagrees" in got
    else:
        assert got == expected


def test_unknown_policy_is_a_message() -> None:
    got = resolve_render_policy(SourceConfig(url=URL, render_policy="sometimes"))  # type: ignore[arg-type]
    assert "render_policy must be one of" in got


def test_only_the_exact_prefix_escalates() -> None:
    assert should_escalate(["js-shell-suspected:empty-mount:root"]) == (
        "js-shell-suspected:empty-mount:root")
    assert should_escalate(["js-shell-suspected-embedded-state-available:json-ld"]) is None
    assert should_escalate(["charset-invalid-bytes", "JS-SHELL-SUSPECTED:x"]) is None


def test_inert_warnings_only_for_what_the_caller_set() -> None:
    assert inert_render_warnings(SourceConfig(url=URL), policy="always") == ()
    assert inert_render_warnings(SourceConfig(url=URL, headers={}), policy="always") == ()
    all_set = SourceConfig(url=URL, revalidate=True, headers={"x-a": "1"}, retries=0)
    always = inert_render_warnings(all_set, policy="always")
    assert len(always) == 3
    on_shell = inert_render_warnings(all_set, policy="on-shell")
    assert len(on_shell) == 2  # revalidation was used by the plain attempt
    assert not any("revalidate" in w for w in on_shell)
