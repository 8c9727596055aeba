"""A WHATWG-style URL parser for http(s), so the policy judges what a browser would dial.

Rules applied, in order (each one a browser's, not an invention):

1. Leading and trailing C0 controls and spaces are stripped; tabs and newlines
   anywhere are removed. Any other control character, and any lone surrogate
   (which no browser could encode), is refused (``INVALID_URL``).
2. The scheme is case-insensitive; only ``http`` and ``https`` are accepted
   (``INVALID_SCHEME``). Backslashes count as slashes, and any run of slashes
   after the scheme introduces the authority (``http:\\\\host``, ``http:/host``).
3. Userinfo (anything before the last ``@`` of the authority) is refused
   (``USERINFO``), even when empty.
4. The port must be decimal and at most 65535 after leading zeros (``INVALID_URL``);
   an empty port is the default; the scheme's default port is dropped from the
   serialisation.
5. The host is percent-decoded (UTF-8), mapped with UTS-46 (non-transitional,
   so fullwidth digits and ideographic full stops become ASCII) and encoded to
   IDNA A-labels; forbidden code points are refused (``INVALID_HOST``). Symbols
   that UTS-46 allows but IDNA2008 does not (``☃``, emoji) are accepted, as in
   browsers; an ``xn--`` label must decode to a valid non-ASCII label.
6. A host whose last label is numeric is an IPv4 address in any legacy form
   (``2130706433``, ``0177.0.0.1``, ``0x7f.1``, ``127.1``) and is serialised in
   dotted decimal; if it does not parse as one, it is refused. IPv6 hosts are
   bracketed literals without a zone index, serialised in compressed form.
7. One trailing dot of a domain is removed (``example.com.`` is ``example.com``)
   so the policy, SNI and the certificate check all see one name.
8. Dot segments in the path are resolved (``%2e`` counts as a dot); characters a
   browser would percent-encode in the path and query are encoded; the
   fragment is kept on :attr:`ParsedURL.url` but never sent.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field

from pressmark.egress._errors import (
    INVALID_HOST,
    INVALID_SCHEME,
    INVALID_URL,
    USERINFO,
    EgressDenied,
)

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final, Literal

    HostKind = Literal["ipv4", "ipv6", "domain"]


DEFAULT_PORTS: Final = {"http": 80, "https": 443}
_SCHEME_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_TAB_NL: Final = str.maketrans("", "", "\t\n\r")
_C0_SPACE: Final = "".join(chr(c) for c in range(0x21))
_FORBIDDEN_HOST: Final = frozenset("\x00\t\n\r #/:<>?@[\\]^|%\x7f") | frozenset(
    chr(c) for c in range(0x20)
)
# WHATWG percent-encode sets: everything outside printable ASCII, plus these.
_PATH_UNSAFE: Final = re.compile(r'[^\x21-\x7e]|["#<>?`{}]')
_QUERY_UNSAFE: Final = re.compile(r"[^\x21-\x7e]|[\"#<>']")
_FRAGMENT_UNSAFE: Final = re.compile(r'[^\x21-\x7e]|["<>`]')
_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f]")
_SIMPLE_DOMAIN: Final = re.compile(
    r"(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?\.)*[a-z_](?:[a-z0-9_-]*[a-z0-9_])?"
)
_OCTET: Final = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_DOTTED_QUAD: Final = re.compile(rf"(?:{_OCTET}\.){{3}}{_OCTET}")


@dataclass(frozen=True, slots=True, kw_only=True)
class ParsedURL:
    """An http(s) URL after browser-style parsing. ``host`` is canonical (see module rules)."""

    scheme: Literal["http", "https"]
    host: str  # A-labels, dotted-decimal IPv4, or IPv6 without brackets
    host_kind: HostKind
    port: int  # effective port
    explicit_port: int | None  # as written, unless it was the default
    path: str
    query: str | None
    fragment: str | None
    # The serialisations below are read several times per request (pool key, Host
    # header, robots, hop checks): computed once, from the fields, when it is built.
    _authority: str = field(default="", init=False, repr=False, compare=False)
    _origin: str = field(default="", init=False, repr=False, compare=False)
    _target: str = field(default="", init=False, repr=False, compare=False)
    _url: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        host = f"[{self.host}]" if self.host_kind == "ipv6" else self.host
        authority = host if self.explicit_port is None else f"{host}:{self.explicit_port}"
        origin = f"{self.scheme}://{authority}"
        target = self.path if self.query is None else f"{self.path}?{self.query}"
        base = origin + target
        object.__setattr__(self, "_authority", authority)
        object.__setattr__(self, "_origin", origin)
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_url", base if self.fragment is None
                           else f"{base}#{self.fragment}")

    @property
    def netloc_host(self) -> str:
        return f"[{self.host}]" if self.host_kind == "ipv6" else self.host

    @property
    def authority(self) -> str:
        """``host[:port]`` as sent in the Host header."""
        return self._authority

    @property
    def origin(self) -> str:
        return self._origin

    @property
    def target(self) -> str:
        """The request target: path and query, never the fragment."""
        return self._target

    @property
    def url(self) -> str:
        return self._url

    def __str__(self) -> str:
        return self.url


def _deny(code: str, host: str | None, message: str) -> EgressDenied:
    return EgressDenied(code, host, message)


def parse_ipv4(text: str) -> int | None:
    """WHATWG IPv4 parser: ``None`` when ``text`` is not an IPv4 address in any form.

    Raises ``ValueError`` when it looks numeric but is out of range (a browser
    refuses such a host rather than treating it as a name).
    """
    parts = text.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if len(parts) > 4 or not parts:
        raise ValueError("too many parts")
    numbers: list[int] = []
    for part in parts:
        if part == "":
            raise ValueError("empty part")
        radix = 10
        digits = part
        if len(part) >= 2 and part[0] == "0" and part[1] in "xX":
            radix, digits = 16, part[2:]
        elif len(part) >= 2 and part[0] == "0":
            radix, digits = 8, part[1:]
        if digits == "":
            numbers.append(0)
            continue
        allowed = {10: "0123456789", 8: "01234567", 16: "0123456789abcdefABCDEF"}[radix]
        if any(ch not in allowed for ch in digits):
            raise ValueError("not a number")
        numbers.append(int(digits, radix))
    if any(n > 255 for n in numbers[:-1]):
        raise ValueError("part out of range")
    if numbers[-1] >= 256 ** (5 - len(numbers)):
        raise ValueError("last part out of range")
    value = numbers[-1]
    for i, n in enumerate(numbers[:-1]):
        value += n * 256 ** (3 - i)
    return value


def _ends_in_number(host: str) -> bool:
    labels = host.split(".")
    if labels[-1] == "":
        if len(labels) == 1:
            return False
        labels.pop()
    last = labels[-1]
    if last and all(c in "0123456789" for c in last):
        return True
    return len(last) >= 2 and last[:2] in ("0x", "0X") and all(
        c in "0123456789abcdefABCDEF" for c in last[2:]
    )


def _symbol_label_to_ascii(label: str) -> str:
    """A-label for a label IDNA2008 refuses only for its code points (``☃``, emoji).

    UTS-46 (what browsers implement) still accepts them: the label must be
    valid as it stands (mapping leaves it unchanged), NFC, and must not start
    with a combining mark. Anything else stays refused.
    """
    import idna  # noqa: PLC0415 - only non-ASCII and xn-- hosts need IDNA (see parse_host)

    if idna.uts46_remap(label, std3_rules=False, transitional=False) != label:
        raise ValueError("label is not in mapped form")
    if not unicodedata.is_normalized("NFC", label) or unicodedata.category(label[0])[0] == "M":
        raise ValueError("label is not NFC or starts with a combining mark")
    return "xn--" + label.encode("punycode").decode("ascii")


def _check_a_label(label: str) -> None:
    """An ``xn--`` label must be valid Punycode of a valid, non-ASCII U-label."""
    import idna  # noqa: PLC0415 - as in _symbol_label_to_ascii

    try:
        idna.decode(label)
        return
    except idna.InvalidCodepoint:
        pass  # a UTS-46-valid symbol (emoji); checked below the way browsers do
    unicode_label = label[4:].encode("ascii").decode("punycode")
    if unicode_label.isascii() or _symbol_label_to_ascii(unicode_label) != label:
        raise ValueError("A-label does not round-trip")


def _domain_to_ascii(domain: str, raw_host: str) -> str:
    mapped = domain.lower() if domain.isascii() else None
    if mapped is not None and "xn--" not in mapped:
        return mapped  # ASCII labels, none an A-label: the loop below would keep them as is
    import idna  # noqa: PLC0415 - as in _symbol_label_to_ascii

    try:
        if mapped is None:
            mapped = idna.uts46_remap(domain, std3_rules=False, transitional=False)
        labels = mapped.split(".")
        out: list[str] = []
        for label in labels:
            if label.isascii():
                if label.startswith("xn--"):
                    _check_a_label(label)
                out.append(label)
                continue
            try:
                out.append(idna.alabel(label).decode("ascii"))
            except idna.InvalidCodepoint:
                out.append(_symbol_label_to_ascii(label))
        return ".".join(out)
    except (idna.IDNAError, UnicodeError, ValueError) as exc:
        raise _deny(INVALID_HOST, raw_host, f"host {raw_host!r} is not a valid domain") from exc


def parse_host(raw: str) -> tuple[str, HostKind]:
    """Parse an authority's host the way a browser does (special schemes).

    WHY the imports inside: nearly every host is an ASCII name or a dotted quad.
    ``ipaddress``, ``idna`` (its tables) and ``urllib.parse`` cost more to import than
    a page of links costs to parse, so each loads only for the host that needs it, and
    a process that meets none (``pressmark md`` on most pages) never loads them.
    """
    if raw == "":
        raise _deny(INVALID_HOST, None, "URL has an empty host")
    if _DOTTED_QUAD.fullmatch(raw):
        return raw, "ipv4"
    if _SIMPLE_DOMAIN.fullmatch(raw) and "xn--" not in raw:
        return raw, "domain"
    if raw.startswith("["):
        if not raw.endswith("]"):
            raise _deny(INVALID_HOST, raw, "unterminated IPv6 literal")
        inner = raw[1:-1]
        if "%" in inner:
            raise _deny(INVALID_HOST, raw, "IPv6 zone identifiers are not allowed in URLs")
        import ipaddress  # noqa: PLC0415 - see the docstring

        try:
            return ipaddress.IPv6Address(inner).compressed, "ipv6"
        except ValueError as exc:
            raise _deny(INVALID_HOST, raw, f"invalid IPv6 literal {raw!r}") from exc
    try:
        if "%" in raw:
            from urllib.parse import unquote_to_bytes  # noqa: PLC0415 - see the docstring

            decoded = unquote_to_bytes(raw).decode("utf-8")
        else:
            raw.encode("utf-8")  # a lone surrogate fails here as it would in the decoding
            decoded = raw
    except UnicodeError as exc:
        raise _deny(INVALID_HOST, raw, "host is not valid UTF-8 after percent-decoding") from exc
    ascii_host = _domain_to_ascii(decoded, raw)
    if ascii_host == "" or any(c in _FORBIDDEN_HOST for c in ascii_host):
        raise _deny(INVALID_HOST, raw, f"host {raw!r} contains a forbidden character")
    if _ends_in_number(ascii_host):
        try:
            value = parse_ipv4(ascii_host)
        except ValueError as exc:
            raise _deny(INVALID_HOST, raw, f"host {raw!r} is not a valid IPv4 address") from exc
        assert value is not None
        import ipaddress  # noqa: PLC0415 - see the docstring

        return str(ipaddress.IPv4Address(value)), "ipv4"
    if ascii_host.endswith("."):
        ascii_host = ascii_host[:-1]
    if ascii_host == "" or "" in ascii_host.split("."):
        raise _deny(INVALID_HOST, raw, f"host {raw!r} has an empty label")
    return ascii_host, "domain"


def _percent(match: re.Match[str]) -> str:
    return "".join(f"%{b:02X}" for b in match.group().encode("utf-8", "surrogatepass"))


def _encode(text: str, unsafe: re.Pattern[str]) -> str:
    if unsafe.search(text) is None:
        return text
    return unsafe.sub(_percent, text)


_DOT: Final = frozenset({".", "%2e", "%2E"})
_DOTDOT: Final = frozenset(
    {"..", ".%2e", ".%2E", "%2e.", "%2E.", "%2e%2e", "%2E%2E", "%2e%2E", "%2E%2e"}
)


def _normalise_path(path: str) -> str:
    path = path.replace("\\", "/")
    if not path:
        return "/"
    segments = path.split("/")[1:]
    maybe_dots = "." in path or "%2" in path
    if not maybe_dots or not any(s in _DOT or s in _DOTDOT for s in segments):
        return _encode(path, _PATH_UNSAFE)
    out: list[str] = []
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg in _DOTDOT:
            if out:
                out.pop()
            if last:
                out.append("")
        elif seg in _DOT:
            if last:
                out.append("")
        else:
            out.append(seg)
    return _encode("/" + "/".join(out), _PATH_UNSAFE)


def parse_url(url: str) -> ParsedURL:
    """Parse an absolute http(s) URL; raises :class:`EgressDenied` with a URL-level code.

    The result is a pure function of the string and immutable, so recent results are
    cached: one fetch parses its URL in the fetch layer (robots, source id) and again
    in the client; the second parse is a dict hit. Failures are not cached (every
    caller gets its own exception to annotate).
    """
    if type(url) is str:
        return _parse_url_cached(url)
    return _parse_url(url)


def _has_surrogate(text: str) -> bool:
    """Does ``text`` hold a surrogate code point (U+D800 to U+DFFF)?

    WHY not a regular expression: strict UTF-8 refuses exactly these code points, so one
    C-level encode answers (and ``isascii`` first, in constant time, for most URLs). The
    class ``[\\ud800-\\udfff]`` cost 2.2 M instructions to compile (``re`` visits each
    of its 2,048 code points, twice), a fifth of what importing this module costs.
    """
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _parse_url(url: str) -> ParsedURL:
    text = url.strip(_C0_SPACE)
    if _has_surrogate(text):  # not encodable: no browser could send it
        raise _deny(INVALID_URL, None, "URL contains lone surrogate code points")
    if _CONTROL.search(text) is not None:
        text = text.translate(_TAB_NL)
    if _CONTROL.search(text) is not None:
        raise _deny(INVALID_URL, None, "URL contains control characters")
    colon = text.find(":")
    if colon <= 0 or not _SCHEME_RE.fullmatch(text[:colon]):
        raise _deny(INVALID_URL, None, "URL has no scheme (an absolute http(s) URL is required)")
    scheme = text[:colon].lower()
    if scheme not in DEFAULT_PORTS:
        shown = repr(scheme) if len(scheme) <= 12 else "this scheme"  # never echo more
        raise _deny(INVALID_SCHEME, None, f"scheme {shown} is not allowed (http, https only)")
    rest = text[colon + 1 :].lstrip("/\\")
    end = len(rest)
    for sep in "/\\?#":
        i = rest.find(sep)
        if i != -1 and i < end:
            end = i
    authority, remainder = rest[:end], rest[end:]
    if "@" in authority:
        raise _deny(USERINFO, None, "URLs with userinfo (user@host) are not allowed")
    if authority.startswith("["):
        close = authority.find("]")
        host_raw = authority[: close + 1] if close != -1 else authority
        port_raw = authority[close + 1 :] if close != -1 else ""
        if port_raw and not port_raw.startswith(":"):
            raise _deny(INVALID_URL, None, "garbage after IPv6 literal")
        port_raw = port_raw[1:] if port_raw else ""
        has_port = close != -1 and authority[close + 1 :].startswith(":")
    else:
        host_raw, sep_, port_raw = authority.partition(":")
        has_port = bool(sep_)
    host, kind = parse_host(host_raw)
    default = DEFAULT_PORTS[scheme]
    explicit: int | None = None
    if has_port and port_raw != "":
        if not port_raw.isascii() or not port_raw.isdigit():
            raise _deny(INVALID_URL, host, f"invalid port for host {host}")
        digits = port_raw.lstrip("0") or "0"  # leading zeros are fine (":0080" is 80)
        if len(digits) > 5 or int(digits) > 65535:
            raise _deny(INVALID_URL, host, f"port out of range for host {host}")
        value = int(digits)
        explicit = None if value == default else value
    fragment: str | None = None
    if "#" in remainder:
        remainder, _, frag = remainder.partition("#")
        fragment = _encode(frag, _FRAGMENT_UNSAFE)
    query: str | None = None
    if "?" in remainder:
        remainder, _, q = remainder.partition("?")
        query = _encode(q, _QUERY_UNSAFE)
    return ParsedURL(
        scheme=scheme,  # type: ignore[arg-type]  # checked against DEFAULT_PORTS above
        host=host,
        host_kind=kind,
        port=explicit if explicit is not None else default,
        explicit_port=explicit,
        path=_normalise_path(remainder),
        query=query,
        fragment=fragment,
    )


_parse_url_cached: Final = functools.lru_cache(maxsize=1024)(_parse_url)


def join_url(base: ParsedURL, reference: str) -> str:
    """Resolve a (possibly relative) reference, e.g. a Location header, against ``base``.

    As in WHATWG: ``//``, ``\\\\``, ``/\\`` and ``\\/`` start an authority; the
    base's own scheme without ``//`` (``http:/x``, ``http:x``) is a relative reference.
    """
    ref = reference.strip(_C0_SPACE).translate(_TAB_NL)
    colon = ref.find(":")
    if colon > 0 and _SCHEME_RE.fullmatch(ref[:colon]):
        scheme = ref[:colon].lower()
        after = ref[colon + 1 :]
        if scheme == base.scheme and not after.startswith("//"):
            # WHATWG "special relative or authority state": with the base's scheme only
            # "//" starts an authority; "http:/x" and "http:foo" are relative references
            # ("http:/\\x" and "http:\\\\x" still reach one through the relative slash state).
            ref = after
        else:
            return ref
    if ref[:2] in ("//", "\\\\", "/\\", "\\/"):
        return f"{base.scheme}:{ref}"
    origin = base.origin
    if ref.startswith(("/", "\\")):
        return origin + ref
    if ref == "":
        return f"{origin}{base.target}"
    if ref.startswith("?"):
        return f"{origin}{base.path}{ref}"
    if ref.startswith("#"):
        return f"{origin}{base.target}{ref}"
    directory = base.path.rsplit("/", 1)[0]
    return f"{origin}{directory}/{ref}"
