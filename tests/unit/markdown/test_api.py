"""Public API: results, validation reasons, evidence, stability, hints, metadata."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pressmark.markdown as pm
from pressmark._errors import PressmarkError
from pressmark.markdown import (
    POLICY_VERSION,
    ConversionPolicy,
    MarkdownError,
    stability,
    to_markdown,
)
from pressmark.markdown._select import block_hash
from pressmark.markdown._validate import _says_not_found, _soft_404

PROSE = ("The committee met on Tuesday to review the proposal, and after a long debate it "
         "agreed to fund the new library wing with money from the regional budget.")


def page(body: str, head: str = "", lang: str = "en") -> str:
    return f'<!doctype html><html lang="{lang}"><head>{head}</head><body>{body}</body></html>'


ARTICLE = page(
    f"<nav><a href='/'>Home</a><a href='/n'>News</a></nav><main><article>"
    f"<h1>Library wing approved</h1><p>{PROSE}</p><h2>Costs</h2><p>{PROSE}</p>"
    f"<h2>Timeline</h2><p>{PROSE}</p></article></main><footer>(c) Town</footer>",
    head="<title>Library wing approved</title>"
         "<link rel=canonical href='https://town.test/news/library'>"
         "<meta name=description content='Funding agreed.'>"
         "<meta property='article:published_time' content='2026-11-01'>"
         "<script type='application/ld+json'>{\"@type\":\"NewsArticle\","
         "\"dateModified\":\"2026-11-03\"}</script>"
         "<script id='__NEXT_DATA__' type='application/json'>{\"props\":{\"a\":1}}</script>"
         "<script>window.__INITIAL_STATE__ = {\"user\": null, \"n\": [1, 2]};</script>",
)
URL = "https://town.test/news/library"


def test_exported_names_do_not_drift() -> None:
    assert sorted(pm.__all__) == sorted([
        "ConversionPolicy", "MarkdownError", "MarkdownResult", "POLICY_VERSION",
        "describe_output", "parse_html", "screen", "stability", "to_markdown"
    ])


def test_markdown_package_imports_only_errors_the_url_parser_and_the_charset_rule() -> None:
    """The layers below, and no more: the URL model (links), the charset decision (body
    bytes are read as a snapshot of them is read), the shared error base."""
    import ast
    from pathlib import Path

    seen: set[str] = set()
    for source in Path(pm.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "pressmark":
                seen.update(f"pressmark.{alias.name}" for alias in node.names)  # a layer
            elif isinstance(node, ast.ImportFrom) and node.module:
                seen.add(node.module)
            elif isinstance(node, ast.Import):
                seen.update(alias.name for alias in node.names)
    foreign = {m for m in seen if m.split(".")[0] == "pressmark"
               and not m.startswith("pressmark.markdown")}
    assert foreign == {"pressmark._errors", "pressmark.egress", "pressmark.snapshot"}
    charset = {alias.name for source in Path(pm.__file__).parent.glob("*.py")
               for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
               if isinstance(node, ast.ImportFrom) and node.module == "pressmark.snapshot"
               for alias in node.names}
    assert charset == {"decide_charset", "decode_text_body", "text_encoding"}
    names = {alias.name for source in Path(pm.__file__).parent.glob("*.py")
             for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
             if isinstance(node, ast.ImportFrom) and node.module == "pressmark.egress"
             for alias in node.names}
    assert names <= {"EgressDenied", "ParsedURL", "is_canonical_url", "join_url", "parse_url"}


def test_links_resolve_as_a_browser_resolves_them() -> None:
    html = ("<html><body><article><h1>Links</h1><p>" + "Words of the body. " * 30 +
            '<a href="///elsewhere.example/x">one</a> <a href="../up/a b">two</a> '
            '<a href="http://fa\u00df.de/">three</a> <a href="mailto:a@b.example">four</a> '
            '<a href="http://[::1/">five</a></p></article></body></html>')
    md = pm.to_markdown(html, url="https://site.example/dir/page.html").markdown
    assert "(https://elsewhere.example/x)" in md
    assert "(https://site.example/up/a%20b)" in md
    assert "(http://xn--fa-hia.de/)" in md
    assert "(mailto:a@b.example)" in md
    assert "five" in md and "[::1" not in md  # refused by the parser: text, no link


def test_result_fields() -> None:
    r = to_markdown(ARTICLE, url=URL)
    assert r.policy_version == POLICY_VERSION
    assert r.title == "Library wing approved"
    assert r.markdown.startswith("# Library wing approved\n\n" + PROSE)
    assert "## Costs" in r.markdown and "Home" not in r.markdown and "(c) Town" not in r.markdown
    assert r.structure.headings == 3 and r.structure.paragraphs == 3
    bare = to_markdown(ARTICLE, url=URL, policy=ConversionPolicy(keep_title=False))
    assert bare.markdown.startswith(PROSE)  # the headline then lives in .title only
    meta = r.metadata
    assert (meta.canonical_url, meta.language, meta.description) == (URL, "en", "Funding agreed.")
    assert (meta.published, meta.modified) == ("2026-11-01", "2026-11-03")
    assert r.embedded_state["json_ld"][0]["@type"] == "NewsArticle"
    assert r.embedded_state["next_data"] == {"props": {"a": 1}}
    assert r.embedded_state["initial_state"] == {"user": None, "n": [1, 2]}
    assert r.validation.passed, r.validation.reasons
    assert r.headings == ("1 Library wing approved", "2 Costs", "2 Timeline")
    assert len(r.block_hashes) == 6
    # the hashes are taken from the held texts when read: the same as hashing each block
    assert r.block_texts[0] == "Library wing approved"
    assert r.block_hashes == tuple(block_hash(text) for text in r.block_texts)
    assert json.loads(r.to_json())["block_hashes"] == list(r.block_hashes)


def test_keep_title_policy() -> None:
    r = to_markdown(ARTICLE, url=URL, policy=ConversionPolicy(keep_title=True))
    assert r.markdown.startswith("# Library wing approved\n\n")


def test_evidence_packet_order_and_provenance() -> None:
    @dataclass
    class Ready:
        passed: bool = True
        reason: str = "main_selector_text_threshold"
        elapsed_ms: float = 1840.0

    r = to_markdown(ARTICLE, url=URL, readiness=Ready(), requested_url="https://town.test/l",
                    policy=ConversionPolicy(keep_title=False))
    d = r.evidence.to_dict()
    assert list(d) == ["policy_version", "url_requested", "url_final", "needs_render",
                       "presence_score", "readiness", "page_kind", "kind_signals",
                       "content_source", "main_selectors_used", "boilerplate_rules_used",
                       "selection_notes",
                       "validation", "sample_provenance", "block_map"]
    assert d["content_source"] == "dom"
    assert d["url_requested"] == "https://town.test/l" and d["url_final"] == URL
    assert d["readiness"] == {"passed": True, "reason": "main_selector_text_threshold",
                              "elapsed_ms": 1840.0}
    assert d["main_selectors_used"] == ["body > main:nth-of-type(1) > article:nth-of-type(1)"]
    assert "exclude_title" in d["boilerplate_rules_used"]
    heads = [p for p in d["sample_provenance"] if p["kind"] == "heading"]
    assert heads[0]["dom_selector"].endswith("article:nth-of-type(1) > h2:nth-of-type(1)")
    for p in d["sample_provenance"]:
        start, end = p["markdown_span"]
        assert r.markdown[start:end].lstrip("# ").startswith(p["text_preview"][:20])
    assert json.loads(r.evidence.to_json()) == d
    assert json.loads(r.to_json())["evidence"] == d


@pytest.mark.parametrize(("html", "kwargs", "reason"), [
    (page("<p>Short.</p>"), {}, "too-little-text"),
    (page("<ul><li>a</li></ul>"), {}, "too-few-paragraphs"),
    (ARTICLE, {"url": "https://town.test/other"}, "canonical-mismatch"),
    (page(f"<h1>Page not found</h1><p>{PROSE}</p>", "<title>Oops</title>"), {}, "soft-404"),
    (page(f"<p>{PROSE}</p>", "<title>404 Not Found</title>"), {}, "soft-404"),
    (ARTICLE, {"policy": ConversionPolicy(required_heading=r"(?i)^introduction")},
     "required-heading-missing"),
    (ARTICLE, {"policy": ConversionPolicy(expected_language="fr")}, "language-mismatch"),
    (page(f"<p>{PROSE}</p>", lang=""), {"policy": ConversionPolicy(expected_language="en")},
     "language-unknown"),
    (page(f"<h2>A</h2><p>{PROSE}</p><h5>B</h5><p>{PROSE}</p><ul><li></li><li></li><li>x</li>"
          "</ul>"), {"policy": ConversionPolicy(select_main=False)}, "structure-anomalies"),
])
def test_validation_fails_closed_with_named_reasons(html: str, kwargs: dict[str, object],
                                                     reason: str) -> None:
    r = to_markdown(html, **kwargs)  # type: ignore[arg-type]
    assert not r.validation.passed
    assert reason in r.validation.reasons


def test_a_post_written_as_bullet_points_has_paragraphs() -> None:
    items = "".join(f"<li>{PROSE} <a href='/b{i}'>Bug {i}</a></li>" for i in range(4))
    r = to_markdown(page(f"<article><h2>Highlights</h2><ul>{items}</ul></article>"))
    assert r.validation.passed, r.validation.reasons
    assert r.validation.scores["paragraph_count"] == 4


def test_a_list_of_teaser_cards_is_not_prose() -> None:
    cards = "".join(f"<li><h2><a href='/s{i}'>Story {i}</a></h2><p>{PROSE}</p></li>"
                    for i in range(4))
    r = to_markdown(page(f"<main><ol>{cards}</ol></main>"))
    assert "too-few-paragraphs" in r.validation.reasons


def test_a_long_reference_page_may_skip_a_heading_level_now_and_then() -> None:
    # three skips (h2 -> h4) among 60 headings and paragraphs are the page's own markup,
    # not a broken conversion; on a short page the same three still fail it
    entry = f"<h2>method_{{}}</h2><p>{PROSE}</p><h4>Examples</h4><p>{PROSE}</p>"
    long = to_markdown(page("".join(entry.format(i) for i in range(3))
                            + f"<h3>More</h3><p>{PROSE}</p>" * 24))
    assert len(long.validation.anomalies) == 3
    assert long.validation.passed, long.validation.reasons
    short = to_markdown(page("".join(entry.format(i) for i in range(3))))
    assert "structure-anomalies" in short.validation.reasons
    with pytest.raises(MarkdownError):
        ConversionPolicy(structure_anomaly_share=1.5)


def test_a_list_of_only_empty_items_is_a_control_not_an_anomaly() -> None:
    dots = "<ol class='indicators'><li data-slide-to=0></li><li data-slide-to=1></li>" \
           "<li data-slide-to=2></li></ol>"
    r = to_markdown(page(f"<p>{PROSE}</p>{dots}<p>{PROSE}</p>"),
                    policy=ConversionPolicy(select_main=False))
    assert "empty-list-item" not in r.validation.anomalies
    assert r.validation.passed, r.validation.reasons


def test_readiness_failure_is_a_reason() -> None:
    @dataclass
    class NotReady:
        passed: bool = False
        reason: str = "timeout"
        elapsed_ms: float = 8000.0

    r = to_markdown(ARTICLE, url=URL, readiness=NotReady())
    assert r.validation.reasons == ("readiness-failed",)


def test_boilerplate_ratio_is_measured() -> None:
    links = "".join(f"<p><a href='/{i}'>Another story about the harbour number {i}</a></p>"
                    for i in range(8))
    r = to_markdown(page(f"<div>{links}</div>"), policy=ConversionPolicy(select_main=False))
    assert r.validation.scores["boilerplate_ratio"] > 0.9
    assert "boilerplate-ratio-exceeded" in r.validation.reasons


def test_cross_page_hints_prune_repeated_blocks() -> None:
    promo = "Support independent local journalism today and become a member of our club."
    html = page(f"<article><p>{PROSE}</p><p>{promo}</p><p>{PROSE} Again.</p></article>")
    plain = to_markdown(html)
    assert promo in plain.markdown
    hinted = to_markdown(html, boilerplate_hints={block_hash(promo)})
    assert promo not in hinted.markdown
    assert "cross_page_repetition" in hinted.evidence.boilerplate_rules_used
    assert block_hash(promo) in plain.block_hashes


def test_stability_report() -> None:
    bare = ConversionPolicy(keep_title=False)
    a = to_markdown(ARTICLE, url=URL, policy=bare)
    b = to_markdown(ARTICLE.replace("<h2>Timeline</h2>", "<h2>Schedule</h2>"), url=URL, policy=bare)
    same = stability(a, a)
    assert (same.heading_jaccard, same.block_jaccard, same.identical, same.score) == (
        1.0, 1.0, True, 1.0)
    diff = stability(a, b)
    assert diff.heading_jaccard == round(1 / 3, 4) and not diff.identical
    assert diff.same_policy and 0 < diff.score < 1
    assert list(diff.to_dict()) == ["heading_jaccard", "block_jaccard", "identical",
                                    "same_policy", "score"]


def test_image_modes() -> None:
    html = page(f"<p>{PROSE} <img src='/i.png' alt='A cat'></p>")
    assert "![A cat](https://x.test/i.png)" in to_markdown(html, url="https://x.test/").markdown
    alt = to_markdown(html, url="https://x.test/", policy=ConversionPolicy(images="alt"))
    assert "A cat" in alt.markdown and "![" not in alt.markdown
    drop = to_markdown(html, url="https://x.test/", policy=ConversionPolicy(images="drop"))
    assert "A cat" not in drop.markdown


def test_links_without_url_stay_relative_and_unsafe_schemes_lose_the_link() -> None:
    md = to_markdown(page("<p><a href='/a'>rel</a> <a href='vbscript:x'>bad</a> "
                          "<a href=' java\tscript:alert(1)'>bad2</a></p>"),
                     policy=ConversionPolicy(select_main=False)).markdown
    assert md == "[rel](/a) bad bad2\n"


@pytest.mark.parametrize("kwargs", [
    {"images": "inline"}, {"boilerplate_ratio_max": 1.5}, {"min_markdown_chars": -1},
    {"required_heading": "("},
])
def test_invalid_policy(kwargs: dict[str, object]) -> None:
    with pytest.raises(MarkdownError) as info:
        ConversionPolicy(**kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, PressmarkError) and info.value.code == "invalid-policy"


def test_input_that_is_neither_text_nor_bytes_is_refused() -> None:
    for bad in (bytearray(b"<p>x</p>"), 42, None):
        with pytest.raises(MarkdownError) as info:
            to_markdown(bad)  # type: ignore[arg-type]
        assert info.value.code == "invalid-input"
    with pytest.raises(MarkdownError) as info:  # a charset for text that is already decoded
        to_markdown("<p>x</p>", content_type="text/html; charset=utf-8")
    assert info.value.code == "invalid-input"


_BODY = ("<html><head><title>Caf\u00e9</title></head><body><article><h1>Caf\u00e9 notes</h1>"
         + "<p>Cr\u00e8me br\u00fbl\u00e9e, \u201cquoted\u201d and plain words here.</p>" * 8
         + "</article></body></html>")


@pytest.mark.parametrize(("data", "content_type", "warns"), [
    (_BODY.encode("utf-8"), None, ()),                       # clean UTF-8: parsed as it is
    (b"\xef\xbb\xbf" + _BODY.encode("utf-8"), None, ()),   # a byte-order mark, removed
    (_BODY.replace("<head>", "<head><meta charset=windows-1252>").encode("cp1252"), None, ()),
    (_BODY.encode("cp1252"), "text/html; charset=windows-1252", ()),  # the header's charset
    (_BODY.encode("utf-8").replace(b"plain", b"pl\xffin"), None, ("charset-invalid-bytes",)),
    (_BODY.encode("cp1252"), None, ("charset-detected",)),  # undeclared, not UTF-8: detected
])
def test_body_bytes_give_the_markdown_of_their_text(
    data: bytes, content_type: str | None, warns: tuple[str, ...],
) -> None:
    """Bytes are read by the snapshot layer's charset decision, and give the very bytes
    of the text that decision reads: clean UTF-8 goes to the parser as it is."""
    from pressmark.snapshot import decide_charset, decode_text_body

    text = decode_text_body(data, decide_charset(data, content_type, is_html=True).label).text
    from_bytes = to_markdown(data, content_type=content_type)
    from_text = to_markdown(text)
    assert from_bytes.markdown == from_text.markdown and "Cr\u00e8me" in from_bytes.markdown
    if not warns:
        assert from_bytes.to_json() == from_text.to_json()
    assert [w.split(":")[0] for w in from_bytes.warnings] == list(warns)


def test_text_holding_its_byte_order_mark_reads_as_its_bytes() -> None:
    """Bytes decoded as "utf-8" keep their BOM as a character (requests' ``.text``); left
    there it is text before the doctype, and the head's title lands in the body, the BOM in
    the body's own text (among the entries the page's kind reads)."""
    page = ("<!doctype html><html><head><title>T</title><link rel=canonical href=/c>"
            "</head><body><a href=/a>Home</a> <a href=/b>News</a>" + _BODY.split("<body>", 1)[1])
    data = b"\xef\xbb\xbf" + page.encode("utf-8")
    assert to_markdown(data.decode("utf-8")).to_json() == to_markdown(data).to_json() \
        == to_markdown(page).to_json()


def test_empty_and_shell_pages() -> None:
    r = to_markdown("")
    assert r.markdown == "" and not r.validation.passed and r.evidence.needs_render
    shell = to_markdown(page("<div id='root'></div><script>boot()</script>"))
    assert shell.markdown == "" and shell.evidence.presence_score == 0.0


def test_deeply_nested_markup_does_not_recurse_out() -> None:
    html = "<div>" * 5000 + "<p>deep text</p>" + "</div>" * 5000
    assert "deep text" in to_markdown(html, policy=ConversionPolicy(select_main=False)).markdown
    html = "<ul><li>" * 400 + "x" + "</li></ul>" * 400
    assert "x" in to_markdown(html).markdown


_NOT_FOUND_PIECES = st.sampled_from([
    "404", "Error", " ", "-", ":", "page", "Page", "PAGE", "not", "NOT", "found", "FOUND",
    "doesn’t", "doesn't", "does", "exist", "article", "is", "no", "longer", "available",
    "can't", "find", "this", "Seite", "nicht", "gefunden", "introuvable", "página", "pagina",
    "encontrada", "\u212a", "\u017f", "\u0130", "ß", "é", "|", "News",
])


@settings(max_examples=2000, deadline=None)
@given(st.one_of(st.lists(_NOT_FOUND_PIECES, max_size=10).map(" ".join),
                 st.lists(_NOT_FOUND_PIECES, max_size=10).map("".join), st.text(max_size=30)))
def test_the_soft_404_screen_never_hides_a_match(text: str) -> None:
    """The substring screen in front of the soft-404 pattern decides as the pattern does."""
    assert _says_not_found(text) == (_soft_404().search(text) is not None)


def test_the_canonical_link_is_found_among_a_heads_other_links() -> None:
    """Only links naming "canonical" are read (the others: preloads, icons, feeds); the
    first whose ``rel`` holds the word, in any case, with an ``href``, is the page's."""
    head = ("<link rel=preload href=/p><link rel=icon href=/i><link rel=noncanonical href=/n>"
            "<link rel='Alternate CANONICAL'><link rel='alternate Canonical' href=/c>"
            "<link rel=canonical href=/d>")
    result = to_markdown(f"<html><head>{head}</head><body><p>Text.</p></body></html>",
                         url="https://town.test/x/y")
    assert result.metadata.canonical_url == "https://town.test/c"
