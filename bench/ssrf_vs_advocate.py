"""Run the SSRF corpus through pressmark and through the `advocate` library; print both scores.

pressmark: ``evaluate_url`` with the default policy and a ``StaticResolver``.

advocate (1.0, with requests/urllib3 1.26 as installed): its own decision
path, replayed without sockets. The URL is prepared by requests and split by
urllib3 exactly as ``advocate.get`` would; the scheme must have a requests
adapter (http/https); the host is checked with ``AddrValidator.
is_hostname_allowed``; "getaddrinfo" is simulated (``socket.inet_aton`` /
``inet_pton`` for literals, which is what libc does, and the corpus's DNS table
for names, nothing else); and every answer goes through
``AddrValidator.is_addrinfo_allowed``. advocate connects to the first allowed
answer, so it "allows" a URL when any answer passes. Its validator is set up
as close to pressmark's policy as its options go: ports 80/443, IPv6 allowed,
the same reserved host names, no local-interface detection. No packet is
sent anywhere.

A case scores when the decision (allow / deny) matches the corpus;
pressmark's exact-code score is printed as well.
"""

from __future__ import annotations

import asyncio
import importlib.util
import socket
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_corpus():  # type: ignore[no-untyped-def]
    path = ROOT / "tests" / "unit" / "egress" / "ssrf_corpus.py"
    spec = importlib.util.spec_from_file_location("ssrf_corpus", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ssrf_corpus"] = module
    spec.loader.exec_module(module)
    return module


async def pressmark_decision(case, resolver_table):  # type: ignore[no-untyped-def]
    from pressmark.egress import DnsFailure, EgressDenied, StaticResolver, evaluate_url

    resolver = StaticResolver(resolver_table)
    try:
        if case.rebind:
            await evaluate_url(case.url, resolver=resolver)
        await evaluate_url(case.url, resolver=resolver)
    except (EgressDenied, DnsFailure) as exc:
        return False, exc.code
    return True, None


class _Answers:
    """The corpus's DNS table with successive answers, like StaticResolver."""

    def __init__(self, table) -> None:  # type: ignore[no-untyped-def]
        self.table = table
        self.calls: dict[str, int] = {}

    def lookup(self, host: str) -> list[str]:
        value = self.table.get(host.lower().rstrip("."))
        if value is None:
            raise socket.gaierror(socket.EAI_NONAME, "not in the corpus table")
        if value and isinstance(value[0], list):
            n = self.calls.get(host, 0)
            self.calls[host] = n + 1
            return value[min(n, len(value) - 1)]
        return list(value)


def _fake_getaddrinfo(host: str, port: int, answers: _Answers):  # type: ignore[no-untyped-def]
    """getaddrinfo(host, port, AI_CANONNAME) as libc answers it, with the corpus as DNS."""
    stream = socket.SOCK_STREAM
    try:
        ip4 = socket.inet_ntoa(socket.inet_aton(host))  # libc accepts the legacy forms too
        return [(socket.AF_INET, stream, 6, host, (ip4, port))]
    except OSError:
        pass
    try:
        socket.inet_pton(socket.AF_INET6, host.split("%", maxsplit=1)[0])
        return [(socket.AF_INET6, stream, 6, host, (host, port, 0, 0))]
    except OSError:
        pass
    out = []
    for ip in answers.lookup(host):
        if ":" in ip:
            out.append((socket.AF_INET6, stream, 6, host, (ip, port, 0, 0)))
        else:
            out.append((socket.AF_INET, stream, 6, host, (ip, port)))
    return out


def advocate_decision(case, resolver_table):  # type: ignore[no-untyped-def]
    import requests
    from advocate import AddrValidator
    from advocate.connection import fix_addrinfo
    from urllib3.util import parse_url

    validator = AddrValidator(
        port_whitelist={80, 443},
        allow_ipv6=True,
        hostname_blacklist={
            "localhost", "*.localhost", "*.internal", "*.local", "metadata", "instance-data",
        },
        autodetect_local_addresses=False,
    )
    answers = _Answers(resolver_table)
    try:
        prepared = requests.models.PreparedRequest()
        prepared.prepare_url(case.url.strip(), None)
        parts = parse_url(prepared.url)
        if parts.scheme not in ("http", "https"):
            return False, "no-adapter"
        host = parts.host or ""
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        port = parts.port or (443 if parts.scheme == "https" else 80)
        if not validator.is_hostname_allowed(host):
            return False, "hostname"
        rounds = 2 if case.rebind else 1
        for _ in range(rounds):
            records = fix_addrinfo(_fake_getaddrinfo(host.rstrip("."), port, answers))
            allowed = [r for r in records if validator.is_addrinfo_allowed(r, _local_addresses=[])]
        if not allowed:
            return False, "address"
    except (requests.exceptions.RequestException, ValueError, socket.gaierror, UnicodeError) as exc:
        return False, type(exc).__name__
    except Exception as exc:  # any other failure of the library also means "not fetched"
        return False, type(exc).__name__
    return True, None


def main() -> None:
    corpus = load_corpus()
    cases = corpus.CASES
    table = corpus.RESOLVER
    pm_ok = pm_code_ok = adv_ok = 0
    adv_misses: list[str] = []
    pm_misses: list[str] = []
    for case in cases:
        expect_allow = case.expect == "allow"
        allowed, code = asyncio.run(pressmark_decision(case, table))
        if allowed == expect_allow:
            pm_ok += 1
            if expect_allow or code == case.expect:
                pm_code_ok += 1
        else:
            pm_misses.append(case.url)
        a_allowed, _ = advocate_decision(case, table)
        if a_allowed == expect_allow:
            adv_ok += 1
        else:
            verdict = "allowed" if a_allowed else "denied"
            adv_misses.append(f"{case.url!r} ({verdict}; expected {case.expect}; {case.note})")
    n = len(cases)
    print(f"corpus: {n} cases ({sum(c.expect == 'allow' for c in cases)} legitimate)")
    print(f"pressmark: {pm_ok}/{n} decisions correct, {pm_code_ok}/{n} with the exact code")
    print(f"advocate:  {adv_ok}/{n} decisions correct")
    if pm_misses:
        print("pressmark misses:", *pm_misses, sep="\n  ")
    if adv_misses and "-v" in sys.argv:
        print("advocate misses:", *adv_misses, sep="\n  ")
    elif adv_misses:
        print(f"advocate misses: {len(adv_misses)} (run with -v to list them)")


if __name__ == "__main__":
    main()
