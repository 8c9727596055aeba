"""Fault endpoints: answers that break HTTP on purpose, for robustness tests.

Each fault takes over the raw connection and the server closes it afterwards. Sizes
and delays come from query parameters so tests can keep them short.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import zlib
from functools import partial

from pressmark.demo._http import Fault, encode_head

_MIB = 1024 * 1024
_CHUNK = 64 * 1024
_BOMBS: dict[int, bytes] = {}
_FILLER = (b"<p>" + b"This page never ends. " * 40 + b"</p>\n") * 64


def _num(query: dict[str, str], name: str, default: float, low: float, high: float) -> float:
    try:
        value = float(query.get(name, default))
    except ValueError:
        return default
    return min(max(value, low), high)


def _head(status: int, *pairs: tuple[str, str]) -> bytes:
    return encode_head(status, [("Server", "pressmark-demo"), *pairs, ("Connection", "close")])


_PAGE = (b"<!DOCTYPE html>\n<html><head><title>Finally</title></head><body>"
         b"<h1>Finally</h1><p>The headers took their time.</p></body></html>\n")


async def _slow_headers(seconds: float, _r: asyncio.StreamReader,
                        writer: asyncio.StreamWriter) -> None:
    await asyncio.sleep(seconds)
    writer.write(_head(200, ("Content-Type", "text/html; charset=utf-8"),
                       ("Content-Length", str(len(_PAGE)))) + _PAGE)
    await writer.drain()


async def _slow_body(chunks: int, interval: float, _r: asyncio.StreamReader,
                     writer: asyncio.StreamWriter) -> None:
    piece = b"<p>" + b"drip " * 11 + b".</p>\n"  # 64 bytes
    writer.write(_head(200, ("Content-Type", "text/html; charset=utf-8"),
                       ("Content-Length", str(len(piece) * chunks))))
    for _ in range(chunks):
        writer.write(piece)
        await writer.drain()
        await asyncio.sleep(interval)


async def _reset(_r: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(_head(200, ("Content-Type", "text/html; charset=utf-8"),
                       ("Content-Length", "100000")) + _FILLER[:10_000])
    await writer.drain()
    await asyncio.sleep(0.05)
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


async def _wrong_length(declared: int, sent: int, _r: asyncio.StreamReader,
                        writer: asyncio.StreamWriter) -> None:
    writer.write(_head(200, ("Content-Type", "text/html; charset=utf-8"),
                       ("Content-Length", str(declared))) + _FILLER[:sent])
    await writer.drain()


def _gf2_times(matrix: list[int], vector: int) -> int:
    total = 0
    index = 0
    while vector:
        if vector & 1:
            total ^= matrix[index]
        vector >>= 1
        index += 1
    return total


def _gf2_square(matrix: list[int]) -> list[int]:
    return [_gf2_times(matrix, row) for row in matrix]


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """CRC-32 of ``a + b`` from ``crc32(a)``, ``crc32(b)`` and ``len(b)`` (zlib's method).

    The standard library has no ``crc32_combine``; without it the bomb's trailer would
    cost a pass over every decoded byte (seconds for a GiB).
    """
    if len2 <= 0:
        return crc1
    odd = [0xEDB88320] + [1 << n for n in range(31)]  # one zero bit
    even = _gf2_square(odd)  # two zero bits
    odd = _gf2_square(even)  # four zero bits
    while True:
        even = _gf2_square(odd)
        if len2 & 1:
            crc1 = _gf2_times(even, crc1)
        len2 >>= 1
        if not len2:
            break
        odd = _gf2_square(even)
        if len2 & 1:
            crc1 = _gf2_times(odd, crc1)
        len2 >>= 1
        if not len2:
            break
    return crc1 ^ crc2


def _crc32_of_zeros(mib: int, unit_crc: int) -> int:
    """CRC-32 of ``mib`` MiB of zeros by doubling, from the CRC of one MiB."""
    total = 0
    block_crc, block_len = unit_crc, _MIB
    while mib:
        if mib & 1:
            total = crc32_combine(total, block_crc, block_len)
        block_crc = crc32_combine(block_crc, block_crc, block_len)
        block_len *= 2
        mib >>= 1
    return total


def gzip_bomb_bytes(mib: int) -> bytes:
    """A gzip member that inflates to ``mib`` MiB of zeros, about 1 KiB per MiB.

    Built from one repeatable deflate unit (after a full flush the compressor forgets
    its history, so each further MiB encodes to the same bytes); cached per size.
    """
    cached = _BOMBS.get(mib)
    if cached is not None:
        return cached
    zeros = bytes(_MIB)
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = comp.compress(zeros) + comp.flush(zlib.Z_FULL_FLUSH)
    unit = comp.compress(zeros) + comp.flush(zlib.Z_FULL_FLUSH)
    crc = _crc32_of_zeros(mib, zlib.crc32(zeros))
    tail = b"\x03\x00" + struct.pack("<II", crc & 0xFFFFFFFF, (mib * _MIB) & 0xFFFFFFFF)
    data = first + unit * (mib - 1) + tail
    _BOMBS[mib] = data
    return data


async def _gzip_bomb(mib: int, _r: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    data = gzip_bomb_bytes(mib)
    writer.write(_head(200, ("Content-Type", "text/html; charset=utf-8"),
                       ("Content-Encoding", "gzip"), ("Content-Length", str(len(data)))))
    for start in range(0, len(data), _CHUNK):
        writer.write(data[start:start + _CHUNK])
        await writer.drain()


async def _bad_gzip(_r: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    body = b"this is not gzip at all, although the header says so\n" * 4
    writer.write(_head(200, ("Content-Type", "text/html; charset=utf-8"),
                       ("Content-Encoding", "gzip"), ("Content-Length", str(len(body)))) + body)
    await writer.drain()


async def _huge(mib: float, chunked: bool, _r: asyncio.StreamReader,
                writer: asyncio.StreamWriter) -> None:
    total = int(mib * _MIB)
    pairs = [("Content-Type", "text/html; charset=utf-8")]
    pairs.append(("Transfer-Encoding", "chunked") if chunked else
                 ("Content-Length", str(total)))
    writer.write(_head(200, *pairs))
    remaining = total
    while remaining > 0:
        piece = _FILLER[:min(len(_FILLER), remaining)]
        remaining -= len(piece)
        writer.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
        await writer.drain()
    if chunked:
        writer.write(b"0\r\n\r\n")
        await writer.drain()


async def _empty(_r: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    del writer


async def _garbage(_r: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(b"\x00\x01\x02 SPDY? no. \xff\xfe this is not HTTP at all\r\n\r\n")
    await writer.drain()


def fault(name: str, query: dict[str, str]) -> Fault | None:
    """The raw-connection fault called ``name``, or ``None`` if there is none."""
    if name == "slow-headers":
        return Fault(partial(_slow_headers, _num(query, "seconds", 3.0, 0.0, 600.0)))
    if name == "slow-body":
        chunks = int(_num(query, "chunks", 20, 1, 100_000))
        return Fault(partial(_slow_body, chunks, _num(query, "interval", 0.5, 0.0, 60.0)))
    if name == "reset":
        return Fault(_reset)
    if name == "length-long":
        return Fault(partial(_wrong_length, 10_000, 5_000))
    if name == "length-short":
        return Fault(partial(_wrong_length, 100, 5_000))
    if name == "gzip-bomb":
        return Fault(partial(_gzip_bomb, int(_num(query, "mb", 1024, 1, 4096))))
    if name == "bad-gzip":
        return Fault(_bad_gzip)
    if name in ("huge", "huge-chunked"):
        return Fault(partial(_huge, _num(query, "mb", 50, 0.001, 4096), name == "huge-chunked"))
    if name == "empty":
        return Fault(_empty)
    if name == "garbage":
        return Fault(_garbage)
    return None
