"""A small, immutable-by-convention element tree built from Lexbor's DOM.

Lexbor (via selectolax) builds the same tree a browser builds (HTML5 tree
construction). We copy the visible part of ``<body>`` into plain Python objects
once, because selection walks the tree several times and attribute access on
slotted objects is cheaper than crossing into C for every look.

What is left out on purpose: scripts, styles, templates, form controls, embedded
objects, comments, and anything hidden from a reader (``hidden``,
``aria-hidden="true"``, inline styles and ``<style>`` rules that hide: ``_hidden``
decides and notes each, for the evidence's ``hidden_text``). That one
rule also implements "tabs -> the active panel" (inactive panels are hidden) and
"accordions -> expanded sections" (a closed ``<details>`` keeps its
``<summary>`` only).

Every visible element is copied, however deep it sits: the parse bounds the depth
(``_bounded``), and no pass over this tree recurses on it (the converter enters plain
containers in place and caps the nesting of the structures it recurses into, ``_convert``),
so a page nested hundreds of ``<div>`` deep keeps its headings, lists and paragraphs.

Obvious chrome is not copied either: landmark tags and roles (``nav``, ``aside``,
``footer``, ``role=navigation`` ...) and elements whose class/id words are strong
chrome signals (cookie, share, newsletter, related, comments, ads), as long as their
text is small next to the page's. Their size is still charged against the parent
(``Node.chrome``) so selection weighs them as if they were there, and the rule
names end up in the evidence.
"""

from __future__ import annotations

from pressmark.markdown._boilerplate import id_rule, words_rule
from pressmark.markdown._bounded import parse_page
from pressmark.markdown._dom import HIDING, INFO_BITS, NAMED, ROLE, Tree
from pressmark.markdown._hidden import HiddenWatch, has_style, read_sheet
from pressmark.markdown._rawcut import RawCut

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Any, Final

_DROP: Final = frozenset((
    "script", "style", "noscript", "template", "head", "title", "meta", "link", "base", "svg",
    "math", "iframe", "frame", "frameset", "object", "embed", "canvas", "audio", "video",
    "source", "track", "param", "map", "area", "select", "option", "optgroup",
    "input", "textarea", "datalist", "output", "progress", "meter", "noembed", "noframes",
    "slot", "dialog"
))
DROPPED: Final = _DROP  # what a hidden element's listed text leaves out too (``_hidden``)
# ``<button>`` is copied when selection runs: an application keeps its content inside
# controls (an API explorer's operations: method, path, summary); a button that is a
# label ("Share", "Next") is pruned as one (``_prune``). Its text counts as link text: a
# control, like a link, is a way to act, not running text.
_DROP_ALL: Final = _DROP | {"button"}

BLOCK_TAGS: Final = frozenset((
    "address", "article", "aside", "blockquote", "body", "center", "dd", "details", "dir",
    "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3",
    "h4", "h5", "h6", "header", "hgroup", "hr", "li", "main", "menu", "nav", "ol", "p", "pre",
    "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
    "caption", "html", "legend", "search"
))

HEADINGS: Final = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
# chars: the longest ``Node.text`` kept once built, the longest block the text rules read
# (``_text_rules.COOKIE_MAX``): at most this much a copied element, whatever the page
TEXT_MEMO_MAX: Final = 600


class Node:
    """One element. ``children`` holds ``Node`` objects and raw text strings.

    ``attrs`` is Lexbor's attribute dict as is: valueless attributes map to None,
    so read values with ``attr()``.

    Set by ``parse``: ``text_len`` (collapsed text chars in the subtree), ``link_len``
    (of which inside ``<a>``), ``own_len`` / ``own_link`` (the same for the text whose
    nearest block ancestor is this element) and ``blocky`` (a block-level descendant).
    Set by selection (``_score``): ``score`` (content weight of the subtree), ``pos``
    (its positive part), ``prose`` (chars of link-poor prose blocks outside chrome),
    ``entry`` (chars of short link-heavy blocks outside chrome: a listing's entries) and
    ``bad`` (the boilerplate rule the element matched).
    """

    __slots__ = (
        "attrs", "bad", "blocky", "children", "chrome", "depth", "elems", "entry", "idx",
        "link_len", "nth", "own_len", "own_link", "parent", "pos", "prose", "removed", "score",
        "tag", "text_len", "text_memo",
    )
    text_len: int
    link_len: int
    own_len: int
    own_link: int
    blocky: bool
    score: float
    pos: float
    prose: int
    entry: int
    bad: str | None

    def __init__(  # noqa: PLR0917 - built once per element: positional calls are cheaper
        self, tag: str, attrs: dict[str, str | None], parent: Node | None, nth: int,
        depth: int, idx: int,
    ) -> None:
        # Only what the copy itself reads is set here: ``parse`` sets the text sizes
        # (``text_len``, ``link_len``, ``own_len``, ``own_link``, ``blocky``) and selection
        # the weights (``score``, ``pos``, ``prose``, ``entry``, ``bad``) of every element,
        # and a slot stored twice per element is a cost paid a few thousand times per page.
        self.tag = tag
        self.attrs = attrs
        self.parent = parent
        self.nth = nth                # position among same-tag siblings (CSS nth-of-type)
        self.depth = depth
        self.idx = idx                # creation order: parents before children
        self.children: list[Node | str] = []
        self.elems: list[Node] = []   # the element children only
        self.removed: str | None = None  # rule that pruned it from the output
        self.chrome = 0               # text size of chrome children skipped while copying
        self.text_memo: str | None = None  # ``text()``, once asked (the tree is not changed)

    def attr(self, name: str) -> str:
        value = self.attrs.get(name)
        return value if value is not None else ""

    def css_path(self) -> str:
        parts: list[str] = []
        node: Node | None = self
        while node is not None:
            parts.append(f"{node.tag}:nth-of-type({node.nth})" if node.nth else node.tag)
            node = node.parent
        return " > ".join(reversed(parts))

    def text(self) -> str:
        """Collapsed plain text of the subtree (pruned parts included).

        Built once per element and kept: selection, pruning and sections ask the same
        blocks' texts again (a third of the characters built were built before), and the
        copy is never changed once made (pruning only marks ``removed``). Only a short
        text is kept (``TEXT_MEMO_MAX``): the rules that ask again read short blocks, and
        the texts of a deep nest of elements, each a little longer than the one inside,
        must not all stay in memory at once."""
        text = self.text_memo
        if text is None:
            text = self._build_text()
            if len(text) <= TEXT_MEMO_MAX:
                self.text_memo = text
        return text

    def _build_text(self) -> str:
        node = self
        # wrappers around one element and no text of their own have its text (the space
        # a block adds at the ends is collapsed away): skipped, so asking every level of
        # a deep chain of them costs a hop per level, not a walk of the chain below
        while len(node.elems) == 1 and node.elems[0].text_len == node.text_len:
            node = node.elems[0]
        if node is not self:
            return node.text()
        if not self.elems:  # only strings below (most calls): the walk would join them
            return " ".join("".join(self.children).split())  # type: ignore[arg-type]
        out: list[str] = []
        stack: list[Node | str] = [self]
        blocks = BLOCK_TAGS
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
            else:
                if item.tag in blocks or item.tag == "br":
                    out.append(" ")
                children = item.children
                i = len(children)
                while i > 0:
                    i -= 1
                    stack.append(children[i])
        return " ".join("".join(out).split())

    def iter(self) -> list[Node]:
        """Elements of the subtree in document order (self first)."""
        if not self.elems:
            return [self]
        out: list[Node] = []
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            out.append(node)
            elems = node.elems
            i = len(elems)
            while i > 0:
                i -= 1
                stack.append(elems[i])
        return out


class Document:
    """The parsed page: the Lexbor tree (for ``<head>``) and our body tree."""

    __slots__ = ("body", "cut", "hidden", "limits", "nodes", "parser", "skipped", "tree")

    def __init__(self, tree: Tree, body: Node, nodes: list[Node], cut: RawCut) -> None:
        self.tree = tree              # the reader of Lexbor's tree (``_dom``)
        self.parser = tree.parser
        self.cut = cut                # script/style bodies Lexbor did not see (``_rawcut``)
        self.body = body
        self.skipped: set[str] = set()  # landmark chrome rules applied while copying
        self.nodes = nodes            # every element, parents before children
        self.limits: tuple[str, ...] = ()  # parse-limit:* caps the page was cut to
        self.hidden = HiddenWatch(None)  # hidden elements left out (``_hidden``)

    def release(self) -> None:
        """Break the links down the tree once the page is converted.

        WHY: parent and child links make every page's tree one big reference cycle, which
        only the cyclic collector frees, and until it does its passes keep walking the dead
        pages (about a tenth of a batch's CPU). Without the cycle, reference counting frees
        the tree as soon as the last block lets go of it. The links up stay: a block's
        element still knows its ancestors, which the block map (``_blockmap``) reads as
        its path when asked, and keeps alive only them, without their texts.
        """
        for node in self.nodes:
            node.children.clear()
            node.elems.clear()
            node.text_memo = None


# Chrome (landmark tags and roles, chrome-named class/id words; see ``_boilerplate``) is
# not copied at all when it is small next to the page. The C-level text length decides,
# so a misused <aside> or a "sidebar"-named wrapper around the article is still kept.
_CHROME_TAGS: Final = {"nav": "exclude_nav", "aside": "exclude_aside",
                       "footer": "exclude_footer"}
_CHROME_ROLES: Final = {"navigation": "exclude_nav", "contentinfo": "exclude_footer",
                        "complementary": "exclude_aside", "banner": "exclude_site_header",
                        "dialog": "exclude_dialog", "alertdialog": "exclude_dialog",
                        "menubar": "exclude_nav", "search": "exclude_nav"}
# class/id words strong enough to skip on sight; layout words ("rail", "sidebar", "menu")
# also name wrappers, so those only weigh against an element later (``_select``)
_STRONG_WORD_RULES: Final = frozenset((
    "exclude_cookie_banner", "exclude_dialog", "exclude_share", "exclude_subscribe",
    "exclude_related", "exclude_comments", "exclude_ads"))
CHROME_SHARE: Final = 0.3
# chars of paragraphs that make a chrome-named element too much to skip unseen: a long
# run of prose is weighed by selection, whatever the element's name and however small it
# is next to the page (a mega-menu of thousands of links makes an article look small)
PLACE_PROSE: Final = 1000
PLACE_PARAGRAPH: Final = 80    # chars: a paragraph this long is prose


def parse(html: str | None, *, skip_chrome: bool = True, utf8: bytes | None = None,
          cut: bool = True, native: bool = True, keep_hidden: bool = False) -> Document:
    """``utf8``: ``html`` encoded as UTF-8, when the caller has those bytes (``parse_html``);
    ``html`` may then be None (``parse_page``).

    ``cut``: Lexbor skips script and style bodies (``_rawcut``); the caller verifies the
    cut against the tree (``Document.cut``) and parses again without it if it fails.
    ``native``: read Lexbor's tree through the C reader when it is there (``_dom``).
    ``keep_hidden``: hidden elements stay in the tree, still noted (``_hidden``).
    """
    parser, limits, raw = parse_page(html, utf8=utf8, cut=cut)
    tree = Tree(parser, native=native)
    lex_body = parser.body
    body = Node("body", {}, None, 0, 0, 0)
    nodes: list[Node] = [body]
    skipped: set[str] = set()
    sheet = None
    if has_style(html if html is not None else utf8):
        sheet = read_sheet([raw.piece(node.text(deep=True)) for node in parser.tags("style")])
    watch = HiddenWatch(sheet, keep=keep_hidden)
    if lex_body is not None:
        body.attrs = lex_body.attributes
        _build(tree, tree.handle(lex_body), body, nodes, skipped,
               skip_chrome=skip_chrome, cut=raw, watch=watch)
    else:
        body.text_len = body.link_len = body.own_len = body.own_link = 0
    _measure(nodes)
    doc = Document(tree, body, nodes, raw)
    doc.hidden = watch
    doc.skipped = skipped
    doc.limits = limits
    return doc


class _ChromeLimit:
    """``CHROME_SHARE`` of the body's visible text, the size below which chrome is skipped.

    Measured when the first chrome candidate needs it: the measure walks the whole body,
    and a page with no candidate (about one in five) never pays for it.
    """

    __slots__ = ("cut", "root", "tree", "value")

    def __init__(self, tree: Tree, root: Any, cut: RawCut) -> None:
        self.tree = tree
        self.root = root
        self.cut = cut
        self.value: int | None = None

    def get(self) -> int:
        if self.value is None:
            self.value = int(CHROME_SHARE * self.tree.visible_size(self.root, self.cut))
        return self.value


def _chrome(lex: Any, tag: str, attrs: dict[str, str | None], parent_tag: str,
            chrome_limit: _ChromeLimit) -> tuple[str, int] | None:
    rule = _CHROME_TAGS.get(tag)
    if rule is None:
        role = attrs.get("role")
        if role:
            rule = _CHROME_ROLES.get(role.strip().lower())
        if rule is None:
            if tag not in BLOCK_TAGS:
                return None  # inline: its class may only style a few words of a sentence
            value = attrs.get("id")
            if not (value and (rule := id_rule(value)) in _STRONG_WORD_RULES):
                value = attrs.get("class")
                if not (value and (rule := words_rule(value)) in _STRONG_WORD_RULES):
                    return None
    elif tag == "footer" and parent_tag in ("blockquote", "figure"):
        return None  # a quotation's attribution
    limit = chrome_limit.get()
    if limit < 0:
        return None  # more script than text (a script inside a noscript counts twice)
    tree = chrome_limit.tree
    cut = chrome_limit.cut
    size = tree.text_size(lex, cut)  # scripts inside only make chrome look bigger: safe
    if size >= limit or (size >= PLACE_PROSE
                         and tree.prose_size(lex, PLACE_PARAGRAPH, cut) >= PLACE_PROSE):
        return None  # big, or full of paragraphs: selection weighs it instead
    return rule, size


def _build(tree: Tree, lex_root: Any, root: Node, nodes: list[Node], skipped: set[str], *,
           skip_chrome: bool, cut: RawCut, watch: HiddenWatch) -> None:
    """Copy the visible elements; ``nodes`` gets them parents-first (creation order).

    Each element's own text (its text children, collapsed) is measured here, where the
    strings are at hand; ``_measure`` adds up the subtrees.
    """
    # Typed locals and direct calls on typed lists: compiled (mypyc), a ``str`` or a
    # ``list`` gets C-level operations, where a value from Lexbor (``Any``) or a cached
    # bound method takes a generic call each time.
    stack: list[tuple[Any, Node]] = [(lex_root, root)]
    # module globals are dictionary lookups, locals are not; without selection nothing
    # tells a button that is content from a label, and buttons go as they always did
    drop = _DROP if skip_chrome else _DROP_ALL
    blocks = BLOCK_TAGS
    chrome_tags = _CHROME_TAGS
    strong = _STRONG_WORD_RULES
    limit = _ChromeLimit(tree, lex_root, cut)
    # the names ``HiddenWatch.wants`` asks of an element (inline): hiding attributes, and
    # class or id when the page's sheets hide by them
    sheet = watch.sheet
    wanted = HIDING | NAMED if sheet is not None else HIDING
    while stack:
        lex, parent = stack.pop()
        summary_only = parent.tag == "details" and "open" not in parent.attrs
        children = parent.children
        elems = parent.elems
        depth = parent.depth + 1
        # dropped tags come without attributes, and are not counted: ``info`` numbers
        # each element among its listed siblings of its tag; ``own`` is the text
        # children's collapsed size (indentation between tags adds nothing)
        own, entries = tree.level(lex, drop)
        for item in entries:
            if isinstance(item, str):
                if not summary_only and item:
                    text: str = item
                    children.append(text)
                continue
            tag, attrs, child, info = item
            if summary_only and tag != "summary":
                continue
            if info & wanted:
                # (without a hiding attribute only the sheets' rules can hide it)
                why = watch.reason(tag, attrs, parent) if info & HIDING or sheet is None \
                    else sheet.reason(tag, attrs)
                if why is not None:  # left out, and noted (``_hidden``)
                    watch.note(parent, tag, info >> INFO_BITS, why, child, attrs=attrs)
                    if not watch.keep:
                        continue
            # only these can be chrome (``_chrome``: an inline element only by its role,
            # a block by a strong id or class word, asked here first: the memoised rules
            # are cheap, and most elements are spared the call)
            if skip_chrome and (tag in chrome_tags or info & ROLE or (
                    info & NAMED and tag in blocks and (
                        ((value := attrs.get("id")) and id_rule(value) in strong)
                        or ((value := attrs.get("class"))
                            and words_rule(value) in strong)))) and (
                    found := _chrome(child, tag, attrs, parent.tag, limit)):
                skipped.add(found[0])
                parent.chrome += found[1]  # still weighs against its container
                continue
            node = Node(tag, attrs, parent, info >> INFO_BITS, depth, len(nodes))
            nodes.append(node)
            children.append(node)
            elems.append(node)
            stack.append((child, node))
        _own_text(parent, 0 if summary_only else own)


def _own_text(node: Node, size: int) -> None:
    """The sizes of an element's own text children (``_measure`` adds the subtrees)."""
    node.text_len = node.own_len = size
    node.link_len = node.own_link = size if _is_link(node) else 0


def _is_link(node: Node) -> bool:
    """An ``<a>`` with an ``href`` (one without is a placeholder: a named anchor, which
    the parser may stretch over a whole section when its end tag is missing), or a
    ``<button>``."""
    return (node.tag == "a" and "href" in node.attrs) or node.tag == "button"


def _measure(nodes: list[Node]) -> None:
    """Bottom-up text and link lengths; ``own_*`` go to the nearest block ancestor.

    Each element starts from its own text's sizes (``_build``), so only the element
    children are walked here.
    """
    blocks = BLOCK_TAGS
    for node in reversed(nodes):
        total = node.text_len
        links = node.link_len
        own = node.own_len
        own_link = node.own_link
        blocky = False
        is_link = _is_link(node)
        for child in node.elems:
            total += child.text_len
            links += child.text_len if is_link else child.link_len
            if child.tag in blocks:
                blocky = True
            else:
                blocky = blocky or child.blocky
                own += child.own_len
                own_link += child.text_len if is_link else child.own_link
        if node.tag == "pre":
            # links in a code listing are cross-references (an API's types, a
            # function's name), part of the code, not a way off the page
            links = own_link = 0
        node.text_len = total
        node.link_len = links
        node.own_len = own
        node.own_link = own_link
        node.blocky = blocky


def first_h1(body: Node) -> str | None:
    """The text of the first non-empty ``<h1>`` in document order (a walk that stops there).

    Here, compiled, and not beside its callers in ``_api`` (interpreted): on a page
    without a heading the walk visits every element, and as Python it cost about a
    fiftieth of such a page's conversion.
    """
    stack: list[Node] = [body]
    while stack:
        node = stack.pop()
        if node.tag == "h1" and node.text_len:
            return node.text()
        elems = node.elems
        i = len(elems)
        while i > 0:
            i -= 1
            stack.append(elems[i])
    return None


def precedes(a: Node, b: Node) -> bool:
    """``a`` comes before ``b`` in document order (an ancestor before its descendants).

    Siblings were created in document order, so their ``idx`` orders them.
    """
    a_path = _path(a)
    b_path = _path(b)
    for a_node, b_node in zip(a_path, b_path, strict=False):
        if a_node is not b_node:
            return a_node.idx < b_node.idx
    return len(a_path) < len(b_path)


def _path(node: Node) -> list[Node]:
    """The ancestors of ``node`` from the root down, and ``node``."""
    path: list[Node] = []
    step: Node | None = node
    while step is not None:
        path.append(step)
        step = step.parent
    path.reverse()
    return path
