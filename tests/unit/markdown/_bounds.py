"""Convert a page in a child process held to an address-space and CPU limit.

WHY a child: a conversion that blows up must fail the test, not take the machine (or
the test process) with it, and a limit the kernel enforces holds whatever the load:
``RLIMIT_AS`` bounds the memory a conversion may map, ``RLIMIT_CPU`` its CPU time
(not wall time, which a busy machine stretches).
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

GIB = 1 << 30

_CHILD = r"""
import json, resource, sys, time

def peak_rss_kb():
    # this process image's own peak (VmHWM): ru_maxrss also counts the parent's resident
    # memory at the fork, which Linux carries over exec (a pytest process grown to 800 MB
    # late in a full run made every child report 800 MB)
    try:
        with open("/proc/self/status") as fh:
            return int(next(l for l in fh if l.startswith("VmHWM:")).split()[1])
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

limit_as, limit_cpu, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))
resource.setrlimit(resource.RLIMIT_CPU, (limit_cpu, limit_cpu + 1))
from pressmark.markdown import MarkdownError, to_markdown
data = open(path, "rb").read()
started = time.process_time()
report = {}
try:
    result = to_markdown(data, url="https://example.test/page")
    result.to_json()
    report.update(ok=True, markdown=len(result.markdown), warnings=list(result.warnings),
                  head=result.markdown[:2000])
except MarkdownError as exc:
    report.update(ok=False, code=exc.code, message=str(exc),
                  partial=len(getattr(exc, "partial", "") or ""))
except MemoryError:
    report.update(ok=False, code="MemoryError")
report["cpu_s"] = time.process_time() - started
report["max_rss_kb"] = peak_rss_kb()
print(json.dumps(report))
"""


def convert_bounded(html: str | bytes, tmp_path: Path, *, memory: int = GIB,
                    cpu_s: int = 30) -> dict[str, Any]:
    """The child's report: ``ok``, ``markdown`` length or ``code``, ``cpu_s``, ``max_rss_kb``.

    A child killed by the CPU limit, or dying otherwise, reports ``ok`` False and the
    signal or status as ``code``.
    """
    page = tmp_path / "page.html"
    page.write_bytes(html.encode("utf-8") if isinstance(html, str) else html)
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(memory), str(cpu_s), str(page)],
                          capture_output=True, timeout=600, check=False)
    if proc.returncode != 0:
        return {"ok": False, "code": f"exit {proc.returncode}",
                "stderr": proc.stderr.decode("utf-8", "replace")[-2000:]}
    report: dict[str, Any] = json.loads(proc.stdout.decode("utf-8").strip().splitlines()[-1])
    return report


_SERVER = r"""
import json, resource, struct, sys, time
limit_as, limit_cpu = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))
resource.setrlimit(resource.RLIMIT_CPU, (limit_cpu, limit_cpu + 1))
from pressmark.markdown import MarkdownError, to_markdown
read, write = sys.stdin.buffer.read, sys.stdout.buffer.write
while True:
    head = read(4)
    if len(head) < 4:
        break
    data = read(struct.unpack("<I", head)[0])
    started = time.process_time()
    try:
        result = to_markdown(data, url="https://example.test/page")
        result.to_json()
        report = {"ok": True, "markdown": len(result.markdown)}
    except MarkdownError as exc:
        report = {"ok": True, "code": exc.code}
    except MemoryError:
        report = {"ok": False, "code": "MemoryError"}
    report["cpu_s"] = time.process_time() - started
    write(json.dumps(report).encode() + b"\n")
    sys.stdout.buffer.flush()
"""


class BoundedConverter:
    """One child converting page after page under ``RLIMIT_AS`` (and a CPU-time limit over
    all of them); each page's CPU time comes back with it."""

    def __init__(self, *, memory: int = GIB, cpu_s: int = 300) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", _SERVER, str(memory), str(cpu_s)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def convert(self, html: str) -> dict[str, Any]:
        data = html.encode("utf-8")
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(struct.pack("<I", len(data)) + data)
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:  # killed: the CPU limit, or memory the allocator could not report
            return {"ok": False, "code": f"exit {self.process.wait(timeout=60)}"}
        report: dict[str, Any] = json.loads(line)
        return report

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
