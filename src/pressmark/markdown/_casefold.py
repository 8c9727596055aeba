"""Word pre-tests for case-insensitive patterns: a text is searched only when it holds a
word the pattern needs.

WHY: an alternation of words under ``re.IGNORECASE`` (``\\bcopyright\\b|powered by|...``)
costs the regex engine every branch at every character, about a microsecond a
character; a substring test is C's work. The test must never skip a text the pattern
matches: :func:`folded` maps every character the engine takes for an ASCII letter to
that letter, so a word (lower-case, ASCII letters and characters no case touches) that
the pattern matches in ``text`` is a substring of ``folded(text)``. (``_chrome`` keys its
line patterns the same way, with its own fold: ``_may_match``.)
"""

from __future__ import annotations


def folded(text: str) -> str:
    """``text`` lower-cased as re.IGNORECASE compares it, one character for one:
    ``str.lower``, with ``İ`` taken as ``i`` first (``lower`` writes it as two
    characters, the engine as ``i``), then the dotless ``ı`` and the long ``ſ`` (the
    engine's equivalents of ``i`` and ``s``). A character the engine takes for an ASCII
    letter folds to that letter, and no other does (tested over every code point): a
    word of ASCII letters and uncased characters matches ``text`` case-insensitively
    exactly where it is a substring of ``folded(text)``."""
    if text.isascii():
        return text.lower()
    return text.replace("İ", "i").lower().replace("ı", "i").replace("ſ", "s")


def holds_any(low: str, words: tuple[str, ...]) -> bool:
    """Whether the folded text ``low`` holds one of ``words``."""
    return any(word in low for word in words)
