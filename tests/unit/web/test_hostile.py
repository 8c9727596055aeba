"""Hostile requests and captures: bad row numbers, declarative shadow DOM."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from pressmark.web._inert import capture_tree


@pytest.mark.parametrize("path", [
    "/page/99999999999999999999", "/history/99999999999999999999",
    "/raw/99999999999999999999/" + "0" * 64, "/page/abc", "/page/-1",
])
def test_bad_rows_are_404_with_security_headers(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert "content-security-policy" in response.headers
    assert response.headers["x-content-type-options"] == "nosniff"


def test_shadow_root_templates_stay_inert() -> None:
    html = ('<div><template shadowrootmode="open"><iframe src="http://127.0.0.1:9/x">'
            '</iframe></template></div><template shadowroot="open"><p>x</p></template>'
            '<object data="http://127.0.0.1:9/o"></object><embed src="http://127.0.0.1:9/e">')
    nodes = capture_tree(html)["nodes"]
    # a template's content is never sent (a shadow root would be built from it)
    assert not any(len(n) == 4 and n[2] == "iframe" for n in nodes)
    assert not any(len(n) == 2 and n[1] == "x" for n in nodes)
    attrs = {n[2]: dict(n[3]) for n in nodes if len(n) == 4}
    assert attrs["object"] == {"data-pressmark-data": "http://127.0.0.1:9/o"}
    assert attrs["embed"] == {"data-pressmark-src": "http://127.0.0.1:9/e"}
