"""Rules for page types beyond the dev sets' news and blogs: wikis, forums, docs,
recipes, public services, shops, listicles, stories told a sentence per paragraph.

The golden pages (``golden/page_*``) pin the whole output; these tests say which part
of it each rule is responsible for.
"""

from __future__ import annotations

from pathlib import Path
from time import process_time

import pytest

from pressmark.markdown import to_markdown
from pressmark.markdown._boilerplate import words_rule

GOLDEN = Path(__file__).parent / "golden"
PROSE = ("<p>The sun heats water in oceans and seas, and the water evaporates into the air "
         "as vapour, which rises, cools and condenses into clouds over the land.</p>")


def _page(name: str) -> tuple[str, tuple[str, ...]]:
    result = to_markdown((GOLDEN / f"{name}.html").read_text(encoding="utf-8"))
    return result.markdown, result.evidence.boilerplate_rules_used


def test_wiki_sections_keep_their_titles_without_edit_links() -> None:
    md, rules = _page("page_wiki_sections")
    assert "## Description\n" in md and "## Effects on climate\n" in md
    assert "edit" not in md.lower().replace("edited", "")
    assert "exclude_edit_link" in rules
    assert "| Type | Biogeochemical cycle |" in md   # the infobox is data: kept
    assert "Navigation menu" not in md and "Random article" not in md


def test_forum_thread_keeps_every_post_and_drops_the_cards_beside_them() -> None:
    md, _ = _page("page_forum_thread")
    for words in ("pressure gauge on my combi boiler", "Schrader valve",
                  "collected nearly half a litre"):
        assert words in md
    for chrome in ("Joined:", "Posts:", "User avatar", "Moderator", "Gas Safe registered",
                   "Vaillant ecoTEC", "Delete cookies", "Powered by phpBB"):
        assert chrome not in md


@pytest.mark.parametrize(("value", "rule"), [
    ("postprofile", "exclude_byline"), ("topic-avatar", "exclude_byline"),
    ("useravatar", "exclude_byline"),
    # a state of the element, not what it is: the post *has* a profile card beside it
    ("post has-profile bg2", None), ("has-sidebar", None), ("no-comments", None),
    ("withoutCaption", None), ("is-sticky", None), ("profile", None),
    ("off-screen", "exclude_screen_reader_text"),
    # hyphenated compounds of the list's run-together words
    ("user-info", "exclude_byline"), ("most-read", "exclude_related"),
    ("tag-cloud", "exclude_tags"), ("author-box", "exclude_byline"),
    ("main-nav", "exclude_nav"), ("post-content", None), ("content-with-sidebar", None),
    ("story-image-copyright", "exclude_caption"),
    # "signature" names a forum post's signature line or an API reference's declaration:
    # its own rule, chrome on a thread only (``THREAD_RULES``)
    ("signature", "exclude_signature"), ("member-signature", "exclude_signature"),
    ("methodSignature", "exclude_signature"), ("field-name-field-byline", "exclude_byline"),
])
def test_class_words(value: str, rule: str | None) -> None:
    assert words_rule(value) == rule


@pytest.mark.parametrize(("img", "src"), [
    ('<img src="/spinner.gif" data-src="/photos/harbour.jpg" alt="Harbour">',
     "https://t.test/photos/harbour.jpg"),
    ('<img src="/blank.png" data-lazy-src="/photos/harbour.jpg" alt="Harbour">',
     "https://t.test/photos/harbour.jpg"),
    ('<img src="/photos/harbour.jpg" data-src=\'{"w": 320, "src": "/x.jpg"}\' alt="Harbour">',
     "https://t.test/photos/harbour.jpg"),
    ('<img src="/photos/harbour.jpg" alt="Harbour">', "https://t.test/photos/harbour.jpg"),
])
def test_lazy_images_take_the_address_a_script_would_swap_in(img: str, src: str) -> None:
    md = to_markdown(f"<article>{PROSE}<figure>{img}</figure>{PROSE}</article>",
                     url="https://t.test/a").markdown
    assert f"![Harbour]({src})" in md


def test_docs_page_keeps_code_tables_and_notes_not_its_own_edit_button() -> None:
    md, rules = _page("page_docs_site")
    assert "Edit this page" not in md and "ui_label" in rules
    assert "| `workers` | `4` | Parallel sync workers |" in md
    assert "```\n[sync]\nworkers = 8\n" in md
    assert "never skipped silently" in md            # the admonition stays
    for chrome in ("Skip to content", "Table of contents", "Previous", "Made with"):
        assert chrome not in md


def test_recipe_card_keeps_times_ingredients_and_steps() -> None:
    md, _ = _page("page_recipe_card")
    for part in ("Prep Time 15 minutes", "- 225 g unsalted butter, softened",
                 "1. Heat the oven to 180C", "freezes well for up to three months"):
        assert part in md
    for chrome in ("Jump to Recipe", "Share this", "Popular recipes", "gone in an hour"):
        assert chrome not in md


def test_product_page_keeps_the_specifications_beside_the_description() -> None:
    md, rules = _page("page_product_specs")
    for part in ("## About this kettle", "boils a litre of water", "## Specifications",
                 "| Weight | 240 g |"):
        assert part in md
    for chrome in ("Customers also bought", "Windshield", "registered in England"):
        assert chrome not in md
    assert "joined_data" in rules


def test_a_data_sibling_joins_only_beside_the_pick() -> None:
    table = "<div><table><tr><th>Size</th><td>12 cm</td></tr></table></div>"
    body = f"<div>{PROSE}{PROSE}</div>"
    links = "<div><p>x</p><ul><li><a href=/a>A</a></li></ul></div>"
    apart = f"<body><main><div>{body}{links}{table}</div></main></body>"
    beside = f"<body><main><div>{body}{table}</div></main></body>"
    assert "12 cm" in to_markdown(beside).markdown
    assert "12 cm" not in to_markdown(apart).markdown


@pytest.mark.parametrize(("lead", "kept"), [
    ("<p>Transports</p>", False),        # a section kicker
    ("<p>1 / 5</p>", False),             # a slide counter
    ("<p>Opinion</p><p>Guest essay</p>", False),
    ("<p>Read this before you travel.</p>", True),  # a sentence is the text's own
])
def test_short_labels_above_the_headline_go(lead: str, kept: bool) -> None:
    html = f"<body><article>{lead}<h1>Buses on hydrogen</h1>{PROSE}{PROSE}</article></body>"
    result = to_markdown(html)
    assert result.markdown.startswith("# Buses on hydrogen") is not kept
    assert ("exclude_kicker" in result.evidence.boilerplate_rules_used) is not kept


@pytest.mark.parametrize(("line", "dropped"), [
    ('Tags: <a href="/t/a">Deals</a>, <a href="/t/b">Phones</a>', True),
    ('Filed under: <a href="/c/x">Science</a> | <a href="/c/y">Space</a>', True),
    ('<b>Schlagwörter:</b> <a href="/t/1">Energie</a> · <a href="/t/2">Verkehr</a>', True),
    ('Etiquetas: <a href="/t/x">Madrid</a>', True),
    ('Topics: we covered <a href="/a">buses</a> and <a href="/b">trams</a>', False),
    ('Read the report: <a href="/r">PDF</a>', False),
])
def test_a_line_of_topic_links_goes(line: str, dropped: bool) -> None:
    result = to_markdown(f"<body><article>{PROSE}{PROSE}<p>{line}</p></article></body>")
    assert ("](/" not in result.markdown) is dropped
    assert ("exclude_tags" in result.evidence.boilerplate_rules_used) is dropped


@pytest.mark.parametrize(("line", "dropped"), [
    ('Follow us on <a href="https://instagram.example/x">Instagram</a>', True),
    ('<em>Follow The Daily on <a href="/f">Facebook</a> and <a href="/t">Twitter</a></em>', True),
    ('Folgen Sie uns auf <a href="/f">Facebook</a>', True),
    ("Follow these steps on Facebook to lock your profile.", False),  # no link: a sentence
    ('Follow the <a href="/guide">guide</a> to bake it.', False),     # no network named
])
def test_a_prompt_to_follow_the_site_goes(line: str, dropped: bool) -> None:
    result = to_markdown(f"<body><article>{PROSE}{PROSE}<p>{line}</p></article></body>")
    assert ("ollow" not in result.markdown) is dropped
    assert ("social_prompt" in result.evidence.boilerplate_rules_used) is dropped


def test_a_status_report_keeps_the_linked_bugs_nested_under_an_item() -> None:
    bugs = "".join(f'<li><a href="/b/{n}">Bug {n} - the player window jumps when the video '
                   "source changes</a></li>" for n in range(3))
    menu = ('<li>Products<ul><li><a href="/p">Pricing</a></li>'
            '<li><a href="/c">Careers</a></li></ul></li>')
    news = ("<li>Students from the university will hack on Picture-in-Picture again next "
            "term, with two engineers mentoring them.</li>"
            "<li>The skeleton window now shows while the rest of the browser starts, which "
            "makes a cold start feel a second faster.</li>")
    html = (f"<body><article>{PROSE}<ul>{news}<li>In progress:<ul>{bugs}</ul></li></ul>"
            f"{PROSE}<ul>{menu}</ul></article></body>")
    md = to_markdown(html).markdown
    assert md.count("Bug ") == 3
    assert "Pricing" not in md


def test_public_service_page_keeps_the_procedure_not_the_survey_box() -> None:
    md, rules = _page("page_public_service")
    for part in ("valable 15 ans", "- une photo d'identité de moins de 6 mois",
                 "### Bon à savoir", "Mis à jour le 12 mars 2024"):
        assert part in md
    assert "feedback_prompt" in rules
    for chrome in ("utile ?", "[Oui]", "Dans cette rubrique", "Mentions légales", "cookies"):
        assert chrome not in md


@pytest.mark.parametrize("line", [
    "Was this page helpful? Yes No", "War diese Seite hilfreich? Ja Nein",
    "¿Te ha resultado útil esta página? Sí No", "Questa pagina ti è stata utile?",
])
def test_feedback_prompts(line: str) -> None:
    from pressmark.markdown._text_rules import text_rule

    assert text_rule(line) == "feedback_prompt"
    assert text_rule(f"Our survey asked: {line}") is None


def test_listicle_keeps_every_slide_image_though_their_credits_repeat() -> None:
    md, _ = _page("page_listicle")
    for city in ("Lisbon", "Porto", "Seville", "Valencia", "Bologna", "Ljubljana", "Kraków"):
        assert f"![{city} old town](" in md and f". {city}\n" in md
    assert "Photo: Getty" not in md and "Advertisement" not in md
    assert "More from Europe" not in md and "newsletter" not in md.lower()


def test_readme_keeps_sections_that_are_lists_of_links() -> None:
    """A rendered README: "Documentation" is a section of links under its own heading;
    the table of contents (links to this page) and the site's sidebar are navigation."""
    md, _ = _page("page_readme_docs")
    assert "## Documentation\n\n- [Getting Started](https://fastify.dev/docs/" in md
    assert "[Quick start](" not in md and "Section 12" not in md
    assert "\n## Example" not in md and "### Example\n\n```js\n" in md   # unwrapped anchors
    assert "| **Fastify** | **4.0.0** | **✓** | **77,193** |" in md


def test_a_list_of_links_above_the_body_is_no_section_of_it() -> None:
    prose = "".join(f"<p>{PROSE[3:-4]} Paragraph {i}.</p>" for i in range(3))
    apps = "".join(f"<li><a href='/app{i}'>Application number {i}</a></li>" for i in range(5))
    plugins = "".join(f"<li><a href='/p{i}'>Plugin number {i}</a></li>" for i in range(5))
    html = f"<div><h3>Mac Apps</h3><ul>{apps}</ul>{prose}<h2>Plugins</h2><ul>{plugins}</ul></div>"
    md = to_markdown(html).markdown
    assert "Application number" not in md and "- [Plugin number 0](/p0)" in md


@pytest.mark.parametrize("banner", [
    "Wir verwenden Cookies, um Inhalte zu personalisieren und Zugriffe zu analysieren.",
    "We use cookies to improve your experience. By continuing you accept our policy.",
    "Ce site utilise des cookies pour mesurer l'audience.",
])
def test_a_consent_banner_no_class_names_goes_a_sentence_about_cookies_stays(
        banner: str) -> None:
    sentence = "We use cookies sparingly, the author wrote in 2019, and only for the basket."
    html = (f"<div>{PROSE * 3}<div id='x7'><p>{banner}</p><a href='#'>OK</a></div>{PROSE}"
            f"<p>{sentence}</p></div>")
    result = to_markdown(html)
    assert banner[:20] not in result.markdown and sentence in result.markdown
    assert "exclude_cookie_banner" in result.evidence.boilerplate_rules_used


def test_a_story_told_a_sentence_per_paragraph_is_prose() -> None:
    """One short sentence per ``<p>`` (tabloids, many scripts' news style): each is prose,
    so the story is the region rather than the whole body with the site's header."""
    sentences = [f"He was booked for the {n} time this season." for n in
                 ("first", "second", "third", "fourth", "fifth", "sixth", "seventh")]
    story = "".join(f"<p>{s}</p>" for s in sentences * 2)
    html = (f"<body><div class=top><a href=/>Daily Tribune</a> <a href=/sport>Sport</a>"
            f"</div><div class=wrap><div class=col-main><h1>Booked again</h1><div "
            f"class=story>{story}</div></div></div><p>Copyright the Tribune Group.</p></body>")
    md = to_markdown(html).markdown
    assert md.count("He was booked") == 14
    assert "Daily Tribune" not in md and "Copyright" not in md


def test_qa_page_keeps_question_and_answers_not_their_buttons_and_user_cards() -> None:
    md, _ = _page("page_question_answers")
    for part in ("merge two dictionaries", "z = x | y", "z = {**x, **y}", "z.update(y)"):
        assert part in md
    for chrome in ("Improve this", "Share", "Follow", "72.4k", "Carl Meyer", "Overflow Blog",
                   "How do I sort a dictionary"):
        assert chrome not in md


def test_live_blog_keeps_every_entry_time_the_first_included() -> None:
    md, _ = _page("page_live_blog")
    for time in ("14:32", "14:05", "13:40", "13:12", "12:58"):
        assert f"\n{time}\n" in f"\n{md}"
    assert "Share" not in md and "© News Group" not in md


def test_an_article_dateline_still_goes_when_dates_do_not_recur() -> None:
    body = "".join(f"<p>{PROSE[3:-4]} Part {i}.</p>" for i in range(3))
    md = to_markdown(f"<article><h1>T</h1><p>3 May 2024, 14:05</p>{body}</article>").markdown
    assert "14:05" not in md


def test_a_data_table_stays_a_table_when_one_cell_has_two_paragraphs() -> None:
    from pressmark.markdown import ConversionPolicy

    rows = "".join(f"<tr><th>Film {i}</th><td>19{60 + i}</td><td>A loop, again.</td></tr>"
                   for i in range(6))
    long_cell = ("<tr><th>Churuli</th><td>2021</td><td>Two officers.<p>Based on a story.</p>"
                 "</td></tr>")
    table = (f"<table><tr><th>Film</th><th>Year</th><th>Description</th></tr>{rows}"
             f"{long_cell}</table>")
    md = to_markdown(table, policy=ConversionPolicy(select_main=False)).markdown
    assert md.startswith("| Film | Year | Description |\n| --- | --- | --- |\n")
    assert "| Churuli | 2021 | Two officers.<br>Based on a story. |" in md
    page = ("<table><tr><td><h2>Menu</h2><p>Home</p></td><td><p>Welcome to the page.</p>"
            "<p>More text here.</p></td></tr></table>")
    assert "|" not in to_markdown(page, policy=ConversionPolicy(select_main=False)).markdown


def test_an_infobox_keeps_a_linked_list_that_is_a_rows_value() -> None:
    rows = "".join(f"<tr><th>Key {i}</th><td>Value number {i}</td></tr>" for i in range(4))
    langs = ("<tr><th>Official languages</th><td><div class=plainlist><ul><li><a href=/en>"
             "English</a></li><li><a href=/mi>Māori</a></li><li><a href=/nzsl>NZ Sign "
             "Language</a></li></ul></div></td></tr>")
    html = f"<article>{PROSE * 3}<table class=infobox>{rows}{langs}</table>{PROSE}</article>"
    md = to_markdown(html).markdown
    assert ("| Official languages | - [English](/en)<br>- [Māori](/mi)<br>"
            "- [NZ Sign Language](/nzsl) |") in md


@pytest.mark.parametrize(("caption", "kept", "gone"), [
    ("<figcaption class='wp-element-caption'>The harbour at dawn, before the ferries."
     "</figcaption>", "The harbour at dawn, before the ferries.", None),
    ("<figcaption>The harbour at dawn. <cite>(Jane Roe/Reuters)</cite></figcaption>",
     "The harbour at dawn.", "Reuters"),
    ("<figcaption><p>The harbour at dawn.</p><small>Getty</small></figcaption>",
     "The harbour at dawn.", "Getty"),
    ("<figcaption>The harbour at dawn.<div class='attribution'>Courtesy of the port</div>"
     "</figcaption>", "The harbour at dawn.", "Courtesy"),
    ("<figcaption><a href='/subscribe'>Want more? Get a subscription to our magazine</a>"
     "</figcaption>", None, "subscription"),
])
def test_figures_keep_their_captions_not_the_credits(caption: str, kept: str | None,
                                                     gone: str | None) -> None:
    html = (f"<article>{PROSE * 2}<figure><img src='/h.jpg' alt='Harbour'>{caption}</figure>"
            f"{PROSE}</article>")
    md = to_markdown(html, url="https://t.test/a").markdown
    if kept is not None:  # (a figure that is a promotion link goes whole)
        assert kept in md and "![Harbour](https://t.test/h.jpg)" in md
    if gone is not None:
        assert gone not in md


def test_release_notes_keep_their_linked_items_under_a_heading() -> None:
    items = "".join(f"<li>Contributor {i} <a href='/bug/{i}'>fixed an issue with the tab "
                    f"strip number {i}</a></li>" for i in range(4))
    html = f"<article>{PROSE * 3}<h4>New contributors</h4><ul>{items}</ul>{PROSE}</article>"
    md = to_markdown(html).markdown
    assert md.count("- Contributor ") == 4


def test_a_reference_list_keeps_citations_whose_parts_are_linked() -> None:
    """A ``<cite>`` links its author, title, publisher and identifier: almost all link
    text, yet a bibliography entry, not a row of widget links (which still goes)."""
    cite = ('<cite><a href="/w/frankel">Frankel, Theodore</a> (2004). <a href="/b/geo">'
            "<i>The Geometry of Physics</i></a>. <a href='/w/cup'>Cambridge University "
            "Press</a>. <a href='/w/isbn'>ISBN</a> <a href='/s/0-521'>0-521-53927-7</a>.</cite>")
    widget = ('<span><a href="/s/fb">Share on Facebook</a> <a href="/s/tw">Share on Twitter'
              '</a> <a href="/s/li">Share on LinkedIn</a></span>')
    html = (f"<article>{PROSE * 3}<h2>References</h2><ol><li><span>{cite}</span></li>"
            f"<li>A report of the survey, 1999, page 12.</li></ol><div>{widget}</div></article>")
    md = to_markdown(html).markdown
    assert "The Geometry of Physics" in md and "0-521-53927-7" in md
    assert "Share on" not in md


_NAV_TABLE = ('<table class="navigation"><tr><td><a href="prev.html">Prev</a></td>'
              '<td><a href="index.html">Home</a></td><th>Reference Manual</th></tr></table>')


def _api_entry(name: str, note: str) -> str:
    # gtk-doc's markup: a named anchor written as if it were empty (``<a name=x/>``), which
    # the parser leaves open around the rest of the entry
    return (f'<div class="refsect2"><h3><a name="{name}"/>{name} ()</h3>'
            f'<pre class="programlisting">void\t{name}\t(<a href="types.html#Ctx">Ctx</a> '
            f'ctxt, <a href="types.html#Node">Node</a> node)</pre><p>{note}</p></div><hr/>')


def test_an_api_reference_keeps_every_entry_and_its_linked_signatures() -> None:
    """Links in a code listing are cross-references, and an ``<a>`` without ``href`` is
    no link: neither makes a reference page's entries look like navigation."""
    names = ("xsltDebug", "xsltRegisterExtras", "xsltFunctionNodeSet", "xsltRegisterAll")
    synopsis = "\n".join(f'void\t<a href="#{n}">{n}</a>\t(<a href="t.html#Ctx">Ctx</a> ctxt);'
                         for n in names)
    html = (f"<html><body>{_NAV_TABLE}<h2>extra</h2><p>extra - interface for the "
            "non-standard features of the processor</p><div class=refsynopsisdiv><h2>"
            f'Synopsis</h2><pre class="synopsis">{synopsis}</pre></div><div class=refsect1>'
            "<h2>Details</h2><div class=refsect2>"
            + "".join(_api_entry(n, f"Registers the {n} extension with the processing "
                                    "context given, once per transformation.")
                      for n in names)
            + "</div></div></body></html>")
    md = to_markdown(html).markdown
    assert "## Synopsis" in md and "## Details" in md
    for name in names:
        assert f"### {name} ()" in md
        assert f"Registers the {name} extension" in md
    assert "Prev" not in md and "Home" not in md


def test_short_sections_beside_the_main_section_are_kept() -> None:
    long_section = "<section><h2>Stability index</h2>" + PROSE * 6 + "</section>"
    html = ("<html><body><nav><a href='/'>Home</a> <a href='/a'>API</a></nav><div id=api>"
            "<section><h2>Contributing</h2><p>Report errors in this documentation in the "
            "issue tracker, and see the contributing guide.</p></section>"
            + long_section +
            "<section><h2>Stability overview</h2><table>"
            + "".join(f"<tr><td><a href='/{m}.html'>{m} module</a></td><td>(2) Stable</td></tr>"
                      for m in ("assert", "buffer", "crypto", "dns", "events", "fs", "http",
                                "net", "os", "path", "stream", "timers", "url", "util"))
            + "</table></section>"
            "<section><h2>JSON output</h2><p>Every page has a JSON twin, for the editors "
            "and other tools that consume the documentation.</p></section></div></body>"
            "</html>")
    md = to_markdown(html).markdown
    for heading in ("## Contributing", "## Stability index", "## Stability overview",
                    "## JSON output"):
        assert heading in md
    assert "JSON twin" in md and "Report errors" in md


def test_an_installation_page_of_short_commands_keeps_them_all() -> None:
    """A code block is content however short: a page of one-line commands is not a
    page of labels, and no single section of it stands for the page."""
    commands = {"PIP": "$ pip install enlighten", "DEB": "$ apt-get install python3-enlighten",
                "PKG": "$ pacman -S python-enlighten",
                "Conda": "$ conda install -c conda-forge enlighten"}
    sections = "".join(f"<section><h2>{name}</h2><div class=highlight><pre>{line}</pre></div>"
                       "</section>" for name, line in commands.items())
    html = ("<html><body><nav class=sidebar><ul><li><a href=/>Home</a></li><li><a href=/api>"
            "API</a></li></ul></nav><div class=document><section><h1>Installation</h1>"
            "<section><h2>RPM</h2><section><h3>Fedora and EL8</h3><p>(<a href=https://"
            "example.org/epel>EPEL</a> repositories must be configured for EL8)</p><div "
            "class=highlight><pre>$ dnf install python3-enlighten</pre></div></section>"
            "<section><h3>EL7</h3><p>(<a href=https://example.org/epel>EPEL</a> must be "
            "configured)</p><div class=highlight><pre>$ yum install python2-enlighten\n"
            "$ yum install python36-enlighten</pre></div></section></section>"
            f"{sections}</section></div></body></html>")
    md = to_markdown(html).markdown
    assert "# Installation" in md and "$ dnf install python3-enlighten" in md
    assert "$ yum install python36-enlighten" in md
    for name, line in commands.items():
        assert f"## {name}" in md and line in md
    assert "Home" not in md


def test_a_highlighted_code_block_keeps_its_comments() -> None:
    """A syntax highlighter wraps a code comment in ``<span class="comment">``: a token
    of the code, not the readers' comments section."""
    html = ("<html><body><article><h1>Compiling C to WebAssembly</h1>" + PROSE * 3 +
            '<pre><code><span class="comment">// add.c</span>\n<span class="keyword">int'
            '</span> add(<span class="keyword">int</span> a, <span class="keyword">int'
            '</span> b) { <span class="keyword">return</span> a + b; }</code></pre>'
            + PROSE + '<div class="comments"><h3>3 comments</h3><p>Great post, thanks!'
            "</p></div></article></body></html>")
    md = to_markdown(html).markdown
    assert "// add.c\nint add(int a, int b)" in md
    assert "Great post" not in md


def test_a_short_code_block_keeps_tokens_named_like_chrome() -> None:
    html = ("<html><body><article><h1>Hello in C</h1>" + PROSE * 3 +
            '<pre><code><span class="hljs-meta">#include &lt;stdio.h&gt;</span>\n'
            '<span class="hljs-type">int</span> main() { puts("hi"); }</code></pre>'
            + PROSE + "</article></body></html>")
    assert "#include <stdio.h>\nint main()" in to_markdown(html).markdown


def test_thematic_breaks_that_separate_nothing_are_dropped() -> None:
    html = ("<html><body><article><hr><h1>Fares and heroes</h1>" + PROSE + "<hr><hr>"
            + PROSE.replace("sun", "moon") + "<hr></article></body></html>")
    md = to_markdown(html).markdown
    assert md.count("---") == 1
    assert not md.startswith("---") and not md.rstrip().endswith("---")


def test_an_index_of_links_is_kept_as_a_listing_not_emptied() -> None:
    # an API index, an archive, a category page: the main region is nothing but a list of
    # links. The link rule alone would leave nothing (empty Markdown, every word of the
    # page lost); the page is pruned again with its lists kept, chrome by its names still out
    entries = "".join(f'<li><a href="/api/{n}.html">pressmark.part{n}.convert_{n}()</a></li>'
                      for n in range(40))
    html = ("<html><head><title>Index</title></head><body>"
            '<div class="header"><a href="/">Project</a> <a href="/docs">Docs</a></div>'
            '<div class="sidebar"><ul><li><a href="/a">Install</a></li>'
            '<li><a href="/b">Tutorial</a></li></ul></div>'
            '<div role="main"><p>Next: <a href="/n">Types and values</a>, Previous: <a href="/p">'
            'The basics of it</a>, Up: <a href="/">The manual</a></p>'
            f'<h1>Index</h1><h2>C</h2><div><ul>{entries}</ul></div></div>'
            '<div class="footer">Project authors. <a href="/privacy">Privacy</a></div>'
            "</body></html>")
    result = to_markdown(html)
    md = result.markdown
    assert "- [pressmark.part0.convert_0()](/api/0.html)\n" in md
    assert "pressmark.part39.convert_39()" in md and "## C\n" in md
    assert "Tutorial" not in md and "Privacy" not in md and "Previous" not in md
    assert result.evidence.page_kind == "listing"
    # an article's related-links list still goes: the prose keeps the region from being bare
    article = to_markdown(f"<html><body><article><h1>Water</h1>{PROSE * 3}<ul>"
                          + entries[:800] + "</ul></article></body></html>")
    assert "pressmark.part0" not in article.markdown
    assert "kept_listing" not in article.evidence.boilerplate_rules_used


def test_a_listings_entries_set_a_line_each_are_kept_whatever_their_length() -> None:
    # a page of bookmarks: each entry a paragraph holding one link. The link rule took
    # every line of LINK_MIN chars or more and left the shorter ones; lines side by side
    # are the listing's entries, while a lone line of links (a pager) still goes
    def lines(topic: str, n: int) -> str:
        return "".join(f'<p><a href="/{topic}/{i}">The {topic} site number {i} worth a visit'
                       f"</a></p>" for i in range(n))
    html = ("<html><body><div><p><a href='/home'>Return to the home page of the author</a>"
            f"</p></div><div><h2>Travel</h2>{lines('travel', 6)}<h2>Local news</h2>"
            f"{lines('news', 5)}<p><a href='/short'>Short</a></p></div></body></html>")
    result = to_markdown(html)
    md = result.markdown
    assert result.evidence.page_kind == "listing"
    assert "The travel site number 0 worth a visit" in md
    assert "The news site number 4 worth a visit" in md
    assert "Return to the home page" not in md


def test_lines_of_links_are_judged_in_bounded_time() -> None:
    """Each line reads only its neighbours: 40,000 other blocks before 40,000 lines of
    links (every line asks whether it is one of a run) stay linear."""
    html = ("<html><body><div>" + "<div>x</div>" * 40_000
            + "".join(f'<p><a href="/{i}">Entry number {i} of the listing</a></p>'
                      for i in range(40_000)) + "</div></body></html>")
    started = process_time()
    to_markdown(html)
    assert process_time() - started < 30.0


def test_a_reference_pages_linked_terms_stay_with_their_definitions() -> None:
    # MDN's "Instance methods": each method's name is a link in a <dt>, its description
    # a <dd>. The names are what the page documents: the link rule took each term
    # (": Returns ..." was left); a menu set as a definition list still goes whole
    methods = "".join(f"<dt><a href='/docs/Array/m{n}'><code>Array.prototype.method{n}()</code>"
                      f"</a></dt><dd><p>Returns a new array iterator for entry {n}.</p></dd>"
                      for n in range(8))
    menu = "".join(f"<dt><a href='/s{n}'>Section {n} of the guide</a></dt>"
                   f"<dd><a href='/s{n}/a'>Its first chapter, linked</a></dd>" for n in range(4))
    md = to_markdown(f"<html><body><main><article><h1>Array</h1>{PROSE}"
                     f"<h2>Instance methods</h2><dl>{methods}</dl>{PROSE}<dl>{menu}</dl>"
                     "</article></main></body></html>").markdown
    assert "[`Array.prototype.method0()`](/docs/Array/m0)\n: Returns a new array iterator" in md
    assert "method7()" in md and "Section 0 of the guide" not in md


def test_a_reference_index_keeps_its_headed_tables_of_names() -> None:
    # rustdoc's crate page: the crate's prose (the pick), then in the same section
    # "Modules", "Macros": each a heading and a table of names with a line each. They
    # have no prose to score, yet the document goes on in them: a page of documentation
    # is its main landmark (``_select._scope``); the chrome beside it stays out
    def table(kind: str, n: int) -> str:
        rows = "".join(f"<dt><a href='{kind}.{i}.html'>{kind}_{i}</a></dt>"
                       f"<dd>Utilities for the {kind} number {i}.</dd>" for i in range(n))
        return f"<dl class='item-table'>{rows}</dl>"
    links = "".join(f"<li><a href='/story/{i}'>Another story worth reading, {i}</a></li>"
                    for i in range(6))
    result = to_markdown(
        f"<html><body><div class='sidebar'><ul>{links}</ul></div>"
        "<main><section id='main-content'><h1>Crate std</h1>"
        f"<details open class='top-doc'><summary>Expand</summary><div class='docblock'>"
        f"{PROSE * 4}</div></details>"
        f"<h2>Modules</h2>{table('module', 12)}<h2>Macros</h2>{table('macro', 6)}"
        "</section></main><footer><p>Jo writes about the weather and the sea, and has done "
        "so for twenty years from a small office by the harbour.</p></footer></body></html>")
    md = result.markdown
    assert result.evidence.page_kind == "documentation"
    assert "## Modules\n" in md and "[module_0](module.0.html)\n: Utilities" in md
    assert "[macro_5](macro.5.html)" in md
    assert "Another story" not in md and "harbour" not in md
