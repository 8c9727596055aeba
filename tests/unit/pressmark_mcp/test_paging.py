"""Paging page text: every piece fits the byte cap, and the pieces put back are the text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pressmark.mcp._paging import cut


def _pieces(text: str, cap: int) -> list[str]:
    pieces, offset = [], 0
    while True:
        piece = cut(text, offset, cap)
        pieces.append(piece.text)
        assert piece.total_chars == len(text)
        if piece.next_offset is None:
            return pieces
        assert piece.next_offset > offset   # always progress
        offset = piece.next_offset


@given(st.text(max_size=400), st.integers(min_value=4, max_value=64))
def test_pieces_fit_and_join_back(text: str, cap: int) -> None:
    pieces = _pieces(text, cap)
    assert "".join(pieces) == text
    assert all(len(p.encode("utf-8", "surrogatepass")) <= cap for p in pieces)


def test_a_piece_ends_at_a_line_break_near_the_cap() -> None:
    text = "x" * 30 + "\n" + "y" * 30
    piece = cut(text, 0, 40)
    assert piece.text == "x" * 30 + "\n"
    assert piece.truncated and piece.next_offset == 31
    assert cut("x" * 5 + "\n" + "y" * 60, 0, 40).text == "x" * 5 + "\n" + "y" * 34


def test_multibyte_characters_are_never_split() -> None:
    text = "é" * 10                      # two bytes each
    piece = cut(text, 0, 5)
    assert piece.text == "éé" and piece.next_offset == 2


def test_offsets_past_the_end_give_an_empty_last_piece() -> None:
    piece = cut("abc", 10, 100)
    assert piece.text == "" and piece.offset == 3 and not piece.truncated
