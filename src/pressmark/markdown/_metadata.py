"""Page metadata and embedded application state, read from the parsed page.

Sources, in order of preference per field (the first present wins):

* title: ``og:title``, ``<title>``, the first ``<h1>``
* canonical_url: ``<link rel=canonical>`` (absolute, resolved like links)
* language: ``<html lang>``, ``<meta http-equiv=content-language>``, ``og:locale``
* description: ``<meta name=description>``, ``og:description``
* published / modified: ``article:published_time`` / ``article:modified_time``,
  other common date metas, ``itemprop``, then JSON-LD ``datePublished`` /
  ``dateModified``

Embedded state is JSON parsed from ``<script type=application/ld+json>``,
``<script id=__NEXT_DATA__>``, Nuxt's ``<script id=__NUXT_DATA__>`` (devalue's flat array,
resolved into the object it encodes) and ``window.__NUXT__`` / ``__APOLLO_STATE__`` /
``__INITIAL_STATE__`` / ``__PRELOADED_STATE__ = {...}`` assignments (a ``__NUXT__`` built by a
function call, not JSON, keeps its string literals). Values that are not valid JSON are
skipped and counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from pressmark.markdown._dom import Tree
from pressmark.markdown._lazy_re import LazyPattern
from pressmark.markdown._rawcut import RawCut

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Any

MAX_STATE_CHARS = 2_000_000

_PUBLISHED = ("article:published_time", "og:published_time", "datepublished", "pubdate",
              "publishdate", "date", "dc.date", "dc.date.issued", "dcterms.created",
              "sailthru.date", "parsely-pub-date")
_MODIFIED = ("article:modified_time", "og:updated_time", "datemodified", "lastmod",
             "dcterms.modified")
_STATE_ASSIGN = LazyPattern(
    r"(?:window\.)?(__INITIAL_STATE__|__PRELOADED_STATE__|__APOLLO_STATE__|__NUXT__)\s*=\s*")
_STATE_KEYS = {"__INITIAL_STATE__": "initial_state", "__PRELOADED_STATE__": "initial_state",
               "__APOLLO_STATE__": "apollo_state", "__NUXT__": "nuxt"}
_STATE_NAMES = tuple(_STATE_KEYS)
# what those names share: a body is searched for these first (most hold none)
_STATE_HINTS = ("_STATE__", "__NUXT__")
_JS_STRING = LazyPattern(r'"((?:[^"\\\n]|\\.){8,})"')  # a double-quoted literal, 8+ chars
MAX_STATE_VALUES = 200_000  # values a devalue payload may resolve to: bounded on any page
# devalue's wrappers around a value (Nuxt's reactive refs): the value is the second item
_DEVALUE_WRAPPERS = frozenset(("Reactive", "ShallowReactive", "Ref", "ShallowRef"))


@dataclass(frozen=True, slots=True, kw_only=True)
class PageMetadata:
    title: str | None = None
    canonical_url: str | None = None
    language: str | None = None
    description: str | None = None
    published: str | None = None
    modified: str | None = None
    site_name: str | None = None
    author: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {
            "title": self.title, "canonical_url": self.canonical_url,
            "language": self.language, "description": self.description,
            "published": self.published, "modified": self.modified,
            "site_name": self.site_name, "author": self.author,
        }


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    value = " ".join(value.split())
    return value or None


_DATE_PROPS = ("datePublished", "dateModified")


class HeadNodes:
    """The elements the metadata readers look at (``_dom.HEAD_QUERY``, one pass over the
    document), by kind, each list in document order.

    ``raw_texts``: (tag, text) of every script and style, for ``RawCut.verify``;
    ``script_texts`` the scripts' (as parsed: a cut body reads as its marker).
    """

    __slots__ = ("base_attrs", "date_attrs", "link_attrs", "meta_attrs", "raw_texts",
                 "root_attrs", "script_attrs", "script_texts", "title_text")

    def __init__(self, tree: Tree) -> None:
        self.meta_attrs: list[dict[str, str | None]] = []
        # [itemprop=datePublished], [itemprop=dateModified]
        self.date_attrs: list[dict[str, str | None]] = []
        self.link_attrs: list[dict[str, str | None]] = []  # link[rel] naming "canonical"
        self.script_attrs: list[dict[str, str | None]] = []
        self.script_texts: list[str] = []
        self.raw_texts: list[tuple[str, str]] = []
        self.title_text: str | None = None  # of the first <title>
        self.base_attrs: dict[str, str | None] | None = None  # of the first base[href]
        root = tree.parser.root
        self.root_attrs: dict[str, str | None] = root.attributes if root is not None else {}
        for tag, attrs, text in tree.head_elements():
            if tag == "meta":
                self.meta_attrs.append(attrs)
            elif tag == "script":
                self.script_attrs.append(attrs)
                self.script_texts.append(text or "")
                self.raw_texts.append(("script", text or ""))
            elif tag == "style":
                self.raw_texts.append(("style", text or ""))
            elif tag == "link":
                self.link_attrs.append(attrs)
            elif tag == "title" and self.title_text is None:
                self.title_text = text or ""
            elif tag == "base" and self.base_attrs is None:
                self.base_attrs = attrs
            if attrs.get("itemprop") in _DATE_PROPS:
                self.date_attrs.append(attrs)


def read_metadata(head: HeadNodes, resolve: Callable[[str], str | None],
                  state: dict[str, Any], first_h1: Callable[[], str | None]) -> PageMetadata:
    metas: dict[str, str] = {}
    for attrs in head.meta_attrs:
        key = attrs.get("property") or attrs.get("name") or attrs.get("itemprop") \
            or attrs.get("http-equiv")
        content = attrs.get("content")
        if key and content:
            metas.setdefault(key.strip().lower(), content)
    for attrs in head.date_attrs:
        value = attrs.get("content") or attrs.get("datetime")
        if value:
            metas.setdefault((attrs.get("itemprop", "") or "").lower(), value)
    canonical = None
    for attrs in head.link_attrs:
        rels = (attrs.get("rel") or "").lower().split()
        href = attrs.get("href")
        if "canonical" in rels and href:
            canonical = resolve(href.strip())
            break
    lang = head.root_attrs.get("lang") \
        or metas.get("content-language") or (metas.get("og:locale") or "").replace("_", "-")
    ld = _jsonld_dates(state.get("json_ld", []))
    return PageMetadata(
        title=_clean(metas.get("og:title"))
        or _clean(head.title_text) or first_h1(),
        canonical_url=canonical,
        language=_clean(lang),
        description=_clean(metas.get("description") or metas.get("og:description")),
        published=_clean(next((metas[k] for k in _PUBLISHED if k in metas), None)
                         or ld.get("datePublished")),
        modified=_clean(next((metas[k] for k in _MODIFIED if k in metas), None)
                        or ld.get("dateModified")),
        site_name=_clean(metas.get("og:site_name")),
        author=_clean(metas.get("author")),
    )


def _jsonld_dates(items: list[Any]) -> dict[str, str]:
    found: dict[str, str] = {}
    stack = list(reversed(items))
    seen = 0
    while stack and seen < 10_000:
        seen += 1
        item = stack.pop()
        if isinstance(item, dict):
            for key in ("datePublished", "dateModified"):
                value = item.get(key)
                if isinstance(value, str) and key not in found:
                    found[key] = value
            graph = item.get("@graph")
            if isinstance(graph, list):
                stack.extend(reversed(graph))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return found


def _loads(text: str) -> Any:
    def reject(name: str) -> Any:
        raise ValueError(name)

    return json.loads(text, parse_constant=reject)


def read_embedded_state(head: HeadNodes, cut: RawCut) -> dict[str, Any]:
    """``{"json_ld": [...], "next_data": {...}, "initial_state": {...}}`` (keys present only).

    ``cut``: the script bodies Lexbor did not see; a body is read (and decoded) only
    when it is one of these kinds.
    """
    state: dict[str, Any] = {}
    json_ld: list[Any] = []
    invalid = 0
    for parsed, attrs in zip(head.script_texts, head.script_attrs, strict=True):
        kind = (attrs.get("type") or "").strip().lower()
        if "src" in attrs:
            continue
        if not parsed or cut.restored_len(parsed) > MAX_STATE_CHARS:
            continue
        try:
            if kind == "application/ld+json":
                text = cut.body(parsed)
                json_ld.append(_loads(text.strip().removeprefix("<!--").removesuffix("-->")))
            elif attrs.get("id") == "__NEXT_DATA__":
                state.setdefault("next_data", _loads(cut.body(parsed)))
            elif attrs.get("id") == "__NUXT_DATA__":
                state.setdefault("nuxt", _devalue(_loads(cut.body(parsed))))
            elif cut.holds(parsed, _STATE_HINTS) and cut.holds(parsed, _STATE_NAMES):
                _read_assignment(cut.body(parsed), state)
        except (ValueError, RecursionError):
            invalid += 1
    if json_ld:
        state = {"json_ld": json_ld, **state}
    if invalid:
        state["invalid_scripts"] = invalid
    return state


def _reject(name: str) -> Any:
    raise ValueError(name)


def _read_assignment(text: str, state: dict[str, Any]) -> None:
    """``window.NAME = {...}``: the JSON after the first such assignment. A Nuxt payload
    written as a function call (``__NUXT__=(function(a,b){return {...}}(...))``) is no
    JSON: its double-quoted string literals are kept instead, the page's text among them."""
    m = _STATE_ASSIGN.get().search(text)
    if m is None:
        return
    key = _STATE_KEYS[m.group(1)]
    try:
        value, _ = json.JSONDecoder(parse_constant=_reject).raw_decode(text, m.end())
    except ValueError:
        if key != "nuxt":
            raise
        value = [json.loads(f'"{lit}"') for lit in _JS_STRING.get().findall(text, m.end())]
    state.setdefault(key, value)


def _devalue(payload: Any) -> Any:
    """The value a devalue payload (Nuxt 3's ``__NUXT_DATA__``) encodes.

    The payload is a flat array; item 0 is the root; in an object or array, an integer is
    the index of the item it stands for. Cycles and repeats resolve once (a repeat is
    ``None`` the second time), and at most ``MAX_STATE_VALUES`` items are resolved.
    """
    if not isinstance(payload, list) or not payload:
        return payload
    seen: set[int] = set()
    budget = [MAX_STATE_VALUES]

    def resolve(index: Any) -> Any:
        if not isinstance(index, int) or isinstance(index, bool) \
                or not 0 <= index < len(payload) or index in seen or budget[0] <= 0:
            return None
        seen.add(index)
        budget[0] -= 1
        item = payload[index]
        if isinstance(item, dict):
            return {k: resolve(v) for k, v in item.items()}
        if isinstance(item, list):
            if item and isinstance(item[0], str):
                return resolve(item[1]) if item[0] in _DEVALUE_WRAPPERS and len(item) > 1 \
                    else None  # Date, Set, Map...: no prose
            return [resolve(v) for v in item]
        return item

    return resolve(0)
