"""Text decoding with WHATWG encoding labels.

A page's bytes are stored exactly; its text is always *derived* from them with the
charset it declared, the way a browser would read it. The label table follows the
WHATWG Encoding Standard, so ``latin1``, ``iso-8859-1`` and ``ascii`` mean
windows-1252, ``gb2312`` means GBK and ``euc-kr`` means windows-949: decoding a
page differently from a browser would make citations quote text the reader never
saw.

Rules of :func:`decode_text_body`:

* an unknown label falls back to UTF-8 and adds a warning;
* bytes invalid in the chosen encoding become U+FFFD and add a warning;
* a leading byte-order mark that matches the chosen encoding is left out of the
  text (the stored bytes keep it) and never overrides a declared charset; with no
  declared charset a BOM selects UTF-8 or UTF-16.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

# WHATWG name -> (Python codec, labels). The Python codec is the closest
# browser-compatible one (cp932 for Shift_JIS, cp949 for EUC-KR, big5hkscs for Big5).
_ENCODINGS: dict[str, tuple[str, str]] = {
    "UTF-8": ("utf-8", "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8"),
    "IBM866": ("cp866", "866 cp866 csibm866 ibm866"),
    "ISO-8859-2": ("iso8859_2", "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 "
                   "iso_8859-2 iso_8859-2:1987 l2 latin2"),
    "ISO-8859-3": ("iso8859_3", "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 "
                   "iso_8859-3 iso_8859-3:1988 l3 latin3"),
    "ISO-8859-4": ("iso8859_4", "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 "
                   "iso_8859-4 iso_8859-4:1988 l4 latin4"),
    "ISO-8859-5": ("iso8859_5", "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 "
                   "iso88595 iso_8859-5 iso_8859-5:1988"),
    "ISO-8859-6": ("iso8859_6", "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic "
                   "ecma-114 iso-8859-6 iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 "
                   "iso88596 iso_8859-6 iso_8859-6:1987"),
    "ISO-8859-7": ("iso8859_7", "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 "
                   "iso-ir-126 iso8859-7 iso88597 iso_8859-7 iso_8859-7:1987 sun_eu_greek"),
    "ISO-8859-8": ("iso8859_8", "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e "
                   "iso-ir-138 iso8859-8 iso88598 iso_8859-8 iso_8859-8:1988 visual"),
    "ISO-8859-8-I": ("iso8859_8", "csiso88598i iso-8859-8-i logical"),
    "ISO-8859-10": ("iso8859_10", "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 "
                    "l6 latin6"),
    "ISO-8859-13": ("iso8859_13", "iso-8859-13 iso8859-13 iso885913"),
    "ISO-8859-14": ("iso8859_14", "iso-8859-14 iso8859-14 iso885914"),
    "ISO-8859-15": ("iso8859_15", "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9"),
    "ISO-8859-16": ("iso8859_16", "iso-8859-16"),
    "KOI8-R": ("koi8_r", "cskoi8r koi koi8 koi8-r koi8_r"),
    "KOI8-U": ("koi8_u", "koi8-ru koi8-u"),
    "macintosh": ("mac_roman", "csmacintosh mac macintosh x-mac-roman"),
    "windows-874": ("cp874", "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874"),
    "windows-1250": ("cp1250", "cp1250 windows-1250 x-cp1250"),
    "windows-1251": ("cp1251", "cp1251 windows-1251 x-cp1251"),
    "windows-1252": ("cp1252", "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 "
                     "iso-8859-1 iso-ir-100 iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 "
                     "l1 latin1 us-ascii windows-1252 x-cp1252"),
    "windows-1253": ("cp1253", "cp1253 windows-1253 x-cp1253"),
    "windows-1254": ("cp1254", "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 "
                     "iso_8859-9 iso_8859-9:1989 l5 latin5 windows-1254 x-cp1254"),
    "windows-1255": ("cp1255", "cp1255 windows-1255 x-cp1255"),
    "windows-1256": ("cp1256", "cp1256 windows-1256 x-cp1256"),
    "windows-1257": ("cp1257", "cp1257 windows-1257 x-cp1257"),
    "windows-1258": ("cp1258", "cp1258 windows-1258 x-cp1258"),
    "x-mac-cyrillic": ("mac_cyrillic", "x-mac-cyrillic x-mac-ukrainian"),
    "GBK": ("gb18030", "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk "
            "iso-ir-58 x-gbk"),
    "gb18030": ("gb18030", "gb18030"),
    "Big5": ("big5hkscs", "big5 big5-hkscs cn-big5 csbig5 x-x-big5"),
    "EUC-JP": ("euc_jp", "cseucpkdfmtjapanese euc-jp x-euc-jp"),
    "ISO-2022-JP": ("iso2022_jp", "csiso2022jp iso-2022-jp"),
    "Shift_JIS": ("cp932", "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j "
                  "x-sjis"),
    "EUC-KR": ("cp949", "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 "
               "ks_c_5601-1989 ksc5601 ksc_5601 windows-949"),
    "replacement": ("replacement", "csiso2022kr hz-gb-2312 iso-2022-cn iso-2022-cn-ext "
                    "iso-2022-kr replacement"),
    "UTF-16BE": ("utf-16-be", "unicodefffe utf-16be"),
    "UTF-16LE": ("utf-16-le", "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 "
                 "utf-16le"),
    "x-user-defined": ("x-user-defined", "x-user-defined"),
}

_LABELS: dict[str, str] = {
    label: name for name, (_, labels) in _ENCODINGS.items() for label in labels.split()
}

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "UTF-8"),
    (codecs.BOM_UTF16_BE, "UTF-16BE"),
    (codecs.BOM_UTF16_LE, "UTF-16LE"),
)

_WHITESPACE = "\t\n\f\r "
_MAX_LABEL_IN_WARNING = 40


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


def lookup_encoding(label: str | None) -> str | None:
    """The WHATWG encoding name for a label (``"latin1"`` -> ``"windows-1252"``), or None."""
    if label is None:
        return None
    return _LABELS.get(label.strip(_WHITESPACE).lower())


def bom_encoding(data: bytes) -> str | None:
    """The encoding a leading byte-order mark names, or None."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    return None


def decode_text_body(data: bytes, charset: str | None) -> DecodedText:
    """Decode stored body bytes with a declared charset label (see the module rules)."""
    warnings: list[str] = []
    if charset is None or not charset.strip(_WHITESPACE):
        name = bom_encoding(data) or "UTF-8"
    else:
        found = lookup_encoding(charset)
        if found is None:
            shown = charset.strip(_WHITESPACE)[:_MAX_LABEL_IN_WARNING]
            warnings.append(f"charset-unknown: label {shown!r} is not a known encoding; "
                            "decoded as UTF-8")
            name = "UTF-8"
        else:
            name = found
    bom_removed = False
    payload = data
    for bom, bom_name in _BOMS:
        if bom_name == name and data.startswith(bom):
            payload = data[len(bom) :]
            bom_removed = True
            break
    text, clean = _decode(payload, name)
    if not clean:
        warnings.append(f"charset-invalid-bytes: body is not valid {name}; "
                        "invalid sequences replaced with U+FFFD")
    return DecodedText(text=text, encoding=name, warnings=tuple(warnings), bom_removed=bom_removed)


def _decode(data: bytes, name: str) -> tuple[str, bool]:
    if name == "replacement":
        # Encodings browsers refuse to decode (ISO-2022-KR, HZ, ...): one U+FFFD.
        return ("\ufffd" if data else ""), not data
    if name == "x-user-defined":
        return "".join(chr(b) if b < 0x80 else chr(0xF780 + b - 0x80) for b in data), True
    codec = _ENCODINGS[name][0]
    if name == "windows-1252":
        return data.decode(codec, "pressmark-whatwg-c1"), True
    try:
        return data.decode(codec), True
    except UnicodeDecodeError:
        return data.decode(codec, "replace"), False


_CHARSET_PARAM = re.compile(r"""charset\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s;"',]+))""", re.I)
_META = re.compile(rb"<meta\b[^>]*>", re.I)
_META_CHARSET = re.compile(rb"""charset\s*=\s*["']?\s*([A-Za-z0-9_:.+\-]+)""", re.I)
_PRESCAN_BYTES = 1024


def charset_from_content_type(content_type: str | None) -> str | None:
    """The lower-cased ``charset`` parameter of a Content-Type header value, or None."""
    if not content_type:
        return None
    match = _CHARSET_PARAM.search(content_type)
    if match is None:
        return None
    label = next(group for group in match.groups() if group is not None).strip(_WHITESPACE)
    return label.lower() or None


def sniff_meta_charset(prefix: bytes) -> str | None:
    """The lower-cased charset an HTML ``<meta>`` declares in the first 1024 bytes, or None.

    A simplified form of the WHATWG prescan: ``<meta charset=...>`` and
    ``<meta http-equiv=content-type content="...; charset=...">``. A declared
    UTF-16 label means UTF-8 here, as in browsers (a page that can be read as
    ASCII cannot be UTF-16).
    """
    for tag in _META.finditer(prefix[:_PRESCAN_BYTES]):
        match = _META_CHARSET.search(tag.group(0))
        if match is None:
            continue
        label = match.group(1).decode("ascii").lower()
        if lookup_encoding(label) in ("UTF-16BE", "UTF-16LE"):
            return "utf-8"
        return label
    return None
