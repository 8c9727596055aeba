"""WHATWG encoding labels, from the Encoding Standard's table (the ``webencodings`` package).

Only labels in that table name an encoding: ``utf-7``, ``latin_1`` and other
Python codec aliases are unknown labels, exactly as in a browser.
"""

from __future__ import annotations

import webencodings

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


def lookup_encoding(label: str | None) -> str | None:
    """The WHATWG encoding name for a label (``"latin1"`` -> ``"windows-1252"``), or None."""
    if label is None:
        return None
    found = webencodings.lookup(label.strip(_WHITESPACE))
    if found is None:
        return None
    name: str = found.name
    return _NAMES.get(name, name.upper() if name.startswith("iso-") else name)


def codec_for(name: str) -> str:
    """The Python codec that decodes the WHATWG encoding ``name`` as a browser does."""
    if name in _CODECS:
        return _CODECS[name]
    found = webencodings.lookup(name)
    if found is None:
        raise LookupError(name)
    codec: str = found.codec_info.name
    return codec
