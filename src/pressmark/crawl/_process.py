"""Per-page CPU work: store the snapshot, extract links, convert to Markdown, write files.

:func:`process_page` is a plain top-level function on picklable records, so it
runs unchanged inline or in a worker process (``ProcessPoolExecutor``). Only
small results travel back (links, title, validation, the sourceRef); the
Markdown and the evidence packet are written to the output directory by the
worker itself. A worker may also put the snapshot into the crawl's filesystem
store (safe across processes), which takes the store's CPU cost off the event
loop's core.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pressmark.crawl._bundles import Output, write_side_outputs
from pressmark.crawl._links import extract_links
from pressmark.crawl._output import disk_full
from pressmark.markdown import parse_html, screen
from pressmark.markdown._bounded import bound_html

if TYPE_CHECKING:
    from pressmark.snapshot import Snapshot
    from pressmark.store import SnapshotStore


@dataclass(frozen=True, slots=True, kw_only=True)
class StoreSpec:
    """How a worker process opens the crawl's filesystem store."""

    root: str
    durability: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PageJob:
    snapshot: Snapshot
    parse: bool
    want_links: bool
    want_markdown: bool
    out_root: str | None
    name: str
    respect_nofollow: bool
    strip_tracking: bool
    readiness: tuple[bool, str, float] | None = None
    store: StoreSpec | None = None
    dedupe: str | None = None
    """A crawl id: links this process already returned for that crawl are not returned
    again (sound only when admission does not depend on the depth a link is found at)."""
    expect: tuple[str | None, str | None] | None = None
    """A seed's ``(expected_heading, expected_language)`` for this page's validation."""
    output: Output = "files"
    """Markdown and evidence as sharded files, or appended to bundles (_bundles.py)."""
    keep_hidden: bool = False
    """Hidden text stays in the Markdown (``ConversionPolicy.keep_hidden_text``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PageWork:
    title: str | None = None
    links: tuple[tuple[str, str], ...] = ()
    refused: tuple[tuple[str, int], ...] = ()
    """Links the egress URL parser refused, counted by code (see ``ExtractedLinks``)."""
    markdown_path: str | None = None
    evidence_path: str | None = None
    validation: tuple[bool, tuple[str, ...]] | None = None
    error: str | None = None
    source_ref: str | None = None
    store_error: str | None = None
    parsed: bool = False
    warnings: tuple[str, ...] = ()
    html_title: str | None = None
    """The page's ``<title>`` as link extraction read it (``title`` may be the converter's)."""
    needs_worker: bool = False
    """Inline only: the pre-scan did not prove this page cheap; run it in a worker."""
    disk_full: str | None = None
    """Why the page's snapshot or files could not be written for want of room (the crawl
    stops then); ``None`` otherwise."""
    hidden_text: int = 0
    """Hidden passages the evidence lists (``hidden_text``)."""
    instruction_text: int = 0
    """Instruction-shaped matches the evidence lists (``instruction_text``)."""


@dataclass(frozen=True, slots=True)
class _Readiness:
    passed: bool
    reason: str
    elapsed_ms: float


# One store object per worker process and root (a per-process handle, not shared state).
_STORES: dict[tuple[str, str], SnapshotStore] = {}


def _store(spec: StoreSpec) -> SnapshotStore:
    key = (spec.root, spec.durability)
    store = _STORES.get(key)
    if store is None:
        from pressmark.store import FilesystemSnapshotStore  # noqa: PLC0415  # loaded on first use

        store = FilesystemSnapshotStore(spec.root, durability=spec.durability)  # type: ignore[arg-type]
        _STORES[key] = store
    return store


# Per-process memory of links already handed back, for the last few crawls (a memo).
_RETURNED: dict[str, set[int]] = {}
_RETURNED_CRAWLS = 4


def _unseen(crawl_id: str, links: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    seen = _RETURNED.get(crawl_id)
    if seen is None:
        while len(_RETURNED) >= _RETURNED_CRAWLS:
            del _RETURNED[next(iter(_RETURNED))]
        seen = _RETURNED[crawl_id] = set()
    fresh = []
    for link in links:
        key = hash(link[0])
        if key not in seen:
            seen.add(key)
            fresh.append(link)
    return tuple(fresh)


def decode_html(body: bytes, charset: str | None) -> str:
    """The text the snapshot layer would decode (``Snapshot.body``), so replay matches."""
    from pressmark.snapshot import decode_text_body  # noqa: PLC0415  # loaded on first use

    return decode_text_body(body, charset).text


def process_page(job: PageJob, *, inline: bool = False) -> PageWork:
    """The page's CPU work. ``inline``: on the event loop, so only a page the bounded
    parser's pre-scan proves cheap is worked on; any other comes back ``needs_worker``."""
    screened = False
    if inline and job.parse:
        text = decode_html(job.snapshot.bytes, job.snapshot.declared_charset)
        if not screen(text):
            return PageWork(needs_worker=True)
        screened = True
    source_ref = None
    if job.store is not None:
        try:
            source_ref = _store(job.store).put(job.snapshot).source_ref
        except Exception as exc:  # the page's failure, reported by the engine
            message = f"{type(exc).__name__}: {exc}"
            return PageWork(store_error=message, disk_full=message if disk_full(exc) else None)
    if not job.parse:
        return PageWork(source_ref=source_ref)
    snap = job.snapshot
    url = snap.url or snap.requested_url
    if screened:
        limits: tuple[str, ...] = ()
    else:
        bounded = bound_html(decode_html(snap.bytes, snap.declared_charset))
        text, limits = bounded.text, bounded.warnings
    title: str | None = None
    links: tuple[tuple[str, str], ...] = ()
    refused: tuple[tuple[str, int], ...] = ()
    if job.want_links or not job.want_markdown:
        extracted = extract_links(parse_html(text, screened=True)[0], url,
                                  respect_nofollow=job.respect_nofollow,
                                  strip_tracking=job.strip_tracking)
        title = extracted.title
        links = extracted.links if job.want_links else ()
        refused = extracted.refused if job.want_links else ()
        if links and job.dedupe is not None:
            links = _unseen(job.dedupe, links)
    if not job.want_markdown:
        return PageWork(title=title, links=links, refused=refused, source_ref=source_ref,
                        parsed=True, warnings=limits, html_title=title)
    try:
        result = _convert(text, url, job)
    except MemoryError:
        raise  # the worker's address-space limit: its parent replaces it (WorkerOutOfMemory)
    except Exception as exc:  # a converter bug is this page's failure, not the crawl's
        # a conversion budget's code (``conversion-limit:*``) is a warning of its own
        code = getattr(exc, "code", "")
        if isinstance(code, str) and code.startswith("conversion-limit:"):
            limits = (*limits, code)
        return PageWork(title=title, links=links, refused=refused,
                        error=f"{type(exc).__name__}: {exc}",
                        source_ref=source_ref, parsed=True, warnings=limits, html_title=title)
    validation = getattr(result, "validation", None)
    valid = None
    if validation is not None:
        valid = (bool(validation.passed), tuple(str(r) for r in validation.reasons))
    md_path = ev_path = None
    if job.out_root is not None:
        try:
            md_path, ev_path = write_side_outputs(
                job.out_root, job.name, url, markdown=result.markdown,
                evidence=getattr(result, "evidence", None), output=job.output)
        except OSError as exc:
            if not disk_full(exc):
                raise
            message = f"{type(exc).__name__}: {exc}"
            return PageWork(title=title, links=links, refused=refused, error=message,
                            source_ref=source_ref, parsed=True, warnings=limits,
                            html_title=title, disk_full=message)
    evidence = getattr(result, "evidence", None)
    return PageWork(title=getattr(result, "title", None) or title, links=links, refused=refused,
                    markdown_path=md_path, evidence_path=ev_path, validation=valid,
                    source_ref=source_ref, parsed=True, warnings=limits, html_title=title,
                    hidden_text=len(getattr(evidence, "hidden_text", ()) or ()),
                    instruction_text=len(getattr(evidence, "instruction_text", ()) or ()))


def _convert(text: str, url: str, job: PageJob) -> Any:
    from pressmark.markdown import to_markdown  # noqa: PLC0415  # loaded on first use

    readiness = None if job.readiness is None else _Readiness(*job.readiness)
    snap = job.snapshot
    # The request travels along, so the evidence keeps it and validation can tell a
    # redirect to a login or home page from the page that was asked for.
    requested = snap.requested_url or url
    if job.expect is None and not job.keep_hidden:
        return to_markdown(text, url=url, readiness=readiness, requested_url=requested)
    heading, language = job.expect or (None, None)
    return to_markdown(text, url=url, readiness=readiness, requested_url=requested,
                       policy=_policy_for(heading, language, keep_hidden=job.keep_hidden))


@functools.lru_cache(maxsize=64)
def _policy_for(heading: str | None, language: str | None, *, keep_hidden: bool) -> Any:
    from pressmark.markdown import ConversionPolicy  # noqa: PLC0415  # loaded on first use

    return ConversionPolicy(required_heading=heading, expected_language=language,
                            keep_hidden_text=keep_hidden)




def warm_up() -> None:
    """Import the heavy modules once per worker, before the first page arrives."""
    import pressmark.snapshot  # noqa: PLC0415  # loaded on first use
    import pressmark.store  # noqa: PLC0415  # loaded on first use

    with contextlib.suppress(ImportError):  # the converter may be absent in a slim build
        import pressmark.markdown  # noqa: F401, PLC0415  # loaded on first use
