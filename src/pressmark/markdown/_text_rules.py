"""Text rules: boilerplate that markup does not name, recognised by what it says.

UI labels ("Read more", "Anzeige"), headings that open a chrome section ("Related
articles", "Kommentare"), image credits, paywall, survey and consent prompts, and a
wiki's edit links, in English and the major languages of the web. They only apply to
short text and are matched whole or at its start, so prose that mentions a photo,
a subscription or cookies stays. Names and class words are ``_boilerplate``'s part.

The multilingual rules are phrase sets looked up after ``normalise``, not regex
alternations: a set costs nothing to build, a long alternation costs milliseconds to
compile at every start of the command line.
"""

from __future__ import annotations

import re

from pressmark.markdown._escape import printable
from pressmark.markdown._lazy_re import LazyPattern

TYPE_CHECKING = False  # mypy reads it; ``typing`` is not loaded at run time (start-up)
if TYPE_CHECKING:
    from typing import Final

# (``Final``: compiled code reads a constant directly, a module global is a dictionary
# look-up at every use, and the loops below run per element of every page)
#
# UI labels whose wording varies by a number or a name ("12 comments", "View all (8)",
# "More from Politics"); the fixed ones are phrases in ``_LABELS``. WHY not one
# alternation of them all: every process compiles its expressions at start-up, and an
# alternation of sixty phrases cost more to compile than a set of them costs to build.
_COUNTED_LABEL: Final = LazyPattern(
    r"^\W*(?:\d* ?(?:comments?|likes?)|view all \(\d+\)|more from \w+|don.t miss)\W*$",
    re.IGNORECASE,
)



SENTENCE_END: Final = frozenset(".!?…。！？؟।\"'”’»)")
"""Characters a sentence ends with (a closing quote or bracket after its stop included),
in the scripts the phrase lists cover: a line ending otherwise is a label, not prose."""


def normalise(text: str) -> str:
    r"""Lower case, whitespace collapsed, punctuation and symbols trimmed at both ends.

    Each end is trimmed where it is, a character at a time (most ends are a word
    character, or one stop): a substitution of ``^\W+|\W+$`` would try the second
    branch at every position, and a regex call costs more than a few characters' tests.
    """
    # An element's text (``Node.text``) is collapsed already: printable (a space is the
    # only whitespace then), no double space, none at either end. Checking that is a
    # fraction of splitting the text into words and joining them again.
    if "  " in text or text[:1] == " " or text[-1:] == " " or not printable(text):
        text = " ".join(text.split())
    text = text.lower()
    start = 0
    end = len(text)
    while start < end and not is_word(text[start]):
        start += 1
    while end > start and not is_word(text[end - 1]):
        end -= 1
    return text[start:end] if start or end < len(text) else text


def is_word(char: str) -> bool:
    r"""A word character to the ``re`` module (``\w``): exactly ``isalnum`` or "_"."""
    return char.isalnum() or char == "_"


def _phrases(*groups: str) -> frozenset[str]:
    # normalised like the text they are compared with: a Devanagari vowel sign at the end
    # of a word is no word character to the regex and is trimmed from both alike
    return frozenset(normalise(p) for group in groups for p in group.split("|"))


def _by_first(phrases: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """Phrases by their first character (each group sorted), for ``_opens``."""
    index: dict[str, list[str]] = {}
    for phrase in sorted(phrases):
        if not phrase:
            raise ValueError("an empty phrase opens every text")
        index.setdefault(phrase[0], []).append(phrase)
    return {first: tuple(group) for first, group in index.items()}


def _opens(norm: str, index: dict[str, tuple[str, ...]]) -> bool:
    """``norm`` starts with one of the phrases ``index`` holds.

    WHY the index: ``str.startswith`` with a tuple tries every phrase in turn, some fifty
    per list and several lists per short block; only those sharing the first character
    can match.
    """
    group = index.get(norm[:1])
    return group is not None and norm.startswith(group)


# UI states and labels, whole text: English ("Loading...", "Read more", a forum's
# "Reply", a documentation page's "Edit this page"), then "read more", "read also",
# "advertisement" in German, French, Spanish, Italian, Dutch, Portuguese, Swedish,
# Norwegian, Danish and Polish
_LABELS: Final = _phrases(
    "loading|please wait|advert|advertisement|sponsored|sponsored content|skip to content",
    "skip to main content|close|read more|learn more|see more|show more|view all|text size",
    "share|share this|share article|share story|share this article|share this story",
    "print|email|e-mail|tweet|you may also like|related|related post|related posts",
    "related article|related articles|related stories|recommended|recommended for you",
    "more stories|more news|tag|tags|filed under|continue reading|click here|subscribe",
    "subscribe now|sign up|log in|login|reply|post reply|post a reply|quote|report",
    "report post|back to top|top|edit this page|edit page|edit on github|edit on gitlab",
    "suggest an edit|suggest a edit|suggest an change|suggest a change|improve this page",
    "improve this answer|improve this question|improve this article|view source",
    "view page source|show source",
    "weiterlesen|mehr lesen|mehr dazu|mehr zum thema|lesen sie auch|lesen sie mehr|anzeige",
    "werbung|lire la suite|lire aussi|lire plus|publicité|leer más|lea también",
    "seguir leyendo|publicidad|leggi anche|leggi di più|leggi tutto|continua a leggere",
    "pubblicità|lees meer|lees ook|lees verder|advertentie|leia mais|leia também|ler mais",
    "publicidade|läs mer|läs också|les mer|les også|læs mere|læs også|czytaj więcej",
    "czytaj też|czytaj także|reklam|reklame|reklama|annonse",
    # Russian, Czech, Turkish, Chinese, Japanese, Korean
    "читать далее|читать полностью|подробнее|реклама|поделиться|číst dále|číst více",
    "sdílet|devamını oku|devamı|paylaş|reklam|阅读全文|閱讀全文|查看更多|广告|廣告|分享",
    "続きを読む|もっと見る|広告|シェア|シェアする|더보기|광고|공유하기",
    # Indonesian, Vietnamese, Arabic, Hindi, Ukrainian, Greek, Hungarian, Romanian
    "iklan|baca juga|baca selengkapnya|bagikan|quảng cáo|xem thêm|đọc thêm|chia sẻ",
    "إعلان|اقرأ أيضا|اقرأ أيضاً|شارك|विज्ञापन|यह भी पढ़ें|और पढ़ें|शेयर करें",
    "читайте також|детальніше|поділитися|διαβάστε επίσης|διαφήμιση|hirdetés",
    "publicitate|citește și|citeste si",
    # share / follow buttons
    "teilen|artikel teilen|partager|compartir|condividi|delen|partilhar|dela|del|udostępnij",
    "folgen sie uns|suivez-nous|síguenos|seguici|volg ons|siga-nos|följ oss|følg oss",
)


# A wiki's or CMS's "[edit]" beside a section heading: an action for editors, not part of
# the heading. English and the languages of the larger wikis; whole text only.
_EDIT_LABELS: Final = _phrases(
    "edit|edit section|edit source|edit this section|bearbeiten|quelltext bearbeiten",
    "modifier|modifier le code|editar|editar código|editar código-fonte|modifica",
    "modifica wikitesto|bewerken|brontekst bewerken|redigera|redigera wikitext|rediger",
    "rediger kilde|muokkaa|muokkaa wikitekstiä|edytuj|edytuj kod|upravit|editovat",
    "upravit zdroj|szerkesztés|forrásszöveg szerkesztése|düzenle|kaynağı değiştir",
    "редактировать|править|править код|редагувати|редагувати код|επεξεργασία",
    "編集|ソースを編集|编辑|编辑源代码|編輯|編輯原始碼|편집|원본 편집|sửa|sửa mã nguồn",
    "sunting|sunting sumber|تعديل|تعديل المصدر|ویرایش|עריכה|संपादित करें",
)
EDIT_LABEL_MAX: Final = 40  # chars: "[edit source]" in any of those languages is shorter
LABEL_MAX: Final = 40       # chars: a UI label ("Read more", "12 comments") is shorter
HEADING_MAX: Final = 60     # chars: a chrome section's heading ("Related articles") is shorter


def is_edit_label(text: str) -> bool:
    """A section's edit link ("[edit]", "[Bearbeiten | Quelltext bearbeiten]")."""
    if len(text) >= EDIT_LABEL_MAX:
        return False
    return all(part in _EDIT_LABELS for part in normalise(text).split(" | "))


# The label that opens a paid block ("Paid content", "Sponsored", "Anzeige"): the block it
# heads is an advertisement however it is named
_SPONSORED: Final = _phrases(
    "sponsored|sponsored content|sponsored post|sponsored by|paid content|paid post",
    "promoted|promoted content|partner content|in partnership with|advertisement|advertorial",
    "anzeige|werbung|gesponsert|publicité|contenu sponsorisé|publicidad|patrocinado",
    "contenido patrocinado|pubblicità|contenuto sponsorizzato|advertentie|gesponsord",
    "publicidade|conteúdo patrocinado|reklame|reklama|sponsrad|sponset|sponsoreret",
)


def is_sponsored_label(text: str) -> bool:
    """A paid block's label ("Paid content", "Sponsored by Acme" counts by its opening)."""
    if len(text) >= EDIT_LABEL_MAX:
        return False
    norm = normalise(text)
    return norm in _SPONSORED or norm.startswith(("sponsored by ", "in partnership with "))


def is_placeholder(text: str, norm: str | None = None) -> bool:
    """Text that is UI state or a UI label, not content ("Loading...", "Read more").

    ``norm``: ``normalise(text)``, when the caller has it (several rules read one text).
    """
    if len(text) >= LABEL_MAX:
        return False
    return (normalise(text) if norm is None else norm) in _LABELS \
        or _COUNTED_LABEL.get().match(text) is not None


# Headings that open a section of chrome: further reading, most read, comments,
# newsletter boxes; English and the major European languages. Whole heading only.
_CHROME_HEADINGS: Final = _phrases(
    "related|related articles|related article|related posts|related post|related stories",
    "related content|related news|related coverage|related reading|more stories|more news",
    "more articles|more headlines|latest stories|latest news|latest articles|latest headlines",
    "top stories|top news|top articles|top headlines|most read|most popular|most viewed",
    "most shared|most commented|popular|popular now|popular stories|trending|trending now",
    "trending stories|you may also like|you might also like|you may like|you might like",
    "you may also enjoy|you might also enjoy|we think you might like|read more|read next",
    "read also|recommended|recommended for you|recommended reading|recommended stories",
    "picks|editor's picks|editors' picks|editors picks|further reading|see also|also read",
    "newsletter|newsletters|sign up for our newsletter|subscribe to our newsletter",
    "get our newsletter|share this article|share this story|share this post",
    "share the article|share the story|follow us",
    # German, French, Spanish, Italian, Dutch, Portuguese, Scandinavian
    "meistgelesen|meistgelesene artikel|mehr zum thema|das könnte sie auch interessieren",
    "das könnte sie interessieren|weitere artikel|lesen sie auch|ähnliche artikel",
    "lire aussi|à lire aussi|les plus lus|sur le même sujet|article similaire",
    "articles similaires|vous aimerez aussi|te puede interesar|le puede interesar",
    "lo más leído|más leídas|noticias relacionadas|leggi anche|più lette|le più lette",
    "articoli correlati|meest gelezen|lees ook|gerelateerde artikelen|mais lidas",
    "leia também|notícias relacionadas|mest lästa|läs också|mest lest|mest læste",
    # newsletter boxes and follow-us blocks
    "newsletter abonnieren|jetzt newsletter abonnieren|unser newsletter|nieuwsbrief",
    "inscrivez-vous à notre newsletter|abonnez-vous à notre newsletter|notre newsletter",
    "suscríbete a nuestro boletín|suscríbete a nuestra newsletter|boletín",
    "iscriviti alla newsletter",
    "schrijf je in voor de nieuwsbrief|assine nossa newsletter|folgen sie uns|suivez-nous",
    "síguenos|seguici|volg ons|siga-nos|följ oss|følg oss",
    # Russian, Polish, Czech, Turkish
    "похожие статьи|похожие материалы|читайте также|смотрите также|самые популярные",
    "популярное|популярные статьи|рекомендуем|другие статьи|новости по теме|по теме",
    "najczęściej czytane|podobne artykuły|polecane|zobacz też|zobacz także",
    "související články|nejčtenější|mohlo by vás zajímat|ilgili haberler|benzer haberler",
    "en çok okunanlar|ilginizi çekebilir",
    # Chinese (simplified, traditional), Japanese, Korean
    "相关文章|相关阅读|相关新闻|热门文章|推荐阅读|猜你喜欢|最新文章|相關文章|相關閱讀",
    "熱門文章|推薦閱讀|延伸閱讀|最新文章|関連記事|人気記事|おすすめ記事|あわせて読みたい",
    "最新記事|관련 기사|관련기사|많이 본 뉴스|인기 기사|추천 기사",
    # Indonesian, Vietnamese, Arabic, Hindi, Ukrainian, Greek, Hungarian, Romanian
    "artikel terkait|berita terkait|baca juga|terpopuler|berita lainnya|tin liên quan",
    "bài viết liên quan|tin đọc nhiều|مقالات ذات صلة|أخبار ذات صلة|الأكثر قراءة",
    "اقرأ أيضا|اقرأ أيضاً|संबंधित खबरें|यह भी पढ़ें|читайте також|схожі статті",
    "σχετικά άρθρα|διαβάστε επίσης|kapcsolódó cikkek|articole similare|citește și",
)
_COMMENT_HEADINGS: Final = _phrases(
    "leave a reply|leave a comment|join the conversation|join the discussion|kommentare",
    "commentaires|comentarios|commenti|reacties|comentários|kommentarer",
    "комментарии|отзывы|оставить комментарий|добавить комментарий|добавить отзыв",
    "komentarze|komentáře|yorumlar|yorum yap|评论|網友評論|网友评论|留言|留言列表|發表留言",
    "コメント|コメントを書く|댓글|komentar|bình luận|التعليقات|टिप्पणियाँ|коментарі",
    "σχόλια|hozzászólások|comentarii",
)
# the parametric ones: "12 comments", "more from Politics", "follow us on Instagram"
_COUNTED_COMMENTS: Final = LazyPattern(
    r"\d+ ?comments?|(?:comments?|kommentare|commentaires|comentarios|commenti|reacties"
    r"|комментарии|отзывы|komentarze|komentáře|yorumlar|评论|評論|留言|留言列表|コメント|댓글)"
    r" ?[(\[]?\d+")
_CHROME_HEADING_FORMS: Final = LazyPattern(
    r"(?:more|latest) from [\w ]{1,30}|follow us on [\w ]{1,20}"
    r"|(?:most popular|самые популярные|najpopularniejsze|nejoblíbenější) [\w ]{1,30}"
    r"|(?:other|more) (?:\w+ )?(?:columns|stories|articles|news|posts|videos|galleries)"
    r"|(?:sign up for|subscribe to|get) (?:our|the) [\w ]{0,30}newsletters?")


def comments_heading(text: str) -> bool:
    """A heading over a comment thread: all that follows it in its section is comments."""
    if len(text) >= HEADING_MAX:
        return False
    return _comments(normalise(text))


def _comments(norm: str) -> bool:
    return norm in _COMMENT_HEADINGS or _COUNTED_COMMENTS.get().fullmatch(norm) is not None


def chrome_heading(text: str) -> bool:
    """A heading that introduces further reading, comments or a newsletter box."""
    if len(text) >= HEADING_MAX:
        return False
    norm = normalise(text)
    return norm in _CHROME_HEADINGS or _comments(norm) \
        or _CHROME_HEADING_FORMS.get().fullmatch(norm) is not None


# Short lines that are a paywall or sign-in prompt, or an image credit. Matched at the
# start and only for short blocks, so prose that mentions a photo or a subscription stays.
_PAYWALL: Final = _by_first(_phrases(
    "this article is for subscribers|this article is only for subscribers",
    "this article is available to subscribers|this article is reserved for subscribers",
    "this story is for subscribers|this story is only for subscribers",
    "this content is for subscribers|this content is only for subscribers",
    "this article is for paying subscribers|this article is for members",
    "this story is for members|this content is for members|already a subscriber",
    "already subscribed|already a member|subscribe to continue reading",
    "subscribe now to continue reading|subscribe to keep reading",
    "subscribe now to keep reading|to continue reading, please subscribe",
    "to continue reading, subscribe|to continue reading, please log in",
    "to continue reading, please sign in|to continue reading, log in",
    "to continue reading, sign in|to continue reading please subscribe",
    "to continue reading, please login|to continue reading, login",
    "you have reached your free article limit|you have reached your article limit",
    "you have reached your limit|you have reached the free article limit",
    "create a free account to continue|create a free account to read",
    # German, French, Spanish, Italian, Dutch, Portuguese
    "dieser artikel ist nur für abonnenten|dieser artikel ist exklusiv für abonnenten",
    "dieser beitrag ist nur für abonnenten|dieser inhalt ist nur für abonnenten",
    "der artikel ist nur für abonnenten|jetzt weiterlesen|jetzt abonnieren|jetzt testen",
    "bereits abonnent|réservé aux abonnés|déjà abonné|abonnez-vous",
    "contenido exclusivo para suscriptores|contenido para suscriptores",
    "ya eres suscriptor|suscríbete",
    "articolo riservato agli abbonati|contenuto riservato agli abbonati|sei già abbonato",
    "dit artikel is alleen voor abonnees|conteúdo exclusivo para assinantes",
    "já é assinante|assine",
))
_WORD_END: Final = LazyPattern(r"\w")
_LEAD: Final = LazyPattern(r"\W*")
# "Photo: ...", "Foto von ...", "Imagen de ...", "Crédit photo : ..."; "(Photo ...", "© ..."
_CREDIT_ONE: Final = LazyPattern(r"(\w+)\s*(?::|©|(?:by|von|de|di|par)\b)")
_CREDIT_TWO: Final = LazyPattern(r"(\w+ \w+)\s*(?::|©|(?:by|von|de|di|par)\b)")
_BRACKETED: Final = LazyPattern(r"(?:photo|foto|image|bild)\b", re.IGNORECASE)
_CREDIT_WORDS: Final = _phrases(
    "photo|image|picture|video|illustration|graphic|foto|fotos|bild|bilder|grafik|imagen",
    "imagem|immagine|fotografía|fotografia|crédito|credito|credit|credits|quelle",
    "crédit photo|photo credit",
)
_CREDIT_INITIALS: Final = frozenset(word[0] for word in _CREDIT_WORDS)
CREDIT_MAX: Final = 120      # chars: a credit line is short
PAYWALL_MAX: Final = 250     # chars: so is a paywall prompt


def _is_credit(text: str) -> bool:
    if text[:1] and is_word(text[0]):
        rest = text  # (what ``_LEAD`` would match is empty)
    else:
        lead = _LEAD.get().match(text)
        assert lead is not None  # \W* matches anywhere
        if "©" in lead.group():
            return True
        rest = text[lead.end():]
        if lead.group().endswith("(") and _BRACKETED.get().match(rest):
            return True
    # the credit word the forms look for opens ``rest``: most lines are spared both
    if rest[:1].lower()[:1] not in _CREDIT_INITIALS:
        return False
    return any((m := form.get().match(rest)) is not None and m.group(1).lower() in _CREDIT_WORDS
               for form in (_CREDIT_ONE, _CREDIT_TWO))


# "Was this page helpful? Yes No": the survey box under a help or public-service page
_FEEDBACK: Final = _by_first(_phrases(
    "was this page helpful|was this helpful|was this article helpful|did this page help",
    "is this page useful|was this information helpful|did you find this helpful",
    "war diese seite hilfreich|war dieser artikel hilfreich|ist diese seite hilfreich",
    "cette page vous a-t-elle été utile|cet article vous a-t-il été utile",
    "cette information vous a-t-elle été utile|¿te ha resultado útil|¿le ha resultado útil",
    "¿te resultó útil|¿le resultó útil|¿fue útil esta|questa pagina ti è stata utile",
    "questa pagina è stata utile|le informazioni sono state utili|was deze pagina nuttig",
    "was deze informatie nuttig|heeft deze pagina je geholpen|esta página foi útil",
    "estas informações foram úteis|var den här sidan till hjälp|var sidan till hjälp",
    "var denne siden nyttig|var denne side nyttig|czy ta strona była pomocna",
    "czy ta strona była przydatna|byla tato stránka užitečná|bu sayfa yardımcı oldu mu",
    "была ли эта страница полезной|была ли полезна эта информация",
))


# "Follow us on Instagram", "Follow The Times on Facebook and X": a prompt to follow the
# site on a social network, as it opens a short block that names one (and links to it:
# ``_prune`` asks for the link, so a how-to's "Follow these steps on Facebook" stays)
_FOLLOW: Final = _by_first(_phrases(
    "follow|like us on|find us on|connect with us on|join us on",
    "folgen sie uns|folge uns|folgt uns|suivez-nous|retrouvez-nous sur|síguenos|siguenos",
    "seguici|seguiteci|siga-nos|sigam-nos|volg ons|följ oss|følg os|følg oss|obserwuj nas",
))
_NETWORKS: Final = LazyPattern(r"\b(?:twitter|facebook|instagram|linkedin|youtube|tiktok|"
                              r"mastodon|bluesky|threads|telegram|whatsapp|pinterest|x\.com)\b")
FOLLOW_MAX: Final = 250      # chars: the prompt is a line or two


# A consent banner that no class or id names ("We use cookies to ..."), in the languages
# of the other phrase sets; matched at the start of a block shorter than COOKIE_MAX.
_COOKIES: Final = _by_first(_phrases(
    "we use cookies|this website uses cookies|this site uses cookies|our website uses cookies",
    "by using this website, you agree to|by continuing to browse|we and our partners use",
    "wir verwenden cookies|wir nutzen cookies|diese website verwendet cookies",
    "diese webseite verwendet cookies|diese website nutzt cookies|nous utilisons des cookies",
    "ce site utilise des cookies|ce site web utilise des cookies|utilizamos cookies",
    "este sitio web utiliza cookies|este sitio utiliza cookies|usamos cookies",
    "utilizziamo i cookie|usiamo i cookie|questo sito utilizza cookie",
    "questo sito utilizza i cookie|wij gebruiken cookies|deze website gebruikt cookies",
    "este site utiliza cookies|este site usa cookies|utilizamos cookies",
    "vi använder cookies|denna webbplats använder cookies|vi bruker informasjonskapsler",
    "vi bruger cookies|używamy plików cookie|ta strona używa plików cookie",
    "používáme cookies|tato stránka používá cookies|bu web sitesi çerez",
    "мы используем файлы cookie|этот сайт использует файлы cookie",
))
COOKIE_MAX: Final = 600      # chars: a consent banner says its piece in a few sentences


def is_cookie_notice(text: str, norm: str | None = None) -> bool:
    """Text that opens like a consent banner ("We use cookies to ..."); ``norm`` as for
    ``is_placeholder``."""
    return len(text) < COOKIE_MAX and _opens(normalise(text) if norm is None else norm,
                                             _COOKIES)


# The label of a line of topic links ("Tags: a, b", "Filed under: x | y"), in the
# languages of the other phrase lists
_TAG_LABELS: Final = _phrases(
    "tags|tag|tagged|tagged with|topics|keywords|filed under|categories|category",
    "schlagwörter|schlagworte|stichwörter|themen|kategorien",
    "étiquettes|mots-clés|mots clés|sujets|catégories",
    "etiquetas|temas|palabras clave|categorías",
    "tag correlati|argomenti|parole chiave|categorie",
    "trefwoorden|onderwerpen|categorieën",
    "etiketter|taggar|emneord|nøkkelord|kategorier",
    "tagi|tematy|słowa kluczowe|kategorie",
    "marcadores|palavras-chave|categorias",
)
_TAG_SEPARATORS: Final = frozenset(" ,;|/·•\u00a0")
TAG_LINE_MAX: Final = 300  # chars: a line of topic links is short


def is_tag_line(parts: list[str]) -> bool:
    """The text outside the links of a short block: a topic label, then separators only.

    ``parts``: the text before the first link, then the text after each link.
    """
    label, colon, rest = parts[0].partition(":")
    return bool(colon) and normalise(label) in _TAG_LABELS \
        and all(ch in _TAG_SEPARATORS for part in (rest, *parts[1:]) for ch in part.strip())


# A notice about the reader's browser, not the page ("You are using an outdated browser",
# "Please enable JavaScript"), in the languages of the other phrase sets
_BROWSER: Final = _by_first(_phrases(
    "you are using an outdated browser|you are using an unsupported browser|best viewed in",
    "your browser is out of date|your browser is not supported|please upgrade your browser",
    "please update your browser|best viewed with|this site is best viewed|enable javascript",
    "this website is best viewed|please enable javascript|javascript is disabled",
    "javascript is required|you need to enable javascript|this site requires javascript",
    "sie verwenden einen veralteten browser|ihr browser ist veraltet|javascript ist deaktiviert",
    "bitte aktivieren sie javascript|votre navigateur est obsolète|veuillez activer javascript",
    "javascript est désactivé|estás usando un navegador obsoleto|su navegador no es compatible",
    "por favor, activa javascript|por favor habilite javascript|abilita javascript",
    "stai usando un browser obsoleto|je gebruikt een verouderde browser|schakel javascript in",
    "você está usando um navegador desatualizado|ative o javascript",
))


def may_open_a_notice(char: str) -> bool:
    """``char`` (a text's first) may open a browser notice: a letter the notices' phrases
    start with, or a symbol that ``normalise`` would trim."""
    return bool(char) and (char.lower() in _BROWSER or not char.isalnum())


def is_browser_notice(text: str, norm: str | None = None) -> bool:
    """A short notice about the reader's browser or JavaScript; ``norm`` as for
    ``is_placeholder``. (Most texts are ruled out by their first letter, unnormalised.)"""
    if len(text) >= PAYWALL_MAX:
        return False
    if norm is None:
        if text[:1].lower() not in _BROWSER and text[:1].isalnum():
            return False
        norm = normalise(text)
    return _opens(norm, _BROWSER)


# Code that a broken ``<head>`` (an unclosed comment, a lost ``<script>`` tag) turned into
# body text: statements and braces, far denser in ";", "{", "}" and "=" than any sentence
SCRIPT_SHARE: Final = 0.04    # share of such characters in a text that reads as code
SCRIPT_WORDS: Final = ("function", "var ", "document.", "window.", "return ", "=>", "();")
SCRIPT_MIN_WORDS: Final = 2   # code words a text must hold as well


def reads_as_script(text: str) -> bool:
    """Text that is JavaScript, not prose (``SCRIPT_SHARE`` of ";{}=" and code words)."""
    if "{" not in text and ";" not in text:
        return False
    marks = text.count(";") + text.count("{") + text.count("}") + text.count("=")
    if marks < SCRIPT_SHARE * len(text):
        return False
    return sum(1 for word in SCRIPT_WORDS if word in text) >= SCRIPT_MIN_WORDS


def text_rule(text: str, norm: str | None = None) -> str | None:
    """A rule for a short block by its text alone: paywall, survey or follow prompt, image
    credit, browser notice; ``norm`` as for ``is_placeholder``."""
    if len(text) < CREDIT_MAX and _is_credit(text):
        return "image_credit"
    if len(text) < PAYWALL_MAX:
        if norm is None:
            norm = normalise(text)
        if _opens(norm, _FEEDBACK):
            return "feedback_prompt"
        if _opens(norm, _BROWSER):
            return "browser_notice"
        if len(text) < FOLLOW_MAX and _opens(norm, _FOLLOW) and _NETWORKS.get().search(norm):
            return "social_prompt"
        paywall = _PAYWALL.get(norm[:1])
        if paywall is None or not norm.startswith(paywall):  # one C-level test first
            return None
        for prefix in paywall:
            if norm.startswith(prefix) and \
                    not _WORD_END.get().match(norm[len(prefix):len(prefix) + 1]):
                return "paywall_prompt"
    return None
