"""The demo site's structure: which pages exist, what they link to, how deep they sit.

Everything is computed up front from ``(seed, pages)`` (cheap even for 10,000 pages);
page bodies are rendered on request by :mod:`pressmark.demo._routes`. The link graph
here is the same one the HTML is rendered from, so ``depth`` is the truth a BFS
crawler should find.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Literal

from pressmark.demo import _text
from pressmark.demo._chrome import INFO_PAGES, SECTIONS
from pressmark.demo._content import ArticleContent, generate
from pressmark.demo._http import Fault

if TYPE_CHECKING:
    from pressmark.demo._http import Request, Response

PageKind = Literal[
    "home", "section", "info", "article", "shell", "shell-next", "shell-jsonld",
    "shell-links", "lazy", "tabs", "live", "soft-404", "wrong-locale", "redirect-target",
    "client-redirect",
    "charset", "cache", "private",
]
RobotsMode = Literal["normal", "500", "404", "timeout", "redirect", "huge"]
SHELL_KINDS: tuple[PageKind, ...] = ("shell", "shell-next", "shell-jsonld", "shell-links")
MAX_PAGES = 10_000
HOME_FANOUT = 10
TREE_FANOUT = 6
RELATED = 4
SECTION_LIST = 10

CHARSET_PATHS = ("/charset/shift_jis", "/charset/windows-1252", "/charset/http-equiv",
                 "/charset/bom", "/charset/bom-conflict", "/charset/invalid-utf8",
                 "/charset/none")
CACHE_PATHS = ("/cache/both", "/cache/etag", "/cache/last-modified", "/cache/weak",
               "/cache/none", "/cache/changing")
PRIVATE_PATHS = ("/private/", "/private/1", "/private/2", "/private/3", "/private/4",
                 "/private/open")
SPECIAL_PATHS: tuple[tuple[str, PageKind, str], ...] = (
    ("/special/lazy", "lazy", "A long read that loads as you scroll"),
    ("/special/tabs", "tabs", "Timetables in four tabs"),
    ("/special/live", "live", "Live: the harbour festival"),
    ("/special/soft-404", "soft-404", "Page not found"),
    ("/special/wrong-locale", "wrong-locale", "Le port tranquille rouvre"),
    ("/special/redirect-target", "redirect-target", "You have arrived"),
    ("/special/meta-refresh", "client-redirect", "Redirecting"),
    ("/special/js-redirect", "client-redirect", "Redirecting"),
)
DISALLOWED_PREFIXES = ("/private/", "/search", "/account/", "/share/",
                       "/redirect/to-disallowed-target")
ALLOWED_PREFIXES = ("/private/open",)


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoPage:
    """One HTML page the site answers with 200, and what a crawler should find there."""

    path: str
    kind: PageKind
    title: str
    page_id: int | None = None
    section: str | None = None
    depth: int | None = None
    render_depth: int | None = None
    in_sitemap: bool = False
    disallowed: bool = False
    links: tuple[str, ...] = ()
    render_links: tuple[str, ...] = ()

    @property
    def is_shell(self) -> bool:
        return self.kind in SHELL_KINDS


@dataclass(slots=True)
class _Item:
    """A generated page while the structure is being built."""

    page_id: int
    kind: PageKind
    title: str
    section: str
    variant: int
    hidden: bool = False
    children: list[int] = field(default_factory=list)
    related: list[int] = field(default_factory=list)
    render_only: list[int] = field(default_factory=list)

    @property
    def path(self) -> str:
        prefix = "/stories/" if self.kind in SHELL_KINDS else "/articles/"
        return f"{prefix}{self.page_id:04d}-{_text.slugify(self.title)}"


def is_disallowed(path: str) -> bool:
    """The ``User-agent: *`` rules of the demo robots.txt (longest match wins)."""
    allow = max((len(p) for p in ALLOWED_PREFIXES if path.startswith(p)), default=-1)
    deny = max((len(p) for p in DISALLOWED_PREFIXES if path.startswith(p)), default=-1)
    return deny > allow


class DemoSite:
    """A deterministic site: same ``seed`` and ``pages`` give byte-identical responses.

    ``pages`` counts generated articles and shells; fixed special pages come on top.
    """

    def __init__(
        self, seed: int = 7, pages: int = 200, faults: bool = False,
        crawl_delay: float | None = None, robots: RobotsMode = "normal",
    ) -> None:
        if not 1 <= pages <= MAX_PAGES:
            raise ValueError(f"pages must be between 1 and {MAX_PAGES}, not {pages}")
        if robots not in ("normal", "500", "404", "timeout", "redirect", "huge"):
            raise ValueError(f"unknown robots mode {robots!r}")
        self.seed = seed
        self.size = pages
        self.faults = faults
        self.crawl_delay = crawl_delay
        self.robots = robots
        self._items = self._build_items()
        self.pages: tuple[DemoPage, ...] = self._build_pages()
        self._by_path = {page.path: page for page in self.pages}
        self._content_cache: dict[int, ArticleContent] = {}
        self._edits: dict[str, tuple[tuple[str, str], ...]] = {}
        self._deleted: frozenset[str] = frozenset()

    def __repr__(self) -> str:
        return (f"DemoSite(seed={self.seed}, pages={self.size}, faults={self.faults}, "
                f"crawl_delay={self.crawl_delay}, robots={self.robots!r})")

    # -- public queries --------------------------------------------------------

    def page(self, path: str) -> DemoPage:
        return self._by_path[path]

    def paths_of_kind(self, *kinds: PageKind) -> list[str]:
        return [page.path for page in self.pages if page.kind in kinds]

    @property
    def generated(self) -> tuple[DemoPage, ...]:
        """The generated pages (articles and shells), in id order."""
        return tuple(page for page in self.pages if page.page_id is not None)

    @property
    def shell_fraction(self) -> float:
        generated = self.generated
        return sum(page.is_shell for page in generated) / len(generated)

    @property
    def max_depth(self) -> int:
        return max(page.depth for page in self.pages if page.depth is not None)

    def content(self, path: str) -> ArticleContent:
        """Ground truth of a generated page (article or shell)."""
        page = self._by_path[path]
        if page.page_id is None:
            raise KeyError(f"{path} is not a generated page")
        return self.content_by_id(page.page_id)

    def content_by_id(self, page_id: int) -> ArticleContent:
        cached = self._content_cache.get(page_id)
        if cached is None:
            item = self._items[page_id]
            links = [(self._items[i].path, self._items[i].title)
                     for i in item.children + item.related]
            cached = generate(self.seed, page_id, title=item.title, section=item.section,
                              links=links)
            if len(self._content_cache) < 512:
                self._content_cache[page_id] = cached
        return cached

    def charset_text(self, path: str) -> str:
        from pressmark.demo._extras import CHARSET_TEXT  # noqa: PLC0415 - keeps import light

        return CHARSET_TEXT[path]

    def respond(self, request: Request) -> Response | Fault:
        """Answer one request; used by :class:`DemoServer`."""
        from pressmark.demo._routes import respond  # noqa: PLC0415 - render code on demand

        if request.path in self._deleted:
            from pressmark.demo._pages import soft_404  # noqa: PLC0415 - as above

            return soft_404(request.origin, request.path, status=404)
        response = respond(self, request)
        edits = self._edits.get(request.path)
        if edits and not isinstance(response, Fault):
            response = _edited(response, edits)
        return response

    def edited(self, *, replace: Mapping[str, Iterable[tuple[str, str]]] | None = None,
               delete: Iterable[str] = ()) -> DemoSite:
        """This site after an editor's pass: in each page of ``replace``, every ``(old,
        new)`` text of its HTML replaced (``new`` empty removes it; the page's ETag follows
        its bytes); each path of ``delete`` answers 404 (links to it stay). Every other
        response is byte for byte this site's: a recrawl sees exactly these changes.
        ``DemoServer.serve(site)`` swaps it in."""
        site = DemoSite(seed=self.seed, pages=self.size, faults=self.faults,
                        crawl_delay=self.crawl_delay, robots=self.robots)
        site._edits = {**self._edits, **{path: tuple(pairs)
                                         for path, pairs in (replace or {}).items()}}
        site._deleted = self._deleted | frozenset(delete)
        return site

    # -- structure ---------------------------------------------------------------

    def _build_items(self) -> list[_Item]:
        rng = _text.rng_for(self.seed, "structure")
        items: list[_Item] = []
        for page_id in range(self.size):
            roll = rng.random()
            kind: PageKind = "article"
            if roll < 0.18:
                kind = SHELL_KINDS[int(roll / 0.045)]
            title_rng = _text.rng_for(self.seed, page_id, "title")
            items.append(_Item(
                page_id=page_id, kind=kind, title=_text.title(title_rng),
                section=rng.choice(SECTIONS), variant=rng.randrange(3),
            ))
        if self.size >= 20:
            for kind in SHELL_KINDS:
                if not any(item.kind == kind for item in items):
                    spare = next(i for i in items[10:] if i.kind == "article")
                    spare.kind = kind
        link_shells = [item for item in items if item.kind == "shell-links"]
        if link_shells:
            candidates = [item for item in items[HOME_FANOUT:] if item.kind == "article"]
            count = min(len(candidates), max(1, round(self.size * 0.02)))
            for index, item in enumerate(rng.sample(candidates, count)):
                item.hidden = True
                link_shells[index % len(link_shells)].render_only.append(item.page_id)
        visible = [item for item in items if not item.hidden]
        # tree: home links the first pages; every later visible page hangs below the
        # first article (in placement order) that still has room for children
        queue: deque[list[int]] = deque(
            [item.page_id, TREE_FANOUT] for item in visible[:HOME_FANOUT]
            if item.kind == "article"
        )
        for item in visible[HOME_FANOUT:]:
            while queue and queue[0][1] == 0:
                queue.popleft()
            if queue:
                queue[0][1] -= 1
                items[queue[0][0]].children.append(item.page_id)
            if item.kind == "article":
                queue.append([item.page_id, TREE_FANOUT])
        visible_ids = [item.page_id for item in visible]
        position = {page_id: index for index, page_id in enumerate(visible_ids)}
        for item in items:
            # related links point back to older pages, so depth follows the tree
            limit = position.get(item.page_id, len(visible_ids))
            pick = _text.rng_for(self.seed, item.page_id, "related")
            chosen = pick.sample(range(limit), min(limit, RELATED))
            item.related = [visible_ids[index] for index in chosen]
        return items

    def _tree_orphans(self) -> list[int]:
        """Visible pages the tree could not place (no article had room yet): home links them."""
        placed = {child for item in self._items for child in item.children}
        visible = [item.page_id for item in self._items if not item.hidden]
        return [i for i in visible[HOME_FANOUT:] if i not in placed]

    def home_links(self) -> list[str]:
        items = self._items
        visible = [item for item in items if not item.hidden]
        first = [item.path for item in visible[:HOME_FANOUT]]
        first += [items[i].path for i in self._tree_orphans()]
        specials = [path for path, _, _ in SPECIAL_PATHS]
        return [*first, *specials, *CHARSET_PATHS, *CACHE_PATHS, "/private/open",
                "/redirect/to-article", "/redirect/chain"]

    def section_members(self, section: str) -> list[int]:
        members = [item.page_id for item in self._items
                   if item.section == section and not item.hidden]
        return members[:SECTION_LIST]

    def static_links(self, path: str) -> list[str]:
        """Same-site paths linked from the served HTML of ``path`` (redirects resolved)."""
        chrome = [f"/sections/{s}" for s in SECTIONS] + [p for p, _ in INFO_PAGES]
        chrome += ["/", "/private/"]
        page = self._by_path.get(path)
        kind = page.kind if page else None
        if kind == "home":
            return chrome + self.home_links() + ["/special/redirect-target"]
        if kind == "section":
            name = path.rsplit("/", 1)[1]
            return chrome + [self._items[i].path for i in self.section_members(name)]
        if kind == "article" and page is not None and page.page_id is not None:
            item = self._items[page.page_id]
            extra = [self._items[i].path for i in item.children + item.related]
            if page.page_id == self.first_article_id():
                extra.append("/special/wrong-locale")
            return chrome + extra
        if kind is not None and kind in SHELL_KINDS:
            return []
        if path == "/private/":
            return chrome + list(PRIVATE_PATHS[1:])
        if kind == "wrong-locale":
            return [*chrome, self._items[self.first_article_id()].path]
        if kind in ("lazy", "tabs", "live", "info", "soft-404", "redirect-target", "private",
                    "client-redirect"):
            return chrome
        return []

    def render_links_of(self, path: str) -> list[str]:
        page = self._by_path.get(path)
        if page is None or page.page_id is None or not page.is_shell:
            return []
        item = self._items[page.page_id]
        return [self._items[i].path for i in item.related + item.render_only]

    def first_article_id(self) -> int:
        return next((i.page_id for i in self._items if i.kind == "article" and not i.hidden),
                    0)

    def _build_pages(self) -> tuple[DemoPage, ...]:
        raw: list[DemoPage] = [DemoPage(path="/", kind="home", title="The Pressmark Gazette")]
        raw += [DemoPage(path=f"/sections/{s}", kind="section", title=s.capitalize())
                for s in SECTIONS]
        raw += [DemoPage(path=p, kind="info", title=t) for p, t in INFO_PAGES]
        for item in self._items:
            raw.append(DemoPage(path=item.path, kind=item.kind, title=item.title,
                                page_id=item.page_id, section=item.section))
        raw += [DemoPage(path=p, kind=k, title=t) for p, k, t in SPECIAL_PATHS]
        raw += [DemoPage(path="/redirect/n/0", kind="redirect-target", title="You have arrived"),
                DemoPage(path="/redirect/to-disallowed-target", kind="redirect-target",
                         title="You have arrived")]
        raw += [DemoPage(path=p, kind="charset", title=p.rsplit("/", 1)[1])
                for p in CHARSET_PATHS]
        raw += [DemoPage(path=p, kind="cache", title=p.rsplit("/", 1)[1]) for p in CACHE_PATHS]
        raw += [DemoPage(path=p, kind="private", title="Member area") for p in PRIVATE_PATHS]
        self._by_path = {page.path: page for page in raw}
        static = {page.path: _unique(self.static_links(page.path)) for page in raw}
        rendered = {page.path: _unique(self.render_links_of(page.path)) for page in raw}
        depth = _bfs(static)
        render_depth = _bfs({p: static[p] + rendered[p] for p in static})
        hidden = {self._items[i].path for i in range(self.size) if self._items[i].hidden}
        sitemap_excluded = {"/redirect/n/0", "/redirect/to-disallowed-target",
                            "/special/soft-404", *hidden}
        pages = []
        for page in raw:
            pages.append(DemoPage(
                path=page.path, kind=page.kind, title=page.title, page_id=page.page_id,
                section=page.section, depth=depth.get(page.path),
                render_depth=render_depth.get(page.path),
                in_sitemap=(page.path not in sitemap_excluded and page.kind != "private"),
                disallowed=is_disallowed(page.path),
                links=tuple(sorted(p for p in static[page.path] if p in static)),
                render_links=tuple(sorted(p for p in rendered[page.path]
                                          if p not in static[page.path])),
            ))
        return tuple(pages)

    @cached_property
    def item_by_path(self) -> dict[str, _Item]:
        return {item.path: item for item in self._items}

    def item(self, page_id: int) -> _Item:
        return self._items[page_id]


def _edited(response: Response, edits: tuple[tuple[str, str], ...]) -> Response:
    from pressmark.demo._pages import etag_of  # noqa: PLC0415 - render code on demand

    text = response.body.decode("utf-8")
    for old, new in edits:
        if old not in text:
            raise ValueError(f"demo edit: {old[:40]!r} is not in the page")
        text = text.replace(old, new)
    body = text.encode("utf-8")
    return dataclasses.replace(response, body=body, etag=etag_of(body)
                               if response.etag is not None else None)


def _unique(paths: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(paths))


def _bfs(graph: dict[str, list[str]]) -> dict[str, int]:
    depth = {"/": 0}
    queue = deque(["/"])
    while queue:
        path = queue.popleft()
        for target in graph.get(path, ()):
            if target in graph and target not in depth:
                depth[target] = depth[path] + 1
                queue.append(target)
    return depth
