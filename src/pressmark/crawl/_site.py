"""What "the same site" means: the registrable domain from the Public Suffix List.

``same-site`` scope and Ray's shard ownership both ask this one module. The list
is the snapshot bundled with the ``publicsuffixlist`` package (never fetched at
run time, so a crawl's scope does not change with the network), private suffixes
included: ``alice.github.io`` and ``mallory.github.io`` are two sites, as are
``a.blogspot.com`` and ``b.blogspot.com``.

Hosts come in the crawl's host-key spelling (:class:`~pressmark.crawl._canonical.
CanonicalURL`), which is the egress parser's: A-label domains, dotted-decimal IPv4,
bracketed compressed IPv6, optional ``:port``. An IP address is its own site
(compared exactly, never by labels); a host that is itself a public suffix (``com``,
``github.io``, ``localhost``) is its own site; an unknown TLD counts as a one-label
suffix (``a.b.test`` is in the site ``b.test``), the PSL's default rule.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from publicsuffixlist import PublicSuffixList


@functools.cache
def _psl() -> PublicSuffixList:
    """Loaded on first use (about 40 ms), then shared: the table is immutable."""
    from publicsuffixlist import PublicSuffixList  # noqa: PLC0415  # loaded on first use

    return PublicSuffixList()


def split_host_key(key: str) -> tuple[str, str]:
    """``"a.test:8080"`` -> ``("a.test", "8080")``; ``"[::1]"`` -> ``("::1", "")``."""
    if key.startswith("["):
        end = key.find("]")
        if end < 0:
            return key[1:], ""
        return key[1:end], key[end + 2 :] if key[end + 1 : end + 2] == ":" else ""
    name, sep, port = key.rpartition(":")
    if sep and port.isdigit() and ":" not in name:
        return name, port
    return key, ""


def _is_ip(host: str) -> bool:
    # The egress spelling: IPv6 has colons, IPv4 (any legacy form) is dotted decimal, and
    # a domain whose last label is numeric is always refused, so a digit ending is IPv4.
    return ":" in host or host.rpartition(".")[2].isdigit()


@functools.lru_cache(maxsize=65_536)
def registrable_domain(host: str) -> str:
    """The registrable domain (eTLD+1, PSL with private suffixes) of a host without port;
    an IP address or a bare public suffix is returned as it is."""
    host = host.lower().rstrip(".")
    if not host or _is_ip(host):
        return host
    return _psl().privatesuffix(host) or host


@functools.lru_cache(maxsize=65_536)
def site_of(host_key: str) -> str:
    """The ``same-site`` key of a host key: registrable domain plus the port, if any
    (ports compare exactly: ``a.test:8080`` and ``b.test:8081`` are different sites)."""
    host, port = split_host_key(host_key)
    site = registrable_domain(host)
    if ":" in site:
        site = f"[{site}]"
    return f"{site}:{port}" if port else site
