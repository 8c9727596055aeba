"""The MCP tools without the SDK: hostile DNS through the resolver seam, every dial recorded.

``PressmarkTools`` takes the egress seams, so names that resolve to the metadata
address or a private network can be tested without a real lookup, and the
``RecordingConnector`` lists every address pressmark asked to connect to (and refuses
any that is not loopback, so a bug could not send a packet off the machine).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from tripwire import Redirector

from pressmark.egress import StaticResolver
from pressmark.markdown import to_markdown
from pressmark.mcp import McpOptions, PressmarkTools
from pressmark.mcp._options import MARKDOWN_PAGE_BYTES
from pressmark.mcp._tools import ToolFailure
from pressmark.snapshot import build_source_ref
from pressmark.store import FilesystemSnapshotStore
from pressmark.testing import RecordingConnector, make_snapshot

HOSTILE = StaticResolver({
    "metadata.example": ["169.254.169.254"],
    "intranet.example": ["10.0.0.7"],
    "rebind.example": ["93.184.216.34", "192.168.0.1"],   # one public, one private answer
    "v6.example": ["fd00::1"],
})


def tools_for(tmp_path: Path, *origins: str, **options: object) -> PressmarkTools:
    opts = McpOptions(store_dir=tmp_path / "store", allow_loopback=origins, render="never",
                      **options)  # type: ignore[arg-type]
    return PressmarkTools(opts, resolver=HOSTILE, connector=RecordingConnector())


@pytest.mark.parametrize("url", ["http://metadata.example/latest/meta-data/",
                                 "http://intranet.example/admin", "http://rebind.example/",
                                 "http://v6.example/"])
async def test_names_that_resolve_inside_are_denied_before_any_dial(
    tmp_path: Path, url: str,
) -> None:
    tools = tools_for(tmp_path)
    try:
        with pytest.raises(ToolFailure) as fetched:
            await tools.fetch_page(url)
        with pytest.raises(ToolFailure) as crawled:
            await tools.crawl_site(url)
    finally:
        await tools.aclose()
    assert fetched.value.code == crawled.value.code == "DENIED_ADDRESS"
    assert fetched.value.kind == "egress-denied"
    assert tools.connector.dials == []  # type: ignore[union-attr]


async def test_a_redirect_to_a_name_inside_is_denied_at_that_hop(tmp_path: Path) -> None:
    hostile = Redirector({"metadata": "http://metadata.example/latest/meta-data/",
                          "intranet": "http://intranet.example:80/"})
    tools = tools_for(tmp_path, hostile.origin)
    try:
        codes = []
        for name in ("metadata", "intranet"):
            with pytest.raises(ToolFailure) as info:
                await tools.fetch_page(f"{hostile.origin}/to/{name}")
            codes.append(info.value.code)
    finally:
        await tools.aclose()
        hostile.close()
    assert codes == ["DENIED_ADDRESS", "DENIED_ADDRESS"]
    dialled = {ip for ip, _ in tools.connector.dials}  # type: ignore[union-attr]
    assert dialled == {"127.0.0.1"}   # the redirector (robots.txt, pages), nothing else


async def test_one_client_and_robots_cache_serve_every_call(
    tmp_path: Path, demo_origin: str, demo_site: object,
) -> None:
    tools = tools_for(tmp_path, demo_origin)
    paths = demo_site.paths_of_kind("article")[:3]  # type: ignore[attr-defined]
    try:
        for path in paths:
            page = await tools.fetch_page(demo_origin + path)
            assert page["status"] == 200 and page["validation"]["passed"]
    finally:
        await tools.aclose()
    # keep-alive and one robots.txt: a single connection for robots and three pages
    assert len(tools.connector.dials) == 1  # type: ignore[union-attr]


async def test_long_markdown_comes_in_pieces_that_join_back(tmp_path: Path) -> None:
    paragraphs = "".join(f"<p>Paragraph {i} of a long page, with enough words to count as "
                         f"prose for the extractor and the validator alike.</p>"
                         for i in range(3000))
    html = f"<html><head><title>Long</title></head><body><main><h1>Long</h1>{paragraphs}" \
           "</main></body></html>"
    url = "https://example.org/long"
    snapshot = make_snapshot("long-page", url, html.encode("utf-8"))
    FilesystemSnapshotStore(tmp_path / "store").put(snapshot)
    ref = build_source_ref(snapshot)
    tools = tools_for(tmp_path)
    pieces, offset = [], 0
    while offset is not None:
        piece = await tools.read_markdown(ref, offset)
        assert len(piece["markdown"].encode("utf-8")) <= MARKDOWN_PAGE_BYTES
        pieces.append(piece["markdown"])
        offset = piece["next_offset"]
    expected = to_markdown(html, url=url).markdown
    assert len(pieces) > 1 and "".join(pieces) == expected
    assert all(p.endswith("\n") for p in pieces[:-1])   # cut at line breaks


async def test_a_call_never_outlives_the_servers_time_limit(
    tmp_path: Path, fault_server: object,
) -> None:
    origin = fault_server.url  # type: ignore[attr-defined]
    tools = tools_for(tmp_path, origin, call_timeout_s=1.5)
    started = time.monotonic()
    try:
        with pytest.raises(ToolFailure) as info:
            await tools.fetch_page(origin + "/fault/slow-headers?seconds=60")
    finally:
        await tools.aclose()
    assert info.value.code == "timeout"
    assert time.monotonic() - started < 30  # the 1.5 s limit, not the server's 60 s


async def test_chunks_and_quotes_of_a_fetched_page(demo_server: object, demo_origin: str,
                                                   tmp_path: Path) -> None:
    tools = tools_for(tmp_path, demo_origin)
    try:
        page = await tools.fetch_page(demo_origin + "/")
        ref = page["source_ref"]
        # (fetch_page names the chunks get_chunks cuts at its default max_chars: the same
        # ids only with the same cut)
        got = await tools.get_chunks(ref)
        assert [c["chunk_id"] for c in got["chunks"]] == page["chunk_ids"][:len(got["chunks"])]
        assert got["untrusted_content"] is True and got["chunks"][0]["dom_paths"]
        read = await tools.read_markdown(ref)
        first = got["chunks"][0]
        start, end = first["markdown_span"]
        assert read["markdown"][start:end] == first["text"]
        quote = first["text"].split("\n")[-1][:60]
        exact = await tools.verify_quote(ref, quote)
        assert exact["verdict"] == "exact" and exact["untrusted_content"] is True
        assert exact["warnings"] == [] and exact["cited_policy_version"] is None
        older = await tools.verify_quote(ref, quote, "pressmark-md/2.4")
        assert older["verdict"] == "exact" and older["warnings"] == ["policy-changed"]
        assert older["cited_policy_version"] == "pressmark-md/2.4"
        missing = await tools.verify_quote(ref, "a sentence this page never held")
        assert missing["verdict"] == "not-found"
        with pytest.raises(ToolFailure) as failed:
            await tools.verify_quote(ref.replace("body_hash=", "body_hash=0"), "x")
        assert failed.value.code == "invalid-ref"
    finally:
        await tools.aclose()
