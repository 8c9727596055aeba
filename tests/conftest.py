"""Shared fixtures for every test layer.

Fixtures here start real things (loopback servers, temporary stores); fakes are
only used for what cannot run on this machine (public DNS, the internet).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

_NETWORK_ENV = (
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
    "http_proxy", "https_proxy", "all_proxy", "no_proxy",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
)


@pytest.fixture(autouse=True)
def clean_environ() -> Iterator[None]:
    """No test sees proxy or TLS settings from the machine it runs on."""
    saved = {name: os.environ.pop(name) for name in _NETWORK_ENV if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)
