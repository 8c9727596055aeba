"""The per-request shortcuts of the egress client decide exactly as the plain code did."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.egress import EgressDenied, parse_url
from pressmark.egress._client import _prepare_headers
from pressmark.egress._url import _parse_url


def _plain_value_check(value: str) -> bool:
    """The former per-character rule: no CR, LF or NUL, and Latin-1 encodable."""
    try:
        value.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return not any(c in "\r\n\0" for c in value)


@settings(deadline=None, max_examples=500)
@given(st.text(st.characters(), max_size=30))
def test_header_values_are_judged_as_before(value: str) -> None:
    if _plain_value_check(value):
        assert _prepare_headers([("X-Test", value)], "ua")[0] == ("X-Test", value)
    else:
        with pytest.raises(ValueError, match="Latin-1"):
            _prepare_headers([("X-Test", value)], "ua")


@pytest.mark.parametrize("char", ["\r", "\n", "\0", "\u0100", "\ud800", "\U0001f600"])
def test_each_forbidden_header_character_is_refused(char: str) -> None:
    with pytest.raises(ValueError, match="Latin-1"):
        _prepare_headers({"X-Test": f"a{char}b"}, "ua")


@settings(deadline=None, max_examples=300)
@given(st.one_of(
    st.text(st.characters(), max_size=40),
    st.builds(lambda rest: "http://" + rest, st.text(st.characters(), max_size=40)),
))
def test_the_parse_cache_returns_what_a_fresh_parse_returns(url: str) -> None:
    for _ in range(2):  # the second call may come from the cache
        try:
            expected = _parse_url(url)
        except EgressDenied as exc:
            with pytest.raises(EgressDenied) as info:
                parse_url(url)
            assert (info.value.code, info.value.message) == (exc.code, exc.message)
            continue
        assert parse_url(url) == expected


def test_failures_are_not_shared_between_callers() -> None:
    with pytest.raises(EgressDenied) as first:
        parse_url("ftp://a.test/")
    first.value.url = "annotated by the first caller"
    with pytest.raises(EgressDenied) as second:
        parse_url("ftp://a.test/")
    assert second.value is not first.value
    assert second.value.url != "annotated by the first caller"
