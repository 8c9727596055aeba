"""Resume after SIGKILL ends with the same page set; replay is offline and byte-identical."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from pressmark.crawl import CrawlPolicy, Politeness, crawl
from pressmark.demo import DemoServer
from pressmark.egress import EgressPolicy
from pressmark.snapshot import source_id_for_url
from pressmark.store import open_store


def cli(origin: str, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "pressmark", "crawl", origin + "/", "--out", str(out),
            "--allow-loopback", origin, "--no-markdown", "--quiet", "--workers", "0",
            "--per-host-concurrency", "2", "--delay-ms", "5", *extra]


def page_urls(out: Path) -> list[str]:
    return [json.loads(x)["url"] for x in (out / "pages.jsonl").read_text().splitlines()]


def test_resume_after_sigkill_gives_the_same_page_set(
        make_demo_server: Callable[..., DemoServer], tmp_path: Path) -> None:
    server = make_demo_server(pages=60)
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    reference = tmp_path / "reference"
    subprocess.run(cli(server.url, reference), check=True, env=env, timeout=120)

    out = tmp_path / "interrupted"
    proc = subprocess.Popen(cli(server.url, out), env=env)
    pages = out / "pages.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if pages.exists() and pages.read_text().count("\n") >= 40:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = len(page_urls(out))
    assert 0 < done_before < len(page_urls(reference))
    assert not (out / "manifest.json").exists()

    subprocess.run(cli(server.url, out, "--resume"), check=True, env=env, timeout=120)
    resumed = page_urls(out)
    assert len(resumed) == len(set(resumed))
    assert set(resumed) == set(page_urls(reference))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is True
    assert manifest["summary"]["pages"] == len(resumed)


async def test_replay_is_offline_and_byte_identical(
        make_demo_server: Callable[..., DemoServer], tmp_path: Path) -> None:
    server = make_demo_server(pages=20)
    live_policy = CrawlPolicy(
        render="never", egress=EgressPolicy().allow_loopback(server.url), workers=0,
        politeness=Politeness(per_host_concurrency=4))
    first = await crawl(server.url + "/", live_policy, out_dir=tmp_path / "live")
    assert first.summary["by_outcome"]["ok"] > 20
    seen = len(server.requests)

    store = open_store(tmp_path / "live" / "store")
    replay_policy = CrawlPolicy(egress=EgressPolicy(), mode="replay", store=store, workers=0)
    second = await crawl(server.url + "/", replay_policy, out_dir=tmp_path / "replay")
    assert len(server.requests) == seen  # not one request: the network was never used

    live = {p.url: p for p in first.pages if p.snapshot_sha256}
    again = {p.url: p for p in second.pages if p.snapshot_sha256}
    assert live.keys() == again.keys()
    for url, page in live.items():
        twin = again[url]
        assert twin.snapshot_sha256 == page.snapshot_sha256
        assert twin.source_ref == page.source_ref
        if page.markdown_path:
            a = (tmp_path / "live" / page.markdown_path).read_bytes()
            b = (tmp_path / "replay" / str(twin.markdown_path)).read_bytes()
            assert a == b
            a = (tmp_path / "live" / str(page.evidence_path)).read_bytes()
            b = (tmp_path / "replay" / str(twin.evidence_path)).read_bytes()
            assert a == b
    # the replay directory is self-contained: its own store resolves every reference
    mirror = open_store(tmp_path / "replay" / "store")
    for page in again.values():
        assert mirror.get(str(page.source_id), str(page.snapshot_sha256)).bytes
    # robots.txt denied these live; replay says so too (not "not-in-store")
    denied = {p.url for p in first.pages if p.outcome == "denied"}
    assert denied
    replayed = {p.url: p for p in second.pages}
    for url in denied:
        assert replayed[url].outcome == "denied", replayed[url]
        assert replayed[url].error is not None and replayed[url].error.kind == "robots-denied"
    assert not [p for p in second.pages if p.error and p.error.kind == "not-in-store"]
    assert mirror.latest(source_id_for_url(server.url + "/robots.txt")) is not None


def test_replay_from_the_command_line(
        make_demo_server: Callable[..., DemoServer], tmp_path: Path) -> None:
    server = make_demo_server(pages=5)
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    subprocess.run(cli(server.url, tmp_path / "a"), check=True, env=env, timeout=120)
    seen = len(server.requests)
    subprocess.run([sys.executable, "-m", "pressmark", "crawl", server.url + "/", "--out",
                    str(tmp_path / "b"), "--replay", "--store", str(tmp_path / "a" / "store"),
                    "--no-markdown", "--quiet", "--workers", "0"],
                   check=True, env=env, timeout=120)
    assert len(server.requests) == seen
    a = {json.loads(x)["url"]: json.loads(x)["snapshot_sha256"]
         for x in (tmp_path / "a" / "pages.jsonl").read_text().splitlines()}
    b = {json.loads(x)["url"]: json.loads(x)["snapshot_sha256"]
         for x in (tmp_path / "b" / "pages.jsonl").read_text().splitlines()}
    assert {u: h for u, h in a.items() if h} == {u: h for u, h in b.items() if h}


def test_ctrl_c_stops_gracefully_and_writes_the_manifest(
        make_demo_server: Callable[..., DemoServer], tmp_path: Path) -> None:
    server = make_demo_server(pages=60)
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    out = tmp_path / "out"
    proc = subprocess.Popen(cli(server.url, out, "--delay-ms", "30"), env=env)
    pages = out / "pages.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (pages.exists() and pages.read_text()):
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 5
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is False and manifest["stop_reason"] == "interrupted"
    assert manifest["summary"]["pages"] == len(page_urls(out))


def test_replay_in_place_rederives_the_directory(
        make_demo_server: Callable[..., DemoServer], tmp_path: Path) -> None:
    server = make_demo_server(pages=5)
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    out = tmp_path / "a"
    subprocess.run(cli(server.url, out), check=True, env=env, timeout=120)
    before = sorted(page_urls(out))
    subprocess.run([sys.executable, "-m", "pressmark", "crawl", server.url + "/", "--out",
                    str(out), "--replay", "--no-markdown", "--quiet", "--workers", "0"],
                   check=True, env=env, timeout=120)
    assert sorted(page_urls(out)) == before
