"""Propose a page kind and a language for every page of a split, for a person to check.

The labels in ``labels/<split>.json`` were made this way: this script proposed them from
what a reader sees first (the URL, the title, the headings, the shape of the reference
text and the words it uses), then each proposal was read beside the page's URL, title,
headings and the start of its reference text, and corrected by hand where it was wrong
(``"checked": "hand"`` on a corrected page). The script is a helper, not the labeller:
its rules are coarse on purpose and are never used to score anything.

    python bench/corpus/propose_labels.py DATA_DIR [--labels labels/<split>.json] > proposals.jsonl

With ``--labels``, pages already labelled keep their label and only new ones are proposed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections import Counter
from pathlib import Path

import lxml.html

# the few hundred most frequent function words of each language are overkill: a dozen
# unambiguous ones tell the Latin-script languages of these sets apart on a paragraph
_STOPWORD_LINES = {
    "en": "the and of to in is that for with was on are this by from",
    "de": "der die und das ist nicht mit ein eine den von zu auf für sich",
    "fr": "le la les et des est une dans pour que qui pas sur du avec",
    "es": "el la los las y que de en por con una para del es se",
    "it": "il di che la per non una sono della con del gli anche questo",
    "pt": "o a os as que de em um uma para com não do da é",
    "nl": "de het een en van is dat niet op te voor met zijn",
    "cs": "a se na je že v s to jsou jako ale by pro",
    "id": "yang dan di dari ini itu dengan untuk tidak ke pada adalah",
    "la": "lorem ipsum dolor sit amet consectetur adipiscing elit sed",
}
_STOPWORDS = {lang: line.split() for lang, line in _STOPWORD_LINES.items()}
_SCRIPTS = (  # (language, pattern): scripts that name a language by themselves
    ("ja", re.compile(r"[\u3040-\u30ff]")),
    ("ko", re.compile(r"[\uac00-\ud7af]")),
    ("zh", re.compile(r"[\u4e00-\u9fff]")),
    ("ru", re.compile(r"[\u0400-\u04ff]")),
    ("ar", re.compile(r"[\u0600-\u06ff]")),
    ("he", re.compile(r"[\u0590-\u05ff]")),
    ("el", re.compile(r"[\u0370-\u03ff]")),
)
_SCRIPT_SHARE = 0.15  # a text whose letters are this much of one script is in its language

_KIND_URL = (  # (kind, URL pattern): where sites put each kind of page
    ("forum", re.compile(r"forum|thread|viewtopic|showtopic|topic\.php|/t/|board|discuss"
                         r"|/questions?/|messages?\.|guestbook|mailarchive|lists\.", re.I)),
    ("product", re.compile(r"product|/shop|store|/item|catalog|/buy|cart|price", re.I)),
    ("documentation", re.compile(r"/docs?/|manual|/reference|/api/|/help/|faq|tutorial"
                                 r"|/howto|/guide|/man/|readme|specification", re.I)),
    ("listing", re.compile(r"index\.|/index|/list|directory|/links|/category|/archive"
                           r"|sitemap|/tag/|/search", re.I)),
    ("article", re.compile(r"/20\d\d/|/19\d\d/|news|article|blog|story|/post|press"
                           r"|opinion|column", re.I)),
)
_SHORT_LINE = 60  # a reference line shorter than this reads like a list item, not prose
_LISTING_SHARE = 0.6  # ... and a reference mostly made of such lines is a list
_LISTING_LINES = 10  # ... once it has enough lines to tell


def language(text: str) -> str:
    letters = [c for c in text if c.isalpha()]
    if letters:
        for lang, pattern in _SCRIPTS:
            if len(pattern.findall(text)) / len(letters) >= _SCRIPT_SHARE:
                return lang
    words = Counter(w.lower() for w in re.findall(r"\w+", text))
    scores = {lang: sum(words[w] for w in stop) for lang, stop in _STOPWORDS.items()}
    best = max(scores, key=lambda lang: scores[lang])
    return best if scores[best] else "und"


def kind(url: str, title: str, body: str) -> str:
    lines = [line for line in body.splitlines() if line.strip()]
    short = sum(1 for line in lines if len(line) < _SHORT_LINE)
    listing = len(lines) >= _LISTING_LINES and short / len(lines) >= _LISTING_SHARE
    for name, pattern in _KIND_URL:
        if pattern.search(url) or pattern.search(title):
            return name
    return "listing" if listing else "article"


def _html(data: Path, key: str) -> bytes:
    for cand in (data / f"{key}.html", data / "html" / f"{key}.html.gz"):
        if cand.is_file():
            raw = cand.read_bytes()
            return gzip.decompress(raw) if cand.suffix == ".gz" else raw
    raise FileNotFoundError(key)


def propose(data: Path, known: dict[str, dict[str, str]]) -> None:
    truth = json.loads((data / "ground-truth.json").read_text(encoding="utf-8"))
    for key in sorted(truth):
        if key in known:
            continue
        body = truth[key].get("articleBody") or ""
        try:
            doc = lxml.html.fromstring(_html(data, key).decode("utf-8", "replace"))
            title = " ".join((doc.findtext(".//title") or "").split())
            heads = [" ".join(h.text_content().split()) for h in doc.iter("h1", "h2")]
        except (ValueError, TypeError):  # lxml refuses an empty or undecodable page
            title, heads = "", []
        url = truth[key].get("url") or ""
        print(json.dumps({"id": key, "kind": kind(url, title, body),
                          "lang": language(body or title), "url": url, "title": title[:100],
                          "headings": " | ".join(heads)[:160],
                          "reference": " ".join(body.split())[:240]}, ensure_ascii=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path, help="a split: ground-truth.json and its pages")
    parser.add_argument("--labels", type=Path, help="labels already made (kept)")
    args = parser.parse_args()
    known = json.loads(args.labels.read_text(encoding="utf-8")) if args.labels else {}
    propose(args.data, known)


if __name__ == "__main__":
    sys.exit(main())
