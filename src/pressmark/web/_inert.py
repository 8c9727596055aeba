"""The display copy of a snapshot: the captured HTML minus its nested frame sources.

CSP ``frame-src`` (via ``default-src 'none'``) stops a nested ``<iframe>`` or
``<frame>`` from loading, but Chromium opens a TCP connection to the frame's
origin before it applies that check (measured: one connection, no request).
A connection alone tells the page's author that someone opened the capture,
and when. So the copy shown in the viewer moves ``src`` and ``srcdoc`` of
nested frames to ``data-pressmark-src`` / ``data-pressmark-srcdoc``; everything
else, including the tree the provenance CSS paths point into, is unchanged.

Plugins (``<object data>``, ``<embed src>``) are disabled the same way. A
``<template shadowrootmode>`` (or the older ``shadowroot``) would become a live
shadow root whose frames the selectors above cannot see; it loses that attribute
and stays an ordinary template, whose content is inert (never loads anything).

Documents without such a tag are served byte for byte. The exact captured
bytes are always available from the ``/bytes/`` route (as a download) and
through the sourceRef.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

from pressmark.markdown import parse_html

_FETCHING_TAG = re.compile(r"<\s*(?:i?frame|object|embed|template)\b", re.IGNORECASE)
_NEUTRALISED = {"iframe": ("src", "srcdoc"), "frame": ("src", "srcdoc"), "object": ("data",),
                "embed": ("src",)}
_SHADOW_ROOT = ("shadowrootmode", "shadowroot")


def display_html(text: str) -> str:
    """``text`` with every nested frame's source disabled (see the module docstring)."""
    if not _FETCHING_TAG.search(text):
        return text
    tree = parse_html(text)[0]
    # A template's content is a fragment of its own that ``css()`` does not enter.
    pending = [tree.root] if tree.root is not None else []
    while pending:
        root = pending.pop()
        _neutralise(root)
        fragments = getattr(root, "template_fragments", None)
        if fragments is None:  # an older selectolax: drop templates, content and all
            for node in root.css("template"):
                node.decompose()
            continue
        pending.extend(fragments())
    return tree.html or ""


def _neutralise(root: LexborNode) -> None:
    for node in root.css("iframe, frame, object, embed"):
        attrs = node.attrs
        for name in _NEUTRALISED.get(node.tag or "", ()):
            value = attrs.get(name)
            if value is not None:
                attrs[f"data-pressmark-{name}"] = value
                del attrs[name]
    for node in root.css("template"):
        attrs = node.attrs
        for name in _SHADOW_ROOT:
            if name in attrs:
                attrs[f"data-pressmark-{name}"] = attrs[name] or ""
                del attrs[name]
