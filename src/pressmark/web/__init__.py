"""pressmark.web: the review workbench (``pressmark serve DIR``).

A small read-only Starlette app over one crawl output directory: an overview
with filters, a page view with the archived snapshot beside its Markdown and
evidence, capture history with diffs, and sourceRef verification. Snapshot HTML
is treated as hostile; see :mod:`pressmark.web._security`.
"""

from pressmark.web._app import create_app

__all__ = [
    "create_app",
]
