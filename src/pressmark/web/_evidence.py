"""Evidence packets as the page view shows them.

The packet is written by :mod:`pressmark.markdown` with a stable key order; the
workbench reads it defensively (older packets, hand-edited files) and never
trusts it to be well-formed: a field that is missing or of the wrong type is
shown as absent, not as an error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

_SPAN_KEYS = ("markdown_span", "span", "md_span", "markdown_offsets", "offsets")
_SELECTOR_KEYS = ("dom_selector", "css_path", "dom_path", "selector", "css")
_PREVIEW_KEYS = ("text_preview", "preview", "text")


@dataclass(frozen=True, slots=True, kw_only=True)
class Provenance:
    """One sample provenance entry: a Markdown span and the DOM element it came from."""

    index: int
    start: int | None
    end: int | None
    selector: str | None
    preview: str
    kind: str | None


def _first(entry: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in entry:
            return entry[key]
    return None


def _offsets(entry: Mapping[str, Any], markdown: str | None) -> tuple[int | None, int | None]:
    span = _first(entry, _SPAN_KEYS)
    start: Any = None
    end: Any = None
    if isinstance(span, list | tuple) and len(span) == 2:
        start, end = span
    elif isinstance(span, Mapping):
        start, end = span.get("start"), span.get("end")
    elif isinstance(span, str) and markdown is not None and span:
        found = markdown.find(span)
        if found >= 0:
            start, end = found, found + len(span)
    else:
        start = entry.get("markdown_start", entry.get("start"))
        end = entry.get("markdown_end", entry.get("end"))
    if (
        isinstance(start, int)
        and isinstance(end, int)
        and not isinstance(start, bool)
        and not isinstance(end, bool)
        and 0 <= start < end
        and (markdown is None or end <= len(markdown))
    ):
        return start, end
    return None, None


def provenance(evidence: Mapping[str, Any] | None, markdown: str | None) -> list[Provenance]:
    """The packet's ``sample_provenance`` entries, normalised."""
    if not evidence:
        return []
    samples = evidence.get("sample_provenance")
    if not isinstance(samples, list):
        return []
    out: list[Provenance] = []
    for entry in samples:
        if not isinstance(entry, Mapping):
            continue
        start, end = _offsets(entry, markdown)
        selector = _first(entry, _SELECTOR_KEYS)
        preview = _first(entry, _PREVIEW_KEYS)
        kind = entry.get("kind", entry.get("type"))
        out.append(
            Provenance(
                index=len(out),
                start=start,
                end=end,
                selector=selector if isinstance(selector, str) and selector else None,
                preview=preview if isinstance(preview, str) else "",
                kind=kind if isinstance(kind, str) else None,
            )
        )
    return out


def markdown_markup(markdown: str, spans: list[Provenance]) -> Markup:
    """Escaped Markdown with each provenance span wrapped in a clickable element.

    Offsets are Python character offsets, applied here on the server so that
    characters outside the BMP (which JavaScript counts twice) cannot shift them.
    Spans that overlap an earlier one are left unwrapped.
    """
    parts: list[str] = []
    cursor = 0
    for item in sorted(
        (s for s in spans if s.start is not None and s.end is not None),
        key=lambda s: (s.start or 0, s.index),
    ):
        assert item.start is not None and item.end is not None
        if item.start < cursor:
            continue
        parts.append(str(escape(markdown[cursor : item.start])))
        parts.append(
            f'<span class="prov" id="md-prov-{item.index}" data-prov="{item.index}"'
            f' tabindex="0">{escape(markdown[item.start : item.end])}</span>'
        )
        cursor = item.end
    parts.append(str(escape(markdown[cursor:])))
    return Markup("".join(parts))


def _get(evidence: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if key in evidence:
            return evidence[key]
    return None


def summary(evidence: Mapping[str, Any] | None) -> dict[str, Any]:
    """The headline facts of a packet, under fixed names for the template."""
    if not evidence:
        return {}
    readiness = evidence.get("readiness")
    if not isinstance(readiness, Mapping):
        flat = {
            "passed": evidence.get("render_readiness_passed"),
            "reason": evidence.get("render_readiness_reason"),
            "elapsed_ms": evidence.get("render_elapsed_ms"),
        }
        readiness = flat if any(v is not None for v in flat.values()) else None
    validation = _get(evidence, "validation", "validation_report")
    return {
        "url_requested": evidence.get("url_requested"),
        "url_final": evidence.get("url_final"),
        "needs_render": evidence.get("needs_render"),
        "presence_score": _get(evidence, "presence_score", "fetch_presence_score"),
        "readiness": readiness,
        "main_selectors": _list(_get(evidence, "main_selectors_used")),
        "boilerplate_rules": _list(
            _get(evidence, "boilerplate_rules_used", "boilerplate_filter_rules_used")
        ),
        "validation": validation if isinstance(validation, Mapping) else None,
        "policy_version": evidence.get("policy_version"),
    }


def _list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [item if isinstance(item, str) else repr(item) for item in value]
    return []


def public_fields(value: Any) -> dict[str, Any]:
    """Plain fields of a report object (dataclass, ``to_dict()`` or attributes)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        result = to_dict()
        if isinstance(result, dict):
            return result
    names = getattr(value, "__slots__", None) or getattr(value, "__dict__", {})
    return {name: getattr(value, name) for name in names if not name.startswith("_")}
