"""The general boilerplate rules, beyond the golden pages: which rule fires, and what stays.

Each golden page below exercises one rule (``golden/page_*.html``); here we check the
rule is named in the evidence, and pin the multilingual patterns line by line, with
near misses that must stay content.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pressmark.markdown import to_markdown
from pressmark.markdown._boilerplate import words_rule
from pressmark.markdown._post import is_dateline
from pressmark.markdown._text_rules import (
    chrome_heading,
    comments_heading,
    is_placeholder,
    text_rule,
)

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize(("name", "rule"), [
    ("page_dateline_de", "exclude_dateline"),
    ("page_dateline_es", "exclude_dateline"),
    ("page_teaser_row", "teaser_cards"),
    ("page_chrome_i18n", "chrome_section"),
    ("page_chrome_i18n", "ui_label"),
    ("page_chrome_i18n", "exclude_ads"),
    ("page_chrome_i18n", "exclude_share"),
    ("page_comments_heading", "chrome_section"),
    ("page_paywall", "paywall_prompt"),
    ("page_image_credit", "image_credit"),
])
def test_rule_fires_and_is_named(name: str, rule: str) -> None:
    html = (GOLDEN / f"{name}.html").read_text(encoding="utf-8")
    assert rule in to_markdown(html).evidence.boilerplate_rules_used


def test_teaser_row_keeps_link_led_list_items() -> None:
    md = (GOLDEN / "page_teaser_row.md").read_text(encoding="utf-8")
    assert "Ferries cancelled" not in md
    assert "[Sandbags]" in md and "[Emergency help]" in md  # no headline, no image: prose


def test_image_credit_keeps_the_image() -> None:
    md = (GOLDEN / "page_image_credit.md").read_text(encoding="utf-8")
    assert md.startswith("# The harbour reopens\n\n![Boats in the harbour]")
    assert "Photo:" not in md and "©" not in md
    assert "Photography was banned" in md


@pytest.mark.parametrize("line", [
    "Von Max Mustermann", "12. März 2026, 10:15 Uhr", "Publié le 3 janvier 2026 à 10h15",
    "Actualizado: 12 de marzo de 2026", "Pubblicato il 4 febbraio 2026", "Por Ana García",
    "3 min de lecture", "Lesezeit: 4 Min.", "Door Jan Jansen, 4 mei 2026", "12.03.2026",
    "March 3, 2026", "Autor: Jan Nowak", "Publicerad 5 maj 2026", "Texto: Ana García",
    "Posted on May 4, 2024 by Sarah in Baking", "Updated 5 minutes ago",
    "Updated on 12 March 2024 at 10:15 am, first published on 11 March",
    "Par Jean Dupont, envoyé spécial à Marseille, le 3 mars 2024",
])
def test_dateline_lines(line: str) -> None:
    assert is_dateline(line)


@pytest.mark.parametrize("line", [
    "De acuerdo con las cifras oficiales", "Text message scams are rising",
    "Mayo es el mes más lluvioso", "Set the table for six", "The market opened higher",
    # a story's first sentence may hold a date: with it taken out, prose is left
    "On March 12, the council voted to repair the old bridge.",
    "The bridge, built in 1890, was closed on 3 May after cracks appeared.",
    "Le 3 mars, le conseil a voté la rénovation du vieux pont.",
])
def test_dateline_near_misses(line: str) -> None:
    assert not is_dateline(line)


@pytest.mark.parametrize("heading", [
    "Related articles", "Most read", "You may also like", "Meistgelesen",
    "Das könnte Sie auch interessieren", "Lire aussi", "Te puede interesar", "Leggi anche",
    "Lees ook", "Leia também", "Läs också", "Sign up for our newsletter",
    "Newsletter abonnieren", "Suivez-nous", "Iscriviti alla newsletter",
    "Читайте также", "Самые популярные диеты", "Najczęściej czytane", "Související články",
    "Benzer haberler", "相关文章", "延伸閱讀", "関連記事", "관련 기사", "Most popular videos",
    "Other Opinion Columns", "More videos", "Artikel Terkait", "Tin liên quan",
    "مقالات ذات صلة", "संबंधित खबरें", "Схожі статті", "Σχετικά άρθρα",
])
def test_chrome_headings(heading: str) -> None:
    assert chrome_heading(heading)
    assert not comments_heading(heading)


@pytest.mark.parametrize("heading", ["3 Comments", "Leave a Reply", "Kommentare",
                                     "Commentaires", "Comentarios", "Comments (12)",
                                     "Отзывы", "Komentarze", "Yorumlar", "留言列表 (42)",
                                     "コメント", "댓글 3", "Komentar", "Bình luận",
                                     "التعليقات", "Hozzászólások"])
def test_comment_headings(heading: str) -> None:
    assert chrome_heading(heading) and comments_heading(heading)


@pytest.mark.parametrize("heading", ["Comments", "Related work", "Reading the results",
                                     "The most read book of the year", "Комментарии к коду",
                                     "Other approaches", "More news on the ferry"])
def test_headings_that_stay(heading: str) -> None:
    # a tutorial may have a "Comments" section about code comments
    assert not comments_heading(heading)
    assert not chrome_heading(heading)


@pytest.mark.parametrize(("line", "rule"), [
    ("Photo: Reuters", "image_credit"), ("Foto: dpa", "image_credit"),
    ("Bild: Keystone", "image_credit"), ("© 2026 Getty Images", "image_credit"),
    ("Fotografía de Ana García", "image_credit"),
    ("Already a subscriber? Log in", "paywall_prompt"),
    ("Réservé aux abonnés", "paywall_prompt"),
    ("Dieser Artikel ist nur für Abonnenten verfügbar.", "paywall_prompt"),
    ("Contenido exclusivo para suscriptores", "paywall_prompt"),
    ("Photography was banned on the pier", None), ("(c) the third option", None),
    ("Subscribers said the service was slow.", None),
])
def test_text_rules(line: str, rule: str | None) -> None:
    assert text_rule(line) == rule


@pytest.mark.parametrize(("label", "expected"), [
    ("Weiterlesen", True), ("Lire la suite", True), ("Leer más", True), ("Anzeige", True),
    ("Publicidad", True), ("Czytaj więcej", True), ("Teilen", True), ("Síguenos", True),
    ("Читать далее", True), ("阅读全文", True), ("続きを読む", True), ("더보기", True),
    ("Iklan", True), ("Quảng cáo", True), ("إعلان", True), ("विज्ञापन", True),
    ("Read the report", False), ("Читать книги", False),
])
def test_ui_labels(label: str, expected: bool) -> None:
    assert is_placeholder(label) is expected


@pytest.mark.parametrize(("value", "rule"), [
    ("kommentare-liste", "exclude_comments"), ("werbung-box", "exclude_ads"),
    ("articoli-correlati", "exclude_related"), ("teilen-leiste", "exclude_share"),
    ("paywall", None),  # publishers wrap the gated article itself in it
])
def test_class_words(value: str, rule: str | None) -> None:
    assert words_rule(value) == rule


@pytest.mark.parametrize("line", [
    "Since March 2020 prices have doubled", "El gobierno ha publicado hoy el informe",
    "Abbonati in calo del dieci per cento",
])
def test_standfirst_sentences_stay(line: str) -> None:
    assert not is_dateline(line)
    assert text_rule(line) is None


def test_chrome_section_stops_at_prose() -> None:
    html = ("<html><body><div class='box'><p>A short notice from the editors today.</p>"
            "<h2>Most read</h2><p>Harbour reopens after six months of repairs and dredging"
            " work, ahead of the summer festival season in the old town.</p>"
            "<p>Storm closes the coast road between the harbour and the lighthouse for a "
            "week while engineers inspect the embankment.</p></div></body></html>")
    result = to_markdown(html)
    assert "Most read" not in result.markdown  # the heading goes, the prose after it stays
    assert "Harbour reopens" in result.markdown
    assert "Storm closes the coast road" in result.markdown


_PROSE = ("<p>The sun heats water in oceans and seas, and the water evaporates into the air "
          "as vapour, which rises, cools and condenses into clouds over the land.</p>")


@pytest.mark.parametrize(("heading", "expected"), [
    ('<h2><span id="a">Description</span><span class="mw-editsection">[<a href="/w?'
     'action=edit">edit</a>]</span></h2>', "## Description"),
    ('<h2>Beschreibung<span class="x"><span>[</span><a href="/e">Bearbeiten</a><span> | '
     '</span><a href="/s">Quelltext bearbeiten</a><span>]</span></span></h2>',
     "## Beschreibung"),
    ('<h3>Histoire <small><a href="/e">modifier le code</a></small></h3>', "### Histoire"),
    # a section called "Edit" (an API reference) keeps its title; so does a longer link
    ('<h3 id="edit"><a href="#edit">Edit</a></h3>', "### Edit"),
    ('<h2>Notes <a href="/guide">edit your profile first</a></h2>',
     "## Notes [edit your profile first](/guide)"),
])
def test_heading_edit_links_go_and_are_named(heading: str, expected: str) -> None:
    result = to_markdown(f"<article><h1>T</h1>{_PROSE}{heading}{_PROSE}</article>")
    assert expected in result.markdown.splitlines()
    fired = "exclude_edit_link" in result.evidence.boilerplate_rules_used
    assert fired == (expected in ("## Description", "## Beschreibung", "### Histoire"))
