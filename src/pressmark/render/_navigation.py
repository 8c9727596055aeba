"""Documents paused before they are sent: the egress proxy's secret, and robots.txt on every hop.

Playwright's request routing sees only the first URL of a redirect chain, so the
check runs one level lower: the tab's CDP session pauses every request for a
*document* (``Fetch.enable`` with ``resourceType: Document``; subresources are never
paused, so they cost nothing) and, for the main frame, asks the
:class:`~pressmark.render._protocol.NavigationGuard` (when the render has one) before
it continues. That covers the first navigation, every server redirect hop Chromium
follows through the egress proxy, and client-side redirects (``location``, meta
refresh). A refused request is failed with ``BlockedByClient``, so the server never
sees it, and the render ends with ``RenderError(code="robots-denied")``. Frames
(documents of other frames) continue unasked, like subresources: browsers do not
apply robots.txt to them.

The same Fetch domain refuses what a lean page load skips
(:func:`pressmark.render._lean.blocked_patterns`): such requests are paused too, and
failed with ``BlockedByClient`` before anything is sent.

The same pause answers the proxy's challenge (407) with its per-instance secret:
the context keeps the answer and sends it with every later request, subresources
included. Handing the secret to Playwright instead would make its driver pause
*every* request of the page and turn the browser's HTTP cache off. Other
challenges (a server's 401) are cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

from pressmark.render._errors import ROBOTS_DENIED, RenderError

if TYPE_CHECKING:
    from playwright.async_api import CDPSession

    from pressmark.render._lean import BlockList
    from pressmark.render._protocol import NavigationGuard

_T = TypeVar("_T")
_PATTERNS = [{"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}]


class NavigationWatch:
    """One tab's document check. ``denied`` is the first URL refused since ``rearm``."""

    def __init__(self, session: CDPSession, main_frame: str, credentials: tuple[str, str]) -> None:
        self._session = session
        self._guard: NavigationGuard | None = None
        self._main_frame = main_frame
        self._credentials = credentials
        self._tasks: set[asyncio.Task[None]] = set()
        self.denied: str | None = None
        self.checked = 0
        self.refused = 0  # requests the block list refused, over the tab's life
        self._blocked: BlockList | None = None
        self._denied_event = asyncio.Event()

    def rearm(self, guard: NavigationGuard | None) -> None:
        """Check the next page of the tab with ``guard`` (``None``: every document goes)."""
        self._guard = guard
        self.denied = None
        self.checked = 0
        self._denied_event = asyncio.Event()

    @classmethod
    async def attach(cls, session: CDPSession, credentials: tuple[str, str],
                     blocked: BlockList | None = None) -> NavigationWatch:
        """Pause the documents of ``session``'s page; ``credentials`` answer the proxy.
        With ``blocked``, the requests it names are paused too, and refused."""
        tree = await session.send("Page.getFrameTree")
        watch = cls(session, str(tree["frameTree"]["frame"]["id"]), credentials)
        watch._blocked = blocked
        session.on("Fetch.requestPaused", watch._on_paused)
        session.on("Fetch.authRequired", watch._on_challenge)
        patterns = [*_PATTERNS, *(blocked.patterns if blocked is not None else ())]
        await session.send("Fetch.enable", {"patterns": patterns, "handleAuthRequests": True})
        return watch

    def _spawn(self, step: Awaitable[None]) -> None:
        task = asyncio.ensure_future(step)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_paused(self, event: dict[str, Any]) -> None:
        blocked = self._blocked
        if blocked is not None and blocked.refuses(
                str(event.get("resourceType", "")), str(event.get("request", {}).get("url", ""))):
            self.refused += 1
            self._spawn(self._send("Fetch.failRequest", {
                "requestId": event["requestId"], "errorReason": "BlockedByClient"}))
            return
        self._spawn(self._decide(event))

    def _on_challenge(self, event: dict[str, Any]) -> None:
        if event.get("authChallenge", {}).get("source") == "Proxy":
            username, password = self._credentials
            answer = {"response": "ProvideCredentials", "username": username, "password": password}
        else:
            answer = {"response": "CancelAuth"}
        self._spawn(self._send("Fetch.continueWithAuth", {
            "requestId": event["requestId"], "authChallengeResponse": answer}))

    async def _send(self, method: str, params: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):  # the page may be gone meanwhile
            await self._session.send(method, params)

    async def _decide(self, event: dict[str, Any]) -> None:
        request_id = event["requestId"]
        url = str(event.get("request", {}).get("url", ""))
        allowed = True
        guard = self._guard
        if guard is not None and event.get("frameId") == self._main_frame and url.startswith(
                ("http:", "https:")):
            self.checked += 1
            try:
                allowed = self.denied is None and await guard.allows(url)
            except Exception:  # a guard that cannot decide refuses (robots: fail closed)
                allowed = False
        if allowed:
            await self._send("Fetch.continueRequest", {"requestId": request_id})
            return
        if self.denied is None:
            self.denied = url
        self._denied_event.set()
        await self._send("Fetch.failRequest",
                         {"requestId": request_id, "errorReason": "BlockedByClient"})

    def raise_if_denied(self, url: str) -> None:
        if self.denied is not None:
            raise RenderError(f"robots.txt disallows the navigation to {self.denied[:200]}",
                              code=ROBOTS_DENIED, url=self.denied or url)

    async def until_denied(self, step: Awaitable[_T], url: str) -> _T:
        """Run ``step``, ending it early (with the robots-denied error) if a navigation is
        refused meanwhile: the page then shows Chromium's error document, not the page."""
        task = asyncio.ensure_future(step)
        waiter = asyncio.ensure_future(self._denied_event.wait())
        try:
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            task.cancel()
            raise
        finally:
            waiter.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        elif not task.cancelled():
            task.exception()  # retrieved: a denial explains any failure of the step
        self.raise_if_denied(url)
        return task.result()

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
