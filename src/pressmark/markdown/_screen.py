"""The parse screen: proves, in a few C-level passes, that a page needs none of the caps.

WHY a separate, cheaper proof: the full scan in ``_bounded`` walks every tag in Python
(about 9 ms on a long page) to keep an estimate of the stack of open elements. Most
pages are far from every cap, and that is visible without walking them:

- start tags: every start tag opens with a ``<`` that no ``/`` follows, so
  ``count("<") - count("</")`` bounds them (text, scripts and comments only add to it);
- attributes: one regex pass tokenizes the page as the HTML tokenizer does (comments,
  bogus comments, raw-text bodies, attribute values with their quotes) and stops at the
  first tag with more than :data:`MAX_ATTRIBUTES` attributes. Tokens that change how the
  rest is tokenized in ways a regex cannot follow are reported to a short Python loop:
  SVG and MathML (where ``<style>`` and ``<title>`` are not raw text), a raw-text body
  holding a ``<``, a script whose ``<!--`` may hide its end tag (double escaping), CDATA;
- formatting elements: the same pass reports their start and end tags, and the loop
  keeps the full scan's own count of unclosed ones (an end tag closes one of its name);
- ``<select>``: the start tags after the first ``<select>`` are counted as if every one
  sat in it, the select work (:data:`MAX_SELECT_WORK`) of that count bounds the full
  scan's; the attributes of every ``<html>`` start tag are summed (and of every
  ``<body>``), since a second one merges its own into the first's element: past
  :data:`MAX_ATTRIBUTES` the page is left to the full scan.

Every count errs upwards, so a page that passes is within the caps; a page that fails
gets the full scan, which decides exactly.

The same pass is also written in C (``_native_screen.c``, built with the package): it
reads the page as the tokenizer does, tag by tag, at about a tenth of the regular
expressions' cost, and hands the few pages it cannot follow (a raw-text name with
markup inside SVG or MathML, CDATA there) back to them. The regular expressions are
compiled only then, or when the package was built without its C parts.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from pressmark.markdown._lazy_re import LazyPattern


def _load_native() -> Callable[[str | bytes, int, int, list[int] | None, int], int] | None:
    try:
        from pressmark.markdown._native_screen import scan  # noqa: PLC0415 (optional)
    except ImportError:  # built without a C compiler (HATCH_BUILD_NO_HOOKS)
        return None
    return scan


def _load_utf8_check() -> Callable[[bytes], bool] | None:
    try:
        from pressmark.markdown._native_screen import utf8_valid  # noqa: PLC0415 (optional)
    except ImportError:
        return None
    return utf8_valid


_UTF8_VALID = _load_utf8_check()


def utf8_valid(data: bytes) -> bool:
    """True when ``data`` is valid UTF-8, as told by the C module without decoding it;
    False when it is not, or when there is no C module to tell (decode to know)."""
    return _UTF8_VALID is not None and _UTF8_VALID(data)


NATIVE = _load_native()
"""The C pass ``scan(text, max_attributes, max_formatting, cuts, max_select_work)``, when
the package was built with it: the start tags it read, -1 when a cap may be needed, -2 when
unsure; a ``cuts`` list receives the raw-text bodies Lexbor may skip (``_rawcut``)."""
_NATIVE_UNSURE = -2

MAX_DEPTH = 512
"""Open elements on the stack. Real pages stay under ~60; Lexbor's cost is ~d^2."""
MAX_ATTRIBUTES = 256
"""Attributes on one element (Lexbor's duplicate check is ~a^2)."""
MAX_ELEMENTS = 100_000
"""Start tags per page; a long real article has ~30k. Bounds tree memory."""
MAX_FORMATTING = 100
"""Unclosed formatting elements (``<b>``, ``<font>`` ...): the parser re-opens them all
after every block, so without a cap a page could multiply its own tree."""
MAX_TEXT_CHARS = 2_000_000
"""Characters of HTML per page outside its script and style bodies (about 2 MB): the markup
and text that conversion memory and time grow with. Script and style bodies are not counted:
a big publisher's page carries megabytes of inline state and CSS before its article (the
bodies are cut out before Lexbor parses, ``_rawcut``), and counting them cut the article."""
MAX_PAGE_CHARS = 16_000_000
"""Characters of HTML per page in all, script and style bodies included: what a page may
hold in memory (above the crawler's default 10 MiB response cap)."""
MAX_SELECT_ENTRIES = 2048
"""Elements a lone ``<select>`` keeps. Lexbor runs the selectedness algorithm at every
``<option>`` it inserts, over every option of the select (and walks the select's subtree
for a ``<selectedcontent>`` at every selected one): 99,000 options took 60 s."""
MAX_SELECT_WORK = MAX_SELECT_ENTRIES * (MAX_SELECT_ENTRIES - 1) // 2
"""What the selects of one page may cost, counted as Lexbor's walks: each start tag inside
a select adds the number of elements the select already holds."""
SCREEN_STARTS = 2048
"""A page with at most this many start tags (and no long tag) is parsed as it is: however
deep it nests, Lexbor's quadratic paths cost it ~1.4 ns x 2048^2, about 6 ms."""

RAW_TEXT = ("script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes")
"""Elements whose body the tokenizer reads as text up to their end tag. Not ``noscript``:
Lexbor parses with scripting off, so a ``<noscript>`` holds markup."""
FORMATTING = ("a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike",
              "strong", "tt", "u")
_FOREIGN = ("svg", "math", "foreignobject", "desc", "mi", "mo", "mn", "ms", "mtext",
            "annotation-xml")

_NAME_END = r"(?![^\t\n\f\r />])"  # a tag name ends at a separator, ``>`` or the end
_ATTR = (r"[\t\n\f\r /]*+[^\t\n\f\r />][^\t\n\f\r /=>]*+"
         r"(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:\"[^\"]*+\"?+|'[^']*+'?+|[^\t\n\f\r >]*+))?+")
# a tag's attributes and end, when it holds at most the cap of them (else no match)
_ATTRS_END = rf"(?:{_ATTR}){{0,{MAX_ATTRIBUTES}}}+[\t\n\f\r /]*+(?:>|\Z)"
_TAG_REST = rf"[^\t\n\f\r />]*+{_ATTRS_END}"
_LOWER_NAME = r"[a-z][^\t\n\f\r />A-Z]*+(?![A-Z])"  # no ASCII capital: compare as is
_RAW = "|".join(RAW_TEXT)
# the names the loop must see, start and end tags alike (raw text, foreign content,
# formatting), spelled out by first letter: this is the commonest check per tag
_SPECIAL = (r"(?:s(?:cript|tyle|vg|mall|trike|trong)|t(?:extarea|itle|t)|xmp|iframe"
            r"|no(?:embed|frames|br)|m(?:ath|[ions]|text)|foreignobject|desc|annotation-xml"
            r"|[abisu]|big|code|em|font)")

# Formatting elements around plain text, each name closed by its own end tag (the name
# to the end tag's name end); the commonest first.
_PAIRS = "|".join(rf"{n}{_NAME_END}{_ATTRS_END}[^<]*+</{n}"
                  for n in ("i", "b", "em", "strong", "code", "small", "u", "s"))
# A link may hold tags the loop has nothing to do with (an image, a span): they leave
# what it counts as it is, so the link still opens and closes one formatting element.
_PAIRS = (rf"a{_NAME_END}{_ATTRS_END}(?:[^<]++|</?(?!{_SPECIAL}{_NAME_END}){_LOWER_NAME}"
          rf"{_ATTRS_END})*+</a|{_PAIRS}")

# What the tokenizer reads without changing state in a way that matters here: text, a
# tag within the attribute cap, comments, bogus comments and doctypes, a lone ``<`` (the
# commonest first). Names compare ASCII-case-insensitively, as the tokenizer lowercases
# them (``(?i)`` alone would also fold "ſ" to "s"); a lowercase name needs no folding.
_QUIET = (
    r"[^<]++"
    # a link (or another common formatting element) around plain text opens and closes
    # one formatting element of one name: no net change
    rf"|<(?:{_PAIRS}){_NAME_END}{_ATTRS_END}"
    rf"|</?(?!{_SPECIAL}{_NAME_END}){_LOWER_NAME}{_ATTRS_END}"
    rf"|</?(?!(?i:{_SPECIAL}){_NAME_END})[A-Za-z]{_TAG_REST}"
    r"|<!--(?>-?>|(?:[^-]++|-(?!-!?>))*+(?:--!?>)?+)"
    r"|<!(?!--|\[CDATA\[)[^>]*+>?"
    r"|<\?[^>]*+>?"
    r"|</(?![A-Za-z])[^>]*+>?"
    r"|<(?![A-Za-z!?/])"
)
# The tokens the loop in :func:`_tokens_pass` looks at, a group each: a raw-text element
# (name, body: a page has a few dozen); any other tag of a name the loop must see; CDATA;
# anything else that opens with ``<`` here is a tag past the attribute cap.
_TOKENS_PATTERN = (
    rf"(?:{_QUIET})*+(?:"
    rf"<((?i:{_RAW})){_NAME_END}{_TAG_REST}((?:[^<]++|<(?!/(?i:\1)[\t\n\f\r />]))*+)"
    # and its end tag, which the loop has nothing to do with (not when past the cap)
    rf"(?:</(?i:\1){_TAG_REST})?+"
    rf"|(</?(?i:{_SPECIAL})){_NAME_END}{_TAG_REST}"
    r"|(<!\[CDATA\[)[^>]*+>?"
    r"|(<)"
    r"|\Z)"
)


@functools.cache
def _tokens() -> re.Pattern[str]:
    """Compiled on first use: about a third of the Markdown layer's start-up when it is
    compiled at import, and needed only where the C pass is missing or unsure."""
    return re.compile(_TOKENS_PATTERN, re.S | re.A)


_FORMATTING = frozenset(FORMATTING)
_INTEGRATION_POINTS = frozenset(_FOREIGN[2:])
# In foreign content a raw-text name's body is markup; such a body is harmless when it
# opens nothing: no "<" that starts a tag, comment or end tag outside CDATA sections.
_CDATA = LazyPattern(r"<!\[CDATA\[.*?\]\]>", re.S)
_OPENS = LazyPattern(r"<[A-Za-z!/?]")


def screen(text: str) -> bool:
    """True when ``text`` provably needs no cap: few enough tags and no long tag.

    A fifth of Lexbor's own parse time in C (about twice it by regular expressions: ~1 ms
    on a 200 KB page, a quarter of the full scan), and a page that passes may be parsed
    anywhere, the event loop included (see :data:`SCREEN_STARTS`). A page that fails
    gets the full scan.
    """
    return 0 <= screened_starts(text) <= SCREEN_STARTS


def screened_starts(text: str | None, *, source: str | bytes | None = None,
                    cuts: list[int] | None = None) -> int:
    """An upper bound of the page's start tags when every other cap provably holds
    (text length, formatting elements, attributes), else -1.

    Above :data:`SCREEN_STARTS` the bound is ``count("<") - count("</")`` less the raw
    text's (module doc); at or below it, it may be the looser ``count("<")`` less those,
    which decides the same: counting ``</`` costs a pass over the page, needed only
    when the looser bound is too high. The C pass returns the start tags it read, which
    is tighter still.

    ``source``: the text's UTF-8 bytes, when the caller parses those (the C pass reads
    them instead, with the same decisions); ``text`` may then be None, decoded only if
    the regular expressions must decide. ``cuts``: a list the C pass fills with the
    script and style bodies it found (``_rawcut``); left empty when it is missing or
    unsure.
    """
    if text is None:
        assert isinstance(source, bytes), "text or its UTF-8 bytes"
        if len(source) > MAX_PAGE_CHARS:  # bytes bound characters; too many? decode
            text = source.decode("utf-8")
    if text is not None and len(text) > MAX_PAGE_CHARS:
        return -1
    scanned: str | bytes = source if source is not None else text  # type: ignore[assignment]
    # past MAX_TEXT_CHARS only the C pass can pass a page: it finds the raw-text bodies,
    # and what lies outside them must be within the cap (bytes count at least as many)
    long_page = len(scanned) > MAX_TEXT_CHARS
    if NATIVE is not None:
        bodies = cuts if cuts is not None or not long_page else []
        starts = NATIVE(scanned, MAX_ATTRIBUTES, MAX_FORMATTING, bodies, MAX_SELECT_WORK)
        if starts >= 0 and long_page and bodies is not None \
                and outside_bodies(len(scanned), bodies) > MAX_TEXT_CHARS:
            starts = -1
        if starts != _NATIVE_UNSURE:
            if starts < 0 and cuts:
                cuts.clear()
            return starts
        if cuts:
            cuts.clear()
    if long_page:
        return -1  # the full scan counts what lies outside the bodies
    if text is None:
        assert isinstance(source, bytes)
        text = source.decode("utf-8")
    return regex_screened_starts(text)


def outside_bodies(size: int, cuts: list[int]) -> int:
    """Of a page of ``size`` (characters, or bytes as the C pass read them), what lies
    outside the raw-text bodies in ``cuts`` (four values each: start, end, ...)."""
    return size - sum(cuts[i + 1] - cuts[i] for i in range(0, len(cuts), 4))


def regex_screened_starts(text: str) -> int:
    """:func:`screened_starts` by regular expressions alone (the C pass's fallback)."""
    if len(text) > MAX_TEXT_CHARS:
        return -1
    starts = text.count("<")
    closes_counted = starts > 4 * SCREEN_STARTS
    if closes_counted:
        starts -= text.count("</")  # an upper bound (module doc)
        if starts > 4 * SCREEN_STARTS:
            return -1  # scripts hold some of those ``<``, never this many
    if _may_merge_attributes(text) or _select_work_bound(text) > MAX_SELECT_WORK:
        return -1
    in_raw_text = _tokens_pass(text)
    if in_raw_text < 0:
        return -1
    if not closes_counted and starts - in_raw_text > SCREEN_STARTS:
        starts -= text.count("</")
    return starts - in_raw_text


_MERGED_START = LazyPattern(r"<(html|body)(?![^\t\n\f\r />])", re.I | re.A)
_SELECT_START = LazyPattern(r"<select(?![^\t\n\f\r />])", re.I | re.A)
# a tag's attributes up to its end, when it holds at most the cap of them (else no match)
_MERGED_ATTRS = LazyPattern(rf"((?:{_ATTR}){{0,{MAX_ATTRIBUTES}}}+)[\t\n\f\r /]*+(?:>|\Z)",
                           re.A)
_ONE_ATTR = LazyPattern(_ATTR, re.A)
_MERGED_LOOKS = 64
"""``<html`` and ``<body`` texts a page may hold before the merge check gives up (IE's
conditional comments hold a few; a scripted iframe's source one or two)."""


def _may_merge_attributes(text: str) -> bool:
    """More than :data:`MAX_ATTRIBUTES` attributes on the ``<html>`` start tags together
    (or the ``<body>`` ones): the parser merges a second one's into the first's element.

    Every text that reads as such a tag counts, in a comment, a script or an attribute
    value too (the tokenizer sees a subset of them), so the sum errs upwards; a tag past
    the cap, or more than :data:`_MERGED_LOOKS` of them, leaves the page to the full scan.
    Counting rather than refusing every second ``<html``: IE's conditional comments put
    one per IE version on a tenth of real pages, which the C pass reads as comments.
    """
    merged = {"html": 0, "body": 0}
    for looked, found in enumerate(_MERGED_START.get().finditer(text)):
        attrs = _MERGED_ATTRS.get().match(text, found.end())
        if looked >= _MERGED_LOOKS or attrs is None:
            return True
        name = found.group(1).lower()
        merged[name] += len(_ONE_ATTR.get().findall(attrs.group(1)))
        if merged[name] > MAX_ATTRIBUTES:
            return True
    return False


def _select_work_bound(text: str) -> int:
    """The select work (:data:`MAX_SELECT_WORK`) if every start tag after the first
    ``<select>`` sat in it: an upper bound of the full scan's."""
    found = _SELECT_START.get().search(text)
    if found is None:
        return 0
    after = text.count("<", found.start()) - text.count("</", found.start())
    return after * (after - 1) // 2


def _tokens_pass(text: str) -> int:
    """The attribute cap and the tokenizer states a regex cannot follow (module doc).

    Returns how many ``<`` without a ``/`` after them sit in raw-text bodies (they open
    no tag), or -1 when the page may need a cap. Formatting elements are counted as the
    full scan counts them: one more for a start tag, one fewer for an end tag of a name
    still open, never :data:`MAX_FORMATTING` at once (a link around plain text, quiet
    here, adds one and takes it back, so the count stops one short of the cap).
    Inside SVG or MathML a raw-text name is an ordinary element, so its body's ``<`` are
    tags: such a token fails unless its body opens nothing (``//<![CDATA[`` scripts).
    After an integration point (``<foreignObject>`` ...) a ``</svg>`` may be ignored and
    the foreign part never end: any later one is looked at the same way.
    """
    svg = math = 0
    integration = False
    in_raw_text = 0
    unclosed = 0
    open_by_name: dict[str, int] = {}
    for m in _tokens().finditer(text):
        raw, body, special, cdata, other = m.groups()
        if special:
            closing = special[1] == "/"
            name = special[1 + closing:].lower()
            if name in _FORMATTING:
                if not closing:
                    if unclosed >= MAX_FORMATTING - 1:
                        return -1  # one short of the cap: a quiet link pair then stays clear
                    open_by_name[name] = open_by_name.get(name, 0) + 1
                    unclosed += 1
                elif open_by_name.get(name):
                    open_by_name[name] -= 1
                    unclosed -= 1
            elif name == "svg":
                svg += -1 if closing else 1
                svg = max(svg, 0)
            elif name == "math":
                math += -1 if closing else 1
                math = max(math, 0)
            elif (svg or math) and not closing and name in _INTEGRATION_POINTS:
                integration = True
        elif raw:
            if "<" not in body:
                continue  # it ends where a foreign element of that name would end
            if (svg or math or integration) and _OPENS.get().search(_CDATA.get().sub("", body)):
                return -1  # maybe markup here (foreign content), and it would open a tag
            if "<!--" in body and raw.lower() == "script" \
                    and script_end(text, m.start(2)) != m.end(2):
                return -1  # a double-escaped part: the script ends further on
            in_raw_text += body.count("<") - body.count("</")
        elif cdata:
            if svg or math or integration:
                return -1
        elif other:
            return -1
    return in_raw_text


_SCRIPT_EVENTS = LazyPattern(r"<!--|-->|<(/?)script[\t\n\f\r />]", re.I | re.A)


def script_end(text: str, pos: int) -> int:
    """Where the end tag that closes a script body starting at ``pos`` starts.

    The tokenizer's script states: ``<!--`` escapes, a ``<script`` inside the escaped
    part double-escapes, and there a ``</script>`` only returns to escaped; ``-->``
    ends either. So ``<script><!--<script></script>...</script>`` ends at the second.
    """
    state = 0  # 0 data, 1 escaped, 2 double escaped
    search = _SCRIPT_EVENTS.get().search
    while True:
        m = search(text, pos)
        if m is None:
            return len(text)
        token = m.group()
        if token == "<!--":
            state = state or 1
            pos = m.end() - 2  # "<!-->" is closed by its own dashes
        elif token == "-->":
            state = 0
            pos = m.end()
        elif m.group(1):  # </script
            if state != 2:
                return m.start()
            state = 1
            pos = m.end() - 1
        else:  # <script
            state = 2 if state == 1 else state
            pos = m.end() - 1
