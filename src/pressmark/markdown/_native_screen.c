/* The parse screen's tokenizer pass in C: see _screen.py for what it proves and why.
 *
 * scan(text, max_attributes, max_formatting, cuts, max_select_work) walks ``text`` (a
 * str, or bytes holding UTF-8) once as the HTML tokenizer does (tags and their
 * attributes, comments, bogus comments, raw-text bodies, the script states) and returns
 * the number of start tags it read, or
 *   -1 when a cap may be needed: a tag with more than max_attributes attributes, or more
 *      than that many on the <html> (or <body>) start tags together (the parser merges
 *      them into one element), or a formatting start tag while max_formatting are
 *      unclosed (the full scan's own count and cap: one more per start tag, one fewer per
 *      end tag of a name open), or select work past max_select_work (each start tag
 *      inside a <select> adds the number of elements the select already holds; a select
 *      is left by its end tag only when no scope barrier opened inside it, nested
 *      selects counted as the full scan counts them: more, never less);
 *   -2 when the rest depends on tree construction this pass does not follow (a
 *      raw-text name inside SVG or MathML whose body holds a "<", CDATA there): the
 *      regular-expression screen in _screen.py then decides.
 * Every count errs upwards (a tag cut off by the end of the text still counts), so a
 * page it passes is within the caps. The text is read, never copied.
 *
 * Bytes are read one byte a character: every character the tokenizer looks at is ASCII,
 * and UTF-8 never spells a non-ASCII character with ASCII bytes, so bytes and their text
 * give the same decisions (offsets count bytes then).
 *
 * ``cuts``, a list, receives the script and style bodies in HTML content that Lexbor
 * need not tokenize (_rawcut.py): four ints each, (start, end, characters, kind), kind
 * 1 for script, 2 for style; ``characters`` as the tokenizer's input stream counts them
 * (UTF-8 decoded, "\r\n" one). None in SVG or MathML, nor inside a <template> (its
 * content is out of the tree's queries), and none at all after anything this pass might
 * have read otherwise than the tree builder: an integration point, a <plaintext>, another
 * raw-text body holding a "<" (a <title> the tree builder ignored would hold markup).
 * No cut either on a page holding U+FDD0, the markers' first character. The caller
 * checks every cut against the tree it parsed (_rawcut.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "_native_utf8.h"

#define SCAN_FAIL (-1)
#define SCAN_UNSURE (-2)
#define NAME_MAX_CHARS 16

enum kind { OTHER, FORMAT, RAW, SVG, MATH, INTEGRATION_POINT, PLAINTEXT, TEMPLATE, SELECT,
            MERGED, BARRIER };
enum { RAW_OTHER, RAW_SCRIPT, RAW_STYLE };
enum { N_FORMATTING = 14 };

typedef struct {
    enum kind kind;
    int index;  /* the formatting name's slot, or RAW_SCRIPT / RAW_STYLE / RAW_OTHER */
} tag_kind;

typedef struct {
    const char *name;
    tag_kind kind;
} known_name;

/* The names the pass must tell apart (_screen.py: FORMATTING, RAW_TEXT, _FOREIGN). */
static const known_name KNOWN[] = {
    {"a", {FORMAT, 0}}, {"b", {FORMAT, 1}}, {"big", {FORMAT, 2}}, {"code", {FORMAT, 3}},
    {"em", {FORMAT, 4}}, {"font", {FORMAT, 5}}, {"i", {FORMAT, 6}}, {"nobr", {FORMAT, 7}},
    {"s", {FORMAT, 8}}, {"small", {FORMAT, 9}}, {"strike", {FORMAT, 10}},
    {"strong", {FORMAT, 11}}, {"tt", {FORMAT, 12}}, {"u", {FORMAT, 13}},
    {"script", {RAW, RAW_SCRIPT}}, {"style", {RAW, RAW_STYLE}}, {"textarea", {RAW, 0}}, {"title", {RAW, 0}},
    {"xmp", {RAW, 0}}, {"iframe", {RAW, 0}}, {"noembed", {RAW, 0}}, {"noframes", {RAW, 0}},
    {"svg", {SVG, 0}}, {"math", {MATH, 0}},
    {"foreignobject", {INTEGRATION_POINT, 0}}, {"desc", {INTEGRATION_POINT, 0}},
    {"mi", {INTEGRATION_POINT, 0}}, {"mo", {INTEGRATION_POINT, 0}},
    {"mn", {INTEGRATION_POINT, 0}}, {"ms", {INTEGRATION_POINT, 0}},
    {"mtext", {INTEGRATION_POINT, 0}}, {"annotation-xml", {INTEGRATION_POINT, 0}},
    {"plaintext", {PLAINTEXT, 0}}, {"template", {TEMPLATE, 0}},
    {"select", {SELECT, 0}}, {"html", {MERGED, 0}}, {"body", {MERGED, 1}},
    /* the other elements "has an element in scope" stops at (and template, integration
     * points, svg and math above): a </select> under one of them may be ignored */
    {"table", {BARRIER, 0}}, {"td", {BARRIER, 0}}, {"th", {BARRIER, 0}},
    {"caption", {BARRIER, 0}}, {"object", {BARRIER, 0}}, {"applet", {BARRIER, 0}},
    {"marquee", {BARRIER, 0}},
};
enum { N_KNOWN = sizeof(KNOWN) / sizeof(KNOWN[0]) };

/* KNOWN's entries by first letter, filled at import: a tag is compared with the two
 * or three names that share its first letter, not with all of them. */
#define PER_LETTER 12
static signed char BY_LETTER[26][PER_LETTER];

static void index_known(void) {
    memset(BY_LETTER, -1, sizeof(BY_LETTER));
    for (int i = 0; i < N_KNOWN; i++) {
        signed char *slots = BY_LETTER[KNOWN[i].name[0] - 'a'];
        int used = 0;
        while (slots[used] >= 0) used++;
        slots[used] = (signed char)i;
    }
}

/* ``name``: lowercase ASCII, NUL-terminated. */
static tag_kind classify(const char *name) {
    tag_kind other = {OTHER, 0};
    if (name[0] < 'a' || name[0] > 'z') return other;
    const signed char *slots = BY_LETTER[name[0] - 'a'];
    for (int i = 0; i < PER_LETTER && slots[i] >= 0; i++) {
        const char *known = KNOWN[slots[i]].name;  /* the first letters are equal */
        if (name[1] == known[1] && strcmp(name, known) == 0) return KNOWN[slots[i]].kind;
    }
    return other;
}

#define IS_WS(c) ((c) == '\t' || (c) == '\n' || (c) == '\f' || (c) == '\r' || (c) == ' ')
#define IS_ALPHA(c) (((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z'))
#define ASCII_LOWER(c) (((c) >= 'A' && (c) <= 'Z') ? (c) + 32 : (c))

/* What ends a tag's name (space, "/", ">"), an attribute's name (those and "="), and
 * an unquoted value (space, ">"), by character below U+0100, filled at import: the
 * loops over names and values test one table entry a character, not five to eight
 * comparisons (they read most of a page's markup). */
enum { ENDS_TAG_NAME = 1, ENDS_ATTR_NAME = 2, ENDS_VALUE = 4, SPACE = 8 };
static unsigned char CHAR_CLASS[256];
#define CLASS_OF(c) ((c) < 256 ? CHAR_CLASS[(c)] : 0)

static void index_classes(void) {
    static const char spaces[] = "\t\n\f\r ";
    for (const char *c = spaces; *c; c++) {
        CHAR_CLASS[(unsigned char)*c] = ENDS_TAG_NAME | ENDS_ATTR_NAME | ENDS_VALUE | SPACE;
    }
    CHAR_CLASS['/'] = ENDS_TAG_NAME | ENDS_ATTR_NAME;
    CHAR_CLASS['>'] = ENDS_TAG_NAME | ENDS_ATTR_NAME | ENDS_VALUE;
    CHAR_CLASS['='] = ENDS_ATTR_NAME;
}

/* The raw-text bodies found so far (module doc: ``cuts``), four values each; filled
 * without the GIL, turned into a list after. */
typedef struct {
    Py_ssize_t *values;
    Py_ssize_t used, size;
    int off;    /* no more cuts on this page */
    int failed; /* out of memory: no cuts at all */
} cut_list;

static void add_cut(cut_list *cuts, Py_ssize_t start, Py_ssize_t end, Py_ssize_t chars,
                    int kind) {
    if (cuts->used + 4 > cuts->size) {
        Py_ssize_t size = cuts->size ? 2 * cuts->size : 64;
        Py_ssize_t *grown = realloc(cuts->values, (size_t)size * sizeof(Py_ssize_t));
        if (grown == NULL) {
            cuts->failed = 1;
            cuts->off = 1;
            return;
        }
        cuts->values = grown;
        cuts->size = size;
    }
    cuts->values[cuts->used++] = start;
    cuts->values[cuts->used++] = end;
    cuts->values[cuts->used++] = chars;
    cuts->values[cuts->used++] = kind;
}

/* Characters in UTF-8 bytes: every byte but the continuation bytes (10xxxxxx) starts
 * one. As signed chars the continuation bytes are the ones below -64: SSE2 counts them
 * sixteen at a time (script bodies are most of a page's bytes). */
static Py_ssize_t utf8_chars(const Py_UCS1 *s, Py_ssize_t from, Py_ssize_t to) {
    Py_ssize_t continuations = 0, at = from;
#ifdef __SSE2__
    /* each lane counts its matches (a match is -1: subtracted, it adds one) for up to
     * 255 rounds; then the sum of absolute differences adds the lanes up */
    const __m128i limit = _mm_set1_epi8(-64), zero = _mm_setzero_si128();
    while (at + 16 <= to) {
        __m128i lanes = zero;
        for (int round = 0; round < 255 && at + 16 <= to; round++, at += 16) {
            __m128i chunk = _mm_loadu_si128((const __m128i *)(s + at));
            lanes = _mm_sub_epi8(lanes, _mm_cmplt_epi8(chunk, limit));
        }
        __m128i sums = _mm_sad_epu8(lanes, zero);
        continuations += _mm_cvtsi128_si32(sums) + _mm_extract_epi16(sums, 4);
    }
#endif
    for (; at < to; at++) continuations += (s[at] & 0xC0) == 0x80;
    return (to - from) - continuations;
}

/* Where the next ``c`` (ASCII) is from ``from``, or n: the scan's inner loop. Latin-1
 * text has memchr; two- and four-byte text is compared eight or four characters at a
 * time with SSE2, which every x86-64 CPU has (elsewhere, one at a time). */
static Py_ssize_t find_char_1(const Py_UCS1 *s, Py_ssize_t from, Py_ssize_t n, Py_UCS1 c) {
    if (from >= n) return n;
    const void *hit = memchr(s + from, c, (size_t)(n - from));
    return hit ? (const Py_UCS1 *)hit - s : n;
}

static Py_ssize_t find_char_2(const Py_UCS2 *s, Py_ssize_t from, Py_ssize_t n, Py_UCS2 c) {
#ifdef __SSE2__
    const __m128i wanted = _mm_set1_epi16((short)c);
    for (; from + 8 <= n; from += 8) {
        __m128i chunk = _mm_loadu_si128((const __m128i *)(s + from));
        int mask = _mm_movemask_epi8(_mm_cmpeq_epi16(chunk, wanted));
        if (mask) return from + __builtin_ctz((unsigned)mask) / 2;
    }
#endif
    while (from < n && s[from] != c) from++;
    return from;
}

static Py_ssize_t find_char_4(const Py_UCS4 *s, Py_ssize_t from, Py_ssize_t n, Py_UCS4 c) {
#ifdef __SSE2__
    const __m128i wanted = _mm_set1_epi32((int)c);
    for (; from + 4 <= n; from += 4) {
        __m128i chunk = _mm_loadu_si128((const __m128i *)(s + from));
        int mask = _mm_movemask_epi8(_mm_cmpeq_epi32(chunk, wanted));
        if (mask) return from + __builtin_ctz((unsigned)mask) / 4;
    }
#endif
    while (from < n && s[from] != c) from++;
    return from;
}

/* Does the text hold U+FDD0, the cut markers' first character (_rawcut.py)? Then a
 * marker in the parsed tree could be the page's own text, and nothing is cut. */
static int holds_mark(const void *data, Py_ssize_t n, int kind, int utf8) {
    if (utf8) { /* U+FDD0 is EF B7 90 */
        const Py_UCS1 *s = data;
        for (const Py_UCS1 *at = memchr(s, 0xEF, (size_t)n); at != NULL;
             at = memchr(at + 1, 0xEF, (size_t)(n - (at + 1 - s)))) {
            if (at + 2 < s + n && at[1] == 0xB7 && at[2] == 0x90) return 1;
        }
        return 0;
    }
    if (kind == PyUnicode_2BYTE_KIND) return find_char_2(data, 0, n, 0xFDD0) < n;
    if (kind == PyUnicode_4BYTE_KIND) return find_char_4(data, 0, n, 0xFDD0) < n;
    return 0; /* Latin-1 text cannot hold it */
}

/* One scanner per string kind (Latin-1, UCS-2, UCS-4), from one body. */
#define DEFINE_SCAN(SUFFIX, T)                                                           \
static Py_ssize_t find_lt_##SUFFIX(const T *s, Py_ssize_t from, Py_ssize_t n) {          \
    return find_char_##SUFFIX(s, from, n, '<');                                          \
}                                                                                        \
                                                                                         \
static Py_ssize_t find_gt_##SUFFIX(const T *s, Py_ssize_t from, Py_ssize_t n) {          \
    from = find_char_##SUFFIX(s, from, n, '>');                                          \
    return from < n ? from + 1 : n;                                                      \
}                                                                                        \
                                                                                         \
/* ASCII case-insensitive: does s[at:] open with the lowercase ``word``? */              \
static int opens_with_##SUFFIX(const T *s, Py_ssize_t at, Py_ssize_t n,                  \
                               const char *word) {                                       \
    for (; *word; word++, at++) {                                                        \
        if (at >= n || ASCII_LOWER(s[at]) != (T)*word) return 0;                         \
    }                                                                                    \
    return 1;                                                                            \
}                                                                                        \
                                                                                         \
/* "</name" and a separator (the tokenizer's appropriate end tag), from ``from``. */     \
static Py_ssize_t raw_end_##SUFFIX(const T *s, Py_ssize_t from, Py_ssize_t n,            \
                                   const char *name) {                                   \
    size_t len = strlen(name);                                                           \
    for (Py_ssize_t at = find_lt_##SUFFIX(s, from, n); at < n;                           \
         at = find_lt_##SUFFIX(s, at + 1, n)) {                                          \
        Py_ssize_t sep = at + 2 + (Py_ssize_t)len;                                       \
        if (sep < n && s[at + 1] == '/' && opens_with_##SUFFIX(s, at + 2, n, name)       \
            && (IS_WS(s[sep]) || s[sep] == '/' || s[sep] == '>')) {                      \
            return at;                                                                   \
        }                                                                                \
    }                                                                                    \
    return n;                                                                            \
}                                                                                        \
                                                                                         \
/* "\r\n" pairs in s[from:to]: the input stream makes each one "\n" (one character). */ \
static Py_ssize_t crlf_##SUFFIX(const T *s, Py_ssize_t from, Py_ssize_t to) {            \
    Py_ssize_t pairs = 0;                                                                \
    for (Py_ssize_t at = find_char_##SUFFIX(s, from, to, '\r'); at + 1 < to;             \
         at = find_char_##SUFFIX(s, at + 1, to, '\r')) {                                 \
        pairs += s[at + 1] == '\n';                                                      \
    }                                                                                    \
    return pairs;                                                                        \
}                                                                                        \
                                                                                         \
/* _screen.script_end: the escaped and double-escaped script states. */                  \
static Py_ssize_t script_end_##SUFFIX(const T *s, Py_ssize_t pos, Py_ssize_t n) {        \
    int state = 0; /* 0 data, 1 escaped, 2 double escaped */                             \
    while (pos < n) {                                                                    \
        T c = s[pos];                                                                    \
        if (c == '-' && state != 0 && pos + 2 < n && s[pos + 1] == '-'                   \
            && s[pos + 2] == '>') {                                                      \
            state = 0;                                                                   \
            pos += 3;                                                                    \
        } else if (c != '<') {                                                           \
            pos = state == 0 ? find_lt_##SUFFIX(s, pos + 1, n) : pos + 1;                \
        } else if (opens_with_##SUFFIX(s, pos, n, "<!--")) {                             \
            state = state ? state : 1;                                                   \
            pos += 2; /* "<!-->" is closed by its own dashes */                          \
        } else if (pos + 8 < n && opens_with_##SUFFIX(s, pos, n, "</script")             \
                   && (IS_WS(s[pos + 8]) || s[pos + 8] == '/' || s[pos + 8] == '>')) {   \
            if (state != 2) return pos;                                                  \
            state = 1;                                                                   \
            pos += 8;                                                                    \
        } else if (pos + 7 < n && opens_with_##SUFFIX(s, pos, n, "<script")              \
                   && (IS_WS(s[pos + 7]) || s[pos + 7] == '/' || s[pos + 7] == '>')) {   \
            state = state == 1 ? 2 : state;                                              \
            pos += 7;                                                                    \
        } else {                                                                         \
            pos++;                                                                       \
        }                                                                                \
    }                                                                                    \
    return n;                                                                            \
}                                                                                        \
                                                                                         \
/* A tag's attributes, from just after its name: the tokenizer's attribute states.       \
 * Returns where the tag ends (after its ">", or n), or -1 past max_attributes; counts   \
 * the attributes into ``*attributes``. */                                               \
static Py_ssize_t tag_end_##SUFFIX(const T *s, Py_ssize_t p, Py_ssize_t n,               \
                                   long max_attributes, long *attributes) {              \
    *attributes = 0;                                                                     \
    while (p < n) {                                                                      \
        T c = s[p];                                                                      \
        if (IS_WS(c) || c == '/') { p++; continue; }                                     \
        if (c == '>') return p + 1;                                                      \
        if (++*attributes > max_attributes) return -1;                                   \
        p++; /* a name's first character may be "=" */                                   \
        while (p < n && !(CLASS_OF(s[p]) & ENDS_ATTR_NAME)) p++;                         \
        while (p < n && (CLASS_OF(s[p]) & SPACE)) p++;                                   \
        if (p >= n || s[p] != '=') continue;                                             \
        p++;                                                                             \
        while (p < n && (CLASS_OF(s[p]) & SPACE)) p++;                                   \
        if (p >= n) return n;                                                            \
        c = s[p];                                                                        \
        if (c == '"' || c == '\'') {                                                     \
            p = find_char_##SUFFIX(s, p + 1, n, c) + 1;                                  \
        } else if (c != '>') {                                                           \
            while (p < n && !(CLASS_OF(s[p]) & ENDS_VALUE)) p++;                         \
        }                                                                                \
    }                                                                                    \
    return n;                                                                            \
}                                                                                        \
                                                                                         \
static Py_ssize_t scan_##SUFFIX(const T *s, Py_ssize_t n, long max_attributes,           \
                                long max_formatting, cut_list *cuts, int utf8,           \
                                long long max_select_work) {                             \
    Py_ssize_t starts = 0, pos = 0;                                                      \
    long svg = 0, math = 0, unclosed = 0, templates = 0, attributes = 0;                 \
    long merged[2] = {0, 0}, selects = 0;                                                \
    long long select_entries = 0, select_work = 0;                                       \
    int select_barrier = 0;                                                              \
    long open_by_name[N_FORMATTING] = {0};                                               \
    int integration = 0;                                                                 \
    char name[NAME_MAX_CHARS + 1];                                                       \
    for (;;) {                                                                           \
        Py_ssize_t lt = find_lt_##SUFFIX(s, pos, n);                                     \
        if (lt + 1 >= n) return starts; /* a "<" last is text */                        \
        T c = s[lt + 1];                                                                 \
        int closing = 0;                                                                 \
        Py_ssize_t p = lt + 1;                                                           \
        if (c == '/') {                                                                  \
            if (lt + 2 >= n) return starts;                                              \
            T d = s[lt + 2];                                                             \
            if (d == '>') { pos = lt + 3; continue; }                                    \
            if (!IS_ALPHA(d)) { pos = find_gt_##SUFFIX(s, lt + 2, n); continue; }        \
            closing = 1;                                                                 \
            p = lt + 2;                                                                  \
        } else if (c == '!') {                                                           \
            if (opens_with_##SUFFIX(s, lt, n, "<!--")) {                                 \
                Py_ssize_t q = lt + 4;                                                   \
                if (q < n && s[q] == '>') { pos = q + 1; continue; }                     \
                if (q + 1 < n && s[q] == '-' && s[q + 1] == '>') { pos = q + 2; continue; } \
                pos = n;                                                                 \
                for (; q + 2 < n; q++) {                                                 \
                    if (s[q] == '-' && s[q + 1] == '-'                                   \
                        && (s[q + 2] == '>'                                              \
                            || (s[q + 2] == '!' && q + 3 < n && s[q + 3] == '>'))) {     \
                        pos = q + (s[q + 2] == '>' ? 3 : 4);                             \
                        break;                                                           \
                    }                                                                    \
                }                                                                        \
                continue;                                                                \
            }                                                                            \
            if ((svg || math || integration)                                             \
                && opens_with_##SUFFIX(s, lt, n, "<![cdata[")) {                         \
                return SCAN_UNSURE; /* a CDATA section: text up to "]]>" */             \
            }                                                                            \
            pos = find_gt_##SUFFIX(s, lt + 2, n);                                        \
            continue;                                                                    \
        } else if (c == '?') {                                                           \
            pos = find_gt_##SUFFIX(s, lt + 2, n);                                        \
            continue;                                                                    \
        } else if (!IS_ALPHA(c)) {                                                       \
            pos = lt + 1;                                                                \
            continue;                                                                    \
        }                                                                                \
        /* the name's end first; only a name short enough to be known is copied */      \
        Py_ssize_t name_start = p;                                                       \
        while (p < n && !(CLASS_OF(s[p]) & ENDS_TAG_NAME)) p++;                          \
        int ascii = p - name_start <= NAME_MAX_CHARS;                                    \
        int name_len = ascii ? (int)(p - name_start) : 0;                                \
        for (int i = 0; i < name_len; i++) {                                             \
            T ch = s[name_start + i];                                                    \
            if (ch >= 128) ascii = 0;                                                    \
            name[i] = (char)ASCII_LOWER(ch);                                             \
        }                                                                                \
        tag_kind kind = {OTHER, 0};                                                      \
        if (ascii) {                                                                     \
            name[name_len] = '\0';                                                       \
            kind = classify(name);                                                       \
        }                                                                                \
        Py_ssize_t end = tag_end_##SUFFIX(s, p, n, max_attributes, &attributes);         \
        if (end < 0) return SCAN_FAIL;                                                   \
        pos = end;                                                                       \
        if (closing) {                                                                   \
            if (kind.kind == SELECT && selects > 0 && !select_barrier) selects--;        \
            if (kind.kind == FORMAT && open_by_name[kind.index] > 0) {                   \
                open_by_name[kind.index]--;                                              \
                unclosed--;                                                              \
            } else if (kind.kind == SVG && svg > 0) {                                    \
                svg--;                                                                   \
            } else if (kind.kind == MATH && math > 0) {                                  \
                math--;                                                                  \
            } else if (kind.kind == TEMPLATE && templates > 0) {                         \
                templates--;                                                             \
            }                                                                            \
            continue;                                                                    \
        }                                                                                \
        starts++;                                                                        \
        if (selects > 0) {                                                               \
            select_work += select_entries++;                                             \
            if (select_work > max_select_work) return SCAN_FAIL;                         \
            if (kind.kind == BARRIER || kind.kind == TEMPLATE || kind.kind == SVG          \
                || kind.kind == MATH || kind.kind == INTEGRATION_POINT) {                \
                select_barrier = 1; /* a </select> below it may be ignored: stay */      \
            }                                                                            \
        } else {                                                                         \
            select_entries = 0;                                                          \
            select_barrier = 0;                                                          \
        }                                                                                \
        switch (kind.kind) {                                                             \
        case FORMAT:                                                                     \
            if (unclosed >= max_formatting) return SCAN_FAIL;                            \
            open_by_name[kind.index]++;                                                  \
            unclosed++;                                                                  \
            break;                                                                       \
        case SVG: svg++; break;                                                          \
        case MATH: math++; break;                                                        \
        case INTEGRATION_POINT: integration = integration || svg || math; break;         \
        case RAW: {                                                                      \
            int foreign = svg || math || integration;                                    \
            Py_ssize_t body_end = kind.index == RAW_SCRIPT && !foreign                   \
                ? script_end_##SUFFIX(s, pos, n) : raw_end_##SUFFIX(s, pos, n, name);    \
            int holds_lt = find_lt_##SUFFIX(s, pos, body_end) < body_end;                \
            /* in foreign content the body is markup: the same only if it holds no "<" */ \
            if (foreign && holds_lt) return SCAN_UNSURE;                                 \
            /* in foreign content nothing is cut (a body there holds no "<": above) */   \
            if (cuts && !cuts->off && !foreign) {                                        \
                if (kind.index == RAW_OTHER) {                                           \
                    cuts->off = holds_lt;                                                \
                } else if (body_end > pos && !templates) {                               \
                    Py_ssize_t chars = utf8                                              \
                        ? utf8_chars((const Py_UCS1 *)s, pos, body_end) : body_end - pos; \
                    add_cut(cuts, pos, body_end,                                         \
                            chars - crlf_##SUFFIX(s, pos, body_end), kind.index);        \
                }                                                                        \
            }                                                                            \
            pos = body_end;                                                              \
            break;                                                                       \
        }                                                                                \
        case PLAINTEXT: if (cuts) cuts->off = 1; break; /* the rest is text */          \
        /* a template's content is a fragment of its own, out of the tree's queries */   \
        case TEMPLATE: templates++; break;                                               \
        case SELECT: selects++; break;                                                   \
        case MERGED:                                                                     \
            merged[kind.index] += attributes;                                            \
            if (merged[kind.index] > max_attributes) return SCAN_FAIL;                   \
            break;                                                                       \
        case BARRIER: case OTHER: break;                                                 \
        }                                                                                \
    }                                                                                    \
}

DEFINE_SCAN(1, Py_UCS1)
DEFINE_SCAN(2, Py_UCS2)
DEFINE_SCAN(4, Py_UCS4)

static PyObject *cut_values(const cut_list *cuts) {
    PyObject *values = PyList_New(cuts->used);
    if (values == NULL) return NULL;
    for (Py_ssize_t i = 0; i < cuts->used; i++) {
        PyObject *value = PyLong_FromSsize_t(cuts->values[i]);
        if (value == NULL) {
            Py_DECREF(values);
            return NULL;
        }
        PyList_SET_ITEM(values, i, value);
    }
    return values;
}

static PyObject *scan(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    PyObject *text = nargs == 5 ? args[0] : NULL;
    PyObject *out = nargs == 5 && args[3] != Py_None ? args[3] : NULL;
    if (text == NULL || !(PyUnicode_Check(text) || PyBytes_Check(text))
        || (out != NULL && !PyList_Check(out))) {
        PyErr_SetString(PyExc_TypeError, "scan(text: str | bytes, max_attributes: int, "
                        "max_formatting: int, cuts: list[int] | None, "
                        "max_select_work: int)");
        return NULL;
    }
    long max_attributes = PyLong_AsLong(args[1]);
    long max_formatting = PyLong_AsLong(args[2]);
    long long max_select_work = PyLong_AsLongLong(args[4]);
    if (PyErr_Occurred()) return NULL;
    int kind = PyUnicode_1BYTE_KIND, utf8 = PyBytes_Check(text);
    Py_ssize_t n;
    const void *data;
    if (utf8) {
        n = PyBytes_GET_SIZE(text);
        data = PyBytes_AS_STRING(text);
    } else {
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(text) < 0) return NULL;
#endif
        n = PyUnicode_GET_LENGTH(text);
        data = PyUnicode_DATA(text);
        kind = PyUnicode_KIND(text);
    }
    cut_list cuts = {NULL, 0, 0, 0, 0};
    cut_list *wanted = out != NULL ? &cuts : NULL;
    Py_ssize_t result;
    Py_BEGIN_ALLOW_THREADS
    if (wanted != NULL && holds_mark(data, n, kind, utf8)) cuts.off = 1;
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        result = scan_1((const Py_UCS1 *)data, n, max_attributes, max_formatting, wanted,
                        utf8, max_select_work);
        break;
    case PyUnicode_2BYTE_KIND:
        result = scan_2((const Py_UCS2 *)data, n, max_attributes, max_formatting, wanted, 0,
                        max_select_work);
        break;
    default:
        result = scan_4((const Py_UCS4 *)data, n, max_attributes, max_formatting, wanted, 0,
                        max_select_work);
        break;
    }
    Py_END_ALLOW_THREADS
    if (out != NULL && result >= 0 && !cuts.failed && cuts.used > 0) {
        PyObject *values = cut_values(&cuts);
        int failed = values == NULL || PyList_SetSlice(out, PY_SSIZE_T_MAX, PY_SSIZE_T_MAX,
                                                       values) < 0;
        Py_XDECREF(values);
        if (failed) {
            free(cuts.values);
            return NULL;
        }
    }
    free(cuts.values);
    return PyLong_FromSsize_t(result);
}

/* utf8_valid(data) -> bool: would bytes.decode("utf-8") take these bytes without an
 * error? (_native_utf8.h reads them.) */
static PyObject *utf8_valid(PyObject *module, PyObject *data) {
    (void)module;
    if (!PyBytes_Check(data)) {
        PyErr_SetString(PyExc_TypeError, "utf8_valid(data: bytes)");
        return NULL;
    }
    int ok;
    const Py_UCS1 *s = (const Py_UCS1 *)PyBytes_AS_STRING(data);
    Py_ssize_t n = PyBytes_GET_SIZE(data);
    Py_BEGIN_ALLOW_THREADS
    ok = utf8_length(s, n) >= 0;
    Py_END_ALLOW_THREADS
    return PyBool_FromLong(ok);
}

/* printable(text) -> bool: str.isprintable(). WHY: the converter asks it of nearly
 * every text node (a printable line with no double space needs no whitespace
 * collapsing), and CPython looks each character up in the whole Unicode database, some
 * 25 instructions a character. Here ASCII text is read sixteen bytes at a time (a control
 * character or DEL is all it may hold), and a character below U+0100 in other text is
 * read from a table filled from that same database at import. */
static unsigned char PRINTABLE_LATIN1[256];

static void index_printable(void) {
    for (Py_UCS4 c = 0; c < 256; c++) {
        PRINTABLE_LATIN1[c] = (unsigned char)Py_UNICODE_ISPRINTABLE(c);
    }
}

static int ascii_printable(const Py_UCS1 *s, Py_ssize_t n) {
    Py_ssize_t i = 0;
#ifdef __SSE2__
    const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f);
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        if (_mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del)))) {
            return 0;
        }
    }
#endif
    for (; i < n; i++) {
        if (s[i] < 0x20 || s[i] == 0x7f) return 0;
    }
    return 1;
}

#define PRINTABLE_CHAR(c) ((c) < 256 ? PRINTABLE_LATIN1[c] : Py_UNICODE_ISPRINTABLE(c))

static PyObject *printable(PyObject *module, PyObject *text) {
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "printable(text: str)");
        return NULL;
    }
    if (PyUnicode_READY(text) < 0) return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const void *data = PyUnicode_DATA(text);
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        if (PyUnicode_IS_ASCII(text)) return PyBool_FromLong(ascii_printable(data, n));
        for (Py_ssize_t i = 0; i < n; i++) {
            if (!PRINTABLE_LATIN1[((const Py_UCS1 *)data)[i]]) Py_RETURN_FALSE;
        }
        break;
    case PyUnicode_2BYTE_KIND:
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS2 c = ((const Py_UCS2 *)data)[i];
            if (!PRINTABLE_CHAR(c)) Py_RETURN_FALSE;
        }
        break;
    default:
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 c = ((const Py_UCS4 *)data)[i];
            if (!PRINTABLE_CHAR(c)) Py_RETURN_FALSE;
        }
    }
    Py_RETURN_TRUE;
}

/* spread(text) -> (chars, wide): of t = "".join(text.split()), len(t) and
 * len(t.encode("utf-8", "surrogatepass")) - len(t), without building t. WHY:
 * _score.script_scale asks them of a few thousand characters of every page, to learn
 * whether the page may be written in CJK or Hangul (then at least a fifth of its
 * characters take three bytes); the split, the join and the encoding made three copies
 * and a str per word for two numbers. Whitespace is str.isspace's (a table below U+0100,
 * filled at import from the same database). */
static unsigned char SPACE_LATIN1[256];

static void index_spaces(void) {
    for (Py_UCS4 c = 0; c < 256; c++) SPACE_LATIN1[c] = (unsigned char)Py_UNICODE_ISSPACE(c);
}

#define SPREAD(type, extra)                                                             \
    for (Py_ssize_t i = 0; i < n; i++) {                                             \
        type c = ((const type *)data)[i];                                            \
        if (c < 256 ? !SPACE_LATIN1[c] : !Py_UNICODE_ISSPACE(c)) {                   \
            chars++;                                                                 \
            wide += (extra);                                                         \
        }                                                                            \
    }

static PyObject *spread(PyObject *module, PyObject *text) {
    (void)module;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "spread(text: str)");
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) return NULL;
#endif
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), chars = 0, wide = 0;
    const void *data = PyUnicode_DATA(text);
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        SPREAD(Py_UCS1, c >= 0x80)
        break;
    case PyUnicode_2BYTE_KIND:
        SPREAD(Py_UCS2, c >= 0x800 ? 2 : c >= 0x80)
        break;
    default:
        SPREAD(Py_UCS4, c >= 0x10000 ? 3 : c >= 0x800 ? 2 : c >= 0x80)
    }
    return Py_BuildValue("(nn)", chars, wide);
}

/* holds_any(data, start, end, needles) -> bool: any(data.find(n.encode(), start, end)
 * >= 0 for n in needles), 0 <= start <= end <= len(data). WHY: the embedded-state reader
 * (_metadata, through RawCut.holds) asks it of every inline script body, held as the
 * page's bytes: two searches a body went over all of a page's script (3.4 MB on the
 * extraction-dev pages, 11 M instructions). Needles that open with the same byte (the
 * state names' "_") are looked for in one pass: memchr to each such byte, then a
 * comparison per needle; the byte is rare in script (one in 140). */
#define HOLDS_MAX 8

static int holds_from(const char *s, Py_ssize_t start, Py_ssize_t end,
                      const char *const *needles, const Py_ssize_t *lens, Py_ssize_t count) {
    const char *stop = s + end;
    for (const char *at = memchr(s + start, needles[0][0], (size_t)(end - start)); at != NULL;
         at = at + 1 < stop ? memchr(at + 1, needles[0][0], (size_t)(stop - at - 1)) : NULL) {
        for (Py_ssize_t k = 0; k < count; k++) {
            if (lens[k] <= stop - at && memcmp(at, needles[k], (size_t)lens[k]) == 0) return 1;
        }
    }
    return 0;
}

static PyObject *holds_any(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4 || !PyBytes_Check(args[0]) || !PyTuple_Check(args[3])
        || PyTuple_GET_SIZE(args[3]) > HOLDS_MAX) {
        PyErr_SetString(PyExc_TypeError, "holds_any(data: bytes, start: int, end: int, "
                        "needles: tuple[str, ...] (at most 8))");
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[1]), end = PyLong_AsSsize_t(args[2]);
    if ((start == -1 || end == -1) && PyErr_Occurred()) return NULL;
    if (start < 0 || start > end || end > PyBytes_GET_SIZE(args[0])) {
        PyErr_SetString(PyExc_ValueError, "holds_any: 0 <= start <= end <= len(data)");
        return NULL;
    }
    const char *needles[HOLDS_MAX];
    Py_ssize_t lens[HOLDS_MAX], count = PyTuple_GET_SIZE(args[3]);
    int one_lead = 1;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *needle = PyTuple_GET_ITEM(args[3], k);
        if (!PyUnicode_Check(needle)) {
            PyErr_SetString(PyExc_TypeError, "holds_any: needles are str");
            return NULL;
        }
        needles[k] = PyUnicode_AsUTF8AndSize(needle, &lens[k]);
        if (needles[k] == NULL) return NULL;
        if (lens[k] == 0) Py_RETURN_TRUE; /* found at start */
        one_lead &= needles[k][0] == needles[0][0];
    }
    const char *s = PyBytes_AS_STRING(args[0]);
    int found = 0;
    if (one_lead) {
        found = count > 0 && holds_from(s, start, end, needles, lens, count);
    } else {
        for (Py_ssize_t k = 0; k < count && !found; k++) {
            found = holds_from(s, start, end, needles + k, lens + k, 1);
        }
    }
    return PyBool_FromLong(found);
}

static PyMethodDef methods[] = {
    {"scan", (PyCFunction)(void (*)(void))scan, METH_FASTCALL,
     "scan(text, max_attributes, max_formatting, cuts, max_select_work): start tags read, "
     "-1 when a cap may be needed, -2 when the regex screen must decide; "
     "fills ``cuts`` with the raw-text bodies Lexbor may skip."},
    {"utf8_valid", (PyCFunction)utf8_valid, METH_O,
     "Whether bytes.decode('utf-8') takes these bytes without an error."},
    {"printable", (PyCFunction)printable, METH_O,
     "str.isprintable(): ASCII sixteen bytes at a time, a table below U+0100."},
    {"holds_any", (PyCFunction)(void (*)(void))holds_any, METH_FASTCALL,
     "holds_any(data, start, end, needles): whether data[start:end] holds one of the "
     "needles (str, read as UTF-8)."},
    {"spread", (PyCFunction)spread, METH_O,
     "spread(text) -> (chars, wide): len(t) and its UTF-8 bytes beyond one a character, "
     "of t = ''.join(text.split())."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_native_screen",
    "The parse screen's tokenizer pass in C (see pressmark.markdown._screen).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native_screen(void) {
    index_known();
    index_classes();
    index_printable();
    index_spaces();
    return PyModule_Create(&module_def);
}
