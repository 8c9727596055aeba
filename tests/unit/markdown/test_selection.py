"""Main-content selection on small synthetic pages: one test per selection step.

Each page is built so that exactly one step decides the outcome; the evidence
names the step (``merged_siblings``, ``widened_for_recall``) so a crawl's record
says why a region is wider than the best-scoring block.
"""

from __future__ import annotations

import pytest

from pressmark.markdown import to_markdown

PARA = ("This paragraph is a plain sentence of prose about the subject of the article, "
        "long enough to count as body text and free of links. ")


def _p(tag: str, n: int) -> str:
    return "".join(f"<p>{tag} {i}. {PARA * 2}</p>" for i in range(n))


def _links(n: int = 12) -> str:
    """A link list that is not named like chrome: it weighs against its container."""
    return "<ul class='list'>" + "".join(
        f"<li><a href='/s{i}'>Section number {i}</a></li>" for i in range(n)) + "</ul>"


def test_sibling_sections_of_one_body_are_merged() -> None:
    # the link list between the parts costs the story more than the second part brings
    page = (f"<body><div class='story'>"
            f"<div class='part'>{_p('First', 5)}</div>{_links(70)}"
            f"<div class='part'>{_p('Second', 3)}</div></div></body>")
    result = to_markdown(page)
    assert "First 0." in result.markdown and "Second 2." in result.markdown
    assert "Section number 3" not in result.markdown
    assert "merged_siblings" in result.evidence.boilerplate_rules_used


def test_twin_wrappers_of_one_body_are_merged_across_the_wrapper() -> None:
    page = ("<body><main>"
            f"<div class='body-wrap'><div class='story-body'>{_p('Lead', 2)}</div></div>"
            f"{_links(70)}"
            f"<div class='body-wrap'><div class='story-body'>{_p('Rest', 6)}</div></div>"
            f"<div class='recent'><h2>Elsewhere</h2>{_p('Teaser', 1)}</div>"
            "</main></body>")
    md = to_markdown(page).markdown
    assert "Lead 1." in md and "Rest 5." in md
    assert "Teaser 0." not in md


def test_recall_safeguard_widens_a_pick_that_holds_little_of_the_prose() -> None:
    # a link-free block scores best; the rest of the body is broken up by link-heavy
    # lists, which weigh against every container that holds them
    parts = "".join(f"<div>{_p(f'Part{i}', 1)}{_links(20)}</div>" for i in range(6))
    page = f"<body><div class='content'><div>{_p('Dense', 3)}</div>{parts}</div></body>"
    result = to_markdown(page)
    assert "Dense 2." in result.markdown and "Part5 0." in result.markdown
    assert "widened_for_recall" in result.evidence.boilerplate_rules_used


def test_recall_climb_stops_at_the_article() -> None:
    feed = "".join(f"<li><p>{PARA} item {i}</p>{_links(12)}</li>" for i in range(12))
    page = (f"<body><div class='grid'><article>{_p('Story', 2)}</article>"
            f"<div class='live'><ul>{feed}</ul></div></div></body>")
    md = to_markdown(page).markdown
    assert "Story 1." in md and "item 3" not in md


def test_a_modal_that_holds_the_article_is_not_chrome() -> None:
    page = (f"<body><div class='page-modal overlay'><div class='modal-body'>"
            f"{_p('Modal', 5)}</div></div><div class='modal'><p>Close</p></div></body>")
    md = to_markdown(page).markdown
    assert "Modal 4." in md


def test_an_id_that_is_a_heading_slug_is_no_chrome_signal() -> None:
    page = ("<body><div class='doc'>"
            f"<div id='intro'><h2>Intro</h2>{_p('Intro', 3)}</div>"
            f"<div id='sharing-with-a-single-developer'><h2>Sharing with a single developer"
            f"</h2>{_p('Sharing', 3)}</div>"
            f"<div id='share'><a href='/x'>Share on X</a></div></div></body>")
    md = to_markdown(page).markdown
    assert "Sharing 2." in md and "Share on X" not in md


def test_recommended_box_with_header_and_feed_is_pruned() -> None:
    cards = "".join(
        f"<li><h3><a href='/o{i}'>Other story {i}</a></h3><p>{PARA[:60]}</p></li>"
        for i in range(5))
    page = (f"<body><div class='col'><div class='story'>{_p('Body', 6)}</div>"
            f"<div class='box'><div class='hd'><h2>Recommended for You</h2></div>"
            f"<div class='bd'><ul>{cards}</ul></div></div></div></body>")
    md = to_markdown(page).markdown
    assert "Body 5." in md
    assert "Other story" not in md


def test_a_sentence_said_three_times_is_not_a_repeated_label() -> None:
    page = "<body><div>" + "".join(
        f"<p>{PARA} turn {i}</p><p>“I would prefer not to.”</p>" for i in range(4)) + \
        "</div></body>"
    md = to_markdown(page).markdown
    assert md.count("I would prefer not to.") == 4


def test_items_emptied_by_pruning_are_not_structure_anomalies() -> None:
    items = "".join(f"<li><div class='share'><a href='/s{i}'>Share</a></div></li>"
                    for i in range(4))
    page = f"<body><article>{_p('Text', 3)}<ul>{items}</ul></article></body>"
    result = to_markdown(page)
    assert "empty-list-item" not in result.validation.anomalies
    assert result.validation.passed, result.validation.reasons


# 35 ideographs (or a line of Hangul syllables) are a full sentence: below the alphabetic
# SHORT_BLOCK, yet prose. The comment thread (most of the page's text, so its name alone
# does not rule it out) is short lines and names, and must not win.
@pytest.mark.parametrize(("line", "gap", "byline", "thanks", "absent"), [
    ("一波波接續性低溫寒流報到已將新竹尖石鄉後山一帶層層山巒披上嫣紅的彩衣", "",
     "訪客{i}</a> 於 2013/12/28", "謝謝分享文章，好美的營地！", "好美的營地"),
    ("위원회는 화요일에 새 도서관 건물에 대한 제안을 검토하기 위해 회의를 열었다", " ",
     "방문자{i}</a> 2013/12/28", "좋은 글 감사합니다!", "좋은 글 감사합니다"),
], ids=["chinese", "korean"])
def test_short_dense_script_paragraphs_count_as_prose(line: str, gap: str, byline: str,
                                                      thanks: str, absent: str) -> None:
    post = "".join(f"<p>{line}{gap}{i}</p>" for i in range(20))
    thread = "".join(f"<li><a href='/u{i}'>{byline.format(i=i)}</li><li>{thanks}</li>"
                     for i in range(60))
    page = (f"<body><div id='main'><div class='post'>{post}</div>"
            f"<div class='comments'><ul>{thread}</ul></div></div></body>")
    result = to_markdown(page)
    assert f"{line}{gap}19" in result.markdown
    assert absent not in result.markdown


def test_cards_with_a_short_headline_and_a_longer_blurb_are_a_teaser_row() -> None:
    # "<img link> <title link> blurb": the headline is a seventh of the card's text
    cards = "".join(
        f"<div class='tile'><a href='/d{i}'><img src='/d{i}.jpg' alt=''></a>"
        f"<div class='t'><a href='/d{i}'>The cabbage diet {i}</a></div>"
        f"<div class='b'>A popular plan for busy weeks that promises results within a "
        f"fortnight, with a menu for every day.</div></div>"
        for i in range(6))
    page = f"<body><div class='page'>{_p('Body', 6)}{cards}</div></body>"
    result = to_markdown(page)
    assert "Body 5." in result.markdown
    assert "busy weeks" not in result.markdown
    assert "teaser_cards" in result.evidence.boilerplate_rules_used


def test_a_list_article_keeps_its_intro_and_every_row_of_its_table() -> None:
    # rows whose title cell is a link are data, not navigation; and the table's
    # <tbody>, however well it scores, is no region of its own without the intro
    intro = ("This list of films featuring time loops names films in which characters live "
             "the same period of time again and again, until a condition is met and the loop "
             "starts over; the list is sorted by year. " * 2)
    rows = "".join(
        f"<tr><td>{i}</td><td><a href='/wiki/Film_{i}'>The Film Number {i} of the Loop</a>"
        f"</td><td>{1960 + i}</td><td>{PARA if i % 3 else 'Remake.'}</td></tr>"
        for i in range(12))
    page = (f"<body><nav>{_links(20)}</nav><div class='content'><p>{intro}</p>"
            f"<table class='wikitable'><tbody>{rows}</tbody></table></div></body>")
    result = to_markdown(page)
    assert "This list of films" in result.markdown
    for i in range(12):
        assert f"The Film Number {i} of the Loop" in result.markdown


def test_a_linked_entry_in_a_list_of_sentences_stays() -> None:
    notes = "".join(f"<li>{PARA}</li>" for i in range(4))
    page = (f"<body><nav>{_links(20)}</nav><article>{_p('Intro', 2)}<ul>{notes}"
            "<li><a href='/review'>Here is our performance year in review</a>!</li>"
            "</ul></article></body>")
    result = to_markdown(page)
    assert "performance year in review" in result.markdown
    assert "Section number 3" not in result.markdown


def test_a_chrome_named_link_inside_a_sentence_keeps_its_words() -> None:
    # a note link styled "popup", a "tooltip" span: their class is how they look
    para = ("<p><a class='popup' href='#n1'>I</a> am a <a class='popup' href='#n2'>rather "
            "elderly</a> man. The nature of my <span class='tooltip'>avocations</span> for the "
            "last thirty years has brought me into more than ordinary contact with what "
            "would seem an interesting and somewhat singular set of men.</p>")
    page = f"<body><article>{para * 3}{_p('More', 2)}</article></body>"
    result = to_markdown(page)
    assert "I](#n1) am a [rather elderly](#n2) man" in result.markdown
    assert "my avocations for" in result.markdown


def test_release_notes_with_many_bug_links_keep_their_sentences() -> None:
    bugs = "".join(f"<li><a href='/bug/{i}'>Bug {1677080 + i} fullscreen window moves</a></li>"
                   for i in range(14))
    news = ("We have the green light for another round of students hacking on the feature "
            "next semester, and two engineers will be mentoring them.")
    notes = f"<ul><li>{news}</li><li>In progress:<ul>{bugs}</ul></li></ul>"
    page = f"<body><article>{_p('Intro', 2)}<h4>Picture-in-Picture</h4>{notes}</article></body>"
    result = to_markdown(page)
    assert news in result.markdown


def test_nested_wrappers_do_not_make_a_sentence_repeat() -> None:
    # "<p><span><span>x</span></span></p>" is one x, not three (repeated_block)
    lines = "".join(f"<p><span><span>這是第{i}段很短的中文句子</span></span></p>"
                    for i in range(12))
    page = f"<body><article>{_p('Body', 3)}{lines}</article></body>"
    result = to_markdown(page)
    assert "這是第11段很短的中文句子" in result.markdown
    assert "repeated_block" not in result.evidence.boilerplate_rules_used


def test_an_italic_line_under_an_image_is_its_caption() -> None:
    figure = ("<div><a href='/big.jpg'><img src='/a.jpg' alt=''></a></div>"
              "<div><span><em>Kate at the premiere</em></span></div>")
    page = f"<body><article>{_p('Body', 2)}{figure}{_p('More', 2)}</article></body>"
    result = to_markdown(page)
    assert "Kate at the premiere" not in result.markdown
    assert "![](/a.jpg)" in result.markdown.replace("https://", "")
    assert "exclude_caption" in result.evidence.boilerplate_rules_used


def test_a_heading_whose_text_is_a_chrome_named_link_keeps_its_text() -> None:
    page = (f"<body><article><h2><a class='toc-backref' href='#toc'>Setting up</a></h2>"
            f"{_p('Setup', 2)}<h2><a class='toc-backref' href='#toc'>Conclusion</a></h2>"
            f"{_p('End', 2)}</article></body>")
    result = to_markdown(page)
    assert "## Setting up" in result.markdown and "## Conclusion" in result.markdown


def test_notes_the_body_links_to_are_kept_with_it() -> None:
    """A reference list after the body is no prose, but the body's own links point into
    it (``#note-1``, or the page's URL with the fragment, as saved pages have them)."""
    refs = "".join(f"<sup><a href='{'https://w.example/a' if i % 2 else ''}#note-{i}'>"
                   f"[{i}]</a></sup>" for i in range(3))
    notes = "<ol class='refs'>" + "".join(
        f"<li id='note-{i}'>Source {i}: a report, 2019, page {i + 10}.</li>"
        for i in range(3)) + "</ol>"
    top = f"<div id='top'>{_links(70)}</div>"  # costs the wrapper: a part is the pick
    page = (f"<body><div class='wrap'>{top}<div class='part'>{_p('First', 6)}</div>"
            f"<div class='part'>{_p('Second', 3)}<p>Claims{refs}.</p>"
            f"<a href='#top'>Back to top</a></div><h2>Notes</h2>{notes}</div></body>")
    result = to_markdown(page)
    markdown = result.markdown
    assert "merged_siblings" in result.evidence.boilerplate_rules_used
    assert "First 0." in markdown and "Second 2." in markdown
    assert "Source 2: a report" in markdown and "## Notes" in markdown
    assert "Section number" not in markdown  # one "back to top" target is no note


def test_a_table_between_parts_of_the_body_is_the_body_too() -> None:
    table = ("<table><tr><th>Year</th><th>Title</th></tr>" + "".join(
        f"<tr><td>{2000 + i}</td><td>Entry {i}</td></tr>" for i in range(6)) + "</table>")
    page = (f"<body><div class='wrap'>{_links(70)}<div class='part'>{_p('First', 6)}</div>"
            f"{table}<div class='part'>{_p('Second', 3)}</div></div></body>")
    result = to_markdown(page)
    markdown = result.markdown
    assert "merged_siblings" in result.evidence.boilerplate_rules_used
    assert "Section number" not in markdown
    assert "First 0." in markdown and "| 2003 | Entry 3 |" in markdown and "Second 2." in markdown


# The page's own prose beside a story, none of it the story: teaser cards, an author bio,
# a disclaimer (``bench/extraction_robustness.py``'s "sidebar" and "short" variants)
BIO = ("Our editor writes about markets, food and travel, and has worked as a reporter for "
       "many years before joining the team. She lives near the coast with her family. ")
LEGAL = ("The information on this site is provided for general purposes only and is no "
         "professional advice. Some links on this page are affiliate links; opinions are "
         "the contributors' own and not the publisher's. All rights reserved. ")


def _side_column() -> str:
    cards = "".join(
        f"<div class='card'><h3><a href='/story/{i}'>Another story number {i}</a></h3>"
        f"<p>Teaser {i}. {PARA}{PARA}</p><a href='/story/{i}'>Read more</a></div>"
        for i in range(5))
    return (f"<div class='col'>{cards}<div class='about'><h3>About the author</h3>"
            f"<p>{BIO * 2}</p></div><div class='note'>{LEGAL * 2}</div></div>")


def test_a_story_named_by_its_taxonomy_class_beats_a_longer_sidebar() -> None:
    # "topics-markets" reads as a tags box; the sidebar beside it holds more prose than
    # the post, so the post's article no longer holds "nearly all the prose" of the page:
    # the headline and the run of paragraphs under it say it is the story's wrapper, and
    # the story (the longest run) wins over the sidebar's boxes, twice its prose or not
    page = ("<html><head><title>Markets rally on the news</title></head><body>"
            "<div class='wrap'><article class='post topics-markets'>"
            "<h1>Markets rally on the news</h1>"
            f"<div class='text'>{_p('Post', 3)}</div></article>{_side_column()}</div>"
            "</body></html>")
    result = to_markdown(page)
    assert "Post 0." in result.markdown and "Post 2." in result.markdown
    assert "Teaser 0." not in result.markdown and "affiliate" not in result.markdown


def test_a_short_story_in_a_rail_layout_beats_the_footer_disclaimer() -> None:
    # the story's column is named for the layout ("rail"): chrome, were it not around the
    # run of paragraphs under the headline; the footer's disclaimer is longer than the
    # story, more than half the page's prose: a place so full of prose would be content
    page = ("<html><head><title>A short update</title></head><body>"
            "<div class='page-rail'><h1>A short update</h1>"
            f"<div class='page-rail__side'><div class='body-text'>{_p('Brief', 3)}</div></div>"
            f"</div><footer><div class='legal'><p>{LEGAL * 3}</p>"
            f"<p>{LEGAL * 2}</p></div></footer></body></html>")
    result = to_markdown(page)
    assert "Brief 0." in result.markdown and "Brief 2." in result.markdown
    assert "affiliate" not in result.markdown


def test_a_story_with_no_headline_beats_the_column_of_boxes_beside_it() -> None:
    # no <h1>, no landmark, no telling class: the parent of the story and of the column
    # scores highest (scores add up), the column alone outscores the story. The story's
    # paragraphs go on side by side; the column is teasers, a bio and a disclaimer, one
    # paragraph a box: the story is the region, and the column does not join it again
    page = (f"<body><div class='wrap'><div class='main'>{_p('Story', 6)}</div>"
            f"{_side_column()}</div></body>")
    result = to_markdown(page)
    assert "Story 0." in result.markdown and "Story 5." in result.markdown
    assert "Teaser 0." not in result.markdown and "affiliate" not in result.markdown


def test_one_long_block_beside_a_column_of_paragraphs_is_not_stepped_out_of() -> None:
    # a page set as one block of text (lines broken by <br>, no paragraphs) beside a
    # column whose prose goes on: the column is no story against a block longer than it
    block = "<br>".join(f"Line {i}. {PARA}" for i in range(12))
    page = (f"<body><div class='wrap'><div class='main'>{block}</div>"
            f"<div class='col'>{_p('Aside', 2)}</div></div></body>")
    result = to_markdown(page)
    assert "Line 0." in result.markdown and "Line 11." in result.markdown


def test_paragraphs_set_in_headings_are_the_body_and_come_out_as_paragraphs() -> None:
    # an old page sets its text in <h4> for its size: a heading holding a paragraph
    # weighs as one (the short list of tips above it is not the body) and is written as
    # the paragraph it is; a heading of one line stays a heading
    tips = "".join(f"<li>Tip {i}. Keep the stand filled with water every day.</li>"
                   for i in range(4))
    story = "".join(f"<h4>Story {i}. {PARA * 3}</h4>" for i in range(4))
    page = f"<body><ul>{tips}</ul><h1>New ways of doing it</h1>{story}</body>"
    md = to_markdown(page).markdown
    assert "Story 0." in md and "Story 3." in md
    assert "#### Story" not in md and "\nStory 2. This paragraph" in md
    assert "# New ways of doing it" in md
