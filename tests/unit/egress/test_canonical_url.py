"""egress.canonical_url is the crawler's canonical form (one URL model for crawl and import)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pressmark.crawl._canonical import canonicalize_url
from pressmark.egress import EgressDenied, canonical_url, parse_url

PIECES = st.text(st.sampled_from("aZ09-._~%2fE7e!$&'()*+,;=:@/?#[] \u00e9\u2713\\"), max_size=30)


@settings(max_examples=400, deadline=None)
@given(host=st.sampled_from(["example.test", "EXAMPLE.test", "127.1", "xn--fa-hia.de",
                             "faß.de", "[::1]"]),
       port=st.sampled_from(["", ":80", ":8080"]), rest=PIECES)
def test_canonical_url_is_what_the_crawler_files_a_url_under(host: str, port: str,
                                                              rest: str) -> None:
    url = f"HTTP://{host}{port}/{rest}"
    try:
        parsed = parse_url(url)
    except EgressDenied:
        assert canonicalize_url(url) is None
        return
    canonical = canonical_url(parsed)
    assert canonical == canonicalize_url(url)
    assert canonical_url(parse_url(canonical)) == canonical  # idempotent
