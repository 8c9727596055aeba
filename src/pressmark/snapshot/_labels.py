"""WHATWG encoding labels, from the Encoding Standard's table (the ``webencodings`` package).

Only labels in that table name an encoding: ``utf-7``, ``latin_1`` and other
Python codec aliases are unknown labels, exactly as in a browser.

UTF-8 is answered without the table: nearly every page is UTF-8 (declared as
``utf-8``/``utf8`` in any ASCII case, or not at all), and loading ``webencodings`` is
about 1.5 % of a ``pressmark md`` start-up, which then never needs it.
``tests/unit/snapshot/test_charset.py`` holds the shortcut to the table.
"""

from __future__ import annotations

# webencodings spells every name in lower case; these are the standard's spellings.
_NAMES: dict[str, str] = {
    "utf-8": "UTF-8", "ibm866": "IBM866", "koi8-r": "KOI8-R", "koi8-u": "KOI8-U",
    "gbk": "GBK", "big5": "Big5", "euc-jp": "EUC-JP", "iso-2022-jp": "ISO-2022-JP",
    "shift_jis": "Shift_JIS", "euc-kr": "EUC-KR", "utf-16be": "UTF-16BE", "utf-16le": "UTF-16LE",
}
# Where a browser's decoder is closer to another Python codec than webencodings' pick:
# the standard decodes GBK with the gb18030 decoder.
_CODECS: dict[str, str] = {"GBK": "gb18030"}
_WHITESPACE = "\t\n\f\r "
# The two UTF-8 labels pages use, ASCII lower-cased as the standard compares labels.
_UTF8_LABELS = frozenset({"utf-8", "utf8"})


def lookup_encoding(label: str | None) -> str | None:
    """The WHATWG encoding name for a label (``"latin1"`` -> ``"windows-1252"``), or None."""
    if label is None:
        return None
    label = label.strip(_WHITESPACE)
    if label.isascii() and label.lower() in _UTF8_LABELS:
        return "UTF-8"
    import webencodings  # noqa: PLC0415 - loads with the first other label (module docstring)

    found = webencodings.lookup(label)
    if found is None:
        return None
    name: str = found.name
    return _NAMES.get(name, name.upper() if name.startswith("iso-") else name)


def codec_for(name: str) -> str:
    """The Python codec that decodes the WHATWG encoding ``name`` as a browser does."""
    if name == "UTF-8":
        return "utf-8"
    if name in _CODECS:
        return _CODECS[name]
    import webencodings  # noqa: PLC0415 - as in lookup_encoding

    found = webencodings.lookup(name)
    if found is None:
        raise LookupError(name)
    codec: str = found.codec_info.name
    return codec
