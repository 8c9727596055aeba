"""same-site by the Public Suffix List (bundled snapshot, private suffixes included)."""

from __future__ import annotations

import pytest

from pressmark.crawl import CrawlPolicy
from pressmark.crawl._policy import Scope
from pressmark.crawl._site import registrable_domain, site_of, split_host_key


@pytest.mark.parametrize(
    ("host", "site"),
    [
        ("www.example.com", "example.com"),
        ("a.b.example.co.uk", "example.co.uk"),
        ("alice.github.io", "alice.github.io"),
        ("www.alice.github.io", "alice.github.io"),
        ("foo.blogspot.com", "foo.blogspot.com"),
        ("github.io", "github.io"),
        ("com", "com"),
        ("localhost", "localhost"),
        ("a.pressmark.demo", "pressmark.demo"),
        ("xn--fa-hia.de", "xn--fa-hia.de"),
        ("93.184.0.1", "93.184.0.1"),
        ("::1", "::1"),
    ],
)
def test_registrable_domain(host: str, site: str) -> None:
    assert registrable_domain(host) == site


def test_site_keys_keep_ports_and_exact_addresses() -> None:
    assert site_of("93.184.0.1:8080") != site_of("1.2.0.1:8080")
    assert site_of("a.example.com:8080") == site_of("b.example.com:8080") == "example.com:8080"
    assert site_of("example.com:8080") != site_of("example.com")
    assert site_of("[::1]:8080") == "[::1]:8080"
    assert split_host_key("[2001:db8::1]:81") == ("2001:db8::1", "81")


def test_scope_same_site_on_private_suffixes() -> None:
    scope = Scope(CrawlPolicy(scope="same-site"), ["alice.github.io"])
    assert scope.host_allowed("www.alice.github.io")
    assert not scope.host_allowed("mallory.github.io")
    assert not scope.host_allowed("github.io")
    ips = Scope(CrawlPolicy(scope="same-site"), ["93.184.0.1:8080"])
    assert not ips.host_allowed("1.2.0.1:8080")
    assert not ips.host_allowed("93.184.0.1:8081")
