/* The stylesheet scan behind the hidden-element check, in C: see _sheet.py.
 *
 * candidates(pieces, max_chars, max_candidates) reads a page's <style> texts as
 * ``_sheet.candidates_in_python`` does and returns the same list: for each top-level rule
 * whose declarations may hide (a hint such as ``display:none`` after a hiding property)
 * and whose selector list holds a simple selector, (the stripped selector list, the
 * declarations); None when the texts hold no hint at all. ``pieces``: a list of str (a
 * text as it is) and (bytes, start, end) (a body the page holds as UTF-8, read as
 * ``_rawcut`` decodes it: "\r\n" and "\r" become "\n", NUL becomes U+FFFD). The pieces
 * are joined by "\n" and cut at ``max_chars`` characters; comments become one space.
 *
 * WHY in C: the Python reading made a page's sheets one str (two MB-size sheets on the
 * dev set are UCS-2: one non-ASCII character makes every character two bytes), searched
 * it with a regular expression that stops at every colon, and counted braces, found
 * rules and sliced selectors with str methods: 15 % of ``md --batch``'s instructions on
 * extraction-dev. Here the texts are copied once into one UTF-8 buffer (a body held as
 * bytes is never decoded), comments are cut out in place, and one pass reads the braces
 * and colons sixteen bytes at a time; only the few rules found become str.
 *
 * The reading is the Python one, decision for decision (_sheet.py says why each is
 * so): braces are counted as they come (no strings, no escapes: a brace in a string
 * counts, as it did); the hint's look-behind letter, its spaces (Py_UNICODE_ISSPACE, the
 * regex engine's \s), digits (Py_UNICODE_ISDECIMAL, its \d) and re.IGNORECASE's letters
 * (K, İ, ı, ſ beside ASCII) are the regex engine's; the property before the colon is
 * looked for in the sixteen characters before it. Positions that count characters (that
 * window, ``max_chars``) count UTF-8 characters; everything else looks at ASCII bytes,
 * which UTF-8 never uses inside a longer character. The tests hold the two readings to
 * each other on every corpus page's sheets, on shapes and on generated sheets.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "_native_utf8.h"

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

#define WINDOW_CHARS 16 /* characters before a hint's colon that may name its property */

static unsigned char SPACE_ASCII[128]; /* Py_UNICODE_ISSPACE below U+0080 */
static unsigned char BEHIND[128];      /* the hint's look-behind: [yetphmYETPHM] or \s */
static unsigned char LOWER[128];       /* ASCII lower-cased */

/* The properties whose values may hide (_sheet._HIDING_PROPERTIES). */
static const char *const PROPERTIES[] = {
    "display", "visibility", "opacity", "font-size", "text-indent", "left", "top", "right",
    "clip", "clip-path", "transform",
};
#define N_PROPERTIES (sizeof(PROPERTIES) / sizeof(PROPERTIES[0]))
static size_t PROPERTY_SIZE[N_PROPERTIES];

static void index_tables(void) {
    for (Py_UCS4 c = 0; c < 128; c++) {
        SPACE_ASCII[c] = (unsigned char)Py_UNICODE_ISSPACE(c);
        BEHIND[c] = (unsigned char)(SPACE_ASCII[c] || (c != 0 && strchr("yetphmYETPHM", (int)c)));
        LOWER[c] = (unsigned char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    for (size_t k = 0; k < N_PROPERTIES; k++) PROPERTY_SIZE[k] = strlen(PROPERTIES[k]);
}

static inline int is_space(Py_UCS4 c) { return c < 128 ? SPACE_ASCII[c] : Py_UNICODE_ISSPACE(c); }

static inline int is_digit(Py_UCS4 c) {
    return c < 128 ? (c >= '0' && c <= '9') : Py_UNICODE_ISDECIMAL(c);
}

/* A character as re.IGNORECASE compares it with an ASCII letter: ASCII lower-cased, and
 * the four others that match one (KELVIN SIGN, the dotted and dotless i, the long s). */
static inline Py_UCS4 fold(Py_UCS4 c) {
    if (c < 128) return LOWER[c];
    switch (c) {
    case 0x130: case 0x131: return 'i';
    case 0x17F: return 's';
    case 0x212A: return 'k';
    default: return c;
    }
}

/* A character of two to four bytes at s[i] (char_at's slow path). */
static Py_UCS4 char_wide(const unsigned char *s, Py_ssize_t n, Py_ssize_t i, int *len) {
    unsigned char c = s[i];
    if (c >= 0xC0 && c < 0xE0 && i + 1 < n) {
        *len = 2;
        return ((Py_UCS4)(c & 0x1F) << 6) | (s[i + 1] & 0x3F);
    }
    if (c >= 0xE0 && c < 0xF0 && i + 2 < n) {
        *len = 3;
        return ((Py_UCS4)(c & 0x0F) << 12) | ((Py_UCS4)(s[i + 1] & 0x3F) << 6)
               | (s[i + 2] & 0x3F);
    }
    if (c >= 0xF0 && i + 3 < n) {
        *len = 4;
        return ((Py_UCS4)(c & 0x07) << 18) | ((Py_UCS4)(s[i + 1] & 0x3F) << 12)
               | ((Py_UCS4)(s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F);
    }
    *len = 1;
    return c;
}

/* The character at s[i] and its length in bytes. The buffer is valid UTF-8 (checked
 * bytes, encoded str, ASCII put in); a lead byte cut off by the end reads as itself. */
static inline Py_UCS4 char_at(const unsigned char *s, Py_ssize_t n, Py_ssize_t i, int *len) {
    if (s[i] < 0x80) {
        *len = 1;
        return s[i];
    }
    return char_wide(s, n, i, len);
}

/* Where the character before position i (> 0) starts. */
static inline Py_ssize_t char_before(const unsigned char *s, Py_ssize_t i) {
    Py_ssize_t j = i - 1;
    while (j > 0 && i - j < 4 && (s[j] & 0xC0) == 0x80) j--;
    return j;
}

static Py_ssize_t skip_spaces(const unsigned char *s, Py_ssize_t n, Py_ssize_t i) {
    while (i < n) {
        int len;
        if (s[i] < 0x80) {
            if (!SPACE_ASCII[s[i]]) break;
            i++;
        } else if (is_space(char_at(s, n, i, &len))) {
            i += len;
        } else {
            break;
        }
    }
    return i;
}

/* Whether the text at *at spells ``word`` (ASCII, lower case) as re.IGNORECASE reads
 * it; *at moves past it when it does. */
static int spells(const unsigned char *s, Py_ssize_t n, Py_ssize_t *at, const char *word) {
    Py_ssize_t i = *at;
    for (; *word; word++) {
        if (i >= n) return 0;
        int len;
        if (fold(char_at(s, n, i, &len)) != (Py_UCS4)(unsigned char)*word) return 0;
        i += len;
    }
    *at = i;
    return 1;
}

/* ``word``, spaces, then "0" (``rect\(\s*0``, ``circle\(\s*0``). */
static int spells_zero_call(const unsigned char *s, Py_ssize_t n, Py_ssize_t at,
                            const char *word) {
    if (!spells(s, n, &at, word)) return 0;
    at = skip_spaces(s, n, at);
    return at < n && s[at] == '0';
}

/* The value after a hint's colon (at q): spaces, then one that may hide. */
static int value_hints(const unsigned char *s, Py_ssize_t n, Py_ssize_t q) {
    int len;
    while (q < n && s[q] < 0x80 && SPACE_ASCII[s[q]]) q++;
    if (q < n && s[q] >= 0x80) q = skip_spaces(s, n, q);
    if (q >= n) return 0;
    Py_ssize_t at = q;
    switch (fold(char_at(s, n, q, &len))) {
    case 'n': return spells(s, n, &at, "none");
    case 'h': return spells(s, n, &at, "hidden");
    case 'c':
        if (spells(s, n, &at, "collapse")) return 1;
        return spells_zero_call(s, n, q, "circle(");
    case 'r': return spells_zero_call(s, n, q, "rect(");
    case 'i': return spells(s, n, &at, "inset(");
    case 's': return spells(s, n, &at, "scale");
    case '0':  /* 0(?![.\d]*[1-9]): no digit 1-9 in the run of dots and digits after it */
        for (at = q + 1; at < n; at += len) {
            Py_UCS4 c = char_at(s, n, at, &len);
            if (c >= '1' && c <= '9') return 0;
            if (c != '.' && !is_digit(c)) break;
        }
        return 1;
    case '-':  /* -\d{3,} */
        at = q + 1;
        for (int k = 0; k < 3; k++, at += len) {
            if (at >= n || !is_digit(char_at(s, n, at, &len))) return 0;
        }
        return 1;
    default: return 0;
    }
}

/* _sheet._SHEET_HINT at the colon s[p]: the look-behind, spaces, then a value that may
 * hide. */
static ALWAYS_INLINE int hint_at(const unsigned char *s, Py_ssize_t n, Py_ssize_t p) {
    int len;
    if (p == 0) return 0;
    if (s[p - 1] < 0x80) {
        if (!BEHIND[s[p - 1]]) return 0;  /* most colons: "margin:", "color:" */
    } else if (!Py_UNICODE_ISSPACE(char_wide(s, n, char_before(s, p), &len))) {
        return 0;
    }
    return value_hints(s, n, p + 1);
}

/* Whether the characters window[first:count] (backwards) end in a hiding property. */
static int ends_in_property(const Py_UCS4 *window, int first, int count) {
    for (size_t k = 0; k < N_PROPERTIES; k++) {
        const char *name = PROPERTIES[k];
        int size = (int)PROPERTY_SIZE[k], t;
        if (count - first < size) continue;
        for (t = 0; t < size; t++) {
            if (fold(window[first + t]) != (Py_UCS4)(unsigned char)name[size - 1 - t]) break;
        }
        if (t == size) return 1;
    }
    return 0;
}

/* _sheet._names_property: the sixteen characters before the colon at p, their trailing
 * spaces left out, end in a hiding property's name (re.IGNORECASE's letters). */
static int names_property(const unsigned char *s, Py_ssize_t n, Py_ssize_t p) {
    Py_ssize_t low = p - WINDOW_CHARS;
    int ascii = low >= 0;
#ifdef __SSE2__
    ascii = ascii && !_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(s + low)));
#else
    for (Py_ssize_t j = low; ascii && j < p; j++) ascii = s[j] < 0x80;
#endif
    if (ascii) {  /* sixteen bytes, sixteen characters: compared where they are */
        Py_ssize_t end = p;
        while (end > low && SPACE_ASCII[s[end - 1]]) end--;
        for (size_t k = 0; k < N_PROPERTIES; k++) {
            const char *name = PROPERTIES[k];
            Py_ssize_t size = (Py_ssize_t)PROPERTY_SIZE[k], t;
            if (end - low < size) continue;
            for (t = size - 1; t >= 0 && LOWER[s[end - size + t]] == (unsigned char)name[t]; t--) {
            }
            if (t < 0) return 1;
        }
        return 0;
    }
    Py_UCS4 window[WINDOW_CHARS];  /* backwards: window[0] is the character before p */
    int count = 0, first = 0, len;
    for (Py_ssize_t j = p; count < WINDOW_CHARS && j > 0;) {
        j = char_before(s, j);
        window[count++] = char_at(s, n, j, &len);
    }
    while (first < count && is_space(window[first])) first++;
    return ends_in_property(window, first, count);
}

/* _sheet.simple_selector on s[a:b] (str.strip()'s spaces, then
 * ^([a-z][a-z0-9-]*)?((?:[.#][A-Za-z0-9_-]+)+)$). */
static int is_name_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
           || c == '_' || c == '-';
}

static void strip(const unsigned char *s, Py_ssize_t n, Py_ssize_t *a, Py_ssize_t *b) {
    int len;
    *a = skip_spaces(s, *b, *a);
    while (*b > *a) {
        Py_ssize_t j = char_before(s, *b);
        if (!is_space(char_at(s, n, j, &len))) break;
        *b = j;
    }
}

static int simple_selector(const unsigned char *s, Py_ssize_t n, Py_ssize_t a, Py_ssize_t b) {
    strip(s, n, &a, &b);
    Py_ssize_t i = a;
    if (i < b && s[i] >= 'a' && s[i] <= 'z') {
        for (i++; i < b && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')
                            || s[i] == '-'); i++) {
        }
    }
    int parts = 0;
    while (i < b && (s[i] == '.' || s[i] == '#')) {
        Py_ssize_t start = ++i;
        while (i < b && is_name_char(s[i])) i++;
        if (i == start) return 0;
        parts++;
    }
    return parts > 0 && i == b;
}

/* Whether the selector list s[a:b] holds a simple selector. */
static int holds_simple(const unsigned char *s, Py_ssize_t n, Py_ssize_t a, Py_ssize_t b) {
    for (Py_ssize_t i = a;; i++) {
        if (i == b || s[i] == ',') {
            if (simple_selector(s, n, a, i)) return 1;
            if (i == b) return 0;
            a = i + 1;
        }
    }
}

/* The list of candidates being built, and where the rule waiting for its "}" lies. */
typedef struct {
    const unsigned char *s;
    Py_ssize_t n;
    PyObject *out;
    Py_ssize_t max_candidates;
    Py_ssize_t open;          /* the last "{", or -1 */
    Py_ssize_t last_close;    /* the last "}", or -1 */
    Py_ssize_t prelude;       /* where the selector list of the last "{" starts */
    Py_ssize_t depth;         /* "{" less "}" so far */
    Py_ssize_t open_depth;    /* the same just before the last "{" */
    int closed;               /* a "}" came after the last "{" (or none came yet) */
    int decided;              /* a hint after the last "{" named a property */
    int waiting;              /* a rule found: its body ends at the next "}" */
    Py_ssize_t wait_prelude, wait_open;
} scan_t;

static PyObject *decode(const unsigned char *s, Py_ssize_t a, Py_ssize_t b) {
    return PyUnicode_DecodeUTF8((const char *)s + a, b - a, "surrogatepass");
}

/* Adds the rule waiting, whose body ends at ``end``: 0, or -1 on error. */
static int emit(scan_t *st, Py_ssize_t end) {
    st->waiting = 0;
    Py_ssize_t a = st->wait_prelude, b = st->wait_open;
    if (PyList_GET_SIZE(st->out) >= st->max_candidates) return 0;
    if (!holds_simple(st->s, st->n, a, b)) return 0;
    strip(st->s, st->n, &a, &b);
    PyObject *prelude = decode(st->s, a, b);
    if (prelude == NULL) return -1;
    PyObject *body = decode(st->s, st->wait_open + 1, end);
    if (body == NULL) {
        Py_DECREF(prelude);
        return -1;
    }
    PyObject *pair = PyTuple_Pack(2, prelude, body);
    Py_DECREF(prelude);
    Py_DECREF(body);
    if (pair == NULL) return -1;
    int failed = PyList_Append(st->out, pair);
    Py_DECREF(pair);
    return failed;
}

/* One "{", "}" or ":" at i, as _sheet.candidates_in_python's loop reads it. */
static ALWAYS_INLINE int step(scan_t *st, Py_ssize_t i) {
    unsigned char c = st->s[i];
    if (c == '{') {
        st->open = i;
        st->open_depth = st->depth++;
        st->prelude = st->last_close + 1;
        st->closed = st->decided = 0;
    } else if (c == '}') {
        st->depth--;
        st->last_close = i;
        st->closed = 1;
        if (st->waiting) return emit(st, i);
    } else if (!st->closed && !st->decided && hint_at(st->s, st->n, i)
               && names_property(st->s, st->n, i)) {
        st->decided = 1;  /* later hints in this body are passed over */
        if (st->open_depth == 0) {  /* inside an at-rule it hides only sometimes */
            st->waiting = 1;
            st->wait_prelude = st->prelude;
            st->wait_open = st->open;
        }
    }
    return 0;
}

static int scan(scan_t *st) {
    const unsigned char *s = st->s;
    Py_ssize_t n = st->n, i = 0;
#ifdef __SSE2__
    const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
    const __m128i colon = _mm_set1_epi8(':');
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, open), _mm_cmpeq_epi8(v, close)),
            _mm_cmpeq_epi8(v, colon)));
        while (mask) {
            if (step(st, i + __builtin_ctz(mask)) < 0) return -1;
            mask &= mask - 1;
        }
    }
#endif
    for (; i < n; i++) {
        if ((s[i] == '{' || s[i] == '}' || s[i] == ':') && step(st, i) < 0) return -1;
    }
    return st->waiting ? emit(st, n) : 0;
}

/* Whether the text holds a hint anywhere (the first look, before comments go). */
static int holds_hint(const unsigned char *s, Py_ssize_t n) {
    for (const unsigned char *p = memchr(s, ':', (size_t)n); p != NULL;
         p = memchr(p + 1, ':', (size_t)(n - (p + 1 - s)))) {
        if (hint_at(s, n, p - s)) return 1;
    }
    return 0;
}

static Py_ssize_t find_pair(const unsigned char *s, Py_ssize_t n, Py_ssize_t i,
                            unsigned char a, unsigned char b) {
    while (i + 1 < n) {
        const unsigned char *p = memchr(s + i, a, (size_t)(n - 1 - i));
        if (p == NULL) return -1;
        if (p[1] == b) return p - s;
        i = p - s + 1;
    }
    return -1;
}

/* Each comment (/\*.*?\*\/, the first "*\/" after its "/\*") becomes one space, in
 * place; an unclosed one stays. The new length. */
static Py_ssize_t cut_comments(unsigned char *s, Py_ssize_t n) {
    Py_ssize_t read = 0, write = 0;
    for (;;) {
        Py_ssize_t start = find_pair(s, n, read, '/', '*');
        if (start < 0) break;
        Py_ssize_t end = find_pair(s, n, start + 2, '*', '/');
        if (end < 0) break;
        if (write != read) memmove(s + write, s + read, (size_t)(start - read));
        write += start - read;
        s[write++] = ' ';
        read = end + 2;
    }
    if (write == read) return n;
    memmove(s + write, s + read, (size_t)(n - read));
    return write + n - read;
}

/* One piece's text: its UTF-8 (data, size), whether it is a body held as bytes (read
 * as _rawcut reads it: CR, NUL) and how many NULs it holds (each grows to three bytes). */
typedef struct {
    const unsigned char *data;
    Py_ssize_t size, nul;
    int raw;
    PyObject *keep;  /* an encoded copy to release, or NULL */
} piece_t;

static int read_piece(PyObject *item, piece_t *piece) {
    piece->keep = NULL;
    piece->raw = 0;
    piece->nul = 0;
    if (PyUnicode_Check(item)) {
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(item) < 0) return -1;
#endif
        if (PyUnicode_IS_ASCII(item)) {
            piece->data = PyUnicode_DATA(item);
            piece->size = PyUnicode_GET_LENGTH(item);
            return 0;
        }
        const char *utf8 = PyUnicode_AsUTF8AndSize(item, &piece->size);
        if (utf8 != NULL) {
            piece->data = (const unsigned char *)utf8;
            return 0;
        }
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return -1;
        PyErr_Clear();  /* lone surrogates: carried as they are, read back the same */
        piece->keep = PyUnicode_AsEncodedString(item, "utf-8", "surrogatepass");
        if (piece->keep == NULL) return -1;
        piece->data = (const unsigned char *)PyBytes_AS_STRING(piece->keep);
        piece->size = PyBytes_GET_SIZE(piece->keep);
        return 0;
    }
    PyObject *source;
    Py_ssize_t start, end;
    if (!PyTuple_Check(item) || !PyArg_ParseTuple(item, "O!nn", &PyBytes_Type, &source,
                                                  &start, &end)) {
        PyErr_SetString(PyExc_TypeError, "a piece is a str or (bytes, start, end)");
        return -1;
    }
    Py_ssize_t total = PyBytes_GET_SIZE(source);
    if (start < 0 || end < start || end > total) {
        PyErr_SetString(PyExc_ValueError, "a piece's range is outside its bytes");
        return -1;
    }
    piece->data = (const unsigned char *)PyBytes_AS_STRING(source) + start;
    piece->size = end - start;
    piece->raw = 1;
    for (const unsigned char *p = memchr(piece->data, 0, (size_t)piece->size); p != NULL;
         p = memchr(p + 1, 0, (size_t)(piece->size - (p + 1 - piece->data)))) {
        piece->nul++;
    }
    return 0;
}

/* Copies a body held as UTF-8 into ``out`` as _rawcut reads it ("\r\n" and "\r" become
 * "\n", NUL U+FFFD), checking the UTF-8 on the way: the bytes written, or -1 when
 * bytes.decode("utf-8") would refuse them. Sixteen bytes at a time while they are ASCII
 * and neither CR nor NUL (one pass: no separate check, search or copy). */
static Py_ssize_t copy_body(const unsigned char *in, Py_ssize_t n, unsigned char *out) {
    Py_ssize_t i = 0, w = 0;
#ifdef __SSE2__
    const __m128i carriage = _mm_set1_epi8('\r'), zero = _mm_setzero_si128();
#endif
    while (i < n) {
#ifdef __SSE2__
        while (i + 16 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i *)(in + i));
            if (_mm_movemask_epi8(_mm_or_si128(
                    v, _mm_or_si128(_mm_cmpeq_epi8(v, carriage), _mm_cmpeq_epi8(v, zero))))) {
                break;
            }
            _mm_storeu_si128((__m128i *)(out + w), v);
            i += 16;
            w += 16;
        }
        if (i >= n) break;
#endif
        unsigned char c = in[i];
        if (c == '\r') {
            out[w++] = '\n';
            i += (i + 1 < n && in[i + 1] == '\n') ? 2 : 1;
        } else if (c == 0) {
            out[w++] = 0xEF; out[w++] = 0xBF; out[w++] = 0xBD;  /* U+FFFD */
            i++;
        } else if (c < 0x80) {
            out[w++] = c;
            i++;
        } else {
            int size = utf8_char_size(in, n, i);
            if (size < 0) return -1;
            memcpy(out + w, in + i, (size_t)size);
            w += size;
            i += size;
        }
    }
    return w;
}

/* Where the first ``chars`` characters end (they are all there). */
static Py_ssize_t char_offset(const unsigned char *s, Py_ssize_t n, Py_ssize_t chars) {
    Py_ssize_t i = 0;
    for (; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            if (chars == 0) return i;
            chars--;
        }
    }
    return n;
}

static PyObject *candidates(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3 || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "candidates(pieces: list, max_chars: int, "
                        "max_candidates: int)");
        return NULL;
    }
    Py_ssize_t max_chars = PyLong_AsSsize_t(args[1]);
    Py_ssize_t max_candidates = PyLong_AsSsize_t(args[2]);
    if (PyErr_Occurred()) return NULL;
    PyObject *list = args[0], *result = NULL;
    Py_ssize_t count = PyList_GET_SIZE(list), size = 0, filled = 0;
    piece_t *pieces = PyMem_Calloc((size_t)(count > 0 ? count : 1), sizeof(piece_t));
    unsigned char *s = NULL;
    if (pieces == NULL) return PyErr_NoMemory();
    for (; filled < count; filled++) {
        if (read_piece(PyList_GET_ITEM(list, filled), &pieces[filled]) < 0) goto done;
        size += pieces[filled].size + 2 * pieces[filled].nul + (filled > 0);
    }
    s = PyMem_Malloc((size_t)(size > 0 ? size : 1));
    if (s == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t n = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        const piece_t *piece = &pieces[k];
        if (k > 0) s[n++] = '\n';
        if (!piece->raw) {
            memcpy(s + n, piece->data, (size_t)piece->size);
            n += piece->size;
            continue;
        }
        Py_ssize_t written = copy_body(piece->data, piece->size, s + n);
        if (written < 0) {  /* raise bytes.decode's own error */
            PyObject *text = PyUnicode_DecodeUTF8((const char *)piece->data, piece->size,
                                                  NULL);
            Py_XDECREF(text);
            if (text != NULL) PyErr_SetString(PyExc_ValueError, "a body is not UTF-8");
            goto done;
        }
        n += written;
    }
    if (max_chars < 0) max_chars = 0;
    if (n > max_chars) n = char_offset(s, n, max_chars);  /* bytes >= characters */
    if (!holds_hint(s, n)) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    n = cut_comments(s, n);
    result = PyList_New(0);
    if (result == NULL) goto done;
    scan_t st = {s, n, result, max_candidates, -1, -1, 0, 0, 0, 1, 0, 0, 0, 0};
    if (scan(&st) < 0) Py_CLEAR(result);
done:
    for (Py_ssize_t k = 0; k < filled; k++) Py_XDECREF(pieces[k].keep);
    PyMem_Free(pieces);
    PyMem_Free(s);
    return result;
}

static PyMethodDef methods[] = {
    {"candidates", (PyCFunction)(void (*)(void))candidates, METH_FASTCALL,
     "candidates(pieces, max_chars, max_candidates): the (selector list, declarations) "
     "of the top-level rules that may hide, or None when no declaration hints at it."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_native_sheet",
    "The stylesheet scan of the hidden-element check in C (see pressmark.markdown._sheet).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native_sheet(void) {
    index_tables();
    return PyModule_Create(&module_def);
}
