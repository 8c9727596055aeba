"""Page kinds: every kind keeps what its main content is (issue #32 items 1 and 2).

The pages in ``kinds/`` are built the way real generators build theirs (Sphinx, DocBook,
texinfo, rustdoc, javadoc, a blog engine, a news site, a Q&A site, an API explorer), with
made-up text; each test names the kind the page must be taken for, what must be kept and
what must not. The failure classes of the issue, one page each: a short documentation
page whose footer won, table-of-contents and index pages whose list is the content,
DocBook's function signatures and navigation tables, an application's operations inside
``<button>`` elements, a thread's author lines, a mega-menu outweighing the article, and
the galleries, comment threads, sponsored blocks, browser notices and script text that a
story must not keep.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pressmark.markdown import to_markdown

PAGES = Path(__file__).parent / "kinds"


def _convert(name: str) -> tuple[str, str, tuple[str, ...]]:
    result = to_markdown((PAGES / f"{name}.html").read_bytes())
    return result.markdown, result.evidence.page_kind, result.evidence.boilerplate_rules_used


CASES = [
    # (page, kind, kept, not kept)
    ("sphinx_short", {"other", "documentation", "article"},
     ["# Logging handlers", "A handler sends each record to one destination",
      "a record passes every handler in turn"],
     ["Created using", "Copyright", "Quick search", "Previous topic"]),
    ("sphinx_toc", {"listing"},
     ["# The Tidewater manual", "[1. Getting started](getting-started/index.html)",
      "[7.3. Changes in 4.0]", "[4.3. TLS settings]"],
     ["Created using", "Show Source"]),
    ("sphinx_modules", {"listing", "documentation"},
     ["# Library reference", "The modules are:", "Fixtures and fakes for tests."],
     ["Created using"]),
    ("sphinx_genindex", {"listing"},
     ["# Index", "[add_handler()](api.html#add_handler)", "[write()](api.html#write)"],
     ["Created using", "Quick search"]),
    ("docbook_refentry", {"article", "documentation"},
     ["Journal \\*tw_open_journal(const char \\*path, int flags);",
      "int tw_journal_sync(Journal \\*journal);", "| `TW_SYNC` |"],
     ["Prev", "Home", "Next"]),
    ("docbook_chapter", {"listing"},
     ["Chapter 34. The Journal API", "[34.4. tw_open_journal](journal-4.html)",
      "[34.10. Tuning the journal](journal-10.html)", "direct access to Tidewater"],
     ["Prev", "Home"]),
    ("texinfo_node", {"documentation"},
     ["### 2.1 The Basics", "**tw_prep_cif**", "This calls the function *fn*"],
     ["Next:", "Contents"]),
    ("texinfo_top", {"listing", "other"},
     ["# tidewater", "- [Using tidewater](Using-tidewater.html)",
      "- [Missing Features](Missing-Features.html)"],
     ["Next:"]),
    ("rustdoc_struct", {"documentation"},
     ["# Struct Journal", "pub struct Journal", "#### pub fn append(",
      "Forces every appended entry to stable storage."],
     ["Copy item path", "In tide::journal"]),
    ("javadoc_class", {"documentation"},
     ["# Class Journal", "A write-ahead journal.", "Method Summary",
      "public static Journal open(Path path, int flags)", "Forces every appended entry"],
     ["Skip navigation links", "All rights reserved", "SEARCH"]),
    ("app_api_explorer", {"application"},
     ["/journals/{id}/entries/{offset}", "Read the entry at an offset", "DELETE",
      "Report the service health", "Operations on admin"],
     ["Authorize", "Explore"]),
    # an explorer whose tag sections are <span>s around a heading and the operations, each
    # operation a <button> of blocks (method, path, summary), its id naming tag and operation
    ("app_api_explorer_sections", {"application", "listing"},
     ["### pet Everything about your pets",
      "PUT [/pet](#/pet/updatePet) Update an existing pet",
      "GET [/user/login](#/user/loginUser) Logs user into the system",
      "GET [/store/order/{orderId}](#/store/getOrderById) Find purchase order by ID"],
     ["Authorize", "Explore", "Copy to clipboard"]),
    # a client-rendered home page whose content is a list of twelve links, inside <main>
    # beside a sidebar <aside> listing every page (more of the page's text than the list)
    ("spa_sidebar_index", {"listing"},
     ["- [ansi-colors](#/ansi-colors)", "- [ms-lite](#/ms-lite)"],
     ["[Home]", "[zod-lite]", "Package docs"]),
    # a DocBook book's index: a title page (a legal notice of sentence length, an
    # abstract) and a table of contents set as nested <dl>, commands in <code> in its links
    ("docbook_book_index", {"listing"},
     ["# The Journal Handbook", "[2.1. Opening a journal with `journal-open`](ch02.html#s1)",
      "[10.4. Acknowledgements](ch10.html#s4)", "5.1. [Options of chapter 5](ch05.html#t1)"],
     ["Next", "Preface"]),
    ("thread_qa", {"thread"},
     ["Is rotation supposed to delete the old segments", "answered Mar 3, 2024 at 9:12",
      "[dana_k]", "read only when the journal is opened"],
     ["Improve this answer", "How do I limit the size of a journal?"]),
    ("listing_category", {"listing"},
     ["[Ferry fares to rise by five per cent in April](/news/ferry-fares)",
      "[Night buses return to three routes](/news/bus)",
      "Traders say the new site will give them room"],
     ["Most read", "© 2024"]),
    ("blog_short_post", {"article"},
     ["The first frost arrived last night", "cover them tonight with fleece"],
     ["retired science teacher", "Disclaimer", "Archives", "Proudly powered"]),
    ("news_article_extras", {"article"},
     ["# Council votes to close harbour bridge to cars",
      "close the old harbour bridge",
      "has not yet said how it will be paid for"],
     ["outdated browser", "1 of 5", "Paid content", "mortgages", "About time",
      "Have your say", "Ferry fares"]),
    ("news_article_broken_head", {"article"},
     ["close the old harbour bridge", "has not yet said how it will be paid for"],
     ["_gaq", "createElement", "outdated browser"]),
]


@pytest.mark.parametrize(("name", "kinds", "kept", "dropped"), CASES,
                         ids=[case[0] for case in CASES])
def test_each_kind_keeps_its_main_content(name: str, kinds: set[str], kept: list[str],
                                          dropped: list[str]) -> None:
    markdown, kind, _ = _convert(name)
    assert kind in kinds, f"{name} taken for {kind}"
    for text in kept:
        assert text in markdown, f"{name} lost {text!r}:\n{markdown}"
    for text in dropped:
        assert text not in markdown, f"{name} kept {text!r}:\n{markdown}"


def test_an_explorers_operations_pass_validation() -> None:
    # each kept operation is a control's one line of content, not a lone link (chrome)
    result = to_markdown((PAGES / "app_api_explorer_sections.html").read_bytes())
    assert result.validation.passed, result.validation.details
    assert result.markdown.count("\n\nGET ") == 7


def test_a_short_post_beside_an_unnamed_sidebar_keeps_only_the_post() -> None:
    markdown, _, _ = _convert("blog_short_post_plain")
    assert "The first frost arrived last night" in markdown
    assert "retired science teacher" not in markdown


def test_a_short_index_in_the_main_region_is_its_content() -> None:
    """A module index of two entries: the main region holds nothing but them, so they are
    its content, not navigation (the sidebar's links still go)."""
    side = "".join(f"<li><a href='/p{i}.html'>Chapter {i} of the guide</a></li>" for i in range(9))
    html = ("<html><head><title>Python Module Index</title></head><body>"
            f"<div class='sphinxsidebar' role='navigation'><ul>{side}</ul></div>"
            "<div class='body' role='main'><h1>Python Module Index</h1>"
            "<table class='indextable'><tr><td><a href='api.html#module-flask'>"
            "<code>flask</code></a></td></tr><tr><td><a href='api.html#module-flask.json'>"
            "<code>flask.json</code></a></td></tr></table></div></body></html>")
    result = to_markdown(html)
    assert "flask.json" in result.markdown
    assert "Chapter 3" not in result.markdown
    assert result.evidence.page_kind == "listing"


def test_the_kind_and_its_signals_are_in_the_evidence() -> None:
    result = to_markdown((PAGES / "thread_qa.html").read_bytes())
    evidence = result.evidence.to_dict()
    assert evidence["page_kind"] == "thread"
    signals = evidence["kind_signals"]
    assert list(signals)[:10] == ["prose", "run", "entries", "code", "definitions", "data",
                                  "posts", "cards", "controls", "schema"]
    assert signals["schema"] == "thread" and signals["evidence_thread"] >= 1


def _mega_menu_page(article_class: str) -> str:
    """A health publisher's page: a header menu of thousands of links (100+ KB), then a
    1,500-word article in a wrapper whose class carries a chrome word."""
    items = "".join(f'<li><a href="/c{c}/s{i}">Sleep and wellness topic {c}-{i}</a></li>'
                    for c in range(40) for i in range(80))
    sentence = ("Getting enough sleep is one of the most important things you can do for "
                "your health, and small changes to an evening routine help within weeks. ")
    paragraphs = "".join(f"<p>{sentence * 3} Paragraph {n}.</p>" for n in range(30))
    return (f"<html><head><title>How to sleep better</title></head><body>"
            f"<header><nav><ul>{items}</ul></nav></header>"
            f"<div class='{article_class}'><h1>How to sleep better</h1>{paragraphs}</div>"
            f"<footer><p>© Publisher</p></footer></body></html>")


@pytest.mark.parametrize("article_class", ["article-body", "article-body ad-slots",
                                           "story comments-enabled", "content related"])
def test_navigation_mass_never_outweighs_a_long_run_of_prose(article_class: str) -> None:
    html = _mega_menu_page(article_class)
    assert len(html) > 100_000
    result = to_markdown(html)
    assert "Paragraph 0." in result.markdown and "Paragraph 29." in result.markdown
    assert "topic 3-7" not in result.markdown
    assert result.evidence.presence_score == 1.0


def test_an_empty_result_says_why() -> None:
    result = to_markdown("<html><body><nav><a href='/a'>Home</a></nav></body></html>")
    assert result.markdown == ""
    assert "too-little-text" in result.validation.reasons


def test_a_table_of_data_whose_cells_are_links_stays() -> None:
    # a manual's package table: named columns over rows whose every cell is a link (name,
    # popularity, size); a menu set in a table has no column names and still goes
    rows = "".join(
        f"<tr><td><a href='https://pkgs.test/{n}'><code>task-{n}</code></a></td>"
        f"<td><a href='https://pop.test/{n}'>I:{i * 7}</a></td>"
        f"<td><a href='https://size.test/{n}'>{i + 9}</a></td></tr>"
        for i, n in enumerate(["gnome", "xfce", "kde", "mate", "lxde"]))
    menu = "".join(f"<td><a href='/{w}'>{w.title()} of the site</a></td>"
                   for w in ("home", "news", "about", "contact"))
    html = ("<html><body><div class='chapter'><h1>Desktop environments</h1>"
            "<p>Each desktop environment is installed by a task package; the table below "
            "lists them with their popularity and installed size in megabytes.</p>"
            "<div class='table'><p class='title'><b>Table 7.1. Desktops</b></p>"
            "<table><thead><tr><th>Package</th><th>Popularity</th><th>Size</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></div>"
            f"<table class='bar'><tr>{menu}</tr></table>"
            "<p>Pick one of them when the installer asks, or install another later with the "
            "package manager of your choice.</p></div></body></html>")
    markdown = to_markdown(html).markdown
    assert "| [`task-lxde`](https://pkgs.test/lxde) | [I:28](https://pop.test/lxde) |" in markdown
    assert "Contact of the site" not in markdown
