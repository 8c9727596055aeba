"""Phrase sets and hand-written readers against the alternations they replaced.

Two long case-blind alternations were the costliest expressions of the package to
compile (every process paid for them at start-up): the UI labels of
``is_placeholder`` and the byline/label opening of the dateline rule. They became
phrase sets (``_text_rules._LABELS``) and a reader of the line's first words
(``_post._lead_label_end``) beside short expressions for the rest. The expressions
they replaced are kept here as the specification, and generated lines must read the
same through both. Case is as ``str.lower()`` reads it, as for every other phrase set;
the expressions' case folding also took the long s, the Kelvin sign and the dotted
capital I for "s", "k" and "i", which no label is written with: those three are left
out of the generated lines.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.markdown import _post, _text_rules

# the former ``_text_rules._LOADING``
_UI_LABEL = re.compile(
    r"^\W*(?:loading|please wait|advert|advertisement|sponsored(?: content)?"
    r"|skip to (?:main )?content|\d* ?comments?|close|read more|learn more|see more|show more"
    r"|view all(?: \(\d+\))?|don.t miss|text size|share(?: this)?(?: article| story)?"
    r"|print|e-?mail|tweet|you may also like|related(?: posts?| articles?| stories)?"
    r"|recommended(?: for you)?|more (?:stories|news|from \w+)|tags?|filed under"
    r"|continue reading|click here|subscribe(?: now)?|sign up|log ?in"
    r"|(?:post (?:a )?)?reply|quote|report(?: post)?|\d* ?likes?|back to top|top"
    r"|edit (?:this page|page|on github|on gitlab)|suggest an? (?:edit|change)"
    r"|improve this (?:page|answer|question|article)|view (?:page )?source|show source)\W*$",
    re.IGNORECASE,
)

# the former ``_post._DATELINE``
_DATELINE = re.compile(
    r"^(?:by|por|von|par|door|di|af|av|przez|written by|escrito por|scritto da"
    r"|geschrieben von|écrit par)\s|^(?:texto|text|tekst|autor|auteur|autore|author"
    r"|redacción|redaktion|rédaction|redazione|redactie)\s*:"
    r"|\b\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\b|\b\d{1,2}[:h.]\d\d\s*(?:uhr|h|am|pm)\b"
    r"|\b\d{1,2}:\d\d\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b"
    r"|\b\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b"
    r"|\b(?:updated|published|posted)\b"
    r"|^\W*(?:aktualisiert|veröffentlicht|publié|mis à jour|publicado|actualizado"
    r"|pubblicato|aggiornato|atualizado|gepubliceerd|bijgewerkt|publicerad|uppdaterad"
    r"|publisert|oppdatert|opublikowano|zaktualizowano)\b"
    r"|\b\d+ (?:min|minute|minutes|minuten|minutos|minuti|minuter|minutter)\.?s? "
    r"(?:read|de lecture|lesezeit|de lectura|di lettura|de leitura|leestijd|läsning|lesetid)"
    r"|\b(?:lesezeit|lesedauer|temps de lecture|tiempo de lectura|tempo di lettura)\b",
    re.IGNORECASE,
)

_LABEL_WORDS = ["Read", "more", "READ MORE", "view all", "(12)", "12", "comments", "Comment",
                "likes", "More from", "Politics", "don't", "don’t miss", "share this", "story",
                "e-mail", "E-Mail", "log in", "Login", "post a", "reply", "suggest an edit",
                "Edit on GitHub", "top", "Tags", "related posts", "»", "...", ":", "|", "(",
                ")", "!", "x", "é", "_", "Weiterlesen", "\u00a0"]
_LINE_WORDS = ["By", "by", "BY", "Written by", "written", "écrit par", "Escrito por", "von",
               "di", "Autor", "author", "Text", "Textos", "Redacción", ":", " :", "Veröffentlicht",
               "publié", "Mis à jour", "MIS À JOUR", "mis à jours", "Updated", "posted",
               "12.03.2024", "3 min read", "5 minutes de lecture", "Lesezeit", "Mar 3", "3 Mar",
               "14:05", "on", "March", "the", "council", "voted", "Jane", "Doe", "—", "-", ",",
               ".", "_", "x", "\u00a0", "\t"]
_FOLDED_ONLY_BY_THE_EXPRESSIONS = str.maketrans("", "", "\u017f\u212a\u0130")


@settings(max_examples=400, deadline=None)  # a few seconds under load; the word lists are small
@given(st.one_of(st.lists(st.sampled_from(_LABEL_WORDS), max_size=6).map(" ".join),
                 st.lists(st.sampled_from(_LABEL_WORDS), max_size=6).map("".join),
                 st.text(max_size=20)))
def test_placeholders_read_as_the_alternation_did(text: str) -> None:
    """Set and short expression together match what the one alternation matched, and
    ``_LABELS`` adds its own phrases, as before (an element's text is collapsed: one
    space between words)."""
    text = " ".join(text.translate(_FOLDED_ONLY_BY_THE_EXPRESSIONS).split())
    expected = len(text) < 40 and (_UI_LABEL.match(text) is not None
                                   or _text_rules.normalise(text) in _text_rules._LABELS)
    assert _text_rules.is_placeholder(text) == expected


@settings(max_examples=600, deadline=None)  # as above
@given(st.one_of(st.lists(st.sampled_from(_LINE_WORDS), max_size=8).map(" ".join),
                 st.lists(st.sampled_from(_LINE_WORDS), max_size=8).map("".join),
                 st.text(max_size=20)))
def test_datelines_read_as_the_alternation_did(text: str) -> None:
    """The opening label read by hand, then the short expression over the rest: the same
    matches, and the same text left once they are taken out, as the one alternation."""
    text = text.translate(_FOLDED_ONLY_BY_THE_EXPRESSIONS)
    lead = _post._lead_label_end(text)
    assert bool(lead or _post._DATE_MARKS.get().search(text)) == bool(_DATELINE.search(text))
    rest = (" " if lead else "") + _post._DATE_MARKS.get().sub(" ", text[lead:])
    assert rest == _DATELINE.sub(" ", text)
