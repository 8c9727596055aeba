"""The SSRF corpus through evaluate_url (and the pure address table)."""

from __future__ import annotations

import pytest

from pressmark.egress import DnsFailure, EgressDenied, StaticResolver, evaluate_url

from .ssrf_corpus import CASES, RESOLVER, Case


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 100
    assert len({c.url for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[f"{i:03d}" for i in range(len(CASES))])
async def test_case(case: Case) -> None:
    resolver = StaticResolver(RESOLVER)
    if case.rebind:
        first = await evaluate_url(case.url, resolver=resolver)
        assert first.addresses
    if case.expect == "allow":
        target = await evaluate_url(case.url, resolver=resolver)
        assert target.addresses
        return
    with pytest.raises((EgressDenied, DnsFailure)) as info:  # refused, or no address at all
        await evaluate_url(case.url, resolver=resolver)
    assert info.value.code == case.expect, str(info.value)
    message = str(info.value)
    assert "/path" not in message and "?" not in message
