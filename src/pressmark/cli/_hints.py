"""Small helpers shared by the sub-commands: exit codes and hints for people.

Exit codes (the contract, README "CLI exit codes"): 0 ok, 2 invalid configuration or
usage, 3 denied by egress policy or robots.txt, 4 HTTP error or unresolvable reference,
5 any other failure.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_DENIED = 3
EXIT_UNRESOLVED = 4
EXIT_FAILURE = 5

EXIT_CODES_EPILOG = (
    "\b\nExit codes:\n"
    "  0  success\n"
    "  2  invalid configuration or usage\n"
    "  3  denied by the egress policy or robots.txt\n"
    "  4  HTTP error, or a reference that does not resolve\n"
    "  5  any other failure (interrupted, store damaged, conversion failed)"
)


def loopback_hint(url: str) -> str | None:
    """A one-line hint when ``url`` names a loopback host, which pressmark refuses by default.

    Newcomers try pressmark on a local server first; the denial is right, the way out
    (``--allow-loopback ORIGIN``, test only) should be one copy-paste away.
    """
    import ipaddress  # noqa: PLC0415  # as below: every command imports this module

    from pressmark.egress import EgressDenied, parse_url  # noqa: PLC0415  # keeps --help fast

    try:
        parsed = parse_url(url)
    except EgressDenied:
        return None
    host = parsed.host
    if host != "localhost" and not host.endswith(".localhost"):
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return None
        if not address.is_loopback:
            return None
        shown = f"[{host}]" if address.version == 6 else host
        origin = f"{parsed.scheme}://{shown}:{parsed.port}"
        return (f"hint: {host} is a loopback address, refused by default; for a local test "
                f"server pass --allow-loopback {origin}")
    origin = f"{parsed.scheme}://127.0.0.1:{parsed.port}"
    return (f"hint: {host} is refused by default; for a local test server use the address "
            f"({origin}/...) and pass --allow-loopback {origin}")
