"""The LangChain and LlamaIndex loaders with the real ``langchain-core`` and
``llama-index-core``: the demo site on loopback, and seeds that resolve to denied
addresses (a tripwire listening where they point proves nothing was dialled)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from langchain_core.documents import Document as LcDocument
from llama_index.core.schema import Document as LiDocument
from llama_index.core.schema import MetadataMode
from tripwire import Tripwire

from pressmark.cite import verify_quote
from pressmark.cli import main
from pressmark.crawl import CrawlPolicy
from pressmark.demo import DemoServer
from pressmark.egress import EgressDenied, EgressPolicy, StaticResolver
from pressmark.integrations.langchain import PressmarkLoader
from pressmark.integrations.llamaindex import PressmarkReader
from pressmark.store import open_store

FIELDS = {"source_ref", "chunk_id", "url", "fetched_at", "title", "validation", "index",
          "heading_path", "markdown_span", "dom_paths"}


def cli_chunk_ids(out: Path, max_chars: int) -> list[str]:
    result = CliRunner().invoke(main, ["chunks", str(out), "--max-chars", str(max_chars)])
    assert result.exit_code == 0, result.output
    return [json.loads(line)["chunk_id"] for line in result.stdout.splitlines()]


def by_url(docs: list[LcDocument]) -> dict[str, list[tuple[str | None, str]]]:
    out: dict[str, list[tuple[str | None, str]]] = {}
    for doc in docs:
        out.setdefault(doc.metadata["url"], []).append((doc.id, doc.page_content))
    return out


def test_langchain_loader_crawls_the_demo_site(demo_server: DemoServer, demo_origin: str,
                                               tmp_path: Path) -> None:
    out = tmp_path / "crawl"
    loader = PressmarkLoader(demo_origin + "/", out_dir=out, max_depth=1, max_pages=8,
                             max_chars=600, allow_loopback=[demo_origin])
    docs = loader.load()  # no event loop here: asyncio.run
    assert len(docs) > 8 and all(isinstance(d, LcDocument) for d in docs)
    assert len({d.metadata["url"] for d in docs}) > 3
    for doc in docs:
        assert set(doc.metadata) >= FIELDS
        assert doc.metadata["source_ref"].startswith("pressmark:snapshot:v1?")
        assert isinstance(doc.metadata["validation"], dict)
    assert len({d.id for d in docs}) == len(docs)  # unique within a load
    # the same chunks and ids as `pressmark chunks` on the crawl it wrote
    assert [d.metadata["chunk_id"] for d in docs] == cli_chunk_ids(out, 600)
    # each document's source_ref resolves offline, its text exactly there
    store = open_store(out / "store")
    doc = max(docs, key=lambda d: len(d.page_content))
    check = verify_quote(doc.metadata["source_ref"], doc.page_content, store)
    assert check.verdict == "exact" and check.match is not None
    assert check.match.text == doc.page_content
    # a recrawl into the same directory (pages not modified) gives the same documents
    # (which 8 pages a crawl reaches first may differ: compared page by page)
    second = loader.load()
    again, first = by_url(second), by_url(docs)
    assert len(again.keys() & first.keys()) > 3
    assert all(again[u] == first[u] for u in again.keys() & first.keys())
    # reading the crawl directory fetches nothing and gives them again
    mark = len(demo_server.requests)
    read = PressmarkLoader(crawl_dir=out, max_chars=600).load()
    assert len(demo_server.requests) == mark
    assert [d.id for d in read] == [d.id for d in second]


async def test_llamaindex_reader_on_the_demo_site(demo_server: DemoServer, demo_origin: str,
                                                  tmp_path: Path) -> None:
    reader = PressmarkReader(out_dir=tmp_path / "crawl", max_chars=500,
                             allow_loopback=[demo_origin])
    docs = await reader.aload_data([demo_origin + "/", demo_origin + "/about"])
    assert docs and all(isinstance(d, LiDocument) for d in docs)
    assert {d.metadata["url"] for d in docs} == {demo_origin + "/", demo_origin + "/about"}
    doc = docs[0]
    assert set(doc.metadata) >= FIELDS
    # flat metadata (what LlamaIndex's vector stores keep): structure as JSON text
    assert all(isinstance(v, (str, int, float, type(None))) for v in doc.metadata.values())
    assert json.loads(doc.metadata["heading_path"]) is not None
    assert json.loads(doc.metadata["validation"])["passed"] in (True, False)
    embedded = doc.get_content(MetadataMode.EMBED)
    assert doc.metadata["chunk_id"] not in embedded and doc.metadata["source_ref"] not in embedded
    assert doc.text in embedded
    # the sync API inside a running loop crawls on a thread of its own
    sync = PressmarkReader(crawl_dir=tmp_path / "crawl", max_chars=500).load_data()
    assert [d.id_ for d in sync] == [d.id_ for d in docs]
    assert [d.metadata["chunk_id"] for d in docs] == cli_chunk_ids(tmp_path / "crawl", 500)


@pytest.mark.parametrize("answer", ["127.0.0.1", "10.20.30.40", "169.254.169.254"])
async def test_a_seed_resolving_to_a_private_address_is_denied_unfetched(
        answer: str, tmp_path: Path) -> None:
    trip = Tripwire("127.0.0.1")
    resolver = StaticResolver({"intranet.test": [answer]})
    url = f"http://intranet.test:{trip.port}/"
    out = tmp_path / "out"
    # the tripwire's port is allowed: what is denied is the address
    policy = CrawlPolicy(egress=EgressPolicy(allowed_ports=(80, 443, trip.port)),
                         render="never", workers=0)
    with pytest.raises(EgressDenied) as denied:
        PressmarkLoader(url, out_dir=out, resolver=resolver, policy=policy).load()
    assert denied.value.code == "DENIED_ADDRESS"
    with pytest.raises(EgressDenied) as denied:
        await PressmarkReader(url, out_dir=out, resolver=resolver, policy=policy).aload_data()
    assert denied.value.code == "DENIED_ADDRESS"
    with pytest.raises(EgressDenied):
        [d async for d in PressmarkLoader(url, out_dir=out, resolver=resolver,
                                          policy=policy).alazy_load()]
    assert resolver.calls == ["intranet.test"] * 3  # looked up, never dialled
    assert trip.dials == []
    assert not out.exists()  # nothing written either


def test_a_loopback_address_itself_is_denied_without_allow_loopback(tmp_path: Path) -> None:
    trip = Tripwire("127.0.0.1")
    with pytest.raises(EgressDenied):
        PressmarkReader(out_dir=tmp_path / "o").load_data(trip.origin + "/")
    assert trip.dials == []


def test_bad_arguments() -> None:
    for bad in ({}, {"urls": "http://a.test/", "crawl_dir": "x"}, {"urls": [""]},
                {"urls": "http://a.test/", "max_chars": 10},
                {"urls": "http://a.test/", "overlap": -1}):
        with pytest.raises(ValueError):
            PressmarkLoader(**bad).load()  # type: ignore[arg-type]
