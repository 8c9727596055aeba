"""The one charset decision, and text decoding with WHATWG encoding labels.

A page's bytes are stored exactly; its text is always *derived* from them with the
charset chosen when the snapshot was made, the way a browser would read it.
Labels are looked up in the WHATWG Encoding Standard's table (the ``webencodings``
package), so ``latin1``, ``iso-8859-1`` and ``ascii`` mean windows-1252, ``gb2312``
means GBK and ``euc-kr`` means windows-949, while Python-only names (``utf-7``,
``latin_1``) are unknown labels: decoding a page differently from a browser would
make citations quote text the reader never saw.

:func:`decide_charset` is the only place that chooses an encoding. Live fetches,
snapshots built in code and WARC imports all reach it through ``new_snapshot``, so
the same bytes with the same header decode the same way whichever way they came
in. Its order is the HTML standard's: a byte-order mark, then a *valid* ``charset``
label in the Content-Type header, then, for HTML, the ``<meta>`` prescan of the first
1024 bytes (unless the bytes are invalid in that encoding and valid UTF-8: a transcoded
page's stale declaration), then UTF-8 when the bytes are UTF-8 (or mostly are), and only
when they are not, the standard's optional step: the legacy encoding detected from the bytes by
Firefox's detector (``chardetng``, source ``"detected"``), as a browser reads an
undeclared Shift_JIS, GBK, windows-1251 or windows-1252 page instead of showing U+FFFD.

Rules of :func:`decode_text_body` (reading with an already chosen label):

* an unknown label falls back to UTF-8 and adds a warning;
* bytes invalid in the chosen encoding become U+FFFD and add a warning;
* a leading byte-order mark that matches the chosen encoding is left out of the
  text (the stored bytes keep it); with no label a BOM selects UTF-8 or UTF-16.
"""

from __future__ import annotations

import codecs
import functools
import re
from dataclasses import dataclass

from pressmark.snapshot._labels import codec_for, lookup_encoding
from pressmark.snapshot._prescan import prescan_meta_charset

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final, Literal

    CharsetSource = Literal["header", "meta", "bom", "default", "detected"]

_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF8, "UTF-8", "utf-8"),
    (codecs.BOM_UTF16_BE, "UTF-16BE", "utf-16be"),
    (codecs.BOM_UTF16_LE, "UTF-16LE", "utf-16le"),
)

_WHITESPACE = "\t\n\f\r "
_X_USER_DEFINED = {byte: 0xF780 + byte - 0x80 for byte in range(0x80, 0x100)}
_MAX_LABEL_IN_WARNING = 40


@functools.cache
def _charset_param() -> re.Pattern[str]:
    """Compiled on first use: only a Content-Type header has one (``pressmark md`` has none)."""
    return re.compile(r"""charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s;"',]+))""", re.I)


def _c1_passthrough(exc: UnicodeError) -> tuple[str, int]:
    # windows-1252 leaves five bytes undefined; WHATWG maps them to the C1 controls.
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return "".join(chr(b) for b in exc.object[exc.start : exc.end]), exc.end


codecs.register_error("pressmark-whatwg-c1", _c1_passthrough)


@dataclass(frozen=True, slots=True, kw_only=True)
class DecodedText:
    """Text derived from stored bytes, and how it was derived."""

    text: str
    encoding: str  # WHATWG name of the encoding actually used, e.g. "windows-1252"
    warnings: tuple[str, ...] = ()
    bom_removed: bool = False
    replaced: bool = False  # invalid byte sequences became U+FFFD (``charset-invalid-bytes``)


@dataclass(frozen=True, slots=True, kw_only=True)
class CharsetDecision:
    """The label a browser would decode a response with, where it came from, and notes."""

    label: str | None  # lower-cased as declared ("latin1"), or None for the UTF-8 default
    source: CharsetSource
    warnings: tuple[str, ...] = ()


def bom_encoding(data: bytes) -> str | None:
    """The WHATWG name of the encoding a leading byte-order mark names, or None."""
    for bom, name, _ in _BOMS:
        if data.startswith(bom):
            return name
    return None


def charset_parameter(content_type: str | None) -> str | None:
    """The lower-cased ``charset`` parameter of a Content-Type value, known or not."""
    if not content_type:
        return None
    match = _charset_param().search(content_type)
    if match is None:
        return None
    label = next(group for group in match.groups() if group is not None).strip(_WHITESPACE)
    return label.lower() or None


def header_charset(content_type: str | None) -> str | None:
    """The Content-Type ``charset`` label if it is a WHATWG label, else None."""
    label = charset_parameter(content_type)
    return label if label is not None and lookup_encoding(label) is not None else None


def _shown(label: str) -> str:
    return repr(label[:_MAX_LABEL_IN_WARNING])


def decide_charset(data: bytes, content_type: str | None, *, is_html: bool,
                   valid_utf8: bool | None = None) -> CharsetDecision:
    """The encoding decision for a response body (see the module docstring for the order).

    ``valid_utf8``: whether the bytes are valid UTF-8, when the caller has checked already
    (the Markdown layer does, in C, for every page); None checks here when it matters.
    """
    warnings: list[str] = []
    declared = charset_parameter(content_type)
    valid = declared if declared is not None and lookup_encoding(declared) else None
    if declared is not None and valid is None:
        warnings.append(f"charset-unknown-header: Content-Type label {_shown(declared)} is "
                        "not a WHATWG encoding label; ignored")
    for bom, name, label in _BOMS:
        if data.startswith(bom):
            if valid is not None and lookup_encoding(valid) != name:
                warnings.append(f"charset-bom-overrides-header: header says {valid}, "
                                f"the byte-order mark says {label}")
            return CharsetDecision(label=label, source="bom", warnings=tuple(warnings))
    if valid is not None:
        return CharsetDecision(label=valid, source="header", warnings=tuple(warnings))
    if is_html:
        meta = prescan_meta_charset(data)
        if meta is not None and _meta_misstates(data, meta):
            warnings.append(f"charset-meta-ignored: <meta> says {_shown(meta)}, but the bytes "
                            "are not valid in it and are valid UTF-8; read as UTF-8")
        elif meta is not None:
            return CharsetDecision(label=meta, source="meta", warnings=tuple(warnings))
        if valid_utf8 is None:
            valid_utf8 = data.isascii() or _decodes_cleanly(data, "UTF-8")
        if not valid_utf8 and not _mostly_utf8(data):
            detected = detect_legacy_encoding(data)
            warnings.append(f"charset-detected: no charset declared and the bytes are not "
                            f"UTF-8; read as {detected}, detected from the bytes as a "
                            "browser does")
            return CharsetDecision(label=detected.lower(), source="detected",
                                   warnings=tuple(warnings))
    return CharsetDecision(label=None, source="default", warnings=tuple(warnings))


# The detector reads at most this much of a body: enough text for a confident guess on
# any page (a page's first 256 KiB hold its head, scripts included, and the opening of
# its text), and a bounded cost on a hostile one (~30 ms; the detector reads ~8 MB/s).
DETECTION_SAMPLE: Final = 256 * 1024


def _mostly_utf8(data: bytes) -> bool:
    """UTF-8 with a few bad bytes (a cut character, a stray Latin-1 byte pasted in): more
    of its non-ASCII characters decode than fail. Text in a legacy encoding almost never
    forms a valid UTF-8 sequence (its lead bytes are not followed by continuation
    bytes), so it fails nearly everywhere and goes to the detector; such a page read in
    a detected legacy encoding would garble every accented letter to spare one."""
    text = data[:DETECTION_SAMPLE].decode("utf-8", "replace")
    failed = text.count("\ufffd")
    decoded = len(text) - len(text.encode("ascii", "ignore")) - failed
    return decoded > failed


def detect_legacy_encoding(data: bytes) -> str:
    """The WHATWG name of the legacy encoding Firefox would read these bytes in.

    WHY Firefox's detector (``chardetng``): it is what a browser does for an undeclared
    page (the result is the text the reader saw), it only answers with encodings of the
    WHATWG standard, and it is deterministic. Its answer depends on the bytes alone (no
    top-level domain hint), so a file converted offline reads as the same page fetched.
    Loaded on first use: most pages declare their charset or are UTF-8.
    """
    from chardetng_py import detect  # noqa: PLC0415 - the rare undeclared legacy page

    name = str(detect(data[:DETECTION_SAMPLE], allow_utf8=False))
    return lookup_encoding(name) or "windows-1252"


def _meta_misstates(data: bytes, label: str) -> bool:
    """A ``<meta charset>`` the bytes contradict: invalid in it, valid UTF-8 with non-ASCII.

    A page transcoded to UTF-8 (a saved copy, a CMS migration) often keeps its old
    declaration; read by the label it is mojibake. Valid multi-byte UTF-8 does not
    happen by chance in a legacy encoding's text, and a header label still wins (this
    is the meta step only). Labels under which every byte is valid (windows-1252) are
    taken as declared.
    """
    name = lookup_encoding(label)
    if name is None or name == "UTF-8" or data.isascii():
        return False
    # Checked a piece at a time: only the verdicts are needed, never the text.
    return not _decodes_cleanly(data, name) and _decodes_cleanly(data, "UTF-8")


def sniff_charset(data: bytes, content_type: str | None, *, is_html: bool,
                  ) -> tuple[str | None, CharsetSource]:
    """``(label, source)`` of :func:`decide_charset`, without its warnings."""
    decision = decide_charset(data, content_type, is_html=is_html)
    return decision.label, decision.source


def text_encoding(data: bytes, charset: str | None) -> str | None:
    """The encoding :func:`decode_text_body` decodes ``data`` with under the label
    ``charset``, or None for a label it does not know (it then decodes UTF-8, with a
    warning). A caller may skip the decode when it can tell the result another way."""
    if charset is None or not charset.strip(_WHITESPACE):
        return bom_encoding(data) or "UTF-8"
    return lookup_encoding(charset)


def _unknown_label(charset: str | None) -> str:
    assert charset is not None
    return (f"charset-unknown: label {_shown(charset.strip(_WHITESPACE))} is "
            "not a known encoding; decoded as UTF-8")


def _invalid_bytes(name: str) -> str:
    return (f"charset-invalid-bytes: body is not valid {name}; "
            "invalid sequences replaced with U+FFFD")


def _without_bom(data: bytes, name: str) -> bytes | None:
    """``data`` less a byte-order mark of ``name``'s, or None when it has none."""
    for bom, bom_name, _ in _BOMS:
        if bom_name == name and data.startswith(bom):
            return data[len(bom) :]
    return None


def decode_text_body(data: bytes, charset: str | None) -> DecodedText:
    """Decode stored body bytes with an already chosen charset label (see the module rules)."""
    warnings: list[str] = []
    found = text_encoding(data, charset)
    if found is None:
        warnings.append(_unknown_label(charset))
    name = found or "UTF-8"
    payload = _without_bom(data, name)
    bom_removed = payload is not None
    text, clean = _decode(data if payload is None else payload, name)
    if not clean:
        warnings.append(_invalid_bytes(name))
    return DecodedText(text=text, encoding=name, warnings=tuple(warnings),
                       bom_removed=bom_removed, replaced=not clean)


_CHECK_PIECE = 1 << 20


def decode_warnings(data: bytes, charset: str | None) -> tuple[str, ...]:
    """The warnings :func:`decode_text_body` gives for ``data``, found without holding
    its text: the bytes are checked a piece at a time (a 64 MiB body whose one astral
    character would make its text 256 MiB costs a piece's worth here)."""
    warnings: list[str] = []
    found = text_encoding(data, charset)
    if found is None:
        warnings.append(_unknown_label(charset))
    name = found or "UTF-8"
    payload = _without_bom(data, name)
    if not _decodes_cleanly(data if payload is None else payload, name):
        warnings.append(_invalid_bytes(name))
    return tuple(warnings)


def _decodes_cleanly(data: bytes, name: str) -> bool:
    if name == "replacement":
        return not data
    if name in ("x-user-defined", "windows-1252"):  # every byte decodes (see _decode)
        return True
    decoder = codecs.getincrementaldecoder(codec_for(name))("strict")
    view = memoryview(data)
    try:
        for start in range(0, len(view), _CHECK_PIECE):
            decoder.decode(view[start : start + _CHECK_PIECE], False)
        decoder.decode(b"", True)
    except UnicodeDecodeError:
        return False
    return True


def _decode(data: bytes, name: str) -> tuple[str, bool]:
    if name == "replacement":
        # Encodings browsers refuse to decode (ISO-2022-KR, HZ, ...): one U+FFFD.
        return ("\ufffd" if data else ""), not data
    if name == "x-user-defined":
        # One translate over the Latin-1 reading, not a string per byte (a 64 MiB body
        # as 64 million one-character strings is gigabytes).
        return data.decode("latin-1").translate(_X_USER_DEFINED), True
    codec = codec_for(name)
    if name == "windows-1252":
        return data.decode(codec, "pressmark-whatwg-c1"), True
    try:
        return data.decode(codec), True
    except UnicodeDecodeError:
        return data.decode(codec, "replace"), False
