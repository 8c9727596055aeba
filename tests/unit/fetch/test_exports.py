"""The public names of pressmark.fetch do not drift silently."""

from __future__ import annotations

from pressmark import fetch

EXPECTED = {
    "DEFAULT_USER_AGENT", "FetchError", "FetchFailure", "FetchOptions", "FetchResult", "Pacer",
    "RobotsCache", "ShellVerdict", "SourceConfig", "classify_shell", "fetch_source"
}


def test_exported_names() -> None:
    assert set(fetch.__all__) == EXPECTED
    for name in fetch.__all__:
        assert getattr(fetch, name) is not None


def test_error_kinds_are_the_contract() -> None:
    from pressmark.fetch._config import FETCH_ERROR_KINDS

    assert set(FETCH_ERROR_KINDS) == {
        "invalid-config", "egress-denied", "robots-denied", "http-error", "timeout",
        "dns-failure", "network-error", "response-too-large", "adapter-error"}


def test_fake_renderer_is_a_renderer() -> None:
    from pressmark.render import Renderer
    from pressmark.testing import FakeRenderer

    assert isinstance(FakeRenderer(), Renderer)
