"""The resolver seam: the only way pressmark turns a host name into addresses.

Nothing else in pressmark calls ``getaddrinfo``. :class:`SystemResolver` asks the
operating system; :class:`StaticResolver` answers from a table, and a list of
lists gives successive answers (the first call gets the first list, and so on,
the last repeating), which is how tests play a rebinding DNS server.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from pressmark.egress._errors import DnsFailure, EgressDenied
from pressmark.egress._url import parse_host


@runtime_checkable
class Resolver(Protocol):
    """Resolve a host name (A-labels, no trailing dot) to IP literals, in preference order.

    Each answer must be exactly an IP literal (``"93.184.216.34"``, ``"2606:4700::1"``):
    padded, bracketed, zoned or legacy forms (``"127.1"``) and host names are
    treated as denied answers, and duplicates are dropped.
    """

    async def resolve(self, host: str) -> list[str]: ...


class SystemResolver:
    """The operating system's resolver (``getaddrinfo``), TCP answers, order kept, deduplicated."""

    async def resolve(self, host: str) -> list[str]:
        loop = asyncio.get_running_loop()
        infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        seen: dict[str, None] = {}
        for _family, _type, _proto, _canon, sockaddr in infos:
            seen.setdefault(str(sockaddr[0]), None)
        return list(seen)

    def __repr__(self) -> str:
        return "SystemResolver()"


def _norm(host: str) -> str:
    """The name as the client asks for it: IDNA A-labels, lower case, no trailing dot."""
    try:
        canonical, _kind = parse_host(host)
    except EgressDenied:
        canonical = host.lower()
    return canonical[:-1] if canonical.endswith(".") else canonical


class StaticResolver:
    """Answers from a table; unknown names fail like NXDOMAIN (:class:`DnsFailure`).

    ``StaticResolver({"a.test": ["93.184.216.34"], "r.test": [["1.2.3.4"], ["10.0.0.1"]]})``:
    ``a.test`` always answers one address; ``r.test`` answers ``1.2.3.4`` the
    first time and ``10.0.0.1`` from then on. ``calls`` records every lookup.
    """

    def __init__(self, answers: Mapping[str, Sequence[str] | Sequence[Sequence[str]]]) -> None:
        self._answers: dict[str, list[list[str]]] = {}
        for name, value in answers.items():
            seq = list(value)
            if seq and all(not isinstance(item, str) for item in seq):
                rounds = [[str(a) for a in item] for item in seq]
            elif all(isinstance(item, str) for item in seq):
                rounds = [[str(a) for a in seq]]
            else:
                raise TypeError(f"answers for {name!r} mix strings and lists")
            self._answers[_norm(name)] = rounds
        self._counts: dict[str, int] = {}
        self.calls: list[str] = []

    async def resolve(self, host: str) -> list[str]:
        key = _norm(host)
        self.calls.append(key)
        rounds = self._answers.get(key)
        if rounds is None:
            raise DnsFailure(f"could not resolve {host}", host=host)
        n = self._counts.get(key, 0)
        self._counts[key] = n + 1
        return list(rounds[min(n, len(rounds) - 1)])

    def __repr__(self) -> str:
        return f"StaticResolver({sorted(self._answers)!r})"
