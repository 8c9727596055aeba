"""``pressmark demo`` and ``python -m pressmark.demo serve`` start the site and print it."""

from __future__ import annotations

import subprocess
import sys
import urllib.request

from click.testing import CliRunner

from pressmark.cli import main


def test_pressmark_demo_serves_and_prints_the_url() -> None:
    result = CliRunner().invoke(main, ["demo", "--pages", "20", "--serve-only",
                                       "--stop-after", "0.2"])
    assert result.exit_code == 0, result.output
    assert "pressmark demo site: http://127.0.0.1:" in result.output
    assert "robots.txt" in result.output


def test_module_serve_answers_requests() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "pressmark.demo", "serve", "--pages", "30", "--faults"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("pressmark demo site: http://127.0.0.1:")
        url = line.split(": ", 1)[1].strip()
        with urllib.request.urlopen(url + "robots.txt", timeout=10) as response:
            assert b"Disallow: /private/" in response.read()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


def test_module_rejects_bad_sizes() -> None:
    out = subprocess.run([sys.executable, "-m", "pressmark.demo", "serve", "--pages", "0"],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 2
    assert "pages" in out.stderr
