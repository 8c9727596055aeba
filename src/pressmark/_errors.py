"""The root of pressmark's exception tree.

Every error pressmark raises on purpose derives from :class:`PressmarkError` and
carries a stable, machine-readable ``code`` (a short kebab- or upper-case string
that never changes between releases) next to a human message. Each layer hangs
its own subtree below the root::

    PressmarkError
    ├── EgressDenied            (pressmark.egress)   DENIED_ADDRESS, INVALID_URL, ...
    ├── SnapshotError           (pressmark.snapshot) invalid-ref, ...
    ├── StoreError              (pressmark.store)    snapshot-corrupt, store-busy, ...
    ├── FetchError              (pressmark.fetch)    invalid-config, ...
    ├── RenderError             (pressmark.render)   browser-not-found, ...
    ├── MarkdownError           (pressmark.markdown)
    └── CrawlError              (pressmark.crawl)    invalid-config

Ordinary failures of a page (a 404, a shell that would not render) are *not*
exceptions: they are typed outcomes on result records. Exceptions are for
invalid configuration, denied egress and broken invariants.
"""

from __future__ import annotations


class PressmarkError(Exception):
    """Base class: a stable ``code`` plus a message safe to show to a user."""

    code: str = "pressmark-error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"
