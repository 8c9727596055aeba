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
_SPACE = b"\t\n\x0c\r "


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
        while pos < len(lower) and lower[pos] in _SPACE:
            pos += 1
        if pos >= len(lower) or lower[pos] != 0x3D:  # "="
            continue
        pos += 1
        while pos < len(lower) and lower[pos] in _SPACE:
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
            while end < len(lower) and lower[end] not in _SPACE and lower[end] != 0x3B:
                end += 1
            value = content[pos:end]
        return _known(value.decode("latin-1"))


def _get_attribute(data: bytes, pos: int) -> tuple[bytes, bytes, int] | None:
    """WHATWG "get an attribute": returns (name, value, new position) or None at '>'."""
    n = len(data)
    while pos < n and (data[pos] in _SPACE or data[pos] == 0x2F):
        pos += 1
    if pos >= n or data[pos] == 0x3E:
        return None
    name = bytearray()
    value = bytearray()
    while pos < n:
        c = data[pos]
        if c == 0x3D and name:
            pos += 1
            break
        if c in _SPACE:
            while pos < n and data[pos] in _SPACE:
                pos += 1
            if pos < n and data[pos] == 0x3D:
                pos += 1
                break
            return bytes(name), b"", pos
        if c in (0x2F, 0x3E):
            return bytes(name), b"", pos
        name.append(c | 0x20 if 0x41 <= c <= 0x5A else c)
        pos += 1
    while pos < n and data[pos] in _SPACE:
        pos += 1
    if pos >= n:
        return bytes(name), b"", pos
    c = data[pos]
    if c in b"\"'":
        end = data.find(bytes([c]), pos + 1)
        if end < 0:
            return bytes(name), bytes(data[pos + 1:]).lower(), n
        return bytes(name), bytes(data[pos + 1:end]).lower(), end + 1
    if c == 0x3E:
        return bytes(name), b"", pos
    while pos < n and data[pos] not in _SPACE and data[pos] != 0x3E:
        value.append(data[pos] | 0x20 if 0x41 <= data[pos] <= 0x5A else data[pos])
        pos += 1
    return bytes(name), bytes(value), pos


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
                buf[pos + 5] in _SPACE or buf[pos + 5] == 0x2F):
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
            while pos < n and buf[pos] not in _SPACE and buf[pos] != 0x3E:
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
