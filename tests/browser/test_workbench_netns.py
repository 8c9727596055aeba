"""The hostile-capture workbench test again, inside its own network namespace.

In a fresh netns (``unshare -n``, loopback only) nothing the capture names can be
reached but the canary listener, so its zero-connection count proves that no frame
(not one inside a declarative shadow root) was even dialled; the corpus of
mutation-XSS captures (``test_workbench_mxss``) runs there too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]


def test_hostile_capture_in_a_network_namespace() -> None:
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-n", "true"], check=False).returncode:
        pytest.skip("unshare -n is not available here")
    script = ("ip link set lo up && exec \"$0\" -m pytest -q -p no:cacheprovider "
              "tests/browser/test_web_workbench.py tests/browser/test_workbench_mxss.py "
              "-k 'hostile_snapshot_executes_nothing or mxss_captures'")
    proc = subprocess.run([unshare, "-n", "sh", "-c", script, sys.executable], cwd=REPO,
                          capture_output=True, timeout=600, check=False,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    out = proc.stdout.decode()[-3000:]
    assert proc.returncode == 0, out + proc.stderr.decode()[-2000:]
    assert "2 passed" in out
