"""JSON string literals as UTF-8 bytes: what ``md --batch --chunks`` writes a chunk with.

``json_text(s, start, end)`` is ``json.dumps(s[start:end], ensure_ascii=False)`` encoded
as UTF-8 (a lone surrogate as its three bytes, ``surrogatepass``), ``json_words`` the
same of ``" ".join(s[start:end].split())`` (the chunk id's normalised text, see
:mod:`pressmark.cite._chunks`), ``json_texts(strings)`` each string's literal joined by
commas. ``_native_json.c`` writes the same bytes in C when it was built (the tests hold
the two to each other); the functions here are the reading it is held to, and stand in
without a C compiler.

WHY bytes and spans: a page's JSON lines are twice its Markdown long, and made as
``str`` they cost a copy of each chunk's text, json's encoder, the split and join of the
normalisation, and a UTF-8 encoding of the lines (of 2-byte strings, once one curly quote
is on the page): as much as cutting the page.

WHY not orjson (it writes UTF-8 with the same escapes, and the bytes were equal on every
readability-set chunk): it takes ``str`` objects, so each chunk's text is still copied out
of the Markdown and normalised by ``split``/``join`` before it is written, and a 2-byte
string is encoded through CPython's UTF-8 cache. Counted on the readability set's chunks
(callgrind, the same lines, SHA-256 in both): 1.67 M instructions a page with orjson,
0.69 M with this module, a difference of 3.3 % of ``md --batch``'s work per page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from json.encoder import encode_basestring
from typing import Final


def _span(s: str, start: int, end: int) -> str:
    if not 0 <= start <= end <= len(s):
        raise ValueError(f"[{start}, {end}) is not a span of the string")
    return s[start:end]


def json_text_in_python(s: str, start: int, end: int, /) -> bytes:
    return encode_basestring(_span(s, start, end)).encode("utf-8", "surrogatepass")


def json_words_in_python(s: str, start: int, end: int, /) -> bytes:
    return encode_basestring(" ".join(_span(s, start, end).split())).encode(
        "utf-8", "surrogatepass")


def json_texts_in_python(strings: Sequence[str], /) -> bytes:
    return ",".join([encode_basestring(s) for s in strings]).encode("utf-8", "surrogatepass")


def _load() -> tuple[Callable[[str, int, int], bytes], Callable[[str, int, int], bytes],
                     Callable[[Sequence[str]], bytes]]:
    """The C functions when they were built, else the Python ones."""
    try:
        from pressmark.cite import _native_json  # noqa: PLC0415 - optional, built in C
    except ImportError:  # built without a C compiler
        return json_text_in_python, json_words_in_python, json_texts_in_python
    return _native_json.json_text, _native_json.json_words, _native_json.json_texts


_LOADED: Final = _load()
json_text: Final = _LOADED[0]
json_words: Final = _LOADED[1]
json_texts: Final = _LOADED[2]
