"""Article content as plain data: the ground truth the HTML and the JSON are made from.

Blocks are JSON-ready dictionaries so a shell's API endpoint can send exactly what a
server-rendered article would show, and tests can compare extracted Markdown with
:meth:`ArticleContent.headings` and :meth:`ArticleContent.paragraphs`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from pressmark.demo import _text

# a run is ["t" | "em" | "strong" | "code", text] or ["a", text, href]
Run = list[str]
Block = dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class ArticleContent:
    title: str
    section: str
    author: str
    published: str  # ISO date
    summary: str
    blocks: tuple[Block, ...]

    def headings(self) -> list[str]:
        """Every heading below the title, in document order."""
        return [b["text"] for b in self.blocks if b["type"] in ("h2", "h3", "h4")]

    def paragraphs(self) -> list[str]:
        """The plain text of every paragraph, in document order."""
        return [runs_text(b["runs"]) for b in self.blocks if b["type"] == "p"]

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title, "section": self.section, "author": self.author,
            "published": self.published, "summary": self.summary, "blocks": list(self.blocks),
        }


def runs_text(runs: list[Run]) -> str:
    return "".join(run[1] for run in runs)


def _paragraph(rng: random.Random, links: list[tuple[str, str]]) -> Block:
    runs: list[Run] = []
    for index in range(rng.randint(2, 4)):
        if index:
            runs.append(["t", " "])
        text = _text.sentence(rng)
        style = rng.randrange(6)
        if style == 0 and links:
            path, _label = _text.pick(rng, links)
            words = text.split(" ")
            start = rng.randint(1, len(words) - 4)
            end = start + rng.randint(2, 3)
            runs += [["t", " ".join(words[:start]) + " "], ["a", " ".join(words[start:end]), path],
                     ["t", " " + " ".join(words[end:])]]
        elif style == 1:
            head, _, tail = text.partition(" ")
            runs += [["em", head], ["t", " " + tail]]
        elif style == 2:
            runs += [["t", text[:-1] + ", using "], ["code", "sum(values)"], ["t", "."]]
        elif style == 3:
            head, _, tail = text.partition(" ")
            runs += [["strong", head], ["t", " " + tail]]
        else:
            runs.append(["t", text])
    return {"type": "p", "runs": runs}


def _list(rng: random.Random, ordered: bool, depth: int = 0) -> Block:
    items: list[dict[str, Any]] = []
    for _ in range(rng.randint(2, 4)):
        item: dict[str, Any] = {"text": _text.heading(rng)}
        if depth == 0 and rng.random() < 0.35:
            item["children"] = _list(rng, not ordered, depth + 1)
        items.append(item)
    return {"type": "ol" if ordered else "ul", "items": items}


def _table(rng: random.Random) -> Block:
    places = rng.sample(_text.NOUNS, 3)
    rows = [[place.capitalize(), str(rng.randint(10, 99)), str(rng.randint(10, 99))]
            for place in places]
    return {
        "type": "table",
        "caption": f"Readings by {_text.pick(rng, _text.NOUNS)}",
        "head": [["Site", 1], ["Season", 2]],
        "subhead": ["", "Spring", "Autumn"],
        "rows": rows,
        "foot": [["Total", 1], [str(sum(int(r[1]) + int(r[2]) for r in rows)), 2]],
    }


def generate(
    seed: int, page_id: int, *, title: str, section: str, links: list[tuple[str, str]]
) -> ArticleContent:
    """The content of generated page ``page_id``; ``links`` are (path, label) targets."""
    rng = _text.rng_for(seed, page_id, "content")
    blocks: list[Block] = []
    lede = _paragraph(rng, [])
    lede["lede"] = True
    blocks.append(lede)
    sections = rng.randint(3, 5)
    features = ["list", "table", "code", "quote", "image"]
    rng.shuffle(features)
    # most pages carry every feature; some drop one so templates vary
    if rng.random() < 0.3:
        features.pop()
    for number in range(sections):
        blocks.append({"type": "h2", "text": _text.heading(rng)})
        for _ in range(rng.randint(1, 2)):
            blocks.append(_paragraph(rng, links))
        feature = features[number] if number < len(features) else None
        if feature == "list":
            blocks.append(_list(rng, ordered=rng.random() < 0.5))
        elif feature == "table":
            blocks.append(_table(rng))
        elif feature == "code":
            language, code = _text.pick(rng, _text.CODE_SNIPPETS)
            blocks.append({"type": "code", "language": language, "text": code})
        elif feature == "quote":
            blocks.append({"type": "quote", "text": _text.sentence(rng),
                           "cite": _text.person(rng)})
        elif feature == "image":
            noun = _text.pick(rng, _text.NOUNS)
            blocks.append({"type": "img", "src": f"/img/{page_id:04d}-{number}.png",
                           "alt": f"A photograph of the {_text.pick(rng, _text.ADJECTIVES)} {noun}",
                           "caption": f"The {noun} at dawn."})
        if rng.random() < 0.6:
            blocks.append({"type": "h3", "text": _text.heading(rng)})
            blocks.append(_paragraph(rng, links))
            if rng.random() < 0.5:
                blocks.append({"type": "h4", "text": _text.heading(rng)})
                blocks.append(_paragraph(rng, []))
    # a list is always present so every page has one
    if "list" not in features[:sections]:
        blocks.append(_list(rng, ordered=True))
    return ArticleContent(
        title=title, section=section, author=_text.person(rng),
        published=_text.published(seed, page_id), summary=_text.sentence(rng),
        blocks=tuple(blocks),
    )
