"""reStructuredText source -> the plain text a reader sees on the page (a reference text).

A Sphinx build ships each page's source beside its HTML (``_sources/<page>.rst.txt``): the
author's text, independent of any extractor. This turns it into plain text with docutils,
one block (paragraph, title, list item, code block, table cell) per paragraph, the way the
shared scorer reads Markdown.

docutils does not know Sphinx's directives and roles; instead of failing on them (or
dropping their text), every unknown directive keeps its arguments as a line and parses its
content as ordinary body text, and every unknown role keeps its visible text (the title of
``:ref:`title <target>```, the last name of ``:class:`~a.b.C```). The few Sphinx directives
whose rendering is known and matters for the words on the page are spelled out here: code
blocks stay literal, ``versionadded`` and friends print their label, admonitions their
title, invisible ones (``index``, ``highlight``, ``module``...) print nothing, and a
``toctree`` leaves a slot that the caller fills with the table of contents Sphinx rendered
(the titles of other pages, which the source does not hold).
"""

from __future__ import annotations

import io
import re
from typing import Any

from docutils import nodes, utils
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives, roles

TOCTREE_SLOT = "\x00toctree\x00"
_INVISIBLE = frozenset((
    "index", "highlight", "module", "currentmodule", "default-domain", "default-role",
    "tabularcolumns", "literalinclude", "include", "meta", "sectionauthor", "moduleauthor",
    "codeauthor", "todolist", "py:module", "py:currentmodule", "js:module", "c:namespace",
    "cpp:namespace", "testsetup", "testcleanup"))
_LITERAL = frozenset((
    "code-block", "sourcecode", "code", "testcode", "doctest", "testoutput", "productionlist",
    "prompt", "parsed-literal"))
_VERSION_LABELS = {  # Sphinx's English labels for the version notes
    "versionadded": "New in version {}.",
    "versionchanged": "Changed in version {}:",
    "deprecated": "Deprecated since version {}:",
}
_ADMONITION_TITLES = {
    "note": "Note", "warning": "Warning", "tip": "Tip", "important": "Important",
    "hint": "Hint", "caution": "Caution", "danger": "Danger", "error": "Error",
    "attention": "Attention", "seealso": "See also",
}
_EXPLICIT_TITLE = re.compile(r"^(.+?)\s*<([^<>]*)>$", re.DOTALL)


class toctree_slot(nodes.General, nodes.Element):  # docutils names node classes in lower case
    """Where a ``toctree`` directive stood: filled from the rendered page."""


class _AnyOption(dict[str, Any]):
    """An option spec that accepts every option (unknown directives have unknown ones)."""

    def __init__(self) -> None:
        super().__init__(_any=directives.unchanged)  # non-empty: docutils tests truthiness

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> Any:
        return directives.unchanged


class _Tolerant(Directive):
    """Any directive docutils does not know: its words stay on the page."""

    optional_arguments = 50
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOption()

    def run(self) -> list[nodes.Node]:
        name = self.name.lower()
        if name in _INVISIBLE or name.startswith("auto"):
            return []
        if name == "toctree":
            return [toctree_slot()]
        if name in _LITERAL:
            return [nodes.literal_block(text="\n".join(self.content))]
        out: list[nodes.Node] = []
        argument = " ".join(self.arguments).strip()
        if name in _VERSION_LABELS:
            out.append(nodes.paragraph(text=_VERSION_LABELS[name].format(argument)))
        elif name in _ADMONITION_TITLES:
            out.append(nodes.paragraph(text=_ADMONITION_TITLES[name]))
            if argument:
                out.append(nodes.paragraph(text=argument))
        elif argument:  # a signature (``.. function:: f(x)``), a caption, a title
            out.append(nodes.paragraph(text=argument))
        if self.content:
            body = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, body)
            out.append(body)
        return out


def _visible_role_text(text: str) -> str:
    found = _EXPLICIT_TITLE.match(text)
    if found and found.group(1).strip():
        return found.group(1).strip()
    text = text.lstrip("!")
    if text.startswith("~"):
        return text[1:].rsplit(".", 1)[-1]
    return text


def _make_role(titles: dict[str, str]) -> Any:
    def role(name: str, rawtext: str, text: str, *_: Any,  # lineno, inliner, options, content
             **__: Any) -> tuple[list[nodes.Node], list[Any]]:
        shown = _visible_role_text(utils.unescape(text))
        if name in ("ref", "doc", "std:ref", "std:doc") and not _EXPLICIT_TITLE.match(text):
            shown = titles.get(shown.strip().lower(), shown)  # Sphinx shows the target's title
        return [nodes.literal(rawtext, shown)], []
    return role


def _install(titles: dict[str, str]) -> None:
    """Make docutils tolerant: unknown directive and role names resolve to ours."""
    known_directive = directives.directive
    known_role = roles.role

    def directive(name: str, language: Any, document: Any) -> tuple[Any, list[Any]]:
        found, messages = known_directive(name, language, document)
        return (found or _Tolerant), ([] if found is None else messages)

    def role(name: str, language: Any, lineno: int, reporter: Any) -> tuple[Any, list[Any]]:
        if name.lower() in ("ref", "doc"):
            return _make_role(titles), []
        found, messages = known_role(name, language, lineno, reporter)
        return (found or _make_role(titles)), ([] if found is None else messages)

    directives.directive = directive  # type: ignore[assignment]
    roles.role = role  # type: ignore[assignment]


_BLOCKS = (nodes.paragraph, nodes.title, nodes.subtitle, nodes.literal_block,
           nodes.doctest_block, nodes.term, nodes.rubric, nodes.caption, nodes.attribution,
           nodes.line, nodes.field_name, nodes.option_group, nodes.label)
_SKIPPED = (nodes.comment, nodes.system_message, nodes.substitution_definition, nodes.raw,
            nodes.target, nodes.image, nodes.problematic)


def _blocks(node: nodes.Node, out: list[str]) -> None:
    if isinstance(node, toctree_slot):
        out.append(TOCTREE_SLOT)
        return
    if isinstance(node, _SKIPPED) and not (isinstance(node, nodes.target) and node.children):
        return
    if isinstance(node, nodes.Admonition) and not isinstance(node, nodes.admonition):
        out.append(_ADMONITION_TITLES.get(node.tagname, node.tagname.title()))
    if isinstance(node, _BLOCKS):
        text = node.astext().strip()
        if text:
            out.append(text)
        return
    if isinstance(node, nodes.Text):
        text = str(node).strip()
        if text:
            out.append(text)
        return
    for child in node.children:
        _blocks(child, out)


def rst_to_text(source: str, titles: dict[str, str] | None = None) -> str:
    """The page's visible text, blocks separated by blank lines; ``TOCTREE_SLOT`` marks
    each toctree. ``titles`` maps ``:ref:`` labels and ``:doc:`` names (lower case) to the
    title Sphinx shows for them."""
    _install(titles or {})
    doctree = publish_doctree(source, settings_overrides={
        "report_level": 5, "halt_level": 5, "warning_stream": io.StringIO(),
        "file_insertion_enabled": False, "raw_enabled": False, "doctitle_xform": False,
        "syntax_highlight": "none", "input_encoding": "unicode"})
    out: list[str] = []
    _blocks(doctree, out)
    return "\n\n".join(out)


_ADORNMENT = r"[=\-~^\"'*+#`]{3,}"
_LABEL_BEFORE_TITLE = re.compile(
    rf"^\.\. _([^:\n]+):\s*\n(?:\s*\n)*(?:({_ADORNMENT})\n)?([^\n]+)\n({_ADORNMENT})\s*$",
    re.MULTILINE)
_FIRST_TITLE = re.compile(
    r"^(?:([=\-~^\"'*+#`]{3,})\n)?(?!\.\. )([^\n]+)\n([=\-~^\"'*+#`]{3,})\s*$", re.MULTILINE)


def titles_of(sources: dict[str, str]) -> dict[str, str]:
    """``:ref:`` labels and ``:doc:`` names of a documentation set -> their titles."""
    titles: dict[str, str] = {}
    for doc, source in sources.items():
        first = _FIRST_TITLE.search(source)
        if first:
            titles[doc.lower()] = first.group(2).strip()
            titles["/" + doc.lower()] = first.group(2).strip()
        for found in _LABEL_BEFORE_TITLE.finditer(source):
            titles[found.group(1).strip().lower()] = found.group(3).strip()
    return titles
