"""A crawl's store with planted names, through the real commands (red team #34 item 5).

``pressmark store repair`` deleted files outside the store through a planted source
symlink; ``store verify``, ``store repair`` and a recrawl (even with ``--time-budget``)
hung on planted FIFOs. Each command runs as a real process; the timeouts are a safety
net for the old hangs, the commands themselves take a second or two.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from pressmark.snapshot import source_id_for_url

FUTURE_RECORD = "2999-01-01T00:00:00.000Z_" + "e" * 64 + ".rec"


def _pressmark(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pressmark", *args], capture_output=True,
                          text=True, timeout=120, check=False)


def _crawl(origin: str, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return _pressmark("crawl", origin + "/", "--out", str(out), "--allow-loopback", origin,
                      "--max-pages", "5", "--render", "never", "--workers", "0", "--quiet",
                      "--store-format", "files", *extra)  # the filesystem store's names


def test_commands_on_a_store_with_planted_fifos_and_symlinks(
        demo_origin: str, tmp_path: Path) -> None:
    out = tmp_path / "crawl"
    first = _crawl(demo_origin, out)
    assert first.returncode == 0, first.stderr
    before = {json.loads(line)["url"]: json.loads(line)["outcome"]
              for line in (out / "pages.jsonl").read_text().splitlines()}
    store = out / "store"
    sources = sorted((store / "sources").iterdir())
    # A FIFO as the newest record of the seed's source, named by HEAD: a recrawl reads
    # it for the validators of its conditional request.
    seed_id = source_id_for_url(demo_origin + "/")
    seed = store / "sources" / hashlib.sha256(seed_id.encode()).hexdigest()
    assert seed in sources
    os.mkfifo(seed / FUTURE_RECORD)
    (seed / "HEAD").unlink()
    (seed / "HEAD").symlink_to(FUTURE_RECORD)
    os.mkfifo(sources[-1] / "slot.00099")
    # A planted source: a symlink to a directory elsewhere that looks like one.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    victim = "http://victim.test/"
    (elsewhere / "source.json").write_text(json.dumps(
        {"format": "pressmark-source/1", "source_id": victim, "max_history_files": 10_000}))
    bait = [elsewhere / "tmp.keep", elsewhere / "slot.00003"]
    for path in bait:
        path.write_text("not the store's")
    (store / "sources" / hashlib.sha256(victim.encode()).hexdigest()).symlink_to(
        elsewhere, target_is_directory=True)

    verify = _pressmark("store", "verify", str(store))
    assert verify.returncode == 5, verify.stdout + verify.stderr
    assert "bad-source" in verify.stdout and "snapshot-corrupt" in verify.stdout
    repair = _pressmark("store", "repair", str(store))
    assert repair.returncode != 0 and "Traceback" not in repair.stderr
    assert all(path.exists() for path in bait)

    again = _crawl(demo_origin, out, "--time-budget", "60")
    assert again.returncode == 0, again.stderr
    pages = [json.loads(line) for line in (out / "pages.jsonl").read_text().splitlines()]
    assert {p["url"] for p in pages} == set(before)
    assert all(p["outcome"] in ("ok", "not-modified") for p in pages if before[p["url"]] == "ok")
    seed_page = next(p for p in pages if p["url"] == demo_origin + "/")
    assert any(w.startswith("revalidate-skipped:store-error") for w in seed_page["warnings"])
    assert all(path.exists() for path in bait)
