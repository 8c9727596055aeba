"""The readiness engine's control flow, against a scripted page (no browser)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from pressmark.render import ReadinessSpec
from pressmark.render._readiness import wait_ready


class ScriptedPage:
    """Answers each evaluate() with the next scripted item (an exception is raised)."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.phases: list[str] = []

    async def evaluate(self, expression: str, arg: Any = None) -> Any:
        self.phases.append(arg[0])
        answer = self.answers.pop(0)
        if answer == "hang":
            await asyncio.sleep(3600)
        if isinstance(answer, BaseException):
            raise answer
        return answer


def _deadline(seconds: float = 5.0) -> tuple[float, float]:
    now = time.monotonic()
    return now, now + seconds


async def test_default_is_selector_then_stability() -> None:
    page = ScriptedPage(
        {"ok": True, "samples": 3, "sel": "main", "len": 400, "heading": True},
        {"ok": True, "samples": 6, "changes": 0},
    )
    started, deadline = _deadline()
    report, warnings = await wait_ready(page, ReadinessSpec(), started=started, deadline=deadline)
    assert page.phases == ["main", "stable"]
    assert (report.passed, report.reason, report.samples) == (True, "main-selector+stable", 9)
    assert warnings == []


async def test_navigation_mid_probe_is_probed_again() -> None:
    page = ScriptedPage(
        RuntimeError("Execution context was destroyed, most likely because of a navigation"),
        {"ok": True, "samples": 1, "sel": "article", "len": 300, "heading": True},
        {"ok": True, "samples": 5, "changes": 1},
    )
    started, deadline = _deadline()
    report, _ = await wait_ready(page, ReadinessSpec(), started=started, deadline=deadline)
    assert page.phases == ["main", "main", "stable"]
    assert report.passed


async def test_unresponsive_page_is_cut_off_at_the_deadline() -> None:
    page = ScriptedPage({"ok": True, "samples": 1, "sel": "main", "len": 999}, "hang")
    started, deadline = _deadline(0.3)
    report, _ = await wait_ready(
        page, ReadinessSpec(), started=started, deadline=deadline, grace=0.1
    )
    assert time.monotonic() - started < 0.3 + 0.1 + 5.0  # deadline + grace; the page never answers
    assert not report.passed
    assert report.reason == "stable-failed: the page did not answer (main thread busy?)"


async def test_failure_reasons() -> None:
    started, deadline = _deadline()
    missing = ScriptedPage({"ok": False, "samples": 4, "sel": None, "len": 0})
    report, _ = await wait_ready(missing, ReadinessSpec(), started=started, deadline=deadline)
    assert report.reason == "main-selector-failed: none of main, article, [role=main] found"

    heading = ScriptedPage({"ok": False, "samples": 4, "sel": "main", "len": 900, "heading": False})
    spec = ReadinessSpec(required_heading="^Overview$")
    report, _ = await wait_ready(heading, spec, started=started, deadline=deadline)
    assert report.reason == "heading-failed: no heading matches '^Overview$'"

    scroll = ScriptedPage(
        {"ok": True, "samples": 1, "sel": "main", "len": 900, "heading": True},
        {"ok": False, "samples": 9, "scrolls": 40, "capped": True},
    )
    spec = ReadinessSpec(scroll=True)
    report, _ = await wait_ready(scroll, spec, started=started, deadline=deadline)
    assert report.reason == "scroll-failed: still growing after 40 scrolls"
    assert report.scrolls == 40


async def test_network_idle_cap_is_a_warning_not_a_failure() -> None:
    page = ScriptedPage({"ok": True, "samples": 1, "sel": "main", "len": 900, "heading": True})

    async def never_quiet(idle_ms: int, cap: float) -> bool:
        return False

    spec = ReadinessSpec(network_idle_ms=300, stability_window_ms=0)
    started, deadline = _deadline()
    report, warnings = await wait_ready(
        page, spec, started=started, deadline=deadline, network_quiet=never_quiet
    )
    assert report.passed
    assert report.reason == "main-selector"
    assert warnings == [
        "readiness: network not idle for 300 ms within 3000 ms; continuing"
    ]


async def test_heading_is_case_insensitive_with_flag() -> None:
    from pressmark.render._readiness import _settings

    settings = _settings(ReadinessSpec(required_heading="(?i)^intro"))
    assert (settings["heading"], settings["headingFlags"]) == ("^intro", "i")


async def test_fallback_body_reasons() -> None:
    started, deadline = _deadline()
    page = ScriptedPage(
        {"ok": True, "samples": 12, "sel": "body", "len": 900, "heading": True, "fallback": True},
        {"ok": True, "samples": 6, "changes": 0},
    )
    report, _ = await wait_ready(page, ReadinessSpec(), started=started, deadline=deadline)
    assert (report.passed, report.reason) == (True, "fallback-body+stable")

    short = ScriptedPage({"ok": False, "samples": 4, "sel": "body", "len": 40, "fallback": True})
    report, _ = await wait_ready(short, ReadinessSpec(), started=started, deadline=deadline)
    assert report.reason == (
        "fallback-body-failed: none of main, article, [role=main] found, body text 40 < 200 chars"
    )


def test_fallback_settings_reach_the_page() -> None:
    from pressmark.render._readiness import _settings

    assert _settings(ReadinessSpec())["fallbackAfter"] == 1000
    assert "nav" in _settings(ReadinessSpec())["boilerplate"]
    assert _settings(ReadinessSpec(fallback_after_ms=None))["fallbackAfter"] is None


async def test_main_that_appears_after_the_fallback_is_named() -> None:
    started, deadline = _deadline()
    page = ScriptedPage(
        {"ok": True, "samples": 11, "sel": "body", "len": 300, "heading": True, "fallback": True},
        {"ok": True, "samples": 9, "changes": 1, "root": "main"},
    )
    report, _ = await wait_ready(page, ReadinessSpec(), started=started, deadline=deadline)
    assert report.reason == "main-selector+stable"
