"""The Starlette application factory for ``pressmark serve``."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from pressmark.markdown import describe_output
from pressmark.store import SnapshotStore
from pressmark.web._archive import Archive
from pressmark.web._data import CrawlDir
from pressmark.web._search import MarkdownSearch
from pressmark.web._security import DEFAULT_ALLOWED_HOSTS, SecurityHeadersMiddleware
from pressmark.web._views import Views

_HERE = Path(__file__).parent


def _closing(search: MarkdownSearch) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    """The app's lifespan: the search index's temporary files go when the server stops."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            search.close()

    return lifespan


def create_app(out_dir: str | Path, *, store: SnapshotStore | None = None,
               allowed_hosts: Sequence[str] = DEFAULT_ALLOWED_HOSTS,
               debug: bool = False) -> Starlette:
    """A read-only review workbench over one crawl output directory.

    ``store`` defaults to the snapshot store (segments or files, by its marker) at
    ``DIR/store``. ``allowed_hosts`` are the Host header values answered (loopback names by
    default, so a DNS-rebinding page cannot read the crawl through a browser).
    Nothing is read until the first request.
    """
    root = Path(out_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"not a crawl output directory: {root}")
    crawl = CrawlDir(root)
    templates = Jinja2Templates(directory=str(_HERE / "templates"))
    templates.env.policies["json.dumps_kwargs"] = {"sort_keys": False}  # keep packet order
    # the line on each validation reason, warning and field (docs/outputs.md), as tooltips
    templates.env.globals["describe"] = lambda code: describe_output(str(code)) or ""
    search = MarkdownSearch(crawl)  # indexes in the background from the first overview
    views = Views(crawl, Archive(crawl.root / "store", store), templates, search)

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
        headers = dict(exc.headers or {}) if isinstance(exc, HTTPException) else {}
        return templates.TemplateResponse(
            request, "error.html", {"status": status, "detail": detail},
            status_code=status, headers=headers,
        )

    get = ["GET"]  # Starlette adds HEAD; anything else is 405: the app is read-only
    routes = [
        Route("/", views.overview, methods=get, name="overview"),
        Route("/page/{row:int}", views.page, methods=get, name="page"),
        Route("/page/{row:int}/rendered", views.rendered, methods=get, name="rendered"),
        Route("/raw/{row:int}/{digest}", views.raw, methods=get, name="raw"),
        Route("/raw/{row:int}/{digest}/tree", views.raw_tree, methods=get, name="raw_tree"),
        Route("/bytes/{row:int}/{digest}", views.raw_bytes, methods=get, name="bytes"),
        Route("/history/{row:int}", views.history, methods=get, name="history"),
        Route("/history/{row:int}/diff", views.diff, methods=get, name="diff"),
        Route("/verify", views.verify_page, methods=get, name="verify"),
        Route("/api/verify", views.api_verify, methods=get, name="api_verify"),
        Mount("/static", StaticFiles(directory=str(_HERE / "static")), name="static"),
    ]
    app = Starlette(
        debug=debug,
        routes=routes,
        lifespan=_closing(search),
        middleware=[
            Middleware(SecurityHeadersMiddleware),
            Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)),
        ],
        exception_handlers={HTTPException: not_found},
    )
    app.state.search = search  # the index, for whoever runs the app (the bench, tests)
    return app
