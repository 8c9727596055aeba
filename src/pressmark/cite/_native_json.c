/* JSON string literals as UTF-8 bytes, for md --batch --chunks: see _jsonbytes.py.
 *
 * json_text(s, start, end) is json.dumps(s[start:end], ensure_ascii=False) encoded
 * as UTF-8 (lone surrogates written as their three bytes, "surrogatepass");
 * json_words(s, start, end) the same of " ".join(s[start:end].split()), the chunk id's
 * normalised text; json_texts(strings) the json_text of each string, joined by commas
 * (a JSON array's inside). They write exactly what _jsonbytes.py's Python reading
 * gives, which the tests hold them to on every dev-set page and on generated text.
 *
 * WHY in C: a page's chunks are written as JSON lines twice its Markdown long (the
 * text, the DOM paths, the id's normalised text), and json's string encoder, the split
 * and join of the normalisation, the copies of each chunk's text and the UTF-8 encoding
 * of the lines cost as much as cutting the page. Here each string is read once, into a
 * buffer with room for the worst case (on the stack for a default chunk's text), eight
 * plain ASCII characters at a time where it can, and no Python object is made but the
 * result.
 *
 * The escapes are json's: \" \\ \b \f \n \r \t, any other character below U+0020 as
 * \u00XX (lower-case hex); everything else as itself. Whitespace is str.split()'s
 * (Py_UNICODE_ISSPACE).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Each character below U+0100: the bytes it takes in a JSON string (1, 2 for \n or a
 * Latin-1 letter, 6 for \u001f), and SPACE when str.split() splits at it. */
#define SPACE 0x80
static unsigned char latin1[256];
static const char hex_digits[] = "0123456789abcdef";

static void fill_table(void) {
    for (int c = 0; c < 256; c++) {
        unsigned char width = c < 0x20 ? 6 : c < 0x80 ? 1 : 2;
        if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r'
                || c == '\t')
            width = 2;
        latin1[c] = (unsigned char)(width | (Py_UNICODE_ISSPACE(c) ? SPACE : 0));
    }
}

/* Writes one character: escaped, or as its UTF-8 bytes (a surrogate as its three). */
static char *put(char *out, Py_UCS4 c) {
    if (c < 0x80) {
        switch (latin1[c] & ~SPACE) {
        case 1: *out++ = (char)c; return out;
        case 6:
            memcpy(out, "\\u00", 4);
            out[4] = hex_digits[c >> 4];
            out[5] = hex_digits[c & 0xF];
            return out + 6;
        default:
            *out++ = '\\';
            switch (c) {
            case '\b': *out++ = 'b'; break;
            case '\f': *out++ = 'f'; break;
            case '\n': *out++ = 'n'; break;
            case '\r': *out++ = 'r'; break;
            case '\t': *out++ = 't'; break;
            default: *out++ = (char)c; break;  /* " and \ */
            }
            return out;
        }
    }
    if (c < 0x800) {
        *out++ = (char)(0xC0 | (c >> 6));
    } else {
        if (c < 0x10000) {
            *out++ = (char)(0xE0 | (c >> 12));
        } else {
            *out++ = (char)(0xF0 | (c >> 18));
            *out++ = (char)(0x80 | ((c >> 12) & 0x3F));
        }
        *out++ = (char)(0x80 | ((c >> 6) & 0x3F));
    }
    *out++ = (char)(0x80 | (c & 0x3F));
    return out;
}

/* One character of the normalised text: a whitespace character owes a space before the
 * next word (none before the first); any other is written after the space it is owed. */
static inline char *word_char(char *out, const char *first, int *gap, Py_UCS4 c) {
    unsigned char k = c < 0x100 ? latin1[c] : Py_UNICODE_ISSPACE(c) ? SPACE : 3;
    if (k & SPACE) {
        *gap = out != first;
        return out;
    }
    *out = ' ';
    out += *gap;
    *gap = 0;
    return put(out, c);
}

/* Sixteen bytes (or eight UCS-2 characters, packed to bytes) at once with SSE2, on every
 * x86-64: the plain ones (U+0020..U+007F but '"' and '\'; for the normalised text, not
 * ' ' either) are written as they are, up to the first that is not. A UCS-2 character
 * past U+00FF packs to 0x00 or 0xFF, which are never plain. Elsewhere a character at a
 * time, with the same result (the tests hold both to Python's reading). */
#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#define BLOCKS 1

/* Bit i set: byte i of v is not plain (below `low`, signed: 0x80 and up too; '"'; '\'). */
static inline unsigned not_plain(__m128i v, char low) {
    __m128i bad = _mm_or_si128(
        _mm_cmplt_epi8(v, _mm_set1_epi8(low)),
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
    return (unsigned)_mm_movemask_epi8(bad);
}

/* Bit i set: byte i of v is ' '. */
static inline unsigned spaces(__m128i v) {
    return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
}

static inline __m128i load_1(const Py_UCS1 *p) {
    return _mm_loadu_si128((const __m128i *)p);
}

static inline __m128i load_2(const Py_UCS2 *p) {
    __m128i v = _mm_loadu_si128((const __m128i *)p);
    return _mm_packus_epi16(v, v);
}
#else
#define BLOCKS 0
#endif

/* s's characters [0, n) as a JSON string's inside (text_*), or " ".join of its words
 * (words_*), written to out, which has room for 6 n + 2 bytes past it. WHY the room: a
 * block is stored whole before it is known how much of it is plain. */
#if BLOCKS
#define TEXT_BLOCKS(KIND, WIDTH)                                                     \
    while (i + WIDTH <= n) {                                                         \
        __m128i v = load_##KIND(p + i);                                              \
        unsigned k = (unsigned)__builtin_ctz(not_plain(v, 0x20) | (1u << WIDTH));    \
        _mm_storeu_si128((__m128i *)out, v);                                         \
        out += k;                                                                    \
        i += k;                                                                      \
        if (k < WIDTH) out = put(out, p[i++]);                                       \
    }
#define WORD_BLOCKS(KIND, WIDTH)                                                     \
    while (i + WIDTH <= n) {                                                         \
        __m128i v = load_##KIND(p + i);                                              \
        unsigned special = not_plain(v, 0x21) & ((1u << WIDTH) - 1);                 \
        unsigned sp = spaces(v) & ((1u << WIDTH) - 1);                               \
        if ((special & ~sp) == 0 && (sp & ((sp >> 1) | 1)) == 0) {                   \
            /* words apart by single spaces, the first not one: already normal */    \
            unsigned last = sp >> (WIDTH - 1);                                       \
            *out = ' ';                                                              \
            out += gap;                                                              \
            _mm_storeu_si128((__m128i *)out, v);                                     \
            out += WIDTH - last;                                                     \
            gap = (int)last;                                                         \
            i += WIDTH;                                                              \
            continue;                                                                \
        }                                                                            \
        unsigned k = (unsigned)__builtin_ctz(special | (1u << WIDTH));               \
        if (k) {                                                                     \
            *out = ' ';                                                              \
            out += gap;                                                              \
            gap = 0;                                                                 \
            _mm_storeu_si128((__m128i *)out, v);                                     \
            out += k;                                                                \
            i += k;                                                                  \
        }                                                                            \
        if (k < WIDTH) out = word_char(out, first, &gap, p[i++]);                    \
    }
#else
#define TEXT_BLOCKS(KIND, WIDTH)
#define WORD_BLOCKS(KIND, WIDTH)
#endif

#define WRITERS(KIND, T, BLOCKS_OF)                                                  \
    static char *text_##KIND(char *out, const T *p, Py_ssize_t n) {                 \
        Py_ssize_t i = 0;                                                            \
        BLOCKS_OF(TEXT_BLOCKS, KIND)                                                 \
        for (; i < n; i++) out = put(out, p[i]);                                     \
        return out;                                                                  \
    }                                                                                \
    static char *words_##KIND(char *out, const T *p, Py_ssize_t n) {                \
        const char *first = out;                                                     \
        int gap = 0;                                                                 \
        Py_ssize_t i = 0;                                                            \
        BLOCKS_OF(WORD_BLOCKS, KIND)                                                 \
        for (; i < n; i++) out = word_char(out, first, &gap, p[i]);                  \
        return out;                                                                  \
    }

#define SIXTEEN(LOOP, KIND) LOOP(KIND, 16)
#define EIGHT(LOOP, KIND) LOOP(KIND, 8)
#define NONE(LOOP, KIND)
WRITERS(1, Py_UCS1, SIXTEEN)
WRITERS(2, Py_UCS2, EIGHT)
WRITERS(4, Py_UCS4, NONE)

/* s[start:end] as a JSON string, quotes included, written to out (room for 6 n + 2). */
static char *write_literal(char *out, PyObject *s, Py_ssize_t start, Py_ssize_t end,
                           int words) {
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t n = end - start;
    *out++ = '"';
    switch (PyUnicode_KIND(s)) {
    case PyUnicode_1BYTE_KIND:
        out = (words ? words_1 : text_1)(out, (const Py_UCS1 *)data + start, n);
        break;
    case PyUnicode_2BYTE_KIND:
        out = (words ? words_2 : text_2)(out, (const Py_UCS2 *)data + start, n);
        break;
    default:
        out = (words ? words_4 : text_4)(out, (const Py_UCS4 *)data + start, n);
        break;
    }
    *out++ = '"';
    return out;
}

/* The most a JSON string of n characters can take: 6 bytes each (\u001f), the quotes. */
#define ROOM(n) (6 * (n) + 2)
#define STACK_BYTES 16384  /* a default chunk's text (2,000 characters) fits */

/* Room for `size` bytes: the stack buffer when it is big enough, else the heap. */
static char *room(char *stack, Py_ssize_t size) {
    if (size <= STACK_BYTES) return stack;
    char *heap = size < PY_SSIZE_T_MAX / 2 ? PyMem_Malloc((size_t)size) : NULL;
    if (heap == NULL) PyErr_NoMemory();
    return heap;
}

static PyObject *done(char *stack, char *buffer, char *end) {
    PyObject *out = PyBytes_FromStringAndSize(buffer, end - buffer);
    if (buffer != stack) PyMem_Free(buffer);
    return out;
}

/* (s, start, end): a str and a span of it, 0 <= start <= end <= len(s); else an error. */
static int span_args(PyObject *const *args, Py_ssize_t nargs, const char *name,
                     Py_ssize_t *start, Py_ssize_t *end) {
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "%s() takes 3 arguments (%zd given)", name, nargs);
        return -1;
    }
    if (!PyUnicode_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "%s() argument 1 must be str", name);
        return -1;
    }
    *start = PyLong_AsSsize_t(args[1]);
    if (*start == -1 && PyErr_Occurred()) return -1;
    *end = PyLong_AsSsize_t(args[2]);
    if (*end == -1 && PyErr_Occurred()) return -1;
    if (*start < 0 || *start > *end || *end > PyUnicode_GET_LENGTH(args[0])) {
        PyErr_Format(PyExc_ValueError, "%s(): [%zd, %zd) is not a span of the string",
                     name, *start, *end);
        return -1;
    }
    return 0;
}

static PyObject *literal(PyObject *const *args, Py_ssize_t nargs, const char *name,
                         int words) {
    Py_ssize_t start, end;
    if (span_args(args, nargs, name, &start, &end) < 0) return NULL;
    char stack[STACK_BYTES];
    char *buffer = room(stack, ROOM(end - start));
    if (buffer == NULL) return NULL;
    return done(stack, buffer, write_literal(buffer, args[0], start, end, words));
}

static PyObject *json_text(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    return literal(args, nargs, "json_text", 0);
}

static PyObject *json_words(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    return literal(args, nargs, "json_words", 1);
}

static PyObject *json_texts(PyObject *self, PyObject *strings) {
    PyObject *seq = PySequence_Fast(strings, "json_texts() wants a sequence of str");
    if (seq == NULL) return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    Py_ssize_t size = count;  /* the commas, and one byte spare */
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!PyUnicode_Check(items[i])) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_TypeError, "json_texts() wants a sequence of str");
            return NULL;
        }
        Py_ssize_t length = PyUnicode_GET_LENGTH(items[i]);
        if (length > (PY_SSIZE_T_MAX - size) / 8) {
            Py_DECREF(seq);
            return PyErr_NoMemory();
        }
        size += ROOM(length);
    }
    char stack[STACK_BYTES];
    char *buffer = room(stack, size);
    PyObject *out = NULL;
    if (buffer != NULL) {
        char *at = buffer;
        for (Py_ssize_t i = 0; i < count; i++) {
            if (i) *at++ = ',';
            at = write_literal(at, items[i], 0, PyUnicode_GET_LENGTH(items[i]), 0);
        }
        out = done(stack, buffer, at);
    }
    Py_DECREF(seq);
    return out;
}

static PyMethodDef methods[] = {
    {"json_text", (PyCFunction)(void (*)(void))json_text, METH_FASTCALL,
     "json_text(s, start, end): the JSON string of s[start:end] as UTF-8 bytes."},
    {"json_words", (PyCFunction)(void (*)(void))json_words, METH_FASTCALL,
     "json_words(s, start, end): the JSON string of ' '.join(s[start:end].split()) as UTF-8."},
    {"json_texts", (PyCFunction)json_texts, METH_O,
     "json_texts(strings): each string's JSON string, joined by commas, as UTF-8 bytes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_native_json",
    "JSON string literals as UTF-8 bytes (see _jsonbytes.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native_json(void) {
    fill_table();
    return PyModule_Create(&module_def);
}
