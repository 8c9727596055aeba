"""Is this HTML a JavaScript shell whose content only appears after rendering?

One Lexbor parse per page (~1 ms). The verdict combines a content-presence
measure (visible text, and text inside ``main`` / ``article`` / ``[role=main]``)
with shell signals: an empty framework mount point, a ``noscript`` notice asking
for JavaScript, and script bytes that dwarf the text. Real content always wins:
a page with enough main text is never a shell, whatever its scripts look like.

A page can also be short by nature and complete as served: a search page, a contact
form, a one-paragraph notice. When the content root (the main element, else the body
without its header, navigation, footer and asides) already holds a heading and either a
sentence of prose, a code listing or a form to fill in, a ``noscript`` notice or a large
script is what the page *adds* (search results, a widget), not what it lacks: no shell.
An empty mount point still is one, whatever surrounds it. ``bench/shell_classifier.py``
measures the rule: Sphinx's own documentation had one false shell in 137 pages (its
``search.html``), now none; the Rust documentation 9 in 48,625, now 3 (pages that are
built or redirected by script).

Warnings follow the render-policy contract: ``js-shell-suspected:<reason>``
asks for a render; ``js-shell-suspected-embedded-state-available:<kind>`` notes
that the content already sits in JSON-LD or framework state, and does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from selectolax.lexbor import LexborNode

from pressmark.markdown import parse_html

SHELL_WARNING_PREFIX = "js-shell-suspected:"
EMBEDDED_STATE_WARNING_PREFIX = "js-shell-suspected-embedded-state-available:"

_MAIN_SELECTOR = "main, article, [role=main]"
# Inside a main element a <header> is the article's (its heading); around it, the site's.
_CHROME_IN_MAIN = "nav, aside, [role=navigation], [role=banner], [role=contentinfo]"
_CHROME_IN_BODY = f"header, footer, {_CHROME_IN_MAIN}"
_HEADINGS = "h1, h2, h3, h4, h5, h6"
_FILLABLE = ("input:not([type]), input[type=text], input[type=search], input[type=email], "
             "textarea, select")
_MOUNT_SELECTOR = ("#root, #app, #__next, #___gatsby, #__nuxt, [data-reactroot], [ng-app], "
                   "app-root")
_MOUNT_IDS = {"root": "root", "app": "app", "__next": "next", "___gatsby": "gatsby",
              "__nuxt": "nuxt"}
_STATE_MARKERS: tuple[tuple[str, str], ...] = (
    ("__INITIAL_STATE__", "initial-state"),
    ("__NUXT__", "nuxt"),
    ("__APOLLO_STATE__", "apollo-state"),
    ("__PRELOADED_STATE__", "preloaded-state"),
)
_NOSCRIPT_RE = re.compile(
    r"(enable|turn on|requires?|need|needs|activate|allow)\b[^.]{0,40}javascript"
    r"|javascript\b[^.]{0,40}(enabled|required|disabled|to run|to use|is off)",
    re.IGNORECASE,
)

MAIN_CONTENT_CHARS = 200      # this much text in main/article: real content
BODY_CONTENT_CHARS = 500      # this much visible text with no main element: real content
EMPTY_MOUNT_CHARS = 40        # a mount point with less text than this is empty
STATE_CONTENT_CHARS = 200     # embedded state smaller than this does not carry the page
SCRIPT_TEXT_RATIO = 3.0
SENTENCE_CHARS = 40           # a paragraph this long is prose, not a "Loading..." label
HEADING_CHARS = 2             # a heading with fewer characters names nothing
CODE_CHARS = 10               # a code listing this long is a declaration, not a spinner


@dataclass(frozen=True, slots=True, kw_only=True)
class ShellVerdict:
    """What :func:`classify_shell` saw. ``escalate`` is what the render policy uses."""

    is_shell: bool
    reason: str
    score: float
    warnings: tuple[str, ...] = ()
    embedded_state: str | None = None
    text_chars: int = 0
    main_chars: int = 0
    script_chars: int = 0

    @property
    def escalate(self) -> bool:
        return any(w.startswith(SHELL_WARNING_PREFIX) for w in self.warnings)


class ShellCheck(Protocol):
    """Where a page's shell classification runs. The default (``None`` in
    ``FetchOptions``) is :func:`classify_shell` in the caller's thread, which the bounded
    parser keeps bounded; a crawl passes one that keeps the event loop free."""

    async def __call__(self, html: str, url: str | None) -> ShellVerdict: ...


def _chars(text: str | None) -> int:
    if not text:
        return 0
    return len(" ".join(text.split()))


def _mount_name(node: LexborNode) -> str | None:
    attrs = node.attributes
    ident = attrs.get("id")
    if ident in _MOUNT_IDS:
        return _MOUNT_IDS[ident]
    if "data-reactroot" in attrs:
        return "reactroot"
    if "ng-app" in attrs:
        return "ng-app"
    if node.tag == "app-root":
        return "app-root"
    return None


def _served_content(root: LexborNode | None, *, in_main: bool) -> str | None:
    """``"heading+prose"``, ``"heading+code"`` or ``"heading+form"`` when the content root,
    once its chrome is taken out (this edits the tree: call it last), already holds a
    heading and a sentence of prose, a code listing or a form to fill in; else ``None``."""
    if root is None:
        return None
    for chrome in root.css(_CHROME_IN_MAIN if in_main else _CHROME_IN_BODY):
        chrome.decompose()
    if not any(_chars(h.text(separator=" ")) >= HEADING_CHARS for h in root.css(_HEADINGS)):
        return None
    if any(_chars(p.text(separator=" ")) >= SENTENCE_CHARS for p in root.css("p")):
        return "heading+prose"
    if any(_chars(pre.text(separator=" ")) >= CODE_CHARS for pre in root.css("pre")):
        return "heading+code"
    if any(form.css_first(_FILLABLE) is not None for form in root.css("form")):
        return "heading+form"
    return None


def classify_shell(html: str, url: str | None = None, *, screened: bool = False,
                   ) -> ShellVerdict:
    """Classify one HTML document (``url`` is accepted for symmetry and future rules).

    ``screened``: :func:`pressmark.markdown.screen` just passed on ``html``.
    """
    del url
    tree, limits = parse_html(html, screened=screened)
    script_chars = 0
    external_scripts = 0
    state_kind: str | None = None
    notice = False
    for node in tree.css("script, noscript"):
        if node.tag == "noscript":
            notice = notice or bool(_NOSCRIPT_RE.search(node.text() or ""))
            continue
        attrs = node.attributes
        stype = (attrs.get("type") or "").strip().lower()
        body = node.text(deep=False) or ""
        if stype == "application/ld+json":
            if state_kind is None and _chars(body) >= STATE_CONTENT_CHARS:
                state_kind = "json-ld"
            continue
        if attrs.get("id") == "__NEXT_DATA__":
            if _chars(body) >= STATE_CONTENT_CHARS:
                state_kind = state_kind or "next-data"
            continue
        if "src" in attrs:
            external_scripts += 1
        if stype and "javascript" not in stype and stype != "module":
            continue
        script_chars += len(body)
        if state_kind is None and len(body) >= STATE_CONTENT_CHARS:
            for marker, kind in _STATE_MARKERS:
                if marker in body:
                    state_kind = kind
                    break

    tree.strip_tags(["script", "style", "noscript", "template"])
    if limits:  # a page over the parse caps is no shell: it has (far too much) markup
        return ShellVerdict(is_shell=False, reason="parse-limit", score=0.0, warnings=limits,
                            script_chars=script_chars)
    root = tree.body or tree.root
    text_chars = _chars(root.text(separator=" ")) if root is not None else 0
    mains = tree.css(_MAIN_SELECTOR)
    main_chars = max((_chars(n.text(separator=" ")) for n in mains), default=0)
    thin = 1.0 - min(1.0, max(main_chars, text_chars if not mains else 0) / BODY_CONTENT_CHARS)
    if main_chars >= MAIN_CONTENT_CHARS or (not mains and text_chars >= BODY_CONTENT_CHARS):
        return ShellVerdict(is_shell=False, reason="content-present",
                            score=round(min(0.2, 0.3 * thin), 3), text_chars=text_chars,
                            main_chars=main_chars, script_chars=script_chars)

    empty_mount: str | None = None
    for mount in tree.css(_MOUNT_SELECTOR):
        name = _mount_name(mount)
        if name is not None and _chars(mount.text(separator=" ")) < EMPTY_MOUNT_CHARS:
            empty_mount = name
            break

    has_scripts = external_scripts > 0 or script_chars > 0
    script_heavy = has_scripts and text_chars < MAIN_CONTENT_CHARS and (
        external_scripts > 0 or script_chars > SCRIPT_TEXT_RATIO * max(text_chars, 1))

    score = 0.0
    if empty_mount is not None:
        score += 0.5
    if notice:
        score += 0.3
    if script_heavy:
        score += 0.3
    score += 0.3 * thin
    score = round(min(1.0, score), 3)
    reason: str | None = None
    if empty_mount is not None and has_scripts:
        reason = f"empty-mount:{empty_mount}"
    elif (notice or script_heavy) and (
            served := _served_content(mains[0] if mains else root, in_main=bool(mains))
    ) is not None:
        # Short and complete as served: the notice or the scripts add to it.
        return ShellVerdict(is_shell=False, reason=f"served-content:{served}",
                            score=min(score, 0.4), text_chars=text_chars,
                            main_chars=main_chars, script_chars=script_chars)
    elif notice:
        reason = "noscript-notice"
    elif script_heavy:
        reason = "script-heavy"
    if reason is None:
        return ShellVerdict(is_shell=False, reason="no-shell-signal", score=min(score, 0.4),
                            text_chars=text_chars, main_chars=main_chars,
                            script_chars=script_chars)
    if state_kind is not None:
        warning = f"{EMBEDDED_STATE_WARNING_PREFIX}{state_kind}"
    else:
        warning = f"{SHELL_WARNING_PREFIX}{reason}"
    return ShellVerdict(is_shell=True, reason=reason, score=max(score, 0.5), warnings=(warning,),
                        embedded_state=state_kind, text_chars=text_chars,
                        main_chars=main_chars, script_chars=script_chars)
