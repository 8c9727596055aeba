"""A renderer that needs no browser, for tests of the fetch layer's render policy.

:class:`FakeRenderer` satisfies :class:`pressmark.render.Renderer`. It answers
with fixed HTML (or per-URL HTML), a chosen status and final URL, can raise or
be slow, and records every call so tests can assert "rendered exactly once" or
"never rendered".
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pressmark.render import ReadinessReport, RenderOptions, RenderResult

DEFAULT_RENDERED_HTML = (
    "<!doctype html><html><head><title>Rendered</title></head><body><main>"
    "<h1>Rendered page</h1><p>This content was produced by the fake renderer, standing in for "
    "a browser that ran the page's scripts and waited for the main content to appear.</p>"
    "</main></body></html>"
)


@dataclass(frozen=True, slots=True)
class RenderCall:
    url: str
    options: RenderOptions


class FakeRenderer:
    """Configurable stand-in for a browser renderer.

    * ``html``: the HTML returned, or ``pages`` maps URL -> HTML (``html`` for others);
      ``html_for`` (a callable) overrides both;
    * ``status`` / ``final_url`` / ``warnings``: copied into the result (``None`` stays None);
    * ``error``: an exception instance raised on every call (after ``delay_s``);
    * ``delay_s``: seconds to sleep before answering (a slow renderer).
    """

    def __init__(self, html: str = DEFAULT_RENDERED_HTML, *, status: int | None = 200,
                 final_url: str | None = None, warnings: tuple[str, ...] = (),
                 error: BaseException | None = None, delay_s: float = 0.0,
                 pages: Mapping[str, str] | None = None,
                 html_for: Callable[[str], str] | None = None,
                 readiness: ReadinessReport | None = None) -> None:
        self.html = html
        self.status = status
        self.final_url = final_url
        self.warnings = warnings
        self.error = error
        self.delay_s = delay_s
        self.pages = dict(pages or {})
        self.html_for = html_for
        self.readiness = readiness
        self.calls: list[RenderCall] = []

    @classmethod
    def failing(cls, error: BaseException | None = None) -> FakeRenderer:
        return cls(error=error or RuntimeError("fake renderer failure"))

    @property
    def call_count(self) -> int:
        return len(self.calls)

    @property
    def urls(self) -> list[str]:
        return [call.url for call in self.calls]

    async def render(self, url: str, options: RenderOptions) -> RenderResult:
        self.calls.append(RenderCall(url, options))
        if self.delay_s > 0:
            await asyncio.sleep(self.delay_s)
        if self.error is not None:
            raise self.error
        html = self.html_for(url) if self.html_for is not None else self.pages.get(url, self.html)
        readiness = self.readiness or ReadinessReport(passed=True, reason="fake",
                                                      elapsed_ms=self.delay_s * 1000.0)
        return RenderResult(html=html, final_url=self.final_url, status=self.status,
                            warnings=self.warnings, readiness=readiness,
                            timings={"render_ms": self.delay_s * 1000.0})
