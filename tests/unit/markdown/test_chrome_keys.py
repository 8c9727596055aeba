"""The chrome reading's key pre-check gives the patterns' answers (``_chrome._may_match``).

The copyright, legal and browser-notice patterns are searched only in lines holding one of
their lowercase keys, the line lowercased and folded; these tests hold that pre-check to
the patterns themselves: on the regex engine's own case folding (every character it
matches to an ASCII letter is folded so) and on lines made of the patterns' words in every
case, with the characters the folding is about.
"""

from __future__ import annotations

import random
import re
import sys

from pressmark.markdown import _chrome
from pressmark.markdown._chrome import (
    CREDIT_LINE,
    LEGAL_LEAD,
    LEGAL_LINE,
    is_credit_line,
    is_frame_notice,
    is_pager_line,
)

WORDS = (
    "Copyright", "(C)", "©", "2024", "by", "ALL RIGHTS RESERVED", "Powered By", "PRIVACY policy",
    "terms of use", "Terms and Conditions", "disclaimer", "javascript", "JavaScript is disabled",
    "best viewed with", "Your browser doesn't", "unable to load the stylesheet", "Prev", "Next",
    "«", "»", "1", "2", "page", "of", "Up", "Home", "the", "x", "_", "|", "tous droits réservés",
    "TOUS DROITS RÉSERVÉS", "not meant to replace", "for general informational purposes",
    "proudly powered", "created using", "Theme by", "MADE WITH", "Design BY", "site by", "Seite",
    "zurück", "上一页", "\u0130", "\u0131", "\u017f", "\u212a", "ALL R\u0130GHTS RESERVED",
    "all r\u0131ghts reserved", "\u017fite by", "J\u0130VASCR\u0130PT D\u0130SABLED",
    "\u212aopyright", "priva\u0307cy policy", "Alle Rechte vorbehalten", "all trademarks",
)


def _lines(count: int) -> list[str]:
    rng = random.Random(20261207)
    lines = []
    for _ in range(count):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 8))]
        lines.append(rng.choice((" ", "", " | ", ". ")).join(words))
    return lines


def test_the_folding_covers_every_character_the_patterns_match_to_an_ascii_letter() -> None:
    chars = "".join(chr(i) for i in range(0x80, sys.maxunicode + 1) if not 0xD800 <= i < 0xE000)
    for char in re.findall("[a-z]", chars, re.IGNORECASE):
        folded = char.lower().translate(_chrome._FOLD)
        letters = [c for c in "abcdefghijklmnopqrstuvwxyz" if re.fullmatch(c, char, re.I)]
        assert folded in letters, (hex(ord(char)), folded, letters)


def test_the_pre_check_answers_as_the_patterns_do() -> None:
    for line in _lines(20_000):
        lead = line[:LEGAL_LEAD]
        assert is_credit_line(line) == (len(line) <= CREDIT_LINE
                                        and _chrome._CREDIT.get().search(line) is not None), line
        assert is_frame_notice(line) == (len(line) <= LEGAL_LINE and (
            _chrome._LEGAL.get().search(lead) is not None
            or _chrome._NOTICE.get().search(lead) is not None)), line


def test_a_pager_line_is_read_whole_when_its_first_word_is_a_pagers() -> None:
    assert is_pager_line("« Prev | Up | Home | Next »")
    assert is_pager_line("Seite 1 2 3 weiter")
    assert not is_pager_line("Prev | Up | Home | Next | Subscribe")
    assert not is_pager_line("1 2 3")
    assert not is_pager_line("The next page")
    assert not is_pager_line("")
