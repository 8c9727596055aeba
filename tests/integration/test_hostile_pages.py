"""One hostile page never stalls a crawl: real loopback server, real CLI process.

The site holds a 100k-deep page, a 300k-attribute page, a 10 MB one-line page, the third
red team's pages (adjacent code spans of growing backtick runs, a 99,000-option select,
100,000 merged <body> attributes, misnested links that nest blocks, nesting and a long
<base> that multiply the Markdown) and 50 ordinary pages. Times are taken around the
process, never slept.
"""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

PRESSMARK = str(Path(sys.executable).with_name("pressmark"))
HOSTILE = ("deep.html", "attrs.html", "big.html")
ROUND_THREE = ("backticks.html", "select.html", "merged.html", "adoption.html", "quotes.html",
               "base.html")
PROSE = "<p>This is a sentence of real prose, long enough to count as content here.</p>"


def _write_site(root: Path, normal: int = 50) -> None:
    for i in range(normal):
        links = "".join(f'<li><a href="/p{(i * 7 + k) % normal}.html">next {k}</a></li>'
                        for k in range(1, 4))
        body = "<p>An ordinary paragraph of text on an ordinary page.</p>" * 5
        (root / f"p{i}.html").write_text(
            f"<!doctype html><title>Page {i}</title><main><h1>Page {i}</h1>{body}"
            f"<ul>{links}</ul></main>")
    (root / "deep.html").write_text("<!doctype html><title>deep</title>" + "<div>" * 100_000)
    (root / "attrs.html").write_text("<!doctype html><title>attrs</title><div "
                                     + " ".join(f"a{i}" for i in range(300_000)) + ">x</div>")
    (root / "big.html").write_text("<!doctype html><title>big</title><p>" + "word " * 2_000_000)
    _write_round_three(root)
    index = "".join(f'<a href="/{name}">{name}</a> ' for name in (*HOSTILE, *ROUND_THREE))
    index += "".join(f'<a href="/p{i}.html">p{i}</a> ' for i in range(normal))
    (root / "index.html").write_text(f"<!doctype html><title>home</title><main>{index}</main>")
    (root / "robots.txt").write_text("User-agent: *\nAllow: /\n")
    # A JavaScript shell: crawling it starts Chromium (render on-shell).
    (root / "shell.html").write_text(
        '<!doctype html><title>app</title><div id="root"></div><script src="/app.js"></script>')
    (root / "app.js").write_text(
        "document.getElementById('root').innerHTML = '<main><h1>Rendered</h1><p>' + "
        "'Rendered text. '.repeat(40) + '</p></main>';")
    (root / "with-shell.html").write_text(
        '<!doctype html><title>with a shell</title><main><a href="/shell.html">app</a> '
        + "".join(f'<a href="/p{i}.html">p{i}</a> ' for i in range(normal)) + "</main>")


def _write_round_three(root: Path) -> None:
    head = "<!doctype html><title>hostile</title>"
    (root / "backticks.html").write_text(head + "<main><p>" + "".join(
        "<code>" + "`" * n + "</code>" for n in range(1, 1990)))
    (root / "select.html").write_text(head + "<main><p>x</p><select>" + "<option>x" * 99_000)
    (root / "merged.html").write_text(head + "".join(f"<body a{i}=1>" for i in range(100_000)))
    (root / "adoption.html").write_text(head + "<a href=x><div>x</a>" * 90_000)
    (root / "quotes.html").write_text(head + "<article>" + ("<blockquote>" + PROSE) * 150
                                      + "<p>Real prose, a sentence.</p>" * 55_000)
    base = "https://example.test/" + "a" * 7_000 + "/"
    (root / "base.html").write_text(f'<!doctype html><base href="{base}"><title>base</title>'
                                    f"<main>{PROSE}<p>" + '<a href="x">y</a> ' * 20_000)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # stdlib name
        del format, args


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("hostile")
    _write_site(root)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _crawl_cmd(origin: str, out: Path, *extra: str, seed: str = "/") -> list[str]:
    return [PRESSMARK, "crawl", origin + seed, "--out", str(out), "--allow-loopback", origin,
            "--max-pages", "200", "-q", *extra]


def _rows(out: Path) -> list[dict[str, object]]:
    lines = (out / "pages.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _is_chromium(pid: int) -> bool:
    try:
        return b"chrom" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _live() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, session id) of every live (non-zombie) process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            found[int(entry.name)] = (int(fields[1]), int(fields[3]))
    return found


def _session_processes(sid: int) -> list[int]:
    """Live processes of session ``sid`` (the crawl and what it started in its session)."""
    return [pid for pid, (_, session) in _live().items() if session == sid]


def _descendants(root: int) -> set[int]:
    """Live descendants of ``root``; Chromium runs in a session of its own, so look here."""
    live = _live()
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, (ppid, _) in live.items() if ppid in frontier} - found
        found |= frontier
    return found


@pytest.mark.parametrize("markdown", [True, False], ids=["markdown", "no-markdown"])
def test_hostile_pages_are_typed_and_normal_pages_are_ok(hostile_site: str, tmp_path: Path,
                                                         markdown: bool) -> None:
    """The whole site, with no budget to stop it early: however slowly a loaded machine
    runs it, every normal page is ok and every hostile one capped or a typed error (a
    page that stalled the crawl would hold it past the process timeout)."""
    out = tmp_path / "out"
    extra = () if markdown else ("--no-markdown",)
    proc = subprocess.run(_crawl_cmd(hostile_site, out, *extra),
                          capture_output=True, timeout=240, check=False)
    assert proc.returncode in (0, 5), proc.stderr.decode()[-2000:]
    assert json.loads((out / "manifest.json").read_text())["stop_reason"] is None
    rows = _rows(out)
    normal = [r for r in rows if str(r["url"]).rsplit("/", 1)[-1].startswith("p")]
    assert len(normal) == 50
    assert all(r["outcome"] == "ok" for r in normal)
    by_name = {str(r["url"]).rsplit("/", 1)[-1]: r for r in rows}
    for name in ROUND_THREE:  # each recorded, converted or a typed error of its own
        error = by_name[name].get("error") or {}
        assert error.get("kind") in (None, "parse-timeout", "parse-crashed",  # type: ignore[attr-defined]
                                     "parse-out-of-memory"), by_name[name]
    if markdown:
        for name, code in (("select.html", "parse-limit:select"),
                           ("quotes.html", "conversion-limit:markdown"),
                           ("base.html", "conversion-limit:links")):
            assert code in by_name[name]["warnings"], by_name[name]  # type: ignore[operator]
    for name in HOSTILE:  # typed: capped with a warning, or a typed error
        row = by_name[name]
        warnings = [str(w) for w in row.get("warnings") or []]  # type: ignore[attr-defined]
        error = row.get("error") or {}
        assert any(w.startswith("parse-limit:") for w in warnings) or \
            error.get("kind") in ("parse-timeout", "parse-crashed"), row  # type: ignore[attr-defined]


def test_time_budget_stops_the_crawl_among_hostile_pages(hostile_site: str,
                                                         tmp_path: Path) -> None:
    """A 2 s budget on a crawl that takes longer by construction (200 ms between requests,
    60-odd pages; the hostile ones first): it stops on the budget with hostile pages in
    work. The bound on the crawl's own clock only catches a stall (a page holding the
    stop for minutes); the start-up of the process is not on that clock."""
    out = tmp_path / "out"
    proc = subprocess.run(_crawl_cmd(hostile_site, out, "--time-budget", "2", "--delay-ms",
                                     "200"),
                          capture_output=True, timeout=240, check=False)
    assert proc.returncode in (0, 5), proc.stderr.decode()[-2000:]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["stop_reason"] == "time-budget", manifest
    assert manifest["summary"]["duration_s"] < 2 + 30, manifest["summary"]
    rows = _rows(out)
    assert rows and len(rows) == manifest["summary"]["pages"]
    for row in rows:  # each page it finished is ok, capped or typed
        error = row.get("error") or {}
        assert row["outcome"] == "ok" or error.get("kind") in (  # type: ignore[attr-defined]
            "parse-timeout", "parse-crashed", "parse-out-of-memory"), row


def test_sigterm_stops_the_crawl_and_leaves_no_process(hostile_site: str,
                                                       tmp_path: Path) -> None:
    out = tmp_path / "out"
    cmd = _crawl_cmd(hostile_site, out, "--delay-ms", "200", seed="/with-shell.html")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    pages = out / "pages.jsonl"
    deadline = time.monotonic() + 90
    recorded = False
    browsers: set[int] = set()
    while time.monotonic() < deadline and not (recorded and browsers):
        # wait for the events "a page was recorded" and "Chromium is running"
        recorded = pages.exists() and pages.stat().st_size > 0
        browsers = {pid for pid in _descendants(proc.pid) if _is_chromium(pid)}
        time.sleep(0.05)
    if not (recorded and browsers):
        proc.kill()
        proc.communicate()
        pytest.fail(f"within 90 s: page recorded {recorded}, Chromium started {browsers}")
    started = _descendants(proc.pid)
    signalled = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    stopped = time.monotonic() - signalled
    assert stopped < 8.0, err.decode()[-2000:]
    gone_by = time.monotonic() + 3.0  # SIGKILLed workers take a moment to be reaped
    def leftovers() -> set[int]:
        return (set(_session_processes(proc.pid)) | started) & set(_live())

    while leftovers() and time.monotonic() < gone_by:
        time.sleep(0.05)
    left = [Path(f"/proc/{pid}/cmdline").read_bytes()[:200] for pid in leftovers()]
    assert left == []  # no parser worker, no browser left
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["stop_reason"] == "interrupted"
    rows = _rows(out)
    assert len(rows) == manifest["summary"]["pages"]  # every finished page reached the file
    resumed = subprocess.run([*cmd, "--resume"],
                             capture_output=True, timeout=120, check=False)
    assert resumed.returncode in (0, 5), resumed.stderr.decode()[-2000:]
    after = _rows(out)
    assert len(after) > len(rows)
    assert len({r["url"] for r in after}) == len(after)  # resume fetched nothing twice



def test_inline_parsing_is_bounded_too(hostile_site: str, tmp_path: Path) -> None:
    """``--workers 0`` parses on the event loop: the pre-scan's caps still hold. Bounded on
    the crawl's CPU time (its own and its children's), which a loaded machine does not
    stretch as it does wall time: an uncapped hostile page costs minutes of CPU."""
    out = tmp_path / "out"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(_crawl_cmd(hostile_site, out, "--workers", "0", "--no-markdown"),
                          capture_output=True, timeout=180, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    rows = {str(r["url"]).rsplit("/", 1)[-1]: r for r in _rows(out)}
    assert all(rows[f"p{i}.html"]["outcome"] == "ok" for i in range(50))
    assert "parse-limit:depth" in rows["deep.html"]["warnings"]  # type: ignore[operator]
    assert "parse-limit:attributes" in rows["attrs.html"]["warnings"]  # type: ignore[operator]
    assert "parse-limit:text" in rows["big.html"]["warnings"]  # type: ignore[operator]
    assert cpu_s < 60.0, cpu_s


def test_a_page_past_its_deadline_is_a_typed_error(hostile_site: str, tmp_path: Path) -> None:
    """A deadline too short for the hostile pages: their workers are killed, the crawl goes on."""
    out = tmp_path / "out"
    proc = subprocess.run(_crawl_cmd(hostile_site, out, "--no-markdown", "--page-timeout",
                                     "0.001"),
                          capture_output=True, timeout=180, check=False)
    assert proc.returncode in (0, 5), proc.stderr.decode()[-2000:]
    rows = {str(r["url"]).rsplit("/", 1)[-1]: r for r in _rows(out)}
    assert all(rows[f"p{i}.html"]["outcome"] == "ok" for i in range(50))  # parsed inline
    for name in HOSTILE:
        assert rows[name]["outcome"] == "error"
        assert rows[name]["error"] == {  # type: ignore[comparison-overlap]
            "kind": "parse-timeout", "message": "page work passed its 0.001 s deadline; "
            "its parser process was killed"}
