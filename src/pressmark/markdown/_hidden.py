"""Text a reader would not see: why an element is hidden, from what the page itself says.

Instructions planted for a language model sit in text no person sees. This module names
the reason an element is hidden, from static signals only (a rendered page adds the
browser's own verdict, below):

* attributes: ``hidden``, ``aria-hidden="true"``;
* the element's inline ``style``: ``display:none``, ``visibility:hidden|collapse``,
  ``opacity:0``, a zero ``font-size``, ``transform:scale(0)``, off-screen positioning
  (``position:absolute|fixed`` at ``-1000px`` or beyond, or ``text-indent`` as far), a
  clip to nothing (``clip:rect(0 0 0 0)``, ``clip-path:inset(50%)``), a zero height or
  width with ``overflow:hidden``, and a text colour equal to the background colour set
  on the element or the nearest ancestor that sets one (or ``color:transparent``);
* the page's own ``<style>`` elements: rules whose selectors are simple (``.name``,
  ``#id``, ``tag.name``, compound classes) and whose declarations hide as above. Rules
  inside at-rules (``@media print``, a phone-only layout) are not read: they hide only
  sometimes. Stylesheets the page links are never fetched;
* ``data-pressmark-hidden="REASON"``: set by the renderer (``pressmark.render``) from
  the browser's computed styles and geometry before the DOM is serialised; a page's
  own attribute of that name is removed first, so only the browser's verdict is read.

The tree builder (``_tree``) asks :meth:`HiddenWatch.reason` for each element carrying
one of these signals, leaves a hidden element out (its text never reaches the Markdown,
as ``display:none`` never did) and notes it; once the main region is chosen,
:meth:`HiddenWatch.report` lists the hidden passages inside it (``hidden_text`` in the
evidence) with their element's path, the reason and the text. Short ones are not listed
(:data:`MIN_HIDDEN_CHARS`): a screen-reader label ("Skip to content", "opens in a new
tab") or an icon's glyph is hidden by design and says nothing.
"""

from __future__ import annotations

import re

from pressmark.markdown._casefold import folded, holds_any
from pressmark.markdown._lazy_re import LazyPattern
from pressmark.markdown._sheet import Piece, sheet_candidates, simple_selector

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Any, Final

    from pressmark.markdown._tree import Node

HIDDEN_ATTR: Final = "data-pressmark-hidden"
MIN_HIDDEN_CHARS: Final = 48
"""Characters of collapsed text from which a hidden passage is listed in the evidence."""
MAX_LISTED: Final = 64
"""Hidden passages listed at most (the count says how many there were)."""
MAX_TEXT: Final = 400
"""Characters of a hidden passage's text kept in the evidence."""
OFF_SCREEN_PX: Final = 999
"""A left/top/right offset or text-indent this far negative puts text off the screen."""
EM_PX: Final = 16
MAX_BACKGROUND_HOPS: Final = 12
"""Ancestors looked at for the background a text colour is compared with."""
MAX_READ_CHARS: Final = 100_000
"""Characters of a hidden element's text read at most."""
MAX_SHEET_CHARS: Final = 2_000_000
"""Characters of ``<style>`` text read at most."""
MAX_SHEET_RULES: Final = 256
"""Hiding rules of a page's stylesheets read at most."""
MAX_SHEET_CANDIDATES: Final = 4096
"""Rules of a page's stylesheets whose declarations are read at most (``_sheet``; at most
205 on a page of the 1,252 corpus pages): time and memory stay bounded on a hostile sheet."""

REASONS: Final = ("hidden-attribute", "aria-hidden", "display-none", "visibility-hidden",
                  "opacity-zero", "zero-font-size", "scaled-to-zero", "off-screen",
                  "clipped", "zero-size", "same-colour", "rendered-hidden")

_STYLE_HINT: Final = LazyPattern(
    r"none|hidden|collapse|opacity|font-size\s*:\s*0|-\d{3,}|clip|scale|height\s*:\s*0"
    r"|width\s*:\s*0|color", re.I)
"""A value that may hide in an inline style (``_sheet._SHEET_HINT`` is a stylesheet's),
and ``color`` (the text may match its background); read as :func:`_style_hint` does."""
_STYLE_WORDS: Final = ("none", "hidden", "collapse", "opacity", "clip", "scale", "color")
_ZERO_WORDS: Final = ("font-size", "height", "width")
_STYLE_ZERO: Final = LazyPattern(r"(?:font-size|height|width)\s*:\s*0", re.I)
_ZERO_VALUE: Final = LazyPattern(r"\s*:\s*0")
_STYLE_NEGATIVE: Final = LazyPattern(r"-\d{3}")
_PART: Final = LazyPattern(r"([.#])([A-Za-z0-9_-]+)")
_LENGTH: Final = LazyPattern(r"^(-?\d*\.?\d+)(px|em|rem|pt|%|vw|vh)?$")
_RECT: Final = LazyPattern(r"rect\(([^)]*)\)")
_SCALE_ZERO: Final = LazyPattern(r"scale[xy]?\(\s*0(?:\.0+)?\s*[,)]")
_CLIP_PATH_ZERO: Final = LazyPattern(r"inset\(\s*(?:50|100)%|circle\(\s*0")
_SHEET_NAMES: Final = frozenset((
    "display", "visibility", "opacity", "font-size", "transform", "position", "left", "top",
    "right", "text-indent", "clip", "clip-path", "overflow", "height", "max-height", "width",
    "max-width"))
"""The properties :func:`style_reason` reads: a stylesheet rule's other declarations are
not worked out (:func:`_sheet_declarations`)."""
_NAMED_COLOURS: Final = {"white": "#ffffff", "black": "#000000", "red": "#ff0000",
                         "transparent": "transparent"}


class _Rule:
    """A hiding rule of a stylesheet: its selector's tag, classes and id, and the reason.

    WHY not a frozen dataclass: compiled, its ``__init__`` still ran as Python (one
    ``object.__setattr__`` per field, about 6,000 instructions a rule)."""

    __slots__ = ("classes", "ident", "reason", "tag")

    def __init__(self, tag: str | None, classes: frozenset[str], ident: str | None,
                 reason: str) -> None:
        self.tag = tag
        self.classes = classes
        self.ident = ident
        self.reason = reason


class _Spot:
    """A hidden element left out: where it was, why, and Lexbor's node (whose text is read
    only if the passage is listed).

    WHY not a dataclass: compiled (mypyc), a dataclass's field annotations are built when
    the module loads, and ``Node`` does not exist yet then (``_tree``, which imports this
    module, defines it after the import): the annotation was a null pointer and the import
    crashed."""

    __slots__ = ("lex", "nth", "parent", "reason", "tag")

    def __init__(self, parent: Node, tag: str, nth: int, reason: str, lex: Any) -> None:
        self.parent = parent
        self.tag = tag
        self.nth = nth
        self.reason = reason
        self.lex = lex


def _declarations(style: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in style.split(";"):
        name, colon, value = part.partition(":")
        if colon:
            value = value.lower().replace("!important", "").strip()
            out[name.strip().lower()] = " ".join(value.split())
    return out


def _sheet_declarations(body: str) -> dict[str, str]:
    """:func:`_declarations` of a stylesheet rule's body, but only the properties
    :func:`style_reason` reads (:data:`_SHEET_NAMES`): a framework's rule sets a dozen
    others, each lower-cased, stripped and split for nothing (two fifths of a sheet's
    reading once the scan was in C)."""
    out: dict[str, str] = {}
    for part in body.split(";"):
        name, colon, value = part.partition(":")
        if colon:
            key = name.strip()
            if key not in _SHEET_NAMES:  # most names are written in lower case already
                key = key.lower()
            if key in _SHEET_NAMES:
                value = value.lower().replace("!important", "").strip()
                out[key] = " ".join(value.split())
    return out


def _px(value: str) -> float | None:
    """A CSS length in pixels (``em``/``rem`` at 16px; ``%``/viewport units: None)."""
    if not value:
        return None
    match = _LENGTH.get().match(value)
    if match is None:
        return None
    number = float(match.group(1))
    unit = match.group(2)
    if unit is None:  # a unitless length other than 0 is invalid CSS: ignored
        return 0.0 if number == 0 else None
    if unit in ("px", "pt"):
        return number
    if unit in ("em", "rem"):
        return number * EM_PX
    return number if number == 0 else None


def _zero(value: str | None) -> bool:
    if value is None:
        return False
    return _px(value) == 0


def _colour(value: str | None) -> str | None:
    """A colour in one spelling (``#rrggbb``, ``transparent``), or None: the first word
    of ``value`` that is a colour (``background: #fff no-repeat``)."""
    if not value:
        return None
    if value.startswith(("rgb(", "rgba(")):
        return _rgb(value)
    for word in value.split():
        if word in _NAMED_COLOURS:
            return _NAMED_COLOURS[word]
        if word.startswith("#"):
            digits = word[1:]
            if len(digits) in (3, 4):
                digits = "".join(c * 2 for c in digits[:3])
            return "#" + digits[:6] if len(digits) >= 6 else None
        if word.startswith(("rgb(", "rgba(")):
            return _rgb(value[value.index(word):])
    return None


def _rgb(value: str) -> str | None:
    inner = value[value.index("(") + 1:].partition(")")[0]
    parts = [p for p in inner.replace("/", ",").replace(" ", ",").split(",") if p]
    try:
        rgb = [int(float(p)) for p in parts[:3]]
    except ValueError:
        return None
    if len(parts) >= 4 and parts[3] in ("0", "0.0", "0%"):
        return "transparent"
    if len(rgb) != 3:
        return None
    return "#" + "".join(f"{min(255, max(0, c)):02x}" for c in rgb)


def _background(decl: dict[str, str]) -> str | None:
    value = decl.get("background-color") or decl.get("background")
    if not value or "url(" in value or "gradient" in value:
        return None
    colour = _colour(value)
    return None if colour == "transparent" else colour


def style_reason(decl: dict[str, str]) -> str | None:
    """Why these declarations hide an element's text (a reason of :data:`REASONS`)."""
    display = decl.get("display")
    if display == "none":
        return "display-none"
    if decl.get("visibility") in ("hidden", "collapse"):
        return "visibility-hidden"
    opacity = decl.get("opacity")
    if opacity is not None and opacity in ("0", "0.0", "0%", ".0", "0.00"):
        return "opacity-zero"
    if _zero(decl.get("font-size")):
        return "zero-font-size"
    transform = decl.get("transform")
    if transform and _SCALE_ZERO.get().search(transform):
        return "scaled-to-zero"
    if decl.get("position") in ("absolute", "fixed"):
        for side in ("left", "top", "right"):
            px = _px(decl.get(side, ""))
            if px is not None and px <= -OFF_SCREEN_PX:
                return "off-screen"
    indent = _px(decl.get("text-indent", ""))
    if indent is not None and indent <= -OFF_SCREEN_PX:
        return "off-screen"
    clip = decl.get("clip")
    rect = _RECT.get().search(clip) if clip else None
    if rect is not None:
        sizes = [_px(p) for p in rect.group(1).replace(",", " ").split()]
        if sizes and all(s is not None and abs(s) <= 1 for s in sizes):
            return "clipped"
    clip_path = decl.get("clip-path")
    if clip_path and _CLIP_PATH_ZERO.get().search(clip_path):
        return "clipped"
    if decl.get("overflow") in ("hidden", "clip") and any(
            _zero(decl.get(name)) for name in ("height", "max-height", "width", "max-width")):
        return "zero-size"
    return None


def _own_colour_reason(decl: dict[str, str], parent: Node | None) -> str | None:
    colour = _colour(decl.get("color"))
    if colour is None:
        return None
    if colour == "transparent":
        return "same-colour"
    background = _background(decl)
    walk = parent
    hops = 0
    while background is None and walk is not None and hops < MAX_BACKGROUND_HOPS:
        style = walk.attrs.get("style")
        if style and "background" in style:
            background = _background(_declarations(style))
        walk = walk.parent
        hops += 1
    return "same-colour" if background is not None and background == colour else None


class Sheet:
    """The hiding rules of a page's ``<style>`` elements (see the module doc)."""

    __slots__ = ("by_class", "by_id")

    def __init__(self, rules: list[_Rule]) -> None:
        self.by_class: dict[str, list[_Rule]] = {}
        self.by_id: dict[str, list[_Rule]] = {}
        for rule in rules:
            if rule.ident is not None:
                self.by_id.setdefault(rule.ident, []).append(rule)
            else:
                self.by_class.setdefault(min(rule.classes), []).append(rule)

    def reason(self, tag: str, attrs: dict[str, str | None]) -> str | None:
        ident = attrs.get("id")
        if ident and self.by_id:
            rules = self.by_id.get(ident.strip())
            if rules is not None:
                for rule in rules:
                    if _matches(rule, tag, attrs):
                        return rule.reason
        value = attrs.get("class")
        if value and self.by_class:
            by_class = self.by_class
            for word in value.split():
                rules = by_class.get(word)  # a list or None: iterated as a list, compiled
                if rules is not None:
                    for rule in rules:
                        if _matches(rule, tag, attrs):
                            return rule.reason
        return None


def _matches(rule: _Rule, tag: str, attrs: dict[str, str | None]) -> bool:
    if rule.tag is not None and rule.tag != tag:
        return False
    if rule.ident is not None and (attrs.get("id") or "").strip() != rule.ident:
        return False
    if rule.classes:
        words = set((attrs.get("class") or "").split())
        return rule.classes <= words
    return True


def read_sheet(pieces: list[Piece]) -> Sheet | None:
    """The hiding rules of the page's ``<style>`` elements' texts; None when none hide.

    WHY found from the declarations: a page's inline CSS runs to hundreds of kilobytes
    and thousands of rules, nearly all of which hide nothing; one pass finds the few
    hiding declarations of top-level rules with a simple selector (``_sheet``, in C),
    and only their rules are read (at most :data:`MAX_SHEET_RULES`)."""
    found = sheet_candidates(pieces, MAX_SHEET_CHARS, MAX_SHEET_CANDIDATES)
    if not found:
        return None
    rules: list[_Rule] = []
    for prelude, body in found:
        rules.extend(_selector_rules(prelude, body))
        if len(rules) > MAX_SHEET_RULES:
            break
    return Sheet(rules) if rules else None


def _style_hint(style: str) -> bool:
    """Whether :data:`_STYLE_HINT` is found in ``style``, its words tested as substrings.

    WHY: an alternation of words under re.IGNORECASE costs the regex engine every branch
    at every character (37,000 instructions an inline style on the readability set, a
    twentieth of a batch's CPU); the words alone are substring tests of the folded style
    (``_casefold``: exact, one character for one), and only the branches with a pattern
    are searched, each when its words are there."""
    low = folded(style)
    return holds_any(low, _STYLE_WORDS) or _zero_size(style, low) or (
        "-" in style and _STYLE_NEGATIVE.get().search(style) is not None)


def _zero_size(style: str, low: str) -> bool:
    """``font-size``, ``height`` or ``width`` set to 0 (:data:`_STYLE_ZERO`): each place the
    folded style holds the word (the style's own place: one character for one), then the
    value after it."""
    for word in _ZERO_WORDS:
        at = low.find(word)
        while at >= 0:
            if _ZERO_VALUE.get().match(style, at + len(word)) is not None:
                return True
            at = low.find(word, at + 1)
    return False


def has_style(source: str | bytes | None) -> bool:
    """Whether the page may hold a ``<style>`` element (a cheap look before the query)."""
    if source is None:
        return False
    if isinstance(source, bytes):
        return b"<style" in source or b"<STYLE" in source
    return "<style" in source or "<STYLE" in source


def _selector_rules(prelude: str, body: str) -> list[_Rule]:
    """The rules of one stylesheet rule whose simple selectors hide (the selectors are
    looked at first: most hiding rules name a descendant, which is not read)."""
    simple: list[re.Match[str]] = []
    for part in prelude.split(","):  # a loop, not map(): a direct call of compiled code
        match = simple_selector(part)
        if match is not None:
            simple.append(match)
    if not simple:
        return []
    reason = style_reason(_sheet_declarations(body))
    if reason is None:
        return []
    out: list[_Rule] = []
    for match in simple:
        parts = _PART.get().findall(match.group(2))
        ids = [name for kind, name in parts if kind == "#"]
        if len(ids) > 1:
            continue
        classes = frozenset(name for kind, name in parts if kind == ".")
        out.append(_Rule(match.group(1), classes, ids[0] if ids else None, reason))
    return out


class HiddenWatch:
    """Decides, during the tree copy, which elements are hidden, and notes them."""

    __slots__ = ("keep", "sheet", "spots")

    def __init__(self, sheet: Sheet | None, *, keep: bool = False) -> None:
        self.sheet = sheet
        self.spots: list[_Spot] = []
        self.keep = keep
        """Hidden elements stay in the tree (``ConversionPolicy.keep_hidden_text``): still
        noted and listed, each passage marked ``kept``."""

    def wants(self, attrs: dict[str, str | None]) -> bool:
        """Whether :meth:`reason` has anything to read (a cheap first look)."""
        return ("hidden" in attrs or "style" in attrs or "aria-hidden" in attrs
                or HIDDEN_ATTR in attrs
                or (self.sheet is not None and ("class" in attrs or "id" in attrs)))

    def reason(self, tag: str, attrs: dict[str, str | None], parent: Node) -> str | None:
        """Why the element is hidden, or None (see the module doc)."""
        rendered = attrs.get(HIDDEN_ATTR)
        if rendered is not None:
            return rendered if rendered in REASONS else "rendered-hidden"
        if "hidden" in attrs:
            return "hidden-attribute"
        aria = attrs.get("aria-hidden")
        if aria and aria.strip().lower() == "true":
            return "aria-hidden"
        style = attrs.get("style")
        if style and _style_hint(style):
            decl = _declarations(style)
            found = style_reason(decl) or _own_colour_reason(decl, parent)
            if found is not None:
                return found
        if self.sheet is not None:
            return self.sheet.reason(tag, attrs)
        return None

    def note(self, parent: Node, tag: str, nth: int, reason: str, lex: Any, *,
             attrs: dict[str, str | None]) -> None:
        """A hidden element left out of the tree (a tab panel is not noted: a reader
        opens it by its tab)."""
        role = attrs.get("role")
        if role is not None and role.strip().lower() == "tabpanel":
            return
        self.spots.append(_Spot(parent, tag, nth, reason, lex))

    def report(self, root: Node, text_of: Any) -> list[dict[str, Any]]:
        """The hidden passages inside ``root`` of :data:`MIN_HIDDEN_CHARS` or more, in
        document order: ``{"dom_path", "reason", "chars", "text"}``; ``text_of(lex)`` is
        the element's text as the page reads it."""
        out: list[dict[str, Any]] = []
        for spot in self.spots:
            if not _inside(spot.parent, root):
                continue
            text = " ".join(str(text_of(spot.lex)).split())
            if len(text) < MIN_HIDDEN_CHARS:
                continue
            out.append({"dom_path": f"{path_of(spot.parent)} > {spot.tag}:nth-of-type("
                                    f"{spot.nth})",
                        "reason": spot.reason, "chars": len(text), "text": text[:MAX_TEXT],
                        **({"kept": True} if self.keep else {})})
        return out


def subtree_text(tree: Any, lex: Any, skip: frozenset[str], cut: Any) -> str:
    """The text a reader would read in the element (scripts, styles, templates and the
    other dropped elements left out, as the tree copy leaves them), up to
    :data:`MAX_READ_CHARS` characters."""
    parts: list[str] = []
    size = 0
    stack = [lex]
    while stack and size < MAX_READ_CHARS:
        node = stack.pop()
        kids = tree.children(node, skip)
        for item in reversed(kids):
            if isinstance(item, str):
                stack.append(item)
            else:
                stack.append(item[2])
        while stack and isinstance(stack[-1], str):
            text = cut.restore(stack.pop())
            parts.append(text)
            size += len(text)
    return "".join(parts)


def _inside(node: Node | None, root: Node) -> bool:
    while node is not None:
        if node is root:
            return True
        node = node.parent
    return False


def path_of(node: Node | None) -> str:
    """``body > main:nth-of-type(1) > ...``, as the block map writes an element's path."""
    parts: list[str] = []
    while node is not None:
        parts.append(f"{node.tag}:nth-of-type({node.nth})" if node.nth else node.tag)
        node = node.parent
    return " > ".join(reversed(parts))
