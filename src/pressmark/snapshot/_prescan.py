"""The HTML standard's ``<meta>`` prescan of a byte stream (its first 1024 bytes).

"Prescan a byte stream to determine its encoding", step by step: comments are
skipped, attribute values are read the way the tokenizer reads them, the first
``charset`` of a ``<meta>`` wins, a ``content`` value needs an ``http-equiv``
pragma, an unknown label ends that ``<meta>`` (the next one is tried), UTF-16
becomes UTF-8 and ``x-user-defined`` becomes windows-1252.
"""

from __future__ import annotations

from pressmark.snapshot._labels import lookup_encoding

_PRESCAN_BYTES = 1024


def _space(c: int) -> bool:
    """An ASCII whitespace byte (tab, LF, FF, CR, space), as the prescan's steps say.

    WHY comparisons, not ``c in b"\\t\\n\\x0c\\r "``: this module is compiled (mypyc,
    pyproject.toml), and there a test of five constants is a few instructions where a
    ``bytes`` membership test is a generic call on a boxed int, once per byte read.
    """
    return c in (0x20, 0x0A, 0x09, 0x0C, 0x0D)  # compiled: five comparisons, no call


def _known(label: str) -> str | None:
    label = label.strip().strip("\"'").strip().lower()
    if not label or lookup_encoding(label) is None:
        return None
    if label == "x-user-defined":
        return "windows-1252"
    return label


def charset_from_meta_content(content: bytes) -> str | None:
    """WHATWG "extract a character encoding from a meta element" on a content attribute."""
    lower = content.lower()
    pos = 0
    while True:
        idx = lower.find(b"charset", pos)
        if idx < 0:
            return None
        pos = idx + 7
        while pos < len(lower) and _space(lower[pos]):
            pos += 1
        if pos >= len(lower) or lower[pos] != 0x3D:  # "="
            continue
        pos += 1
        while pos < len(lower) and _space(lower[pos]):
            pos += 1
        if pos >= len(lower):
            return None
        quote = lower[pos]
        if quote in b"\"'":
            end = lower.find(bytes([quote]), pos + 1)
            if end < 0:
                return None
            value = content[pos + 1:end]
        else:
            end = pos
            while end < len(lower) and not _space(lower[end]) and lower[end] != 0x3B:
                end += 1
            value = content[pos:end]
        return _known(value.decode("latin-1"))


def _get_attribute(data: bytes, pos: int) -> tuple[bytes, bytes, int] | None:
    """WHATWG "get an attribute": returns (name, value, new position) or None at '>'.

    The name and an unquoted value are found first and sliced out lowered whole
    (``bytes.lower`` lowers A-Z only, the standard's "ASCII lowercase"), not appended
    to a ``bytearray`` a byte at a time: compiled, each append is a method call.
    """
    n = len(data)
    while pos < n and (_space(data[pos]) or data[pos] == 0x2F):
        pos += 1
    if pos >= n or data[pos] == 0x3E:
        return None
    start = pos
    # "=" ends the name unless it is the name's first byte
    while pos < n and not (_space(data[pos]) or data[pos] == 0x2F or data[pos] == 0x3E
                           or (data[pos] == 0x3D and pos > start)):
        pos += 1
    name = data[start:pos].lower()
    if pos >= n:
        return name, b"", pos
    if _space(data[pos]):
        while pos < n and _space(data[pos]):
            pos += 1
        if pos >= n or data[pos] != 0x3D:
            return name, b"", pos
    elif data[pos] != 0x3D:  # "/" or ">"
        return name, b"", pos
    pos += 1
    while pos < n and _space(data[pos]):
        pos += 1
    if pos >= n:
        return name, b"", pos
    c = data[pos]
    if c in b"\"'":
        end = data.find(bytes([c]), pos + 1)
        if end < 0:
            return name, data[pos + 1:].lower(), n
        return name, data[pos + 1:end].lower(), end + 1
    if c == 0x3E:
        return name, b"", pos
    start = pos
    while pos < n and not _space(data[pos]) and data[pos] != 0x3E:
        pos += 1
    return name, data[start:pos].lower(), pos


def prescan_meta_charset(data: bytes, limit: int = _PRESCAN_BYTES) -> str | None:
    """WHATWG "prescan a byte stream to determine its encoding" over ``data[:limit]``."""
    buf = data[:limit]
    n = len(buf)
    pos = 0
    lower = buf.lower()
    while pos < n:
        lt = buf.find(b"<", pos)
        if lt < 0:
            return None
        pos = lt
        if buf.startswith(b"<!--", pos):
            end = buf.find(b"-->", pos + 2)
            if end < 0:
                return None
            pos = end + 3
            continue
        if lower.startswith(b"<meta", pos) and pos + 5 < n and (
                _space(buf[pos + 5]) or buf[pos + 5] == 0x2F):
            pos += 6
            seen: set[bytes] = set()
            got_pragma = False
            need_pragma: bool | None = None
            charset: str | None = None
            charset_set = False   # a charset attribute naming an unknown label still counts
            while True:
                attr = _get_attribute(buf, pos)
                if attr is None:
                    break
                name, value, pos = attr
                if name in seen:
                    continue
                seen.add(name)
                if name == b"http-equiv" and value == b"content-type":
                    got_pragma = True
                elif name == b"content" and not charset_set:
                    found = charset_from_meta_content(value)
                    if found is not None:
                        charset, charset_set = found, True
                        need_pragma = True
                elif name == b"charset" and not charset_set:
                    charset, charset_set = _known(value.decode("latin-1")), True
                    need_pragma = False
                if pos >= n:
                    break
            if need_pragma is None or (need_pragma and not got_pragma) or charset is None:
                continue
            if lookup_encoding(charset) in ("UTF-16BE", "UTF-16LE"):
                charset = "utf-8"
            return charset
        if pos + 1 < n and (buf[pos + 1:pos + 2].isalpha() or (
                buf[pos + 1] == 0x2F and buf[pos + 2:pos + 3].isalpha())):
            # A start or end tag: skip its name, then its attributes.
            pos += 2
            while pos < n and not _space(buf[pos]) and buf[pos] != 0x3E:
                pos += 1
            while True:
                attr = _get_attribute(buf, pos)
                if attr is None:
                    break
                pos = attr[2]
                if pos >= n:
                    break
            pos += 1
            continue
        if buf.startswith((b"<!", b"</", b"<?"), pos):
            end = buf.find(b">", pos)
            if end < 0:
                return None
            pos = end + 1
            continue
        pos += 1
    return None
