"""``PlaywrightRenderer``: the Chromium implementation of the ``Renderer`` seam.

Every request the browser makes goes through an egress proxy (ours, or one the
caller shares): Playwright starts Chromium with ``--proxy-server`` and
``--proxy-bypass-list=<-loopback>``, each tab answers only proxy challenges with the
proxy's per-instance secret (:mod:`pressmark.render._navigation`), and Chromium
resolves no host name itself. Inside the
page, cross-document navigations after the first (``location``, meta refresh, form
submission) are cancelled, except one same-origin client-side redirect, which is
followed once (through the proxy) and reported in ``final_url`` and a warning;
pop-ups are refused and closed, service workers and downloads are off. With
``RenderOptions.navigation_guard``, every top-level navigation request (redirect
hops included) is checked before it is sent. What the page shows is fixed by
:class:`PageState`; the in-page guard and capture scripts, and what a capture
means, are in :mod:`pressmark.render._document`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Playwright, Request, async_playwright
from playwright.async_api import TimeoutError as PlaywrightTimeout

from pressmark.egress import DENIAL_CODES, EgressDenied, EgressProxy, evaluate_url, parse_url
from pressmark.render._chromium import chromium_args, find_chromium
from pressmark.render._document import ALLOWED_SCHEMES, INIT_SCRIPT, capture_dom, read_capture
from pressmark.render._errors import (
    BROWSER_CRASHED,
    NAVIGATION_FAILED,
    NAVIGATION_REFUSED,
    PAGE_CRASHED,
    RENDER_TIMEOUT,
    RENDERER_CLOSED,
    RenderError,
)
from pressmark.render._lean import LEAN_SCRIPT, blocked_patterns, kept_page, reset_tab
from pressmark.render._navigation import NavigationWatch
from pressmark.render._options import PageState, PoolLimits
from pressmark.render._pool import BrowserPool, Lease
from pressmark.render._protocol import ReadinessReport, RenderOptions, RenderResult
from pressmark.render._readiness import wait_ready

if TYPE_CHECKING:
    from pressmark.egress import EgressPolicy, Resolver

DENIED_HEADER = "x-pressmark-denied"  # set by EgressProxy on the 403 it answers for a refusal


class ProxyEndpoint(Protocol):
    """What the renderer needs of a started egress proxy (``pressmark.egress.EgressProxy``)."""

    @property
    def server(self) -> str: ...
    @property
    def username(self) -> str: ...
    @property
    def password(self) -> str: ...


_NO_GATE: contextlib.nullcontext[None] = contextlib.nullcontext()


class _NetworkWatch:
    """Requests in flight for pattern (C); attached only when the spec asks for it."""

    def __init__(self, page: Page) -> None:
        self.inflight = 0
        self.last_change = time.monotonic()
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _started(self, _request: Request) -> None:
        self.inflight += 1
        self.last_change = time.monotonic()

    def detach(self, page: Page) -> None:
        page.remove_listener("request", self._started)
        page.remove_listener("requestfinished", self._ended)
        page.remove_listener("requestfailed", self._ended)

    def _ended(self, _request: Request) -> None:
        self.inflight = max(0, self.inflight - 1)
        self.last_change = time.monotonic()

    async def quiet(self, idle_ms: int, cap: float) -> bool:
        while True:
            now = time.monotonic()
            if self.inflight == 0 and now - self.last_change >= idle_ms / 1000.0:
                return True
            if now >= cap:
                return False
            await asyncio.sleep(min(0.05, cap - now))


def _host(url: str | None) -> str | None:
    """The host egress dials for ``url`` (one URL model), or ``None``."""
    try:
        return parse_url(url).host if url else None
    except EgressDenied:
        return None


def _close_popup(page: Page) -> None:
    task = asyncio.get_running_loop().create_task(page.close())
    task.add_done_callback(lambda t: t.cancelled() or t.exception())


class PlaywrightRenderer:
    """Render pages in one pooled Chromium, through the egress proxy.

    ``async with PlaywrightRenderer(policy=..., resolver=...) as renderer:`` starts an
    :class:`~pressmark.egress.EgressProxy` for that policy; pass ``proxy=`` to share a
    started one instead (the renderer then leaves it running).
    """

    def __init__(
        self,
        policy: EgressPolicy | None = None,
        resolver: Resolver | None = None,
        *,
        proxy: ProxyEndpoint | None = None,
        page_state: PageState | None = None,
        limits: PoolLimits | None = None,
        executable: str | None = None,
    ) -> None:
        self._policy = policy
        self._resolver = resolver
        self._proxy = proxy
        self._own_proxy: EgressProxy | None = None
        self._state = page_state or PageState()
        self._blocked = blocked_patterns(frozenset(self._state.block))
        self._limits = limits or PoolLimits.for_machine()
        self._executable = executable
        self._pw: Playwright | None = None
        self._pool: BrowserPool | None = None
        self._closed = False
        self.rendered = 0

    @property
    def page_state(self) -> PageState:
        """The browser state every page is rendered in (archives record it as metadata)."""
        return self._state

    @property
    def pool(self) -> BrowserPool:
        if self._pool is None:
            raise RenderError("the renderer is not started", code=RENDERER_CLOSED)
        return self._pool

    @property
    def proxy(self) -> ProxyEndpoint:
        if self._proxy is None:
            raise RenderError("the renderer is not started", code=RENDERER_CLOSED)
        return self._proxy

    async def __aenter__(self) -> PlaywrightRenderer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def start(self) -> None:
        """Find Chromium, start the proxy (unless shared) and the browser."""
        if self._closed:
            raise RenderError("the renderer is closed", code=RENDERER_CLOSED)
        if self._pool is not None:
            return
        executable = self._executable or find_chromium()
        try:
            if self._proxy is None:
                self._own_proxy = EgressProxy(self._policy, self._resolver,
                                              refuse_prefetch=True)
                await self._own_proxy.start()
                self._proxy = self._own_proxy
            proxy = self.proxy
            self._pw = await async_playwright().start()
            block = self._state.block
            self._pool = BrowserPool(
                self._pw,
                launch_kwargs={
                    "executable_path": executable,
                    "headless": True,
                    # No credentials here: each tab answers the proxy (_navigation).
                    "proxy": {"server": proxy.server, "bypass": "<-loopback>"},
                    # Keep Chromium's own pop-up blocker on.
                    "ignore_default_args": ["--disable-popup-blocking"],
                    "handle_sigint": False,
                    "handle_sigterm": False,
                    "handle_sighup": False,
                },
                args=chromium_args(
                    js_heap_mb=self._limits.js_heap_mb,
                    block_images="image" in block,
                    block_fonts="font" in block,
                ),
                limits=self._limits,
            )
            await self._pool.warm()
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        """Close the browser (no Chromium process is left), Playwright and our proxy."""
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()
        pw, self._pw = self._pw, None
        if pw is not None:
            with contextlib.suppress(Exception):
                await pw.stop()
        own, self._own_proxy = self._own_proxy, None
        if own is not None:
            with contextlib.suppress(Exception):
                await own.close()

    def _context_options(self, options: RenderOptions) -> dict[str, Any]:
        state = self._state
        return {
            "viewport": {"width": state.viewport_width, "height": state.viewport_height},
            "device_scale_factor": state.device_scale_factor,
            "locale": state.locale,
            "timezone_id": state.timezone,
            "color_scheme": state.color_scheme,
            "reduced_motion": "reduce" if state.reduced_motion else "no-preference",
            "user_agent": options.user_agent or state.user_agent,
            "service_workers": "block",
            "accept_downloads": False,
            "java_script_enabled": True,
        }

    async def _precheck(self, url: str) -> None:
        """Refuse a denied first hop with the egress layer's own error, before any browser work."""
        if self._policy is None and self._own_proxy is None:
            return  # a shared proxy enforces its own policy
        await evaluate_url(url, policy=self._policy, resolver=self._resolver)

    def _denials(self) -> list[Any]:
        return list(getattr(self._proxy, "denied", []))

    def _raise_denied(self, url: str | None, code: str | None, since: int = 0) -> None:
        """The proxy refused the page itself (a redirect hop, usually): say so as egress does.

        A refused CONNECT reaches the browser only as a failed tunnel, so the code and
        host come from what the proxy recorded since this navigation began."""
        host = _host(url)
        if code is None:
            for denial in reversed(self._denials()[since:]):
                found = str(getattr(denial, "code", ""))
                if found in DENIAL_CODES and getattr(denial, "method", "") == "CONNECT":
                    code, host, url = found, getattr(denial, "host", None), None
                    break
            else:
                return
        if code not in DENIAL_CODES:
            code = "DENIED_HOST"
        raise EgressDenied(code, host, f"the egress proxy refused {url or host}", url=url)

    async def render(self, url: str, options: RenderOptions | None = None) -> RenderResult:
        """Render ``url``; raises :class:`RenderError` only when nothing usable was loaded,
        and :class:`~pressmark.egress.EgressDenied` when the policy refuses the page."""
        options = options or RenderOptions()
        if self._closed:
            raise RenderError("the renderer is closed", code=RENDERER_CLOSED, url=url)
        scheme = urlsplit(url).scheme.lower()
        if scheme not in ALLOWED_SCHEMES:
            raise RenderError(
                f"refusing to render a {scheme or 'relative'}: URL",
                code=NAVIGATION_REFUSED,
                url=url,
            )
        await self._precheck(url)
        queued = time.monotonic()
        pool = self.pool
        try:
            async with pool.lease(self._context_options(options), reset=self._reset) as lease:
                try:
                    # A backstop for calls that have no timeout of their own (a hung
                    # browser answers nothing); the steps inside keep the real deadline.
                    async with asyncio.timeout(options.timeout_ms / 1000.0 + 1.0):
                        return await self._render_in(lease, url, options, queued)
                except TimeoutError as exc:
                    raise RenderError(
                        f"the browser did not answer within {options.timeout_ms} ms",
                        code=BROWSER_CRASHED if lease.browser_dead else RENDER_TIMEOUT,
                        url=url,
                    ) from exc
        except RenderError as exc:
            exc.url = exc.url or url
            raise
        finally:
            self.rendered += 1

    @staticmethod
    async def _reset(lease: Lease) -> None:
        """Between two pages of a reused tab: see :func:`pressmark.render._lean.reset_tab`."""
        page = kept_page(lease.kept)
        if page is None:
            raise RenderError("the tab is gone", code=PAGE_CRASHED)
        await reset_tab(lease.context, page, lease.kept["session"])

    async def _render_in(
        self, lease: Lease, url: str, options: RenderOptions, queued: float
    ) -> RenderResult:
        started = time.monotonic()
        timings: dict[str, float] = {"queue_ms": round((started - queued) * 1000, 1)}
        budget = options.timeout_ms / 1000.0
        deadline = started + budget
        reserve = min(1.0, budget * 0.1)  # kept back to capture the DOM
        ready_deadline = deadline - reserve
        spec = options.readiness
        state = self._state
        context = lease.context
        kept = lease.kept
        kept["crashed"] = False

        def fail(exc: BaseException, during: str) -> RenderError:
            crashed = bool(kept.get("crashed"))
            if lease.browser_dead:
                return RenderError(
                    f"the browser died while {during}", code=BROWSER_CRASHED, url=url
                )
            if crashed or "crash" in str(exc).lower():
                return RenderError(
                    f"the page crashed while {during} (out of memory?)", code=PAGE_CRASHED, url=url
                )
            return RenderError(f"{during} failed: {exc}", code=NAVIGATION_FAILED, url=url)

        try:
            page = kept_page(kept)
            if page is None:  # a new context: its tab is set up once, then reused
                await context.add_init_script(INIT_SCRIPT + LEAN_SCRIPT)
                page = await context.new_page()
                page.on("crash", lambda _page: kept.__setitem__("crashed", True))
                context.on("page", _close_popup)
                kept["session"] = session = await context.new_cdp_session(page)
                proxy = self.proxy
                kept["nav"] = await NavigationWatch.attach(
                    session, (proxy.username, proxy.password), self._blocked)
                kept["page"] = page
            host = _host(url) or ""
            cookies = state.consent.cookies.get(host)
            if cookies:
                await context.add_cookies(
                    [
                        {"name": k, "value": v, "domain": host, "path": "/"}
                        for k, v in sorted(cookies.items())
                    ]
                )
            documents: NavigationWatch = kept["nav"]
            documents.rearm(options.navigation_guard)
            nav = documents if options.navigation_guard is not None else None
        except PlaywrightError as exc:
            raise fail(exc, "opening the page") from exc
        timings["setup_ms"] = round((time.monotonic() - started) * 1000, 1)
        watch = _NetworkWatch(page) if spec.network_idle_ms is not None else None
        try:
            result = await self._navigate_and_capture(
                page, url, options, timings=timings,
                clock=(started, deadline, ready_deadline, reserve), fail=fail, watch=watch,
                nav=nav,
            )
        finally:
            if watch is not None:
                watch.detach(page)
        # A page that merely was not ready leaves a usable tab; one whose main thread
        # stopped answering does not (the reset would wait on it).
        readiness = result.readiness
        lease.reusable = readiness is not None and "did not answer" not in readiness.reason
        return result

    async def _navigate_and_capture(
        self,
        page: Page,
        url: str,
        options: RenderOptions,
        *,
        timings: dict[str, float],
        clock: tuple[float, float, float, float],
        fail: Callable[[BaseException, str], RenderError],
        watch: _NetworkWatch | None,
        nav: NavigationWatch | None,
    ) -> RenderResult:
        """Navigate, wait for readiness, serialise; ``clock`` is (started, deadline,
        readiness deadline, reserve kept for the capture), all monotonic seconds."""
        started, deadline, ready_deadline, reserve = clock
        spec = options.readiness
        state = self._state

        warnings: list[str] = []
        status: int | None = None
        denials_before = len(self._denials())
        try:
            gate = options.navigation_slot() if options.navigation_slot else _NO_GATE
            async with gate:
                nav_ms = max(1.0, (ready_deadline - time.monotonic()) * 1000)
                response = await page.goto(url, wait_until="commit", timeout=nav_ms)
        except PlaywrightError as exc:
            if nav is not None:
                nav.raise_if_denied(url)
            if isinstance(exc, PlaywrightTimeout):
                raise RenderError(
                    f"nothing loaded within {options.timeout_ms} ms", code=RENDER_TIMEOUT, url=url
                ) from exc
            if "ERR_TUNNEL_CONNECTION_FAILED" in str(exc):
                self._raise_denied(None, None, denials_before)
            raise fail(exc, "navigating") from exc
        if response is not None:
            status = response.status
            denial = response.headers.get(DENIED_HEADER)
            if denial is not None:
                self._raise_denied(response.url, denial)
        timings["navigate_ms"] = round((time.monotonic() - started) * 1000, 1)

        content_type = (response.headers.get("content-type", "") if response else "").lower()
        skip = None
        if status is not None and status >= 400:
            skip = f"not-attempted: HTTP status {status}"
        elif content_type and "html" not in content_type:
            skip = f"not-attempted: content type {content_type.split(';')[0].strip()}"
        if skip is not None:
            # An error page or a JSON/PDF body will never show an article: capture it now
            # instead of waiting out the deadline.
            report = ReadinessReport(
                passed=False, reason=skip, elapsed_ms=round((time.monotonic() - started) * 1000, 1)
            )
        else:
            try:
                ready = wait_ready(
                    page,
                    spec,
                    started=started,
                    deadline=ready_deadline,
                    grace=reserve / 2,
                    network_quiet=watch.quiet if watch is not None else None,
                )
                report, ready_warnings = await (
                    ready if nav is None else nav.until_denied(ready, url))
            except PlaywrightError as exc:
                raise fail(exc, "waiting for readiness") from exc
            warnings.extend(ready_warnings)
        timings["readiness_ms"] = round((time.monotonic() - started) * 1000, 1)
        if not report.passed:
            warnings.append(f"readiness not reached: {report.reason}")

        max_units = options.max_html_bytes or 0
        try:
            capture = capture_dom(page, state.consent.remove_selectors, max_units, deadline)
            captured = await (capture if nav is None else nav.until_denied(capture, url))
        except TimeoutError as exc:
            raise RenderError(
                f"the page did not answer within {options.timeout_ms} ms ({report.reason})",
                code=RENDER_TIMEOUT,
                url=url,
            ) from exc
        except PlaywrightError as exc:
            raise fail(exc, "capturing the DOM") from exc
        timings["capture_ms"] = round((time.monotonic() - started) * 1000, 1)

        document = read_capture(
            captured,
            url=url,
            page_url=page.url,
            response_url=response.url if response is not None else None,
            response_status=status,
            max_units=max_units,
        )
        warnings.extend(document.warnings)
        if nav is not None:
            nav.raise_if_denied(url)
        if time.monotonic() > deadline:
            warnings.append(f"render took longer than timeout_ms={options.timeout_ms}")
        timings["total_ms"] = round((time.monotonic() - started) * 1000, 1)
        return RenderResult(
            html=document.html,
            final_url=document.final_url,
            status=document.status,
            warnings=tuple(warnings),
            readiness=report,
            timings=timings,
        )


