"""Which IP addresses egress refuses, and why: one commented table per family.

``classify_address(ip)`` returns the name of the denied range an address falls
in, or ``None`` when the address is an ordinary public one. IPv6 is denied by
default (everything outside global unicast ``2000::/3``) with a few holes
punched inside it; IPv4 is allowed by default with a list of denied ranges.
When an IPv6 address embeds an IPv4 address (mapped, compatible, NAT64, 6to4,
Teredo), the name says which IPv4 address it carries and what that one is, so a
log line explains ``::ffff:7f00:1`` as loopback rather than as "not global".
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Final

# (network, name). Order matters only for overlaps: the most specific comes first.
_IPV4_DENIED: Final[tuple[tuple[str, str], ...]] = (
    ("168.63.129.16/32", "Azure WireServer (168.63.129.16)"),
    ("169.254.169.254/32", "cloud metadata (169.254.169.254)"),
    ("169.254.170.2/32", "ECS task metadata (169.254.170.2)"),
    ("100.100.100.200/32", "Alibaba Cloud metadata (100.100.100.200)"),
    ("192.0.0.192/32", "Oracle Cloud metadata (192.0.0.192)"),
    ("255.255.255.255/32", "limited broadcast (255.255.255.255)"),
    ("0.0.0.0/8", "this network (0.0.0.0/8)"),
    ("10.0.0.0/8", "private (10.0.0.0/8)"),
    ("100.64.0.0/10", "carrier-grade NAT (100.64.0.0/10)"),
    ("127.0.0.0/8", "loopback (127.0.0.0/8)"),
    ("169.254.0.0/16", "link-local (169.254.0.0/16)"),
    ("172.16.0.0/12", "private (172.16.0.0/12)"),
    ("192.0.0.0/24", "IETF protocol assignments (192.0.0.0/24)"),
    ("192.0.2.0/24", "documentation TEST-NET-1 (192.0.2.0/24)"),
    ("192.88.99.0/24", "6to4 relay anycast (192.88.99.0/24)"),
    ("192.168.0.0/16", "private (192.168.0.0/16)"),
    ("198.18.0.0/15", "benchmarking (198.18.0.0/15)"),
    ("198.51.100.0/24", "documentation TEST-NET-2 (198.51.100.0/24)"),
    ("203.0.113.0/24", "documentation TEST-NET-3 (203.0.113.0/24)"),
    ("224.0.0.0/4", "multicast (224.0.0.0/4)"),
    ("240.0.0.0/4", "reserved (240.0.0.0/4)"),
)

# Inside 2000::/3 (global unicast) these are still refused.
_IPV6_DENIED_GLOBAL: Final[tuple[tuple[str, str], ...]] = (
    ("2001::/32", "Teredo (2001::/32)"),
    ("2001:db8::/32", "documentation (2001:db8::/32)"),
    ("2001::/23", "IETF special use (2001::/23)"),
    ("2002::/16", "6to4 (2002::/16)"),
    ("3fff::/20", "documentation (3fff::/20)"),
)

# Outside 2000::/3 everything is refused; these names say what a range is.
_IPV6_NAMED_OUTSIDE: Final[tuple[tuple[str, str], ...]] = (
    ("fd00:ec2::254/128", "AWS metadata (fd00:ec2::254)"),
    ("::/128", "unspecified (::)"),
    ("::1/128", "loopback (::1)"),
    ("::ffff:0:0/96", "IPv4-mapped (::ffff:0:0/96)"),
    ("::ffff:0:0:0/96", "IPv4-translated (::ffff:0:0:0/96)"),
    ("::/96", "IPv4-compatible (::/96)"),
    ("64:ff9b::/96", "NAT64 (64:ff9b::/96)"),
    ("64:ff9b:1::/48", "local-use NAT64 (64:ff9b:1::/48)"),
    ("100::/64", "discard-only (100::/64)"),
    ("fc00::/7", "unique local (fc00::/7)"),
    ("fe80::/10", "link-local (fe80::/10)"),
    ("fec0::/10", "site-local (fec0::/10)"),
    ("ff00::/8", "multicast (ff00::/8)"),
)

_NOT_GLOBAL_V6: Final = "not global unicast (outside 2000::/3)"
INVALID_ADDRESS: Final = "not an IP address"


def _compile(table: tuple[tuple[str, str], ...]) -> tuple[tuple[int, int, str], ...]:
    out = []
    for cidr, name in table:
        net = ipaddress.ip_network(cidr)
        out.append((int(net.network_address), int(net.netmask), name))
    return tuple(out)


_V4: Final = _compile(_IPV4_DENIED)
_V6_GLOBAL: Final = _compile(_IPV6_DENIED_GLOBAL)
_V6_OUTSIDE: Final = _compile(_IPV6_NAMED_OUTSIDE)
_GLOBAL_UNICAST_MASK: Final = int(ipaddress.IPv6Address("e000::"))
_GLOBAL_UNICAST: Final = int(ipaddress.IPv6Address("2000::"))


def _lookup(value: int, table: tuple[tuple[int, int, str], ...]) -> str | None:
    for net, mask, name in table:
        if value & mask == net:
            return name
    return None


def _classify_v4(value: int) -> str | None:
    return _lookup(value, _V4)


def _embedded_v4(value: int) -> int | None:
    """The IPv4 address an IPv6 address carries, for the forms that carry one."""
    top96 = value >> 32
    low32 = value & 0xFFFFFFFF
    if top96 in (0xFFFF, 0xFFFF0000, 0) and value > 1:  # mapped, translated, compatible
        return low32
    if value >> 32 == 0x0064FF9B0000000000000000 or value >> 80 == 0x0064FF9B0001:  # NAT64
        return low32
    if value >> 112 == 0x2002:  # 6to4: 2002:AABB:CCDD::/48
        return (value >> 80) & 0xFFFFFFFF
    if value >> 96 == 0x20010000:  # Teredo: client address is the low 32 bits, inverted
        return low32 ^ 0xFFFFFFFF
    return None


def _classify_v6(value: int) -> str | None:
    if value & _GLOBAL_UNICAST_MASK == _GLOBAL_UNICAST:
        name = _lookup(value, _V6_GLOBAL)
    else:
        name = _lookup(value, _V6_OUTSIDE) or _NOT_GLOBAL_V6
    if name is None:
        return None
    embedded = _embedded_v4(value)
    if embedded is not None:
        inner = ipaddress.IPv4Address(embedded)
        inner_name = _classify_v4(embedded) or "public"
        name = f"{name} embedding {inner} ({inner_name})"
    return name


@lru_cache(maxsize=4096)
def classify_address(ip: str) -> str | None:
    """Name the denied range ``ip`` falls in, or ``None`` if it is an allowed public address.

    Fails closed: anything that does not parse as an IPv4 or IPv6 literal
    (including legacy IPv4 forms such as ``0177.0.0.1``; normalise them with
    :func:`pressmark.egress.parse_url` first) is reported as ``"not an IP address"``.
    Surrounding whitespace is not an IP address either. A zone index
    (``fe80::1%eth0``) is ignored for the classification (the resolver path
    refuses zoned answers outright).
    """
    text = ip
    if not isinstance(text, str) or not text.isascii():
        return INVALID_ADDRESS
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return INVALID_ADDRESS
    if isinstance(address, ipaddress.IPv4Address):
        return _classify_v4(int(address))
    return _classify_v6(int(address))


def is_ip_literal(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
