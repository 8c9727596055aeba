"""A crawl whose disk fills up (red team #34): it ends with exit 5, a manifest of exactly
what was written and no torn line in ``pages.jsonl``.

Before the fix a crawl without a budget never exited on a 4 MiB tmpfs (ENOSPC raised in
a flush task nobody awaited) and with ``--time-budget`` it exited 1 with a traceback.

The disk is a real 4 MiB tmpfs mounted in a private mount namespace (``unshare -m`` as
root, else ``unshare -rm``), so nothing outside the test sees it; the crawl, a copy of
what it wrote and ``store verify`` run in that namespace, the site on loopback outside.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

PAGE_TEXT_BYTES = 200_000
"""Each page is this big, so a few dozen fill the 4 MiB disk."""


def _namespace() -> list[str] | None:
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    for flags in (["-m"], ["-r", "-m"]):
        probe = subprocess.run([unshare, *flags, "sh", "-c", "mount -t tmpfs -o size=64k t /mnt"],
                               check=False, capture_output=True)
        if probe.returncode == 0:
            return [unshare, *flags]
    return None


class _Pages(BaseHTTPRequestHandler):
    """``/p/N``: a large article linking to the next five pages (an endless site)."""

    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            body = b"User-agent: *\nAllow: /\n"
            kind = "text/plain"
        else:
            number = int(self.path.rsplit("/", 1)[-1] or 0) if self.path.startswith("/p/") else 0
            links = "".join(f'<li><a href="/p/{number * 5 + k}">page {number * 5 + k}</a></li>'
                            for k in range(1, 6))
            words = " ".join(f"word{(number * 7919 + i) % 100_003}" for i in range(
                PAGE_TEXT_BYTES // 10))
            paragraphs = "".join(f"<p>{words[i:i + 2000]}</p>" for i in range(0, len(words), 2000))
            body = (f"<!doctype html><html lang=en><head><title>Page {number}</title></head>"
                    f"<body><main><h1>Page {number}</h1>{paragraphs}<ul>{links}</ul></main>"
                    "</body></html>").encode()
            kind = "text/html; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def big_site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


MAX_PAGES = 30
"""Several times what fits on the disk."""


def _crawl_on_full_disk(tmp_path: Path, origin: str, *extra: str,
                        resume: bool = False) -> dict[str, object]:
    namespace = _namespace()
    if namespace is None:
        pytest.skip("no private mount namespace with tmpfs here (unshare -m / -rm)")
    disk = tmp_path / "disk"
    copy = tmp_path / "copy"
    disk.mkdir()
    copy.mkdir()
    out = disk / "out"
    crawl = [sys.executable, "-m", "pressmark", "crawl", origin + "/p/0", "--out", str(out),
             "--allow-loopback", origin, "--render", "never", "--quiet",
             "--max-pages", str(MAX_PAGES), *extra]
    verify = [sys.executable, "-m", "pressmark", "store", "verify", str(out / "store")]
    script = "\n".join([
        f"mount -t tmpfs -o size=4m pressmark-test {shlex.quote(str(disk))} || exit 99",
        f"{shlex.join(crawl)} 2> {shlex.quote(str(copy / 'stderr'))}",
        f"echo $? > {shlex.quote(str(copy / 'rc'))}",
        f"cp {shlex.quote(str(out))}/manifest.json {shlex.quote(str(out))}/pages.jsonl "
        f"{shlex.quote(str(copy))}/ 2>/dev/null",
        f"{shlex.join(verify)} > {shlex.quote(str(copy / 'verify'))} 2>&1",
        f"echo $? > {shlex.quote(str(copy / 'verify.rc'))}",
        f"df -k {shlex.quote(str(disk))} > {shlex.quote(str(copy / 'df'))}",
    ])
    if resume:  # room again: the same command with --resume finishes the crawl
        script += "\n" + "\n".join([
            f"mount -o remount,size=64m {shlex.quote(str(disk))} || exit 98",
            f"{shlex.join([*crawl, '--resume'])} 2> {shlex.quote(str(copy / 'resumed.stderr'))}",
            f"echo $? > {shlex.quote(str(copy / 'resumed.rc'))}",
            f"cp {shlex.quote(str(out))}/manifest.json {shlex.quote(str(copy))}/resumed.json",
            f"cp {shlex.quote(str(out))}/pages.jsonl {shlex.quote(str(copy))}/resumed.jsonl",
        ])
    # The timeout is a safety net for the old hang only; the crawl ends in seconds.
    subprocess.run([*namespace, "sh", "-c", script], check=True, timeout=600)
    return {
        "rc": int((copy / "rc").read_text()),
        "stderr": (copy / "stderr").read_text(),
        "manifest": json.loads((copy / "manifest.json").read_text()),
        "pages": (copy / "pages.jsonl").read_bytes(),
        "verify_rc": int((copy / "verify.rc").read_text()),
        "verify": (copy / "verify").read_text(),
        **({"resumed_rc": int((copy / "resumed.rc").read_text()),
            "resumed_stderr": (copy / "resumed.stderr").read_text(),
            "resumed": json.loads((copy / "resumed.json").read_text()),
            "resumed_pages": (copy / "resumed.jsonl").read_bytes()} if resume else {}),
    }


def _check(result: dict[str, object]) -> None:
    assert result["rc"] == 5, result["stderr"]
    assert "Traceback" not in str(result["stderr"])
    assert "disk is full" in str(result["stderr"])
    manifest = result["manifest"]
    assert isinstance(manifest, dict)
    assert manifest["complete"] is False and manifest["stop_reason"] == "disk-full"
    raw = result["pages"]
    assert isinstance(raw, bytes) and raw.endswith(b"\n")  # no torn last line
    lines = [json.loads(line) for line in raw.splitlines()]
    # The manifest describes exactly the pages pages.jsonl holds.
    assert manifest["summary"]["pages"] == len(lines) > 0
    by_outcome: dict[str, int] = {}
    for line in lines:
        by_outcome[line["outcome"]] = by_outcome.get(line["outcome"], 0) + 1
    assert manifest["summary"]["by_outcome"] == dict(sorted(by_outcome.items()))
    assert by_outcome.get("ok", 0) > 0
    # A page the disk had no room for is unfinished, not failed: a resume fetches it again.
    assert not any(line["error"] and "No space" in line["error"]["message"] for line in lines)
    # What the store holds is whole: interrupted writes leave notes at most, no damage.
    assert result["verify_rc"] == 0, result["verify"]


def test_a_full_disk_ends_the_crawl_with_exit_5_and_a_whole_manifest(
        tmp_path: Path, big_site: str) -> None:
    result = _crawl_on_full_disk(tmp_path, big_site, resume=True)
    _check(result)
    assert result["resumed_rc"] == 0, result["resumed_stderr"]
    resumed = result["resumed"]
    assert isinstance(resumed, dict) and resumed["complete"] is True
    raw = result["resumed_pages"]
    assert isinstance(raw, bytes)
    urls = [json.loads(line)["url"] for line in raw.splitlines()]
    assert len(urls) == len(set(urls)) == resumed["summary"]["pages"] == MAX_PAGES


def test_a_full_disk_under_a_time_budget_is_exit_5_not_a_traceback(
        tmp_path: Path, big_site: str) -> None:
    _check(_crawl_on_full_disk(tmp_path, big_site, "--time-budget", "60", "--workers", "0"))
