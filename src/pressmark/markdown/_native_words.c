/* The boilerplate rules' reading of class and id values, in C: see _boilerplate.py.
 *
 * word_rule(value, slug_words) is the rule that the first of ``value``'s names (its
 * whitespace-separated parts) calls for, or None; with slug_words > 0 also None when
 * the value spells that many words or more (an id made from a heading). It reads
 * exactly as _boilerplate's Python reading (``_read_words``), which the tests hold it
 * to on every corpus page and on generated values.
 *
 * WHY in C: a page brings hundreds of class strings that the memo has not seen, and
 * the Python reading of each (a lower-cased copy, two regular-expression calls, a
 * list of words per name) cost a twentieth of a whole conversion.
 *
 * A name's words are its runs of ASCII letters and digits, cut again where a
 * lower-case letter or a digit meets a capital ("shareBar": share, bar), lower-cased.
 * The tables (the rule of each word and of each whole name, the modifier words, the
 * content words that void a layout rule, the code words that void the byline rule) come
 * from _boilerplate.py, once, through bind_word_rules: this file holds the reading, not
 * the vocabulary.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <string.h>

/* The vocabulary, in tables keyed by the words' bytes: a name's words are looked up
 * without a Python string made for each (bind_word_rules fills them). */
typedef struct {
    char *key;           /* NULL: an empty slot */
    Py_ssize_t len;
    PyObject *rule;      /* the rule the word calls for; NULL when it only has flags */
    int layout;          /* the rule is a layout rule, which a content word voids */
    int modifier;        /* a first word that makes the name a state ("has-sidebar") */
    int content;         /* a content word ("content", "article") */
    int code;            /* a code word ("member", "type"): voids the byline rule */
    int byline;          /* the rule is the byline rule */
} entry_t;

typedef struct {
    entry_t *slots;
    size_t mask;
} table_t;

static table_t words_table;   /* word rules, modifiers and content words */
static table_t whole_table;   /* rules of whole lower-cased names ("sr-only") */
static PyObject *whole_rules; /* the same, for a name that is not ASCII (Python lowers it) */
static PyObject *related_rule;  /* the rule of a word opening with "related" */
static PyObject *byline_rule;   /* the rule of a long word ending "profile" or "avatar" */
static int byline_is_layout, related_is_layout;

#define STACK_CHARS 128

static size_t hash_bytes(const char *s, Py_ssize_t n) {
    size_t h = 1469598103934665603ULL;  /* FNV-1a */
    for (Py_ssize_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static entry_t *find(const table_t *table, const char *s, Py_ssize_t n) {
    if (table->slots == NULL) return NULL;
    for (size_t i = hash_bytes(s, n) & table->mask;; i = (i + 1) & table->mask) {
        entry_t *e = &table->slots[i];
        if (e->key == NULL) return NULL;
        if (e->len == n && memcmp(e->key, s, (size_t)n) == 0) return e;
    }
}

/* The slot of a word, made when new; NULL when out of memory. */
static entry_t *slot_for(table_t *table, const char *s, Py_ssize_t n) {
    for (size_t i = hash_bytes(s, n) & table->mask;; i = (i + 1) & table->mask) {
        entry_t *e = &table->slots[i];
        if (e->key != NULL && e->len == n && memcmp(e->key, s, (size_t)n) == 0) return e;
        if (e->key == NULL) {
            e->key = PyMem_Malloc((size_t)n + 1);
            if (e->key == NULL) return NULL;
            memcpy(e->key, s, (size_t)n);
            e->len = n;
            return e;
        }
    }
}

static void clear_table(table_t *table) {
    if (table->slots == NULL) return;
    for (size_t i = 0; i <= table->mask; i++) {
        PyMem_Free(table->slots[i].key);
        Py_XDECREF(table->slots[i].rule);
    }
    PyMem_Free(table->slots);
    table->slots = NULL;
}

static int is_word_char(Py_UCS4 c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int is_capital(Py_UCS4 c) { return c >= 'A' && c <= 'Z'; }

static int is_small_or_digit(Py_UCS4 c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* The rule of the whole name, lower-cased: a borrowed reference, or Py_None; NULL on
 * error. ``low`` has room for the name when it is ASCII. */
static PyObject *whole_rule(PyObject *value, int kind, const void *data, Py_ssize_t start,
                            Py_ssize_t end, int ascii, char *low) {
    if (ascii) {
        for (Py_ssize_t i = start; i < end; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            low[i - start] = (char)(is_capital(c) ? c + 32 : c);
        }
        entry_t *e = find(&whole_table, low, end - start);
        return e != NULL ? e->rule : Py_None;
    }
    /* str.lower() as Python has it: one character may lower to two, or to ASCII */
    PyObject *name = PyUnicode_Substring(value, start, end);
    if (name == NULL) return NULL;
    PyObject *lowered = PyObject_CallMethod(name, "lower", NULL);
    Py_DECREF(name);
    if (lowered == NULL) return NULL;
    PyObject *rule = PyDict_GetItemWithError(whole_rules, lowered);
    Py_DECREF(lowered);
    if (rule == NULL) return PyErr_Occurred() ? NULL : Py_None;
    return rule;
}

/* One word of a name: where it ends in the lower-cased letters, and its table entry. */
typedef struct {
    Py_ssize_t end;
    entry_t *entry;  /* NULL: not in the vocabulary */
} word_t;

/* The rule the words of one name call for (see the file's comment): a borrowed
 * reference, or Py_None. ``chars`` and ``words`` have room for end - start. Each word is
 * looked up once, as it ends: the flags of all of them decide whether a rule stands. */
static PyObject *words_of_name_rule(int kind, const void *data, Py_ssize_t start,
                                    Py_ssize_t end, char *chars, word_t *words) {
    Py_ssize_t n = 0, count = 0, from = 0;
    int in_word = 0, content = 0, code = 0;
    Py_UCS4 previous = 0;
    for (Py_ssize_t i = start; i <= end; i++) {
        Py_UCS4 c = i < end ? PyUnicode_READ(kind, data, i) : 0;
        int word_char = i < end && is_word_char(c);
        if (in_word && (!word_char || (is_capital(c) && is_small_or_digit(previous)))) {
            entry_t *e = find(&words_table, chars + from, n - from);
            words[count].end = n;
            words[count++].entry = e;
            if (e != NULL) {
                if (count == 1 && e->modifier) return Py_None;  /* "has-sidebar": a state */
                content |= e->content;
                code |= e->code;
            }
            from = n;
            in_word = 0;
        }
        if (word_char) {
            chars[n++] = (char)(is_capital(c) ? c + 32 : c);
            in_word = 1;
        }
        previous = c;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        Py_ssize_t at = k ? words[k - 1].end : 0, len = words[k].end - at;
        const char *word = chars + at;
        entry_t *e = words[k].entry;
        if (e != NULL && e->rule != NULL) {
            if (!(e->layout && content) && !(e->byline && code)) return e->rule;
        } else if (len >= 7 && memcmp(word, "related", 7) == 0) {
            if (!(related_is_layout && content)) return related_rule;  /* "relatedposts" */
        } else if (len > 7 && (memcmp(word + len - 7, "profile", 7) == 0
                               || memcmp(word + len - 6, "avatar", 6) == 0)) {
            if (!(byline_is_layout && content) && !code) return byline_rule;  /* "useravatar" */
        }
    }
    if (count > 1) {  /* "user-info", "most-read": a compound of the table */
        entry_t *e = find(&words_table, chars, n);
        if (e != NULL && e->rule != NULL && !(e->layout && content) && !(e->byline && code)) {
            return e->rule;
        }
    }
    return Py_None;
}

/* The rule of one name: its whole lower-cased self first, then its words. A borrowed
 * reference, or Py_None; NULL on error. */
static PyObject *name_rule(PyObject *value, int kind, const void *data, Py_ssize_t start,
                           Py_ssize_t end, int ascii) {
    Py_ssize_t len = end - start;
    char stack_chars[STACK_CHARS];
    word_t stack_words[STACK_CHARS];
    char *chars = stack_chars;
    word_t *words = stack_words;
    if (len > STACK_CHARS) {
        chars = PyMem_Malloc((size_t)len);
        words = PyMem_Malloc((size_t)len * sizeof(word_t));
        if (chars == NULL || words == NULL) {
            PyMem_Free(chars);
            PyMem_Free(words);
            PyErr_NoMemory();
            return NULL;
        }
    }
    PyObject *rule = whole_rule(value, kind, data, start, end, ascii, chars);
    if (rule == Py_None) rule = words_of_name_rule(kind, data, start, end, chars, words);
    if (len > STACK_CHARS) {
        PyMem_Free(chars);
        PyMem_Free(words);
    }
    return rule;
}

/* Runs of ASCII letters and digits in the whole value (no cut at capitals). */
static Py_ssize_t plain_word_count(int kind, const void *data, Py_ssize_t n) {
    Py_ssize_t count = 0;
    int in_word = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int w = is_word_char(PyUnicode_READ(kind, data, i));
        count += w && !in_word;
        in_word = w;
    }
    return count;
}

static PyObject *word_rule(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyLong_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "word_rule(value: str, slug_words: int)");
        return NULL;
    }
    if (words_table.slots == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "word_rule before bind_word_rules");
        return NULL;
    }
    PyObject *value = args[0];
    Py_ssize_t slug_words = PyLong_AsSsize_t(args[1]);
    if (slug_words == -1 && PyErr_Occurred()) return NULL;
    if (PyUnicode_READY(value) < 0) return NULL;
    int kind = PyUnicode_KIND(value);
    const void *data = PyUnicode_DATA(value);
    Py_ssize_t n = PyUnicode_GET_LENGTH(value);
    int all_ascii = PyUnicode_IS_ASCII(value);
    if (slug_words > 0 && plain_word_count(kind, data, n) >= slug_words) Py_RETURN_NONE;
    Py_ssize_t i = 0;
    while (i < n) {  /* str.split(): runs of Unicode whitespace part the names */
        while (i < n && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i))) i++;
        if (i >= n) break;
        Py_ssize_t start = i;
        int ascii = 1;
        while (i < n) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (Py_UNICODE_ISSPACE(c)) break;
            ascii &= c < 128;
            i++;
        }
        PyObject *rule = name_rule(value, kind, data, start, i, all_ascii || ascii);
        if (rule == NULL) return NULL;
        if (rule != Py_None) return Py_NewRef(rule);
    }
    Py_RETURN_NONE;
}

static const char BIND_SIGNATURE[] =
    "bind_word_rules(word_rules: dict, whole_rules: dict, modifiers: frozenset, "
    "positive: frozenset, layout: frozenset, related_rule: str, profile_rule: str, "
    "code_words: frozenset)";

/* Each ASCII key of ``keys`` (a dict or a set) into ``table``; a dict's values are the
 * rules. Keys that are not ASCII can never match: a name's words are ASCII. */
static int fill(table_t *table, PyObject *keys, PyObject *layout, PyObject *byline,
                int flag_offset) {
    PyObject *iterator = PyObject_GetIter(keys);
    if (iterator == NULL) return -1;
    PyObject *key;
    while ((key = PyIter_Next(iterator)) != NULL) {
        if (!PyUnicode_Check(key)) {
            Py_DECREF(key);
            Py_DECREF(iterator);
            PyErr_SetString(PyExc_TypeError, BIND_SIGNATURE);
            return -1;
        }
        if (PyUnicode_IS_ASCII(key)) {
            Py_ssize_t n;
            const char *s = PyUnicode_AsUTF8AndSize(key, &n);
            entry_t *e = s != NULL ? slot_for(table, s, n) : NULL;
            if (e == NULL) {
                Py_DECREF(key);
                Py_DECREF(iterator);
                if (!PyErr_Occurred()) PyErr_NoMemory();
                return -1;
            }
            if (flag_offset) {
                *(int *)((char *)e + flag_offset) = 1;
            } else {
                PyObject *rule = PyDict_GetItemWithError(keys, key);
                int is_layout = rule != NULL ? PySet_Contains(layout, rule) : -1;
                if (is_layout < 0) {
                    Py_DECREF(key);
                    Py_DECREF(iterator);
                    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, BIND_SIGNATURE);
                    return -1;
                }
                int is_byline = PyUnicode_Compare(rule, byline);
                if (is_byline == -1 && PyErr_Occurred()) {
                    Py_DECREF(key);
                    Py_DECREF(iterator);
                    return -1;
                }
                Py_XSETREF(e->rule, Py_NewRef(rule));
                e->layout = is_layout;
                e->byline = is_byline == 0;
            }
        }
        Py_DECREF(key);
    }
    Py_DECREF(iterator);
    return PyErr_Occurred() ? -1 : 0;
}

static int make_table(table_t *table, Py_ssize_t entries) {
    size_t size = 64;
    while (size < (size_t)entries * 4) size *= 2;  /* a quarter full at most */
    table->slots = PyMem_Calloc(size, sizeof(entry_t));
    if (table->slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    table->mask = size - 1;
    return 0;
}

static PyObject *bind_word_rules(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 8 || !PyDict_Check(args[0]) || !PyDict_Check(args[1])
        || !PyFrozenSet_Check(args[2]) || !PyFrozenSet_Check(args[3])
        || !PyFrozenSet_Check(args[4]) || !PyUnicode_Check(args[5])
        || !PyUnicode_Check(args[6]) || !PyFrozenSet_Check(args[7])) {
        PyErr_SetString(PyExc_TypeError, BIND_SIGNATURE);
        return NULL;
    }
    int related_layout = PySet_Contains(args[4], args[5]);
    int byline_layout = PySet_Contains(args[4], args[6]);
    if (related_layout < 0 || byline_layout < 0) return NULL;
    table_t words = {NULL, 0}, whole = {NULL, 0};
    if (make_table(&words, PyDict_GET_SIZE(args[0]) + PySet_GET_SIZE(args[2])
                                + PySet_GET_SIZE(args[3]) + PySet_GET_SIZE(args[7])) < 0
        || make_table(&whole, PyDict_GET_SIZE(args[1])) < 0
        || fill(&words, args[0], args[4], args[6], 0) < 0
        || fill(&words, args[2], NULL, NULL, offsetof(entry_t, modifier)) < 0
        || fill(&words, args[3], NULL, NULL, offsetof(entry_t, content)) < 0
        || fill(&words, args[7], NULL, NULL, offsetof(entry_t, code)) < 0
        || fill(&whole, args[1], args[4], args[6], 0) < 0) {
        clear_table(&words);
        clear_table(&whole);
        return NULL;
    }
    clear_table(&words_table);
    clear_table(&whole_table);
    words_table = words;
    whole_table = whole;
    Py_XSETREF(whole_rules, Py_NewRef(args[1]));
    Py_XSETREF(related_rule, Py_NewRef(args[5]));
    Py_XSETREF(byline_rule, Py_NewRef(args[6]));
    related_is_layout = related_layout;
    byline_is_layout = byline_layout;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"word_rule", (PyCFunction)(void (*)(void))word_rule, METH_FASTCALL,
     "The rule the first of the value's names calls for, or None (see _boilerplate)."},
    {"bind_word_rules", (PyCFunction)(void (*)(void))bind_word_rules, METH_FASTCALL,
     "Hand over _boilerplate's tables: word and whole-name rules, modifiers, content "
     "words, layout rules, the rules of the related- and profile-shaped words, and the "
     "code words that void the byline rule."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_native_words",
    "The boilerplate rules' reading of class and id values in C (see "
    "pressmark.markdown._boilerplate).", -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native_words(void) { return PyModule_Create(&module_def); }
