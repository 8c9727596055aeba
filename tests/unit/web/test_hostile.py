"""Hostile requests and captures: bad row numbers, declarative shadow DOM."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from pressmark.web._inert import display_html


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
    shown = display_html(html)
    assert "shadowrootmode=" not in shown.replace("data-pressmark-shadowrootmode=", "")
    assert " shadowroot=" not in shown
    assert 'data="' not in shown.replace('data-pressmark-data="', "")
    assert ' src="http://127.0.0.1:9/e"' not in shown
