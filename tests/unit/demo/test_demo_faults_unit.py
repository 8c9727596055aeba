"""The gzip bomb and the fault table, without a socket."""

from __future__ import annotations

import zlib

import pytest

from pressmark.demo import DemoSite
from pressmark.demo._faults import fault, gzip_bomb_bytes
from pressmark.demo._http import Fault, Request

from ._helpers import get


def test_gzip_bomb_inflates_to_the_promised_size() -> None:
    data = gzip_bomb_bytes(16)
    assert len(data) < 20_000
    inflater = zlib.decompressobj(31)
    total = 0
    chunk = data
    while chunk or not inflater.eof:
        out = inflater.decompress(chunk, 1 << 20)
        assert out.count(0) == len(out)
        total += len(out)
        chunk = inflater.unconsumed_tail
        if not chunk and not out:
            break
    assert inflater.eof and total == 16 * 1024 * 1024
    assert gzip_bomb_bytes(16) is data  # cached


@pytest.mark.parametrize("name", ["slow-headers", "slow-body", "reset", "length-long",
                                  "length-short", "gzip-bomb", "bad-gzip", "huge",
                                  "huge-chunked", "empty", "garbage"])
def test_raw_faults_exist(name: str) -> None:
    assert isinstance(fault(name, {}), Fault)


def test_faults_are_off_by_default() -> None:
    assert get(DemoSite(pages=5), "/fault/429").status == 404
    site = DemoSite(pages=5, faults=True)
    assert get(site, "/fault/429").status == 429
    assert ("Retry-After", "2") in get(site, "/fault/429").headers
    result = site.respond(Request(method="GET", target="/fault/reset", version="HTTP/1.1",
                                  headers=(), origin="http://x"))
    assert isinstance(result, Fault)


def test_crc32_combine_matches_zlib() -> None:
    from pressmark.demo._faults import crc32_combine

    a, b = b"pressmark " * 37, b"demo site" * 11
    assert crc32_combine(zlib.crc32(a), zlib.crc32(b), len(b)) == zlib.crc32(a + b)
    assert crc32_combine(zlib.crc32(a), 0, 0) == zlib.crc32(a)
