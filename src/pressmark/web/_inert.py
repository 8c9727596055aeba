"""The snapshot view: the captured DOM as data, built by our own script, never re-parsed.

WHY not serve (sanitised) HTML: parsing and re-serialising is not a fixpoint for foreign
content. ``<math><mtext><table><mglyph><style><p><iframe src=...>`` is a ``<style>``
element's text for Lexbor and a live ``<iframe>`` once Chromium parses the serialised
copy again (mutation XSS; DOMPurify's test suite names a dozen such classes: nesting,
attribute- and removal-based, namespace confusion, ``noscript``/``xmp``/``noembed``
and comment tricks, templates). A CSP stops the frame's load, but Chromium opens a
connection to its origin first, which tells the page's author the capture was opened.

So Chromium never parses captured markup. The page view's iframe loads an inert shell
(:func:`shell_html`; CSP and sandbox as before), and the workbench's own script fetches
:func:`capture_tree`, the tree Lexbor parsed (the tree the provenance CSS paths point
into), as a flat list of nodes, and builds it in the shell with ``createElementNS``,
``setAttribute`` and ``createTextNode``: no HTML is ever parsed, so no mutation can
turn text into an element. What the built tree could still fetch is taken out here:

* every attribute that names a URL (``src``, ``href``, ``srcset``, ``data``, ``action``,
  ``poster``, ``ping``, ``xlink:href``, ...) moves to ``data-pressmark-<name>``; a
  same-document reference (``#id``) stays, and so does a ``data:image/`` source of an
  image; ``srcdoc`` (a document parsed from a string) always goes;
* event handlers (``on*``) and ``http-equiv`` (a dynamically inserted refresh still
  navigates) move the same way; SMIL animations lose ``attributeName`` (``<set>`` can
  write an ``href``);
* template contents are left out (they are inert, and a declarative shadow root would
  be built from them).

Elements themselves all stay, so ``nth-of-type`` paths still find theirs. The exact
captured bytes are served only as a download (``/bytes/``) and through the sourceRef.
"""

from __future__ import annotations

import html
from typing import Any

from selectolax.lexbor import LexborNode

from pressmark.markdown import parse_html

HTML, SVG, MATHML = "h", "s", "m"
_MATHML_TEXT = "t"
"""Children of a MathML text integration point: HTML, but ``mglyph`` stays MathML."""
_URL_ATTRIBUTES = frozenset({
    "src", "href", "srcset", "srcdoc", "data", "action", "formaction", "poster",
    "background", "cite", "longdesc", "usemap", "manifest", "ping", "codebase", "archive",
    "classid", "lowsrc", "dynsrc", "profile", "icon", "imagesrcset", "attributionsrc",
    "xlink:href", "xml:base", "code", "itemtype", "config",
})
_ALWAYS_MOVED = frozenset({"srcdoc", "http-equiv", "attributename"})
_IMAGE_ELEMENTS = frozenset({"img", "image", "source", "input"})
_ANIMATIONS = frozenset({"animate", "set", "animatetransform", "animatemotion", "discard"})
_HTML_IN_SVG = frozenset({"foreignobject", "desc", "title"})
_HTML_IN_MATHML = frozenset({"mi", "mo", "mn", "ms", "mtext"})
_MATHML_ANYWAY = frozenset({"mglyph", "malignmark"})
MAX_NODES = 250_000
"""Nodes sent at most (the parse screen keeps far fewer elements; text nodes add some)."""


def capture_tree(text: str) -> dict[str, Any]:
    """The DOM of ``text`` as Lexbor parses it, made inert (see the module docstring).

    ``nodes`` is a flat list in document order: ``[parent, namespace, tag, attributes]``
    for an element (``parent`` is an index into the list, -1 for the root;
    ``attributes`` a list of ``[name, value]``) and ``[parent, text]`` for a text node.
    """
    tree = parse_html(text)[0]
    root = tree.root
    nodes: list[list[Any]] = []
    if root is None:
        return {"nodes": nodes, "truncated": False}
    # (node, parent index, the namespace its parent gives it)
    pending: list[tuple[LexborNode, int, str]] = [(root, -1, HTML)]
    truncated = False
    while pending:
        node, parent, space = pending.pop()
        if len(nodes) >= MAX_NODES:
            truncated = True
            break
        tag = node.tag or ""
        if tag == "-text":
            nodes.append([parent, node.text_content or ""])
            continue
        if tag.startswith(("-", "_", "!")):  # comments, the doctype
            continue
        lower = tag.lower()
        space = _namespace(lower, space)
        index = len(nodes)
        nodes.append([parent, space, tag, _attributes(lower, node.attributes)])
        if lower == "template":
            continue  # its content is inert, and a shadow root would be built from it
        inner = _children_namespace(lower, space, node.attributes)
        children: list[tuple[LexborNode, int, str]] = []
        child = node.child
        while child is not None:
            children.append((child, index, inner))
            child = child.next
        pending.extend(reversed(children))
    return {"nodes": nodes, "truncated": truncated}


MAX_TITLE = 500


def capture_title(text: str) -> str:
    """The capture's ``<title>`` text, for the shell (at most :data:`MAX_TITLE` chars)."""
    title = parse_html(text)[0].css_first("title")
    return "" if title is None else " ".join(title.text(deep=True).split())[:MAX_TITLE]


def _namespace(tag: str, inherited: str) -> str:
    """Where an element lives, as the HTML parser decides it (for rendering only: the
    view is inert whatever namespace an element is built in)."""
    if inherited == _MATHML_TEXT and tag in _MATHML_ANYWAY:
        return MATHML
    if inherited in (HTML, _MATHML_TEXT):
        return SVG if tag == "svg" else MATHML if tag == "math" else HTML
    return inherited


def _children_namespace(tag: str, space: str, attributes: dict[str, str | None]) -> str:
    if space == SVG and tag in _HTML_IN_SVG:
        return HTML
    if space == MATHML and tag in _HTML_IN_MATHML:
        return _MATHML_TEXT
    if space == MATHML and tag == "annotation-xml":
        encoding = (attributes.get("encoding") or "").strip().lower()
        if encoding in ("text/html", "application/xhtml+xml"):
            return HTML
    return space


def _attributes(tag: str, attributes: dict[str, str | None]) -> list[list[str]]:
    out: list[list[str]] = []
    for name, raw in attributes.items():
        value = raw or ""
        key = name.lower()
        if _moved(tag, key, value):
            out.append([f"data-pressmark-{name}", value])
        else:
            out.append([name, value])
    return out


def _moved(tag: str, key: str, value: str) -> bool:
    if key.startswith("on") or key in _ALWAYS_MOVED:
        return True
    if tag in _ANIMATIONS and key in ("to", "from", "values", "by"):
        return True
    if key not in _URL_ATTRIBUTES:
        return False
    stripped = value.strip()
    if key in ("href", "xlink:href") and stripped.startswith("#"):
        return False  # a reference inside the document (an SVG sprite's <use>)
    return not (tag in _IMAGE_ELEMENTS and key in ("src", "href", "xlink:href")
                and stripped[:11].lower() == "data:image/")


SHELL_STYLE = (
    "a[data-pressmark-href]{color:LinkText;text-decoration:underline;cursor:pointer}"
    "noscript{display:none!important}"
)
"""How the built capture keeps looking like the page: links without ``href`` still look
like links; ``noscript`` fallbacks stay hidden as in a browser that runs scripts."""


def shell_html(title: str, tree_url: str) -> str:
    """The inert document the page view builds the capture into (and what a tab that
    opens ``/raw/`` directly shows: the title and where the capture is)."""
    return (
        "<!doctype html><html><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title>"
        f"<style>{SHELL_STYLE}</style></head>"
        f"<body data-pressmark-tree=\"{html.escape(tree_url, quote=True)}\">"
        "<p>This is an archived capture. The workbench's page view shows it; its exact "
        "bytes are a download there.</p></body></html>"
    )
