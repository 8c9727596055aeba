"""The segment store under a SIGKILL storm: 8 writer processes killed at random for a minute.

Each writer appends crawl-shaped batches (``put_many`` of new sources, some bodies seen
before, so revisits) and every third batch one put to a shared source (history capacity
and dedupe races), alternating ``durability="fsync"`` and ``"flush"``; after each call
returns it appends the acknowledged sourceRefs to a log with one ``write``. Every
0.1-0.4 s a random writer is SIGKILLed and replaced. Then, in a fresh process's view:

* lost: acknowledged sourceRefs that no longer resolve (target 0);
* ``verify``: damage (target none; SIGKILLs may leave debris, reported as notes);
* ``repair``, then ``verify`` again: no problems, no notes (target);
* ``warcio check`` over every segment (target: passes);
* the index deleted and rebuilt from the segments: every acknowledged put resolves again.

    python bench/store_crash.py [--seconds 60] [--writers 8] [--dir /tmp]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CAPACITY = 40
WRITER = """
import os, sys, time
from pressmark.store import SegmentStore, SnapshotHistoryFull
from pressmark.testing import make_snapshot

root, name, log = sys.argv[1], sys.argv[2], sys.argv[3]
store = SegmentStore(root, {capacity}, durability=sys.argv[4], segment_bytes=1024 * 1024)
fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
for i in range(10**9):
    if i % 3 == 0:
        body = (f"<p>{{name}} {{i}}</p>" * 50).encode()
        shots = [make_snapshot("shared", "http://m.test/", body)]
    else:
        shots = [make_snapshot(f"{{name}}-{{i}}-{{k}}", f"http://m.test/{{name}}/{{i}}/{{k}}",
                               (f"<p>{{k % 2}} {{i % 5}}</p>" * 80).encode()) for k in range(4)]
    lines = []
    for result in store.put_many(shots):
        if isinstance(result, SnapshotHistoryFull):
            lines.append("FULL")
        elif isinstance(result, BaseException):
            raise result
        else:
            lines.append(result.source_ref)
    os.write(fd, ("\\n".join(lines) + "\\n").encode())
    if lines == ["FULL"]:
        time.sleep(0.01)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--dir", type=Path, default=None, help="where the store goes")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--min-acked", type=int, default=100,
                        help="run on past --seconds until this many puts returned "
                             "(a loaded machine starts writers slowly)")
    args = parser.parse_args()

    from pressmark.snapshot import resolve_source_ref
    from pressmark.store import SegmentStore

    work = Path(tempfile.mkdtemp(prefix="pm-crash-", dir=args.dir))
    try:
        root, log, script = work / "store", work / "acked.log", work / "writer.py"
        script.write_text(WRITER.format(capacity=CAPACITY))
        SegmentStore(root, CAPACITY).close()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        rng = random.Random(args.seed)

        def spawn(n: int) -> subprocess.Popen[bytes]:
            durability = "fsync" if n % 2 == 0 else "flush"
            return subprocess.Popen([sys.executable, str(script), str(root), f"w{n}",
                                     str(log), durability], env=env)

        writers = [spawn(n) for n in range(args.writers)]
        spawned, kills = args.writers, 0
        started = time.monotonic()
        def acked_now() -> int:
            return log.read_bytes().count(b"pressmark:") if log.exists() else 0

        while (time.monotonic() - started < args.seconds
               or (acked_now() < args.min_acked
                   and time.monotonic() - started < 10 * args.seconds)):
            time.sleep(rng.uniform(0.1, 0.4))
            victim = rng.randrange(len(writers))
            writers[victim].send_signal(signal.SIGKILL)
            writers[victim].wait()
            kills += 1
            writers[victim] = spawn(spawned)
            spawned += 1
        for proc in writers:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        elapsed = time.monotonic() - started

        lines = log.read_text().splitlines() if log.exists() else []
        acked = {line for line in lines if line.startswith("pressmark:")}
        store = SegmentStore(root)
        lost = [ref for ref in acked if not resolve_source_ref(store, ref).ok]
        before = store.verify()
        repaired = store.repair()
        after = store.verify()
        segments = sorted((root / "segments").iterdir())
        warcio = Path(sys.executable).parent / "warcio"
        check = subprocess.run([str(warcio), "check", *map(str, segments)],
                               capture_output=True, text=True, check=False) if segments else None
        store.close()
        for name in ("index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"):
            (root / name).unlink(missing_ok=True)
        rebuilt = SegmentStore(root)
        rebuilt.repair()
        lost_after_rebuild = [ref for ref in acked if not resolve_source_ref(rebuilt, ref).ok]
        report = {
            "seconds": round(elapsed, 1), "writers": args.writers, "kills": kills,
            "acknowledged_puts": len(acked), "history_full_answers": lines.count("FULL"),
            "segments": len(segments), "lost": len(lost),
            "verify_damage": [p.code for p in before.problems],
            "verify_debris_notes": sorted({n.code for n in before.notes}),
            "verify_debris_count": len(before.notes), "repair_fixed": repaired.fixed,
            "after_repair_problems": len(after.problems), "after_repair_notes": len(after.notes),
            "warcio_check_rc": None if check is None else check.returncode,
            "lost_after_index_rebuild": len(lost_after_rebuild),
            "load_1min": round(os.getloadavg()[0], 1),
        }
        print(json.dumps(report, indent=2))
        ok = (bool(acked) and not lost and before.ok and after.ok and not after.notes
              and check is not None and check.returncode == 0 and not lost_after_rebuild)
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
