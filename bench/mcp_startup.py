"""How long ``pressmark mcp`` takes to answer ``initialize``, beside the bare SDK doing the same.

The peer is the smallest server the official SDK can run (``MCPServer`` with one tool,
stdio); it pays the SDK's import cost and nothing else, so the ratio is what pressmark
adds on top. Both are started as fresh processes, interleaved in one run, timed from
spawn to the ``initialize`` response line on stdout. Also measures the import cost of
each piece with ``python -c 'import ...'``.

    python bench/mcp_startup.py [--rounds 9]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PRESSMARK = str(Path(sys.executable).with_name("pressmark"))
PEER = (
    "from mcp.server.mcpserver import MCPServer\n"
    "app = MCPServer('peer')\n"
    "@app.tool()\n"
    "def echo(text: str) -> str:\n"
    "    return text\n"
    "app.run()\n"
)
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "0"}}}) + "\n"


def time_to_initialize(argv: list[str]) -> tuple[float, float]:
    """(wall seconds to the initialize response, CPU seconds of the whole process)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(INIT.encode())
    process.stdin.flush()
    line = process.stdout.readline()
    elapsed = time.perf_counter() - start
    assert b'"result"' in line, line[:200]
    process.stdin.close()
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    return elapsed, usage.ru_utime + usage.ru_stime


def time_import(statement: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", statement], check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ours = [PRESSMARK, "mcp", "--store", str(Path(tmp) / "store")]
        peer = [sys.executable, "-c", PEER]
        time_to_initialize(ours)   # warm the page cache and .pyc files for both
        time_to_initialize(peer)
        runs: dict[str, list[float]] = {"pressmark mcp": [], "bare SDK server": [],
                                        "pressmark mcp (CPU s)": [],
                                        "bare SDK server (CPU s)": [],
                                        "import python only": [],
                                        "import SDK (mcp.server.mcpserver)": [],
                                        "import pressmark cli + mcp glue + SDK": []}
        for _ in range(args.rounds):
            for name, argv in (("pressmark mcp", ours), ("bare SDK server", peer)):
                wall, cpu = time_to_initialize(argv)
                runs[name].append(wall)
                runs[f"{name} (CPU s)"].append(cpu)
            runs["import python only"].append(time_import("pass"))
            runs["import SDK (mcp.server.mcpserver)"].append(
                time_import("import mcp.server.mcpserver"))
            runs["import pressmark cli + mcp glue + SDK"].append(
                time_import("import pressmark.cli._main, pressmark.cli._mcp, "
                            "pressmark.mcp._server"))
    medians = {name: statistics.median(values) for name, values in runs.items()}
    print(f"spawn to initialize response (CPU: the whole process), median of {args.rounds} "
          "interleaved runs:")
    for name, value in medians.items():
        print(f"  {name:40s} {value * 1000:7.0f} ms")
    ratio = medians["pressmark mcp"] / medians["bare SDK server"]
    cpu_ratio = medians["pressmark mcp (CPU s)"] / medians["bare SDK server (CPU s)"]
    print(f"pressmark mcp / bare SDK server: wall {ratio:.2f}, CPU {cpu_ratio:.2f}")


if __name__ == "__main__":
    main()
