"""Cutting page text into bounded pieces a model can take one at a time.

Offsets count characters (code points) of the whole text, so ``offset`` from one
call is valid in the next whatever the encoding; the cap counts UTF-8 bytes, which
is what a transport and a context window pay for. A piece ends at a line break
when one is near the cap, so Markdown blocks are rarely split.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Piece:
    text: str
    offset: int
    next_offset: int | None
    total_chars: int

    @property
    def truncated(self) -> bool:
        return self.next_offset is not None


def cut(text: str, offset: int, cap_bytes: int) -> Piece:
    """The piece of ``text`` from ``offset`` that fits in ``cap_bytes`` of UTF-8."""
    total = len(text)
    offset = max(0, min(offset, total))
    window = text[offset:offset + cap_bytes]          # a code point is at least one byte
    if _size(window) > cap_bytes:
        low, high = 0, len(window)                    # longest prefix that fits: bisect
        while low < high:
            mid = (low + high + 1) // 2
            if _size(window[:mid]) <= cap_bytes:
                low = mid
            else:
                high = mid - 1
        window = window[:max(low, 1)]                 # always progress, even past a tiny cap
    end = offset + len(window)
    if end < total:
        newline = window.rfind("\n")
        if newline >= len(window) // 2:               # keep whole lines when that costs < half
            window = window[:newline + 1]
            end = offset + len(window)
    return Piece(text=window, offset=offset, next_offset=end if end < total else None,
                 total_chars=total)


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))
