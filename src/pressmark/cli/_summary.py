"""What ``pressmark crawl`` and ``pressmark demo`` print when a crawl ends.

A table of the figures, each said once (a robots.txt denial used to appear three times:
as an outcome, as an error kind and as its own row), then a few sentences on what a
newcomer would otherwise have to work out: why so many URLs were denied, why pages
failed validation, why JavaScript shells were not rendered, and what to type next.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.table import Table

    from pressmark.crawl import CrawlManifest

# The guide's page on validation reasons, named once so every hint points at one place.
GUIDE_VALIDATION = "docs/outputs.md"


def summary_table(manifest: CrawlManifest) -> Table:
    """The crawl's figures: pages by outcome (with the kinds behind each), then rates."""
    from rich.table import Table  # noqa: PLC0415  # loaded on first use

    s = manifest.summary
    table = Table(title="pressmark crawl", show_header=True, header_style="bold")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("pages", str(s["pages"]))
    kinds: dict[str, int] = dict(s.get("errors_by_kind", {}))
    for outcome, count in s["by_outcome"].items():
        table.add_row(f"  {outcome}", str(count))
        if outcome in ("denied", "error"):
            for kind in _kinds_of(outcome, kinds):
                table.add_row(f"    {kind}", str(kinds[kind]))
    rate = s.get("validation_pass_rate")
    readiness = s.get("mean_readiness_ms")
    rows: list[tuple[str, str]] = [
        ("rendered in a browser", f"{s['render_rate']:.1%}"),
        ("validation passed", "-" if rate is None else f"{rate:.1%}"),
        ("mean readiness", "-" if readiness is None else f"{readiness} ms"),
        ("bytes", f"{s['bytes']:,}"),
        ("duration", f"{s['duration_s']} s"),
        ("pages/s", str(s["pages_per_s"])),
        ("sitemap documents", str(manifest.sitemap.get("documents_read", 0))),
        ("sitemap URLs", str(manifest.sitemap.get("urls_discovered", 0))),
        ("complete", "yes" if manifest.complete else f"no ({manifest.stop_reason})"),
    ]
    for key, value in rows:
        table.add_row(key, value)
    return table


def _kinds_of(outcome: str, kinds: dict[str, int]) -> list[str]:
    denial = {"robots-denied", "egress-denied"}
    return sorted(k for k in kinds if (k in denial) == (outcome == "denied"))


def explanations(manifest: CrawlManifest, *, browser_problem: str | None = None,
                 robots_note: str | None = None) -> list[str]:
    """Sentences for the figures a newcomer would misread; empty when nothing needs one.

    ``browser_problem`` says why no browser ran (when the caller knows it); ``robots_note``
    is added after the robots.txt sentence (the demo explains its own robots.txt).
    """
    s: dict[str, Any] = manifest.summary
    lines: list[str] = []
    denied = int(s.get("robots_denied", 0))
    if denied:
        paths = sorted(s.get("robots_denied_paths", {}).items(), key=lambda kv: (-kv[1], kv[0]))
        where = ", ".join(f"{count} under {path}" for path, count in paths[:4])
        more = f" and {len(paths) - 4} more paths" if len(paths) > 4 else ""
        lines.append(f"{denied} URL(s) were not requested because the site's robots.txt "
                     f"disallows them ({where}{more}): the crawler obeying the site, not an "
                     f"error{'; ' + robots_note if robots_note else ''}.")
    refused = int(s.get("egress_denied", 0))
    if refused:
        lines.append(f"{refused} URL(s) were refused by the egress policy (internal "
                     "addresses, ports other than 80 and 443): see `error.message` in "
                     "pages.jsonl for each reason.")
    reasons = sorted(s.get("failure_reasons", {}).items(), key=lambda kv: (-kv[1], kv[0]))
    if reasons:
        failed = int(s.get("validation_failed", 0))
        top = ", ".join(f"{reason} {count}" for reason, count in reasons[:3])
        lines.append(f"Validation failed on {failed} page(s) (reasons: {top}): their "
                     "Markdown is written and flagged, not trusted; each reason is explained "
                     f"in {GUIDE_VALIDATION}.")
    fallbacks = int(s.get("render_fallbacks", 0))
    if fallbacks:
        why = browser_problem or "the render failed (see each page's warnings)"
        lines.append(f"{fallbacks} page(s) looked like JavaScript shells and were kept as "
                     f"fetched, unrendered: {why}.")
    return lines


def browser_problem() -> str | None:
    """Why a crawl asking for renders would get none on this machine, or ``None``.

    Checked without starting anything: the driver package imports, a Chromium is found.
    """
    import importlib.util  # noqa: PLC0415

    if importlib.util.find_spec("playwright") is None:
        return ("the browser driver is not installed (pip install 'pressmark[render]', "
                "or make demo)")
    from pressmark.render import RenderError, find_chromium  # noqa: PLC0415

    try:
        find_chromium()
    except RenderError as exc:
        return exc.message
    return None
