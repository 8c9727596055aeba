"""A fetched page's CPU work, as the engine hands it out: where it runs, and what it may skip.

The engine owns order, concurrency and records; this module decides, per page, how its
work is done: not at all (a page with nothing to parse), from the links memo (a page that
needs no Markdown and whose snapshot an earlier crawl parsed, see
:mod:`pressmark.crawl._linkmemo`), inline on the event loop (no parser processes, or a
page the pre-scan proves cheap when only links are wanted), or in a parser process.
A recrawl's page that the server reports unchanged keeps its earlier Markdown and
evidence (:func:`~pressmark.crawl._records.kept_record`), so it needs no conversion; so
does an index page whose body is byte for byte its directory's (``/docs/index.html`` and
``/docs/``) once the directory's page is converted: it is recorded ``duplicate_of`` the
directory's URL and shares its files. The direction is fixed by the URLs (the directory
is the page), so it does not depend on which of the two finished first.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pressmark.crawl._linkmemo import KnownLinks, LinkMemo, memo_key
from pressmark.crawl._manifest import PageRecord, Validation
from pressmark.crawl._output import page_name
from pressmark.crawl._process import PageJob, PageWork, StoreSpec, process_page, warm_up
from pressmark.crawl._records import PresentFiles, kept_record
from pressmark.crawl._workers import ParseWorkers

if TYPE_CHECKING:
    from pressmark.crawl._fetcher import Fetched
    from pressmark.crawl._frontier import FrontierItem
    from pressmark.crawl._output import OutputDir
    from pressmark.crawl._policy import CrawlPolicy, Seed


# The names a server answers a directory's URL with (``/docs/`` is ``/docs/index.html``).
INDEX_NAMES = frozenset({"index.html", "index.htm", "index.shtml", "index.xhtml", "index.php",
                         "default.htm", "default.html", "default.asp", "default.aspx"})


def _path_end(url: str) -> tuple[str, str, str] | None:
    """(everything up to the path's last segment, that segment, the query and fragment)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return None
    authority, slash, tail = rest.partition("/")
    path, mark, query = tail.partition("?")
    head, _, last = path.rpartition("/")
    base = f"{scheme}://{authority}{slash}{head}{'/' if head else ''}"
    return base, last, mark + query


def index_directory(url: str) -> str | None:
    """``http://h/docs/`` for ``http://h/docs/index.html`` (the query kept); else ``None``."""
    parts = _path_end(url)
    if parts is None or parts[1].lower() not in INDEX_NAMES:
        return None
    return parts[0] + parts[2]


def _is_directory(url: str) -> bool:
    parts = _path_end(url)
    return parts is not None and parts[1] == ""


def make_pool(policy: CrawlPolicy) -> ParseWorkers | None:
    """Killable parser processes (started on first use), or ``None`` to run work inline."""
    workers = policy.workers
    if workers is None:
        cpus = os.cpu_count() or 1
        # Without Markdown a page's CPU work (one Lexbor parse, link canonicalisation) is
        # cheaper than a round trip to a worker: it runs inline when the pre-scan proves
        # the parse cheap (``inline_first``), and only other pages reach the one worker.
        workers = min(cpus, 2) if policy.markdown and cpus >= 2 else 1
    if workers <= 0:
        return None
    return ParseWorkers(workers, deadline_s=policy.page_deadline_s, warm=warm_up,
                        memory_bytes=policy.worker_memory_bytes)


class PageWorker:
    """Runs each fetched page's work for one engine (see the module docstring)."""

    def __init__(self, *, policy: CrawlPolicy, out: OutputDir | None,
                 pool: ParseWorkers | None, store_spec: StoreSpec | None,
                 links: LinkMemo | None, previous: Sequence[PageRecord],
                 seeds: Mapping[str, Seed]) -> None:
        self.policy = policy
        self.out = out
        self.pool = pool
        self.store_spec = store_spec if pool is not None else None
        """How a worker puts snapshots into the crawl's store itself (``None``: the engine's
        writer threads do)."""
        self.links = links
        # Pages whose pre-scan passes are parsed inline; the rest go to the workers.
        self.inline_first = pool is not None and not policy.markdown and policy.workers is None
        self._seeds = seeds
        # A recrawl's earlier pages whose Markdown a 304 lets this crawl keep.
        self._previous = {page.url: page for page in previous
                          if page.markdown_path is not None and page.snapshot_sha256}
        self._present = None if out is None else PresentFiles(out.root)
        # A directory URL's converted page (``/docs/``: its body hash and files), for an
        # index page that repeats it (``/docs/index.html``). Filled as pages finish: an
        # index page converted before its directory's page is converted too, never waited
        # for; only directory URLs are kept (a few per site).
        self._directories: dict[str, tuple[str, PageWork]] = {}

    def _expectations(self, item: FrontierItem) -> tuple[str | None, str | None] | None:
        """A seed's expected heading regex and language, for its own page's validation."""
        seed = self._seeds.get(item.url) if item.via == "seed" else None
        if seed is None or (seed.expected_heading is None and seed.expected_language is None):
            return None
        return seed.expected_heading, seed.expected_language

    def kept(self, item: FrontierItem, fetched: Fetched) -> PageRecord | None:
        """The earlier record whose Markdown and evidence this page keeps (a 304, or a page
        of this crawl with the same body), if any."""
        if self._present is None:
            return None
        earlier = kept_record(self._previous.get(item.url), fetched, self._present)
        if earlier is not None:
            return earlier
        return self._same_body(item, fetched)

    def _same_body(self, item: FrontierItem, fetched: Fetched) -> PageRecord | None:
        snap = fetched.snapshot
        directory = index_directory(item.url)
        if snap is None or directory is None or snap.content_type != "html" \
                or not self.policy.markdown:
            return None
        converted = self._directories.get(directory)
        if converted is None or converted[0] != snap.body_hash:
            return None
        work = converted[1]
        validation = None if work.validation is None else Validation(
            passed=work.validation[0], reasons=work.validation[1])
        return PageRecord(url=directory, final_url=None, depth=item.depth, status=snap.status,
                          outcome="ok", title=work.title, markdown_path=work.markdown_path,
                          evidence_path=work.evidence_path, validation=validation,
                          hidden_text=work.hidden_text,
                          instruction_text=work.instruction_text)

    async def run(self, item: FrontierItem, fetched: Fetched, put_in_worker: bool,
                  kept: PageRecord | None) -> PageWork | None:
        """Parse, extract and convert the page (inline or in a worker); ``None`` when there
        is nothing to do. The caller admits the links.

        A page that needs no Markdown (a 304 keeping its earlier files, or a crawl without
        Markdown) needs only its title and links: those an earlier crawl found in the same
        snapshot, when the crawl directory remembers them, without parsing it again."""
        snap = fetched.snapshot
        assert snap is not None
        policy = self.policy
        want_links = policy.discovery in ("links", "both") and (
            policy.max_depth is None or item.depth < policy.max_depth)
        parse = snap.content_type == "html" and snap.status < 400
        if not (parse or put_in_worker):
            return None
        want_markdown = policy.markdown and kept is None
        key = None
        if parse and self.links is not None:
            key = memo_key(snap.snapshot_sha256, respect_nofollow=policy.respect_nofollow,
                           strip_tracking=policy.strip_tracking_params)
            known = None if want_markdown or put_in_worker else self.links.get(key)
            if known is not None:
                self.links.add(key, known)
                return PageWork(title=known.title, links=known.links if want_links else (),
                                refused=known.refused if want_links else (),
                                warnings=known.warnings, parsed=True)
        job = PageJob(
            snapshot=snap, parse=parse, want_links=want_links, want_markdown=want_markdown,
            out_root=None if self.out is None else str(self.out.root),
            name=page_name(snap.source_id, item.url),
            respect_nofollow=policy.respect_nofollow,
            strip_tracking=policy.strip_tracking_params, readiness=fetched.readiness,
            store=self.store_spec if put_in_worker else None,
            expect=self._expectations(item), output=policy.output,
            keep_hidden=policy.keep_hidden_text,
        )
        if self.pool is None:  # workers=0: inline, bounded by the pre-scan's caps
            work = process_page(job)
        else:
            # Links alone cost less inline than a worker's round trip (or its start-up)
            # when the pre-scan proves the parse cheap.
            inline = self.inline_first or (not want_markdown and job.store is None)
            first = process_page(job, inline=True) if inline else None
            if first is None or first.needs_worker:
                work = await self.pool.run(process_page, job)
            else:
                work = first
        if want_markdown and work.markdown_path is not None and snap.status < 400 \
                and _is_directory(item.url):
            self._directories[item.url] = (snap.body_hash, PageWork(
                title=work.title, markdown_path=work.markdown_path,
                evidence_path=work.evidence_path, validation=work.validation,
                hidden_text=work.hidden_text, instruction_text=work.instruction_text))
        if key is not None and want_links and work.parsed and self.links is not None:
            self.links.add(key, KnownLinks(title=work.html_title, links=work.links,
                                           refused=work.refused, warnings=work.warnings))
        return work
