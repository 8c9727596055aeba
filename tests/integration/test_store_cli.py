"""`pressmark replay` and `pressmark store ...` against real stores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pressmark.cli import main
from pressmark.snapshot import new_snapshot
from pressmark.store import FilesystemSnapshotStore
from pressmark.testing import make_snapshot

BODY = b"<p>caf\xe9 \x00\xff exact bytes</p>"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    store = FilesystemSnapshotStore(tmp_path / "store", durability="flush")
    for n in range(3):
        store.put(make_snapshot("a", "http://a.test/", BODY + str(n).encode(),
                                fetched_at=f"2026-11-30T12:00:0{n}.000Z",
                                headers={"content-type": "text/html; charset=latin1"}))
    store.put(new_snapshot(source_id="r", requested_url="http://r.test/", url="http://r.test/",
                           status=200, headers={}, body="<p>✓</p>".encode(), rendered=True,
                           fetched_at="2026-11-30T12:00:00.000Z"))
    return tmp_path / "store"


def _ref(root: Path, source: str = "a") -> str:
    return FilesystemSnapshotStore(root).list(source)[0].source_ref


def test_replay_writes_the_exact_bytes(root: Path, tmp_path: Path) -> None:
    out = tmp_path / "body.bin"
    result = CliRunner().invoke(main, ["replay", _ref(root), "--store", str(root),
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == BODY + b"2"
    text = CliRunner().invoke(main, ["replay", _ref(root), "--store", str(root), "--text"])
    assert text.exit_code == 0
    assert "café" in text.output


def test_replay_to_stdout_in_a_real_process(root: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-m", "pressmark", "replay", _ref(root, "r"), "--store", str(root)],
        capture_output=True, check=False, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "<p>✓</p>".encode()


@pytest.mark.parametrize(
    ("mangle", "code"),
    [
        (lambda ref: ref[:-2], "invalid-ref"),
        (lambda ref: ref.replace("source_id=a", "source_id=zz"), "not-found"),
    ],
)
def test_replay_failures_exit_4_with_the_typed_error(
    root: Path, tmp_path: Path, mangle: object, code: str
) -> None:
    out = tmp_path / "never.bin"
    ref = mangle(_ref(root))  # type: ignore[operator]
    result = CliRunner().invoke(main, ["replay", ref, "--store", str(root), "--out", str(out)])
    assert result.exit_code == 4
    assert f"error: {code}:" in result.output
    assert not out.exists()


def test_replay_of_a_corrupt_record_or_missing_store(root: Path, tmp_path: Path) -> None:
    ref = _ref(root)
    for record in root.rglob("*.rec"):
        record.write_bytes(record.read_bytes()[:-1] + b"!")
    result = CliRunner().invoke(main, ["replay", ref, "--store", str(root)])
    assert result.exit_code == 5  # damage is a failure of the store, not a missing reference
    assert "error: snapshot-corrupt:" in result.output
    assert str(root) not in result.output
    missing = CliRunner().invoke(main, ["replay", ref, "--store", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2  # the same as `store verify` of it: a usage slip
    assert "error: not-a-store:" in missing.output and "does not exist" in missing.output
    assert not (tmp_path / "nowhere").exists()


def test_store_ls(root: Path) -> None:
    result = CliRunner().invoke(main, ["store", "ls", str(root), "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [(r["source_id"], r["snapshots"]) for r in rows] == [("a", 3), ("r", 1)]
    history = CliRunner().invoke(main, ["store", "ls", str(root), "a"])
    assert history.exit_code == 0
    assert len(history.output.splitlines()) == 3
    assert history.output.splitlines()[0].startswith("2026-11-30T12:00:02.000Z")


def test_store_verify_and_prune(root: Path) -> None:
    ok = CliRunner().invoke(main, ["store", "verify", str(root)])
    assert ok.exit_code == 0 and "2 source(s), 4 record(s): ok" in ok.output
    source_dir = next(p.parent for p in root.rglob("source.json")
                      if json.loads(p.read_text())["source_id"] == "a")
    next(source_dir.glob("id.*")).unlink()
    bad = CliRunner().invoke(main, ["store", "verify", str(root), "--json"])
    assert bad.exit_code == 5
    report = json.loads(bad.output)
    assert not report["ok"] and report["problems"][0]["code"] == "missing-index"
    keep = FilesystemSnapshotStore(root).list("a")[2].source_ref
    pruned = CliRunner().invoke(main, ["store", "prune", str(root), "--keep-last", "1",
                                       "--keep", keep, "--source", "a"])
    assert pruned.exit_code == 0, pruned.output
    assert "kept 2\tremoved 1\tcleaned 1" in pruned.output
    assert CliRunner().invoke(main, ["store", "verify", str(root)]).exit_code == 0
    usage = CliRunner().invoke(main, ["store", "prune", str(root), "--keep-last", "-1"])
    assert usage.exit_code == 2


def test_store_verify_notes_debris_and_repair_removes_it(root: Path) -> None:
    source_dir = next(p.parent for p in root.rglob("source.json")
                      if json.loads(p.read_text())["source_id"] == "a")
    history = [ref.source_ref for ref in FilesystemSnapshotStore(root).list("a")]
    (source_dir / "tmp.interrupted").write_bytes(b"half a record")  # a killed writer's leftovers
    (source_dir / "slot.00042").write_text("")
    noted = CliRunner().invoke(main, ["store", "verify", str(root)])
    assert noted.exit_code == 0, noted.output  # an undamaged store passes its check
    assert "note: temp-file" in noted.output and "note: orphan-slot" in noted.output
    assert "2 leftover(s) of interrupted writes" in noted.output
    next(source_dir.glob("id.*")).unlink()  # a missing index entry is damage...
    assert CliRunner().invoke(main, ["store", "verify", str(root)]).exit_code == 5
    repaired = CliRunner().invoke(main, ["store", "repair", str(root)])  # ...that repair restores
    assert repaired.exit_code == 0, repaired.output
    assert "a\tfixed 3" in repaired.output and "2 source(s): 3 fix(es)" in repaired.output
    clean = CliRunner().invoke(main, ["store", "verify", str(root), "--json"])
    assert clean.exit_code == 0
    assert json.loads(clean.output)["problems"] == json.loads(clean.output)["notes"] == []
    assert [ref.source_ref for ref in FilesystemSnapshotStore(root).list("a")] == history


def test_store_export_and_import_warc(root: Path, tmp_path: Path) -> None:
    warc = tmp_path / "out.warc.gz"
    exported = CliRunner().invoke(main, ["store", "export-warc", str(root), str(warc)])
    assert exported.exit_code == 0, exported.output
    assert "exported 4 snapshot(s)" in exported.output
    copy = tmp_path / "copy"
    imported = CliRunner().invoke(main, ["store", "import-warc", str(warc), str(copy)])
    assert imported.exit_code == 0, imported.output
    assert "imported 4 snapshot(s)" in imported.output
    for source in ("a", "r"):
        ref = _ref(root, source)
        result = CliRunner().invoke(main, ["replay", ref, "--store", str(copy), "--out",
                                           str(tmp_path / source)])
        assert result.exit_code == 0
    assert (tmp_path / "a").read_bytes() == BODY + b"2"
    broken = tmp_path / "broken.warc.gz"
    broken.write_bytes(b"\x1f\x8b garbage")
    failed = CliRunner().invoke(main, ["store", "import-warc", str(broken), str(copy)])
    assert failed.exit_code == 5


def test_store_commands_on_a_missing_store(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["store", "verify", str(tmp_path / "nothing")])
    assert result.exit_code == 2   # a ROOT that does not exist is a usage error
    assert "does not exist" in result.output
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(main, ["store", "verify", str(tmp_path / "empty")])
    assert result.exit_code == 2
    assert "error: not-a-store:" in result.output


def test_replay_output_failure_exits_5_and_never_leaves_partial_bytes(
    root: Path, tmp_path: Path
) -> None:
    ref = _ref(root)
    missing_dir = tmp_path / "no" / "such" / "body.bin"
    result = CliRunner().invoke(main, ["replay", ref, "--store", str(root),
                                       "--out", str(missing_dir)])
    assert result.exit_code == 5
    assert "error: output-error:" in result.output
    assert str(tmp_path) not in result.output
    out = tmp_path / "body.bin"
    out.write_bytes(b"previous")
    ok = CliRunner().invoke(main, ["replay", ref, "--store", str(root), "--out", str(out)])
    assert ok.exit_code == 0
    assert out.read_bytes() == BODY + b"2"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_import_of_a_file_that_is_not_a_warc_fails(root: Path, tmp_path: Path) -> None:
    for data in (b"", b"x"):
        bogus = tmp_path / "bogus.warc.gz"
        bogus.write_bytes(data)
        result = CliRunner().invoke(main, ["store", "import-warc", str(bogus), str(root)])
        assert result.exit_code == 5, result.output
        assert "no WARC records" in result.output


def test_store_commands_on_a_segment_store_and_migrate(root: Path, tmp_path: Path) -> None:
    segments = tmp_path / "segments"
    moved = CliRunner().invoke(main, ["store", "migrate", str(root), str(segments)])
    assert moved.exit_code == 0, moved.output
    assert "migrated 4 snapshot(s) of 2 source(s)" in moved.output and "verify: ok" in moved.output
    assert (segments / "index.sqlite3").exists() and not (segments / "sources").exists()
    ok = CliRunner().invoke(main, ["store", "verify", str(segments)])
    assert ok.exit_code == 0 and "2 source(s), 4 record(s): ok" in ok.output
    listed = CliRunner().invoke(main, ["store", "ls", str(segments), "a", "--json"])
    assert [json.loads(line)["source_ref"] for line in listed.output.splitlines()] == [
        ref.source_ref for ref in FilesystemSnapshotStore(root).list("a")]
    out = tmp_path / "body.bin"
    replayed = CliRunner().invoke(main, ["replay", _ref(root), "--store", str(segments),
                                         "--out", str(out)])
    assert replayed.exit_code == 0 and out.read_bytes() == BODY + b"2"
    (segments / "index.sqlite3").unlink()
    for name in ("index.sqlite3-wal", "index.sqlite3-shm"):
        (segments / name).unlink(missing_ok=True)
    gone = CliRunner().invoke(main, ["store", "verify", str(segments)])
    assert gone.exit_code == 5 and "repair" in gone.output
    rebuilt = CliRunner().invoke(main, ["store", "repair", str(segments)])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert CliRunner().invoke(main, ["replay", _ref(root), "--store", str(segments)]
                              ).exit_code == 0
    back = tmp_path / "back"
    again = CliRunner().invoke(main, ["store", "migrate", str(segments), str(back)])
    assert again.exit_code == 0 and (back / "sources").is_dir()
    wrong = CliRunner().invoke(main, ["store", "migrate", str(segments), str(back), "--to",
                                      "segments"])
    assert wrong.exit_code == 5 and "migrate" in wrong.output
