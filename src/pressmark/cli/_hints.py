"""Small helpers shared by the sub-commands: exit codes and hints for people.

Exit codes are one table for every command (the user guide's "Errors and exit codes"):

====  ==========================================================================
0     success
1     unexpected internal error (a bug: please report the traceback)
2     invalid configuration or usage (a path that is not what the command needs included)
3     denied: the egress policy or robots.txt refused it
4     not reached: HTTP error, DNS failure, network error or timeout; or a reference
      that does not resolve
5     any other failure (interrupted crawl, damaged store, failed conversion, a limit hit)
====  ==========================================================================
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_DENIED = 3
EXIT_UNRESOLVED = 4
EXIT_FAILURE = 5

# A page's ``error.kind`` (FetchErrorKind) -> the exit status of a command that fails with it.
EXIT_BY_KIND: dict[str, int] = {
    "invalid-config": EXIT_USAGE,
    "egress-denied": EXIT_DENIED,
    "robots-denied": EXIT_DENIED,
    "http-error": EXIT_UNRESOLVED,
    "dns-failure": EXIT_UNRESOLVED,
    "network-error": EXIT_UNRESOLVED,
    "timeout": EXIT_UNRESOLVED,
}


def exit_code_for(kind: str | None) -> int:
    """The exit status for a failure of ``kind`` (``None``: success)."""
    if kind is None:
        return EXIT_OK
    return EXIT_BY_KIND.get(kind, EXIT_FAILURE)


EXIT_CODES_EPILOG = (
    "\b\nExit codes:\n"
    "  0  success\n"
    "  2  invalid configuration or usage\n"
    "  3  denied by the egress policy or robots.txt\n"
    "  4  not reached: HTTP error, DNS failure, network error or timeout;\n"
    "     or a reference that does not resolve\n"
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
    if parsed.scheme != "http" and (host == "localhost" or host.endswith(".localhost")
                                    or _is_loopback(host)):
        return ("hint: test-only loopback origins are plain http (--allow-loopback "
                f"http://127.0.0.1:{parsed.port}); https to this machine is not admitted")
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
    if host == "localhost":
        return (f"hint: localhost is refused by default; for a local test server pass "
                f"--allow-loopback {parsed.scheme}://localhost:{parsed.port}")
    origin = f"{parsed.scheme}://127.0.0.1:{parsed.port}"
    return (f"hint: {host} is refused by default; for a local test server use the address "
            f"({origin}/...) and pass --allow-loopback {origin}")


STORE_MARKER = "pressmark-store.json"  # what makes a directory a snapshot store


def not_a_store(path: str) -> str | None:
    """Why ``path`` is no snapshot store (a usage slip, exit 2), or ``None`` when it is one.

    The usual slip is a crawl's output directory given where its ``store/`` is meant: the
    message then says "did you mean OUT/store".
    """
    from pathlib import Path  # noqa: PLC0415  # every command imports this module

    root = Path(path)
    if (root / STORE_MARKER).is_file():
        return None
    if not root.exists():
        return f"{path} does not exist"
    if (root / "store" / STORE_MARKER).is_file():
        return f"{path} is not a snapshot store; did you mean {root / 'store'}?"
    return f"{path} is not a snapshot store (no {STORE_MARKER} in it)"


def _is_loopback(host: str) -> bool:
    import ipaddress  # noqa: PLC0415

    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def command_prefix(argv0: str | None = None, executable: str | None = None) -> str:
    """How to type ``pressmark`` so that a command printed for the user works when copied.

    ``make demo`` runs ``.venv/bin/pressmark`` and nothing puts that on ``PATH``: a printed
    ``pressmark serve OUT`` would fail with "command not found". The console script's path
    as it was typed (``.venv/bin/pressmark``) is used unless ``pressmark`` on ``PATH`` is the
    same file; ``python -m pressmark`` gives the interpreter's path and ``-m pressmark``.
    """
    import shutil  # noqa: PLC0415  # every command imports this module: keep its top light
    import sys  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    argv0 = sys.argv[0] if argv0 is None else argv0
    executable = sys.executable if executable is None else executable
    name = Path(argv0).name
    if name == "__main__.py" and executable:   # python -m pressmark
        return f"{_shortest(executable)} -m pressmark"
    if name != "pressmark":   # an embedding program (a test runner): the plain name
        return "pressmark"
    found = shutil.which("pressmark")
    try:
        if found is not None and Path(found).samefile(argv0):
            return "pressmark"
    except OSError:
        pass
    return _shortest(argv0)


def _shortest(path: str) -> str:
    """``path`` relative to the working directory when it lies below it, else absolute."""
    import os  # noqa: PLC0415
    import shlex  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    absolute = Path(path).absolute()
    relative = os.path.relpath(absolute)
    shown = relative if not relative.startswith(os.pardir) else str(absolute)
    if os.sep not in shown:
        shown = f".{os.sep}{shown}"
    return shlex.quote(shown)


def activate_hint(prefix: str) -> str | None:
    """"Or activate the environment once" when ``prefix`` is a virtual environment's script."""
    from pathlib import Path  # noqa: PLC0415

    if prefix == "pressmark":
        return None
    activate = Path(prefix.split(" ", 1)[0]).parent / "activate"
    if not activate.is_file():
        return None
    return f"(or run `source {activate}` once, then type `pressmark` without the path)"
