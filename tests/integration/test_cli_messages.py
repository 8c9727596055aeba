"""What a newcomer sees: clear refusals, where the files went, exit codes from the table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from pressmark.cli import main
from pressmark.demo import DemoSite

SHELL = "/stories/0021-how-the-museum-rebuilds-notes-from-a-northern-to"


def _port(origin: str) -> str:
    return origin.rsplit(":", 1)[1]


# -- crawl --------------------------------------------------------------------------------


@pytest.mark.parametrize("quiet", [[], ["--quiet"]], ids=["loud", "quiet"])
def test_crawl_of_a_denied_seed_says_why_and_how(demo_origin: str, tmp_path: Path,
                                                  quiet: list[str]) -> None:
    result = CliRunner().invoke(main, ["crawl", demo_origin + "/", "--out", str(tmp_path / "o"),
                                       "--render", "never", "--workers", "0", *quiet])
    assert result.exit_code == 3, result.output
    # the decisive reason (loopback), not the port
    assert (f"error: {demo_origin}/: egress-denied: host 127.0.0.1 is denied: address in "
            "loopback (127.0.0.0/8)") in result.stderr
    assert f"pass --allow-loopback {demo_origin}" in result.stderr


def test_crawl_output_says_where_everything_went(demo_origin: str, tmp_path: Path) -> None:
    out = tmp_path / "o"
    args = ["crawl", demo_origin + "/", "--out", str(out), "--allow-loopback", demo_origin,
            "--max-pages", "3", "--render", "never", "--workers", "0"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    for path in (out / "manifest.json", out / "pages.jsonl", out / "markdown",
                 out / "evidence", out / "store"):
        assert str(path) in result.stdout
    assert f"pressmark serve {out}" in result.stdout
    assert result.stderr.count("error") == 0
    again = CliRunner().invoke(main, args)   # the same --out again: a revalidating recrawl
    assert again.exit_code == 0, again.output
    # a finished crawl has nothing to resume, whatever the options: it says so
    changed = CliRunner().invoke(main, [*args, "--resume", "--delay-ms", "5"])
    assert changed.exit_code == 0
    assert "nothing to resume" in changed.stderr and "policy" not in changed.stderr


# -- fetch --------------------------------------------------------------------------------


def test_fetch_messages(demo_origin: str) -> None:
    runner = CliRunner()
    denied = runner.invoke(main, ["fetch", demo_origin + "/"])
    assert denied.exit_code == 3
    assert "host 127.0.0.1 is denied: address in loopback" in denied.stderr
    assert f"--allow-loopback {demo_origin}" in denied.stderr
    for bad in ("not-a-url", "ftp://x.test/"):   # usage errors, as in `pressmark crawl`
        result = runner.invoke(main, ["fetch", bad])
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("error: invalid-config: ")
    as_json = runner.invoke(main, ["fetch", "not-a-url", "--json"])
    assert as_json.exit_code == 2
    assert json.loads(as_json.stdout)["error"]["code"] == "INVALID_URL"
    missing = runner.invoke(main, ["fetch", demo_origin + "/nope", "--allow-loopback",
                                   demo_origin])
    assert missing.exit_code == 4
    assert missing.stderr == "error: http-error: HTTP 404\n"


def test_fetch_of_a_shell_without_render_says_how_to_render(demo_site: DemoSite,
                                                             demo_origin: str) -> None:
    assert demo_site.page(SHELL).kind == "shell"
    shell = CliRunner().invoke(main, ["fetch", demo_origin + SHELL, "--allow-loopback",
                                      demo_origin])
    assert shell.exit_code == 0
    assert "hint: this looks like a JavaScript shell" in shell.stderr
    assert "--render on-shell" in shell.stderr
    article = CliRunner().invoke(main, ["fetch", demo_origin + "/about", "--allow-loopback",
                                        demo_origin])
    assert article.exit_code == 0 and "hint" not in article.stderr


# -- replay, store, md --------------------------------------------------------------------


@pytest.fixture
def crawled(demo_origin: str, tmp_path: Path) -> Path:
    out = tmp_path / "crawl"
    result = CliRunner().invoke(main, ["crawl", demo_origin + "/", "--out", str(out),
                                       "--allow-loopback", demo_origin, "--max-pages", "2",
                                       "--render", "never", "--workers", "0", "--quiet"])
    assert result.exit_code == 0, result.output
    return out


def test_replay_to_a_file_says_where_the_bytes_went(crawled: Path, tmp_path: Path) -> None:
    row = next(json.loads(line) for line in (crawled / "pages.jsonl").read_text().splitlines()
               if json.loads(line)["source_ref"])
    target = tmp_path / "page.html"
    result = CliRunner().invoke(main, ["replay", row["source_ref"], "--store",
                                       str(crawled / "store"), "--out", str(target)])
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(f"wrote {target.stat().st_size} bytes to {target} "
                                    f"({row['final_url'] or row['url']}, captured ")
    missing = CliRunner().invoke(main, ["replay", row["source_ref"], "--store",
                                        str(tmp_path / "nothing")])
    assert missing.exit_code == 2
    assert str(tmp_path / "nothing") in missing.stderr


def test_store_commands_report_and_exit_by_the_table(crawled: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    store = crawled / "store"
    unknown = CliRunner().invoke(main, ["store", "ls", str(store), "url-nope"])
    assert unknown.exit_code == 4
    assert "no snapshots of source 'url-nope'" in unknown.stderr
    warc = tmp_path / "out.warc"
    exported = CliRunner().invoke(main, ["store", "export-warc", str(store), str(warc)])
    assert exported.exit_code == 0
    assert f"to {warc}" in exported.stdout
    imported = CliRunner().invoke(main, ["store", "import-warc", str(warc),
                                         str(tmp_path / "copy")])
    assert f"into {tmp_path / 'copy'}" in imported.stdout

    # `pressmark store ls ROOT | head`: a closed pipe is the reader's choice, not an error.
    def closed_pipe(*args: object, **kwargs: object) -> None:
        if not kwargs.get("err"):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(click, "echo", closed_pipe)
    piped = CliRunner().invoke(main, ["store", "ls", str(store)])
    assert piped.exit_code == 0
    assert "error" not in piped.stderr


def test_md_batch_says_what_it_converted(crawled: Path, tmp_path: Path) -> None:
    src = tmp_path / "html"
    src.mkdir()
    (src / "a.html").write_text("<html><body><main><h1>A</h1><p>Text.</p></main></body></html>")
    out = tmp_path / "md"
    result = CliRunner().invoke(main, ["md", "--batch", str(src), str(out), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert result.stderr == f"converted 1 of 1 *.html file(s) from {src} into {out}\n"
    assert (out / "a.md").exists()


# -- demo ---------------------------------------------------------------------------------


def test_demo_twice_keeps_its_origin_so_captures_become_history(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    args = ["demo", "--pages", "5", "--out", str(out), "--render", "never", "--quiet"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    second = CliRunner().invoke(main, args)
    assert second.exit_code == 0, second.output
    urls = [re.search(r"http://127\.0\.0\.1:\d+/", r.output) for r in (first, second)]
    assert urls[0] and urls[1] and urls[0].group() == urls[1].group()
    listing = CliRunner().invoke(main, ["store", "ls", str(out / "store"), "--json"])
    counts = {json.loads(line)["snapshots"] for line in listing.stdout.splitlines()}
    assert counts == {2}


def test_md_without_input_on_a_terminal_explains_instead_of_waiting(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from pressmark.cli import _md

    monkeypatch.setattr(_md, "_stdin_is_terminal", lambda: True)
    result = CliRunner().invoke(main, ["md"])
    assert result.exit_code == 2
    assert "give an HTML FILE, or pipe HTML in" in result.stderr
    piped = CliRunner().invoke(main, ["md", "-"], input="<h1>Hi</h1><p>Text.</p>")
    assert piped.exit_code == 0 and "# Hi" in piped.stdout


def test_an_interrupted_demo_crawl_exits_5(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from pressmark.cli import _demo

    async def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(_demo, "_crawl_demo", interrupted)
    result = CliRunner().invoke(main, ["demo", "--pages", "5", "--out", str(tmp_path / "d")])
    assert result.exit_code == 5
    assert "interrupted:" in result.stderr and "Aborted" not in result.output


@pytest.mark.parametrize(("args", "flag"), [
    (["--max-pages", "-1"], "'--max-pages'"), (["--concurrency", "0"], "'--concurrency'"),
    (["--delay-ms", "-5"], "'--delay-ms'"), (["--time-budget", "-1"], "'--time-budget'"),
    (["--scope", ","], "--scope"),
])
def test_crawl_option_errors_name_the_flag(tmp_path: Path, args: list[str], flag: str) -> None:
    result = CliRunner().invoke(main, ["crawl", "http://x.test/", "--out", str(tmp_path / "o"),
                                       *args])
    assert result.exit_code == 2
    assert f"Invalid value for {flag}" in result.stderr
    assert not (tmp_path / "o").exists()


def test_fetch_with_store_says_where_the_snapshot_went(demo_origin: str, tmp_path: Path) -> None:
    store = tmp_path / "store"
    result = CliRunner().invoke(main, ["fetch", demo_origin + "/about", "--allow-loopback",
                                       demo_origin, "--store", str(store)])
    assert result.exit_code == 0, result.output
    match = re.fullmatch(rf"stored in {re.escape(str(store))}: (pressmark:snapshot:v1\?\S+)\n",
                         result.stderr)
    assert match, result.stderr
    replayed = CliRunner().invoke(main, ["replay", match.group(1), "--store", str(store)])
    assert replayed.exit_code == 0
    assert replayed.stdout == result.stdout
