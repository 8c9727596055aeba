"""Embedded application state as the page's content, when the DOM carries none.

A server-rendered JavaScript app often ships its article twice: once as markup the
browser builds later, and once as data for that build (``__NEXT_DATA__``, Nuxt's
``__NUXT_DATA__``/``window.__NUXT__``, Apollo's cache, Redux's initial state, JSON-LD's
``articleBody``). When the DOM holds no main content, that data *is* the page as served.

This module finds the article in such state by its shape, never by a site's path:

* prose is counted where it lies (a string of three or more words, markup stripped);
* from the top of each state object, it descends while one child holds most of the
  prose below it (``CONCENTRATION``), or a child named like a body (``body``, ``content``,
  ``articleBody``, ``blocks``, ``html``...) holds a fair share (``HINTED_SHARE``): the
  node where it stops is the article, and the nearest ``headline``/``title``/``name``
  above it is its title;
* the article is written out as HTML, which the caller converts with the page's own
  converter: an HTML string stays HTML; plain text becomes paragraphs (blank lines, else
  line breaks, split them); a list of block objects becomes headings, paragraphs, code,
  quotes, lists and tables by each block's type word (``type``, ``_type``, ``nodeType``,
  ``__typename``...: ``h2``, ``heading``, ``paragraph``, ``code``, ``blockquote``,
  ``list``...), its text gathered from its string leaves (a ``[mark, text]`` pair reads as
  its text, marked up when the mark names an inline element).

Bounded: at most ``MAX_NODES`` values are visited per state object and nesting deeper
than ``MAX_DEPTH`` is not followed.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

MIN_STATE_CHARS = 200  # state prose shorter than this does not carry a page (fetch agrees)
CONCENTRATION = 0.7  # a child holding this share of its parent's prose is where it lives
HINTED_SHARE = 0.3  # ... or this share, when the child is named like a body
MAX_NODES = 200_000  # values visited per state object: bounded work on any state
MAX_DEPTH = 64  # nesting followed at most
TITLE_CHARS = 300  # a title is shorter than this
PROSE_WORDS = 3  # a string of this many words or more is prose, not a label or an id
MAX_HEADING_LEVEL = 6  # HTML has six heading levels
MIN_TABLE_ROWS = 2  # a list of rows is a table from two rows (a header and a row)

# the state objects read, in order of trust: an article body is named as such in
# JSON-LD; framework state holds the page's data as the app received it
SOURCES: tuple[tuple[str, str], ...] = (
    ("json_ld", "json-ld"), ("next_data", "next-data"), ("nuxt", "nuxt"),
    ("apollo_state", "apollo-state"), ("initial_state", "initial-state"),
    ("preloaded_state", "preloaded-state"),
)
_BODY_KEYS = re.compile(r"^(article_?body|body|content|contents|text|html|blocks|"
                        r"rendered|markdown|richtext|rich_text|paragraphs|sections)$", re.I)
_TITLE_KEYS = ("headline", "title", "name")
_TYPE_KEYS = ("type", "_type", "nodeType", "blockType", "__typename", "component", "kind")
_META_KEYS = frozenset((
    "type", "_type", "nodetype", "blocktype", "__typename", "component", "kind", "style",
    "level", "depth", "id", "_id", "_key", "key", "href", "url", "src", "srcset", "marks",
    "markdefs", "language", "lang", "class", "classname", "format", "version", "slug",
    "uuid", "mark", "alt", "width", "height", "@type", "@id", "@context"))
_INLINE_MARKS = frozenset(("strong", "b", "em", "i", "code", "u", "s", "sub", "sup",
                           "mark", "small", "del", "ins", "kbd"))
_LABEL = re.compile(r"^[a-z][A-Za-z0-9_-]{0,15}$")  # an identifier: a mark or type word
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_HEADING_TYPE = re.compile(r"^h[1-6]$|heading|header|title")
_DIGIT = re.compile(r"[1-6]")


@dataclass(frozen=True, slots=True, kw_only=True)
class StateContent:
    """The article found in embedded state: where, how much prose, and as HTML."""

    kind: str  # the state it came from: "json-ld", "next-data", "nuxt", ...
    path: str  # where in that state, e.g. "props.pageProps.article.blocks"
    chars: int  # prose characters found there
    html: str  # the article as an HTML document, for the page's converter


def _words(text: str) -> int:
    return len(text.split())


def _prose_chars(text: str) -> int:
    plain = _TAG.sub(" ", text) if "<" in text else text
    if "://" in plain[:12] or _words(plain) < PROSE_WORDS:
        return 0
    return len(plain.strip())


class _Measure:
    """Prose characters under every container of one state object (one bounded walk)."""

    def __init__(self) -> None:
        self.prose: dict[int, int] = {}
        self.budget = MAX_NODES

    def __call__(self, value: Any, depth: int = 0) -> int:
        self.budget -= 1
        if self.budget < 0 or depth > MAX_DEPTH:
            return 0
        if isinstance(value, str):
            return _prose_chars(value)
        if isinstance(value, dict):
            total = sum(self(v, depth + 1) for k, v in value.items()
                        if str(k).lower() not in _META_KEYS)
        elif isinstance(value, list):
            total = sum(self(v, depth + 1) for v in value)
        else:
            return 0
        self.prose[id(value)] = total
        return total


def _children(value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [(str(k), v) for k, v in value.items() if str(k).lower() not in _META_KEYS]
    if isinstance(value, list):
        return [(str(i), v) for i, v in enumerate(value)]
    return []


def _locate(root: Any) -> tuple[Any, list[tuple[str, Any]], int]:
    """The node where the prose concentrates, the path to it (key, parent) and its prose."""
    measure = _Measure()
    node, path, prose = root, [], measure(root)
    for _ in range(MAX_DEPTH):
        sized = [(_prose_chars(v) if isinstance(v, str) else measure.prose.get(id(v), 0), k, v)
                 for k, v in _children(node)]
        if not sized:
            break
        chars, key, child = max(sized, key=lambda c: c[0])  # the first of equals wins
        hinted = max(((c, k, v) for c, k, v in sized if _BODY_KEYS.match(k)),
                     key=lambda c: c[0], default=None)
        if chars < CONCENTRATION * prose:
            if hinted is None or hinted[0] < HINTED_SHARE * prose or not hinted[0]:
                break
            chars, key, child = hinted
        if not chars:
            break
        path.append((key, node))
        node, prose = child, chars
    return node, path, prose


def _title(path: list[tuple[str, Any]]) -> str | None:
    for _, parent in reversed(path):
        if isinstance(parent, dict):
            for key in _TITLE_KEYS:
                value = parent.get(key)
                if isinstance(value, str) and 0 < len(value.strip()) < TITLE_CHARS:
                    return value.strip()
    return None


def _type_of(block: dict[str, Any]) -> str:
    for key in _TYPE_KEYS:
        value = block.get(key)
        if isinstance(value, str):
            return value.lower()
    style = block.get("style")
    return style.lower() if isinstance(style, str) else ""


def _level(block: dict[str, Any], kind: str) -> int:
    """A heading block's level: its ``level``/``depth``, else the digit in its type word
    (``h3``, ``heading-3``, ``heading3``), else 2 (the article's title is the 1)."""
    level = block.get("level", block.get("depth"))
    if isinstance(level, int) and not isinstance(level, bool) and 1 <= level <= MAX_HEADING_LEVEL:
        return level
    digit = _DIGIT.search(kind)
    return int(digit.group(0)) if digit else 2


def _inline(value: Any, depth: int = 0) -> str:
    """A block's text as inline HTML: its string leaves in order, escaped unless markup."""
    if depth > MAX_DEPTH:
        return ""
    if isinstance(value, str):
        return value if _TAG.search(value) else html.escape(value, quote=False)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ""
    if isinstance(value, list):
        if (len(value) == 2 and isinstance(value[0], str) and _LABEL.match(value[0])
                and isinstance(value[1], str)):  # a [mark, text] run
            text = html.escape(value[1], quote=False)
            return f"<{value[0]}>{text}</{value[0]}>" if value[0] in _INLINE_MARKS else text
        return "".join(_inline(v, depth + 1) for v in value)
    if isinstance(value, dict):
        parts = [_inline(v, depth + 1) for k, v in value.items()
                 if str(k).lower() not in _META_KEYS]
        return " ".join(p for p in parts if p.strip())
    return ""


def _table(rows: list[Any]) -> str | None:
    if len(rows) < MIN_TABLE_ROWS or not all(isinstance(r, list) and r for r in rows):
        return None
    if not all(isinstance(c, (str, int, float)) for r in rows for c in r):
        return None
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c), quote=False)}</td>" for c in r)
                   + "</tr>" for r in rows)
    return f"<table>{body}</table>"


def _text_html(text: str) -> str:
    if _TAG.search(text):
        return text
    parts = re.split(r"\n\s*\n", text.strip()) if "\n\n" in text else text.strip().split("\n")
    return "".join(f"<p>{html.escape(p.strip(), quote=False)}</p>" for p in parts if p.strip())


def _block(value: Any, depth: int) -> str:
    """One block of the article as HTML."""
    if depth > MAX_DEPTH:
        return ""
    if isinstance(value, str):
        return _text_html(value) if value.strip() else ""
    if isinstance(value, list):
        table = _table(value)
        return table if table is not None else "".join(_block(v, depth + 1) for v in value)
    if not isinstance(value, dict):
        return ""
    kind = _type_of(value)
    if _HEADING_TYPE.search(kind):
        text = _inline(value)
        return f"<h{_level(value, kind)}>{text}</h{_level(value, kind)}>" if text.strip() else ""
    if "code" in kind or kind == "pre":
        code = next((v for k in ("text", "code", "content", "value") if isinstance(
            v := value.get(k), str)), "")
        language = value.get("language") or value.get("lang")
        cls = f' class="language-{html.escape(language)}"' if isinstance(language, str) else ""
        return f"<pre><code{cls}>{html.escape(code, quote=False)}</code></pre>" if code else ""
    if "quote" in kind:
        return f"<blockquote><p>{_inline(value)}</p></blockquote>"
    rows = value.get("rows")
    if isinstance(rows, list) and (table := _table(rows)) is not None:
        caption = value.get("caption")
        head = f"<caption>{html.escape(caption, quote=False)}</caption>" \
            if isinstance(caption, str) else ""
        return table.replace("<table>", f"<table>{head}", 1)
    items = value.get("items") or (value.get("children") if "list" in kind else None)
    if "list" in kind and isinstance(items, list):
        tag = "ol" if "order" in kind or "number" in kind else "ul"
        return f"<{tag}>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + f"</{tag}>"
    if any(word in kind for word in ("image", "figure", "video", "embed", "media")):
        caption = value.get("caption")
        return f"<p>{html.escape(caption, quote=False)}</p>" \
            if isinstance(caption, str) and caption.strip() else ""
    nested = [v for k, v in value.items() if str(k).lower() not in _META_KEYS
              and isinstance(v, list) and any(isinstance(i, dict) and _type_of(i) for i in v)]
    if nested and not kind.startswith(("p", "text", "span")):  # a container of blocks
        return "".join(_block(v, depth + 1) for v in nested)
    text = _inline(value)
    return f"<p>{text}</p>" if text.strip() else ""


def find_content(state: dict[str, Any]) -> StateContent | None:
    """The article in the page's embedded state, or None when none carries enough prose."""
    best: StateContent | None = None
    for key, kind in SOURCES:
        root = state.get(key)
        if root is None:
            continue
        node, path, prose = _locate(root)
        if prose < MIN_STATE_CHARS or (best is not None and prose <= best.chars):
            continue
        title = _title(path)
        body = _block(node, 0)
        head = f"<h1>{html.escape(title, quote=False)}</h1>" if title else ""
        best = StateContent(kind=kind, path=".".join(k for k, _ in path) or "(root)",
                            chars=prose, html=f"<html><body><article>{head}{body}"
                                              "</article></body></html>")
    return best
