"""Incremental content decoding with bounded memory.

Each decoder turns one compressed chunk into a series of output pieces of at
most ``PIECE`` bytes, so a bomb never materialises more than a piece at a time;
the response counts decoded bytes against the cap and watches the ratio of
decoded to received bytes. Supported: gzip (``x-gzip``), deflate (zlib or raw),
br, zstd, identity. Unknown codings pass through undecoded.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Final, Protocol

import brotli
import zstandard

PIECE: Final = 64 * 1024
MAX_CODINGS: Final = 5  # like curl (CVE-2022-32206): stacked codings are a bomb, not a format
_ZSTD_SLICE: Final = 512  # compressed bytes per zstd call: bounds a single call's output


class DecodeError(Exception):
    """The body does not decode as its Content-Encoding says."""


class Decoder(Protocol):
    def feed(self, data: bytes) -> Iterator[bytes]: ...
    def flush(self) -> Iterator[bytes]: ...


class _ZlibDecoder:
    def __init__(self, wbits: int, *, fallback_raw: bool = False) -> None:
        self._wbits = wbits
        self._obj = zlib.decompressobj(wbits)
        self._fallback_raw = fallback_raw
        self._started = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            while data:
                if self._obj.eof:  # concatenated gzip members
                    data = self._obj.unused_data + data
                    if not data.strip(b"\x00"):
                        return
                    self._obj = zlib.decompressobj(self._wbits)
                out = self._obj.decompress(data, PIECE)
                self._started = True
                data = self._obj.unconsumed_tail
                if self._obj.eof and self._obj.unused_data:
                    data = self._obj.unused_data + data
                    self._obj = zlib.decompressobj(self._wbits)
                if out:
                    yield out
        except zlib.error as exc:
            if self._fallback_raw and not self._started:
                self._fallback_raw = False
                self._wbits = -zlib.MAX_WBITS
                self._obj = zlib.decompressobj(self._wbits)
                yield from self.feed(data)
                return
            raise DecodeError(str(exc)) from exc

    def flush(self) -> Iterator[bytes]:
        try:
            out = self._obj.flush()
        except zlib.error as exc:  # pragma: no cover
            raise DecodeError(str(exc)) from exc
        if out:
            yield out


class _BrotliDecoder:
    def __init__(self) -> None:
        self._obj = brotli.Decompressor()

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            out = self._obj.process(data, output_buffer_limit=PIECE)
            if out:
                yield out
            while not self._obj.can_accept_more_data():
                out = self._obj.process(b"", output_buffer_limit=PIECE)
                if not out:
                    break
                yield out
        except brotli.error as exc:
            raise DecodeError(str(exc)) from exc

    def flush(self) -> Iterator[bytes]:
        return iter(())


class _ZstdDecoder:
    def __init__(self) -> None:
        self._obj = zstandard.ZstdDecompressor().decompressobj(read_across_frames=True)

    def feed(self, data: bytes) -> Iterator[bytes]:
        view = memoryview(data)
        try:
            for start in range(0, len(view), _ZSTD_SLICE):
                out = self._obj.decompress(view[start : start + _ZSTD_SLICE])
                for i in range(0, len(out), PIECE):
                    yield out[i : i + PIECE]
        except zstandard.ZstdError as exc:
            raise DecodeError(str(exc)) from exc

    def flush(self) -> Iterator[bytes]:
        return iter(())


class _Refuse:
    """Stands in for a chain that must not be run: every feed fails as a decode error."""

    def __init__(self, reason: str) -> None:
        self._reason = reason

    def feed(self, data: bytes) -> Iterator[bytes]:
        raise DecodeError(self._reason)

    def flush(self) -> Iterator[bytes]:
        raise DecodeError(self._reason)


def decoders_for(content_encoding: str | None) -> list[Decoder] | None:
    """Decoders to apply in order, or ``None`` when the body is sent as is (or unknown)."""
    if not content_encoding:
        return None
    codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
    if sum(c != "identity" for c in codings) > MAX_CODINGS:
        return [_Refuse(f"more than {MAX_CODINGS} stacked content codings")]
    chain: list[Decoder] = []
    for coding in reversed(codings):  # the last applied coding is undone first
        if coding in ("gzip", "x-gzip"):
            chain.append(_ZlibDecoder(16 + zlib.MAX_WBITS))
        elif coding == "deflate":
            chain.append(_ZlibDecoder(zlib.MAX_WBITS, fallback_raw=True))
        elif coding == "br":
            chain.append(_BrotliDecoder())
        elif coding == "zstd":
            chain.append(_ZstdDecoder())
        elif coding == "identity":
            continue
        else:
            return None
    return chain or None


def run_chain(chain: list[Decoder], data: bytes, *, final: bool = False) -> Iterator[bytes]:
    """Push ``data`` through every decoder, yielding bounded pieces of the innermost output."""
    yield from _stage(chain, 0, data, final)


def _stage(chain: list[Decoder], index: int, data: bytes, final: bool) -> Iterator[bytes]:
    if index == len(chain):
        if data:
            yield data
        return
    decoder = chain[index]
    for piece in decoder.feed(data):
        yield from _stage(chain, index + 1, piece, False)
    if final:
        for piece in decoder.flush():
            yield from _stage(chain, index + 1, piece, False)
        yield from _stage(chain, index + 1, b"", True)
