"""decode_text_body reads bytes the way a browser does (WHATWG labels)."""

from __future__ import annotations

import codecs

import pytest

from pressmark.snapshot import decide_charset, decode_text_body, new_snapshot
from pressmark.snapshot._charset import DETECTION_SAMPLE, header_charset
from pressmark.snapshot._labels import codec_for, lookup_encoding
from pressmark.snapshot._prescan import prescan_meta_charset


@pytest.mark.parametrize("label", ["latin1", "ISO-8859-1", " ascii ", "us-ascii", "l1", "cp819"])
def test_latin1_family_means_windows_1252(label: str) -> None:
    decoded = decode_text_body(b"\x80 \x93quoted\x94 caf\xe9", label)
    assert decoded.text == "€ “quoted” café"
    assert decoded.encoding == "windows-1252"
    assert decoded.warnings == ()


def test_windows_1252_undefined_bytes_are_c1_controls_not_errors() -> None:
    decoded = decode_text_body(b"a\x81b\x9dc", "windows-1252")
    assert decoded.text == "a\x81b\x9dc"
    assert decoded.warnings == ()


@pytest.mark.parametrize(
    ("label", "name"),
    [("gb2312", "GBK"), ("euc-kr", "EUC-KR"), ("sjis", "Shift_JIS"), ("utf8", "UTF-8"),
     ("unicode-1-1-utf-8", "UTF-8"), ("iso-8859-9", "windows-1254"), ("tis-620", "windows-874"),
     ("utf-16", "UTF-16LE"), ("x-mac-roman", "macintosh"), ("ISO-2022-KR", "replacement")],
)
def test_whatwg_labels(label: str, name: str) -> None:
    assert lookup_encoding(label) == name


def test_the_utf8_shortcut_answers_as_the_label_table_does() -> None:
    """``lookup_encoding`` answers UTF-8's labels without webencodings (module docstring of
    ``pressmark.snapshot._labels``): every label of the table, in any case, with the
    whitespace the standard strips, and look-alikes that are no label, say the same."""
    import webencodings
    from webencodings.labels import LABELS

    from pressmark.snapshot._labels import codec_for

    labels = [*LABELS, "utf\u20118", "\uff55tf-8", "utf-8\u00a0", "utf-8;", "utf-8 x"]
    for label in labels:
        for variant in (label, label.upper(), label.title(), f" \t{label}\n\x0c\r"):
            found = webencodings.lookup(variant)
            expected = None if found is None else found.name
            got = lookup_encoding(variant)
            assert (got == "UTF-8") == (expected == "utf-8"), variant
            assert (got is None) == (expected is None), variant
    assert codec_for("UTF-8") == webencodings.lookup("UTF-8").codec_info.name


def test_unknown_label_falls_back_to_utf8_with_a_warning() -> None:
    decoded = decode_text_body("héllo".encode(), "x-klingon")
    assert decoded.text == "héllo"
    assert decoded.encoding == "UTF-8"
    assert len(decoded.warnings) == 1
    assert decoded.warnings[0].startswith("charset-unknown")


def test_invalid_bytes_become_replacement_characters_with_a_warning() -> None:
    decoded = decode_text_body(b"ok \xff\xfe end", "utf-8")
    assert decoded.text == "ok \ufffd\ufffd end"
    assert decoded.warnings[0].startswith("charset-invalid-bytes")
    assert decoded.replaced


def test_no_charset_means_utf8() -> None:
    decoded = decode_text_body("naïve".encode(), None)
    assert decoded.text == "naïve" and not decoded.replaced


def test_matching_bom_is_left_out_of_the_text() -> None:
    decoded = decode_text_body(codecs.BOM_UTF8 + b"hi", "utf-8")
    assert decoded.text == "hi"
    assert decoded.bom_removed


def test_bom_never_overrides_a_declared_charset() -> None:
    decoded = decode_text_body(codecs.BOM_UTF8 + b"hi", "windows-1252")
    assert decoded.text == "ï»¿hi"
    assert decoded.encoding == "windows-1252"
    assert not decoded.bom_removed


def test_bom_picks_the_encoding_when_none_is_declared() -> None:
    data = codecs.BOM_UTF16_LE + "hé".encode("utf-16-le")
    decoded = decode_text_body(data, None)
    assert decoded.text == "hé"
    assert decoded.encoding == "UTF-16LE"


def test_utf16_declared_with_matching_bom() -> None:
    data = codecs.BOM_UTF16_BE + "x".encode("utf-16-be")
    assert decode_text_body(data, "utf-16be").text == "x"


def test_replacement_encoding_decodes_to_one_replacement_character() -> None:
    assert decode_text_body(b"\x1b$)Cabc", "iso-2022-kr").text == "\ufffd"


def test_x_user_defined() -> None:
    assert decode_text_body(b"a\x80\xff", "x-user-defined").text == "a\uf780\uf7ff"


@pytest.mark.parametrize(
    ("header", "expected"),
    [("text/html; charset=ISO-8859-1", "iso-8859-1"), ('text/html;charset="UTF-8"', "utf-8"),
     ("text/html; foo=bar; charset='koi8-r'", "koi8-r"), ("text/html", None), (None, None),
     ("text/html; charset=", None)],
)
def test_header_charset_reads_the_parameter(header: str | None, expected: str | None) -> None:
    assert header_charset(header) == expected


@pytest.mark.parametrize(
    ("html", "expected"),
    [(b'<html><head><meta charset="Shift_JIS">', "shift_jis"),
     (b'<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">',
      "windows-1251"),
     (b"<meta charset=utf-16le>", "utf-8"),
     (b"<p>no meta</p>", None)],
)
def test_meta_prescan(html: bytes, expected: str | None) -> None:
    assert prescan_meta_charset(html) == expected


def test_meta_beyond_the_prescan_window_is_ignored() -> None:
    assert prescan_meta_charset(b" " * 2000 + b'<meta charset="koi8-r">') is None


@pytest.mark.parametrize("label", ["utf-7", "latin_1", "utf_8", "cp65001", "mbcs"])
def test_python_only_names_are_unknown_labels(label: str) -> None:
    assert lookup_encoding(label) is None
    assert header_charset(f"text/html; charset={label}") is None


def test_bom_wins_over_the_header_and_says_so() -> None:
    decision = decide_charset(codecs.BOM_UTF8 + "café".encode(), "text/html; charset=iso-8859-1",
                              is_html=True)
    assert (decision.label, decision.source) == ("utf-8", "bom")
    assert decision.warnings[0].startswith("charset-bom-overrides-header")


def test_an_unknown_header_label_is_ignored_for_the_meta_and_noted() -> None:
    body = b'<meta charset="koi8-r"><p>\xf0\xd2\xc9</p>'
    decision = decide_charset(body, "text/html; charset=utf-7", is_html=True)
    assert (decision.label, decision.source) == ("koi8-r", "meta")
    assert decision.warnings[0].startswith("charset-unknown-header")


def test_a_meta_label_the_bytes_contradict_gives_way_to_valid_utf8() -> None:
    """A page transcoded to UTF-8 that kept ``<meta charset=gb2312>``: invalid GBK, valid
    UTF-8, so it reads as UTF-8 and says why; bytes valid in the label keep the label."""
    text = "<meta charset=gb2312><p>腾讯科技讯 10月14日消息，据外媒报道</p>"
    decision = decide_charset(text.encode("utf-8"), None, is_html=True)
    assert (decision.label, decision.source) == (None, "default")
    assert decision.warnings[0].startswith("charset-meta-ignored")
    assert decide_charset(text.encode("gbk"), None, is_html=True).label == "gb2312"
    latin = "<meta charset=iso-8859-1><p>café</p>".encode()  # valid windows-1252 too
    assert decide_charset(latin, None, is_html=True).label == "iso-8859-1"
    header = decide_charset(text.encode("utf-8"), "text/html; charset=gbk", is_html=True)
    assert (header.label, header.source) == ("gbk", "header")  # the header still wins


def test_new_snapshot_makes_the_same_decision() -> None:
    body = codecs.BOM_UTF8 + "café".encode()
    snap = new_snapshot(source_id="s", requested_url="https://e.test/", url="https://e.test/",
                        status=200, headers={"content-type": "text/html; charset=iso-8859-1"},
                        body=body, fetched_at="2024-01-01T00:00:00.000Z")
    assert (snap.declared_charset, snap.charset_source) == ("utf-8", "bom")
    assert snap.body == "café"


# Undeclared pages in a legacy encoding: distinct sentences, as a page's text is (a
# detector, like a reader, needs some text to go by).
_UNDECLARED = {
    "windows-1252": ("Die Bundesregierung hat am Mittwoch ein umfangreiches Maßnahmenpaket "
                     "beschlossen. Künftig sollen Bürger und Unternehmen schneller über "
                     "Förderungen informiert werden, hieß es aus dem Ministerium."),
    "Shift_JIS": ("政府は水曜日、長く待たれていた年金改革を発表した。労働組合との数か月にわたる"
                  "難しい交渉の末の決定であり、首相はテレビ演説でこれを決定的な瞬間だと述べた。"),
    "EUC-JP": ("政府は水曜日、長く待たれていた年金改革を発表した。労働組合との数か月にわたる"
               "難しい交渉の末の決定であり、首相はテレビ演説でこれを決定的な瞬間だと述べた。"),
    "GBK": ("政府星期三宣布了一项期待已久的养老金改革，此前与工会进行了数月的艰难谈判。"
            "总统在电视讲话中表示，这是一个决定性的时刻，各方应当共同努力。"),
    "windows-1251": ("Правительство в среду объявило о долгожданной пенсионной реформе "
                     "после нескольких месяцев трудных переговоров с профсоюзами."),
}


@pytest.mark.parametrize("name", sorted(_UNDECLARED))
def test_an_undeclared_legacy_page_reads_as_a_browser_detects_it(name: str) -> None:
    """No BOM, header or ``<meta>``, and the bytes are not UTF-8: Firefox's detector
    names the encoding (source ``detected``, with a warning), instead of U+FFFD for
    every letter that is not ASCII (which left such pages with no text at all)."""
    text = f"<html><head><title>t</title></head><body><p>{_UNDECLARED[name]}</p></body></html>"
    body = text.encode(codec_for(name))
    decision = decide_charset(body, "text/html", is_html=True)
    assert decision.source == "detected"
    # WHATWG's GBK decoder is its gb18030 decoder: the detector may name either
    assert lookup_encoding(decision.label or "") in {name, "gb18030" if name == "GBK" else name}
    assert decision.warnings[0].startswith("charset-detected")
    assert decode_text_body(body, decision.label).text == text


def test_detection_is_only_for_bytes_that_are_not_utf8() -> None:
    """Valid UTF-8 and ASCII stay the default; a declaration always wins over detection;
    non-HTML bodies are never guessed at."""
    utf8 = "<p>Grüße aus Köln</p>".encode()
    assert (decide_charset(utf8, None, is_html=True).source) == "default"
    assert (decide_charset(b"<p>plain</p>", None, is_html=True).source) == "default"
    legacy = "<meta charset=windows-1251><p>Привет, мир, как дела?</p>".encode("cp1251")
    assert decide_charset(legacy, None, is_html=True).source == "meta"
    assert decide_charset("Grüße".encode("cp1252"), "text/plain", is_html=False).source == \
        "default"


def test_detection_reads_a_bounded_sample() -> None:
    """A hostile body (megabytes of high bytes) costs the sample's worth, not its size."""
    body = b"<p>" + bytes(range(0x80, 0x100)) * (4 * DETECTION_SAMPLE // 128)
    decision = decide_charset(body, None, is_html=True)
    assert decision.source == "detected"
    assert lookup_encoding(decision.label or "") is not None


def test_new_snapshot_records_a_detected_charset() -> None:
    """The decision is stored with the snapshot, so its text (and every citation into it)
    is derived the same way on every later read."""
    body = f"<p>{_UNDECLARED['windows-1251']}</p>".encode("cp1251")
    snap = new_snapshot(source_id="s", requested_url="https://e.test/", url="https://e.test/",
                        status=200, headers={"content-type": "text/html"}, body=body,
                        fetched_at="2024-01-01T00:00:00.000Z")
    assert (snap.declared_charset, snap.charset_source) == ("windows-1251", "detected")
    assert _UNDECLARED["windows-1251"] in snap.body
    assert any(w.startswith("charset-detected") for w in snap.warnings)


def test_utf8_with_a_few_bad_bytes_stays_utf8() -> None:
    """A UTF-8 page with a stray byte keeps its accented letters (one U+FFFD), rather
    than being read in a legacy encoding that would garble every one of them."""
    body = ("<p>Crème brûlée, “quoted” and Grüße aus Köln.</p>" * 4).encode().replace(
        b"and", b"\xffnd", 1)
    decision = decide_charset(body, None, is_html=True)
    assert (decision.label, decision.source) == (None, "default")
    assert decode_text_body(body, decision.label).text.count("\ufffd") == 1
