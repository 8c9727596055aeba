"""``is_canonical_url``: an absolute http(s) URL the parser would give back unchanged.

It restates the rules of the parser beside it (``_url``: host, percent-encode sets,
dot segments) as a shape. WHY a module of its own: the Markdown layer asks it of
every link before paying for a full parse, and on most pages every link passes, so
``pressmark md`` loads the parser (its regular expressions and the ``ParsedURL``
dataclass: 12 M instructions, 4 % of that command's start-up) only on the first page
that has a link of another shape, or a ``<base href>``.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

# A lower-case ASCII name (``_url._SIMPLE_DOMAIN``'s shape, no port), a path, and then
# query and fragment, each of characters the parser's percent-encode sets keep as they
# are (no backslash in the path, which it turns into "/").
# tests/unit/markdown/test_links.py holds this check to ``parse_url`` on real and
# hostile URLs.
_CANONICAL_SHAPE: Final = re.compile(
    r"https?://(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?\.)*[a-z_](?:[a-z0-9_-]*[a-z0-9_])?"
    r"/[!$-;=@-\[\]-_a-z|~]*(?:\?[!$-&(-;=?-~]*)?(?:#[!#-;=?-_a-~]*)?"
)


def is_canonical_url(url: str) -> bool:
    """Is ``parse_url(url).url`` provably ``url`` itself? (Most links on a page are.)

    Beyond the pattern: no ``xn--`` label (an A-label is checked by decoding it) and no
    path segment that starts with ``.`` or ``%2`` (every dot segment, ``%2e`` included,
    does, and only dot segments are rewritten). Then the parser strips nothing, finds
    this scheme, host and no port, encodes nothing and resolves no segment, and its
    serialisation is the string it was given.
    """
    if _CANONICAL_SHAPE.fullmatch(url) is None:
        return False
    path = url[url.index("/", 8):]
    return "xn--" not in url[:len(url) - len(path)] and "/." not in path and "/%2" not in path
