/* Lexbor's tree read in C: see _dom.py for what each reader returns and why.
 *
 * selectolax hands out every node it is asked for as a Python object, and copying a
 * page's tree through it (a wrapper per child, a property call per tag, text and
 * attribute map) took a fifth of a conversion. This module reads the same tree through
 * the functions Lexbor exports from selectolax's own extension (bind() looks them up),
 * and gives back plain values: strings, dicts, sizes. It never touches a Lexbor struct:
 * every read goes through an exported function, so a Lexbor whose struct layout changed
 * is read the same way (a missing function leaves bind() False, and _dom.py reads
 * through selectolax instead).
 *
 * Nodes travel as integers: selectolax's ``mem_id`` of a node, which is its address.
 * A caller passes only nodes of a parser it holds, and only for the length of a call.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "_native_utf8.h"

typedef unsigned char lchar;

/* The DOM's node types (a Lexbor enum with the values the DOM standard gives them). */
enum { ELEMENT_NODE = 1, TEXT_NODE = 3 };

static struct {
    int (*type)(void *node);
    void *(*first_child)(void *node);
    void *(*next)(void *node);
    void *(*parent)(void *node);
    const lchar *(*qualified_name)(void *element, size_t *len);
    void *(*first_attribute)(void *element);
    void *(*next_attribute)(void *attr);
    const lchar *(*attr_name)(void *attr, size_t *len);
    const lchar *(*attr_qualified_name)(void *attr, size_t *len);
    const lchar *(*attr_value)(void *attr, size_t *len);
    lchar *(*text_content)(void *node, size_t *len);
    void *(*destroy_text)(void *document, lchar *text);
} lxb;

static int bound = 0;
static PyObject *interned = NULL; /* tag and attribute names, one str object each */

static PyObject *bind(PyObject *module, PyObject *path) {
    (void)module;
    if (!PyUnicode_Check(path)) {
        PyErr_SetString(PyExc_TypeError, "bind(path: str)");
        return NULL;
    }
    const char *file = PyUnicode_AsUTF8(path);
    if (file == NULL) return NULL;
    /* selectolax's extension is loaded already: this takes the same copy, never a new one */
    void *library = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
    if (library == NULL) Py_RETURN_FALSE;
    struct { void **slot; const char *name; } wanted[] = {
        {(void **)&lxb.type, "lxb_dom_node_type_noi"},
        {(void **)&lxb.first_child, "lxb_dom_node_first_child_noi"},
        {(void **)&lxb.next, "lxb_dom_node_next_noi"},
        {(void **)&lxb.parent, "lxb_dom_node_parent_noi"},
        {(void **)&lxb.qualified_name, "lxb_dom_element_qualified_name"},
        {(void **)&lxb.first_attribute, "lxb_dom_element_first_attribute_noi"},
        {(void **)&lxb.next_attribute, "lxb_dom_element_next_attribute_noi"},
        {(void **)&lxb.attr_name, "lxb_dom_attr_local_name_noi"},
        {(void **)&lxb.attr_qualified_name, "lxb_dom_attr_qualified_name"},
        {(void **)&lxb.attr_value, "lxb_dom_attr_value_noi"},
        {(void **)&lxb.text_content, "lxb_dom_node_text_content"},
        {(void **)&lxb.destroy_text, "lxb_dom_document_destroy_text_noi"},
    };
    for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
        *wanted[i].slot = dlsym(library, wanted[i].name);
        if (*wanted[i].slot == NULL) {
            dlclose(library);
            bound = 0;
            Py_RETURN_FALSE;
        }
    }
    /* the extension stays loaded while selectolax is imported; this handle keeps it so */
    if (interned == NULL && (interned = PyDict_New()) == NULL) return NULL;
    bound = 1;
    Py_RETURN_TRUE;
}

static int node_arg(PyObject *arg, void **node) {
    if (!bound) {
        PyErr_SetString(PyExc_RuntimeError, "_native_dom: bind() first");
        return 0;
    }
    *node = PyLong_AsVoidPtr(arg);
    return *node != NULL || !PyErr_Occurred();
}

/* Names (tags, attribute names) are few and repeat on every page: each gets one str
 * object, found again by the address Lexbor keeps the name at. An address can be
 * reused for another name (a page's own tag names live in its document), so a hit is
 * also compared byte for byte. */
#define NAME_SLOTS 1024
static struct { const lchar *at; PyObject *name; } name_cache[NAME_SLOTS];

static PyObject *intern(const lchar *data, size_t len) {
    size_t slot = ((uintptr_t)data >> 3) % NAME_SLOTS;
    PyObject *known = name_cache[slot].name;
    if (name_cache[slot].at == data && known != NULL) {
        Py_ssize_t known_len;
        const char *bytes = PyUnicode_AsUTF8AndSize(known, &known_len);
        if (bytes != NULL && (size_t)known_len == len && memcmp(bytes, data, len) == 0) {
            return Py_NewRef(known);
        }
        PyErr_Clear();
    }
    PyObject *text = PyUnicode_DecodeUTF8((const char *)data, (Py_ssize_t)len, "replace");
    if (text == NULL) return NULL;
    PyObject *kept = PyDict_SetDefault(interned, text, text);
    Py_XINCREF(kept);
    Py_DECREF(text);
    if (kept != NULL) {
        Py_XSETREF(name_cache[slot].name, Py_NewRef(kept));
        name_cache[slot].at = data;
    }
    return kept;
}

/* What selectolax's ``tag`` gives for an element (None when Lexbor has no name). */
static PyObject *element_tag(void *element) {
    size_t len = 0;
    const lchar *name = lxb.qualified_name(element, &len);
    if (name == NULL) Py_RETURN_NONE;
    return intern(name, len);
}

/* What selectolax's ``attributes`` gives: names as written (qualified) to values, None
 * for no value; bytes Lexbor passed through undecodable read as U+FFFD, as there. */
static PyObject *element_attributes(void *element) {
    PyObject *attrs = PyDict_New();
    if (attrs == NULL) return NULL;
    for (void *attr = lxb.first_attribute(element); attr != NULL;
         attr = lxb.next_attribute(attr)) {
        size_t name_len = 0, value_len = 0;
        const lchar *name = lxb.attr_qualified_name(attr, &name_len);
        const lchar *value = lxb.attr_value(attr, &value_len);
        PyObject *key = name != NULL ? intern(name, name_len)
                                     : PyUnicode_DecodeUTF8("", 0, "replace");
        PyObject *val = value ? PyUnicode_DecodeUTF8((const char *)value,
                                                      (Py_ssize_t)value_len, "replace")
                              : Py_NewRef(Py_None);
        int failed = key == NULL || val == NULL || PyDict_SetItem(attrs, key, val) < 0;
        Py_XDECREF(key);
        Py_XDECREF(val);
        if (failed) {
            Py_DECREF(attrs);
            return NULL;
        }
    }
    return attrs;
}

static const char *name_of(void *element) {
    size_t len = 0;
    const lchar *name = lxb.qualified_name(element, &len);
    return name != NULL ? (const char *)name : "";
}

/* Whether two names are equal. The first characters are compared before the call:
 * most tags and attributes differ there, and these tests run for every element. */
static inline int same(const char *name, const char *wanted) {
    return name[0] == wanted[0] && strcmp(name, wanted) == 0;
}

static int is_one_of(const char *name, const char *const *names) {
    for (; *names != NULL; names++) {
        if (same(name, *names)) return 1;
    }
    return 0;
}

/* The value of an element's attribute ``wanted``: NULL if absent; *present says so. */
static const lchar *attribute(void *element, const char *wanted, int *present) {
    *present = 0;
    for (void *attr = lxb.first_attribute(element); attr != NULL;
         attr = lxb.next_attribute(attr)) {
        size_t len = 0;
        const lchar *name = lxb.attr_name(attr, &len);
        if (name != NULL && same((const char *)name, wanted)) {
            *present = 1;
            return lxb.attr_value(attr, &len);
        }
    }
    return NULL;
}

/* ---- text sizes ------------------------------------------------------------------ */

/* The length of the text these bytes decode to (UTF-8, an undecodable byte read as
 * U+FFFD as selectolax reads it). Valid UTF-8, the common case, is counted where it
 * lies (_native_utf8.h); only text holding undecodable bytes is decoded to be measured. */
static Py_ssize_t text_chars(const lchar *s, size_t n) {
    Py_ssize_t chars = utf8_length(s, (Py_ssize_t)n);
    if (chars >= 0) return chars;
    PyObject *text = PyUnicode_DecodeUTF8((const char *)s, (Py_ssize_t)n, "replace");
    if (text == NULL) return -1;
    chars = PyUnicode_GET_LENGTH(text);
    Py_DECREF(text);
    return chars;
}

/* The cut's markers (_rawcut.py): U+FDD0 (EF B7 90), the cut's number, U+FDD1 (EF B7
 * 91). ``sizes[i]`` is cut i's body as the page reads it. Returns the text's size with
 * every marker counted as its body: RawCut.restored_len on the same text. */
static Py_ssize_t restored_size(const lchar *s, size_t n, PyObject *sizes) {
    Py_ssize_t size = text_chars(s, n);
    if (sizes == NULL || size < 0) return size;
    Py_ssize_t count = PyList_GET_SIZE(sizes);
    const lchar *end = s + n;
    for (const lchar *at = memchr(s, 0xEF, n); at != NULL;
         at = at < end ? memchr(at, 0xEF, (size_t)(end - at)) : NULL) {
        if (!(at + 2 < end && at[1] == 0xB7 && at[2] == 0x90)) {
            at++;
            continue;
        }
        const lchar *digits = at + 3, *close = digits;
        Py_ssize_t index = 0;
        while (close < end && close - digits < 20 && *close >= '0' && *close <= '9') {
            index = index * 10 + (*close - '0');
            close++;
        }
        if (close > digits && close + 2 < end + 0 && close[0] == 0xEF && close[1] == 0xB7
            && close[2] == 0x91 && index < count) {
            /* the marker's own characters: U+FDD0, the digits, U+FDD1 */
            size += PyLong_AsSsize_t(PyList_GET_ITEM(sizes, index)) - (2 + (close - digits));
            at = close + 3;
        } else {
            at += 3;
        }
    }
    return size;
}

/* len(text(deep=True)) of ``node`` with markers restored; -1 on error. */
static Py_ssize_t text_size_of(void *document, void *node, PyObject *sizes) {
    size_t len = 0;
    lchar *text = lxb.text_content(node, &len);
    if (text == NULL) return 0;
    Py_ssize_t size = restored_size(text, len, sizes);
    lxb.destroy_text(document, text);
    return size;
}

static int sizes_arg(PyObject *arg, PyObject **sizes) {
    *sizes = arg == Py_None ? NULL : arg;
    if (*sizes != NULL && !PyList_Check(*sizes)) {
        PyErr_SetString(PyExc_TypeError, "sizes: list[int] | None");
        return 0;
    }
    return 1;
}

/* ---- tree walks ------------------------------------------------------------------ */

/* Preorder over the elements below ``root`` (not ``root`` itself): the walk climbs by
 * parent links, so it needs no stack however deep the page nests. */
typedef struct {
    void *root, *node;
    long depth; /* of ``node`` below root */
} walk;

static void *walk_next(walk *w, int descend) {
    void *node = w->node;
    void *child = descend ? lxb.first_child(node) : NULL;
    if (child != NULL) {
        w->depth++;
    } else {
        while (node != w->root && (child = lxb.next(node)) == NULL) {
            node = lxb.parent(node);
            w->depth--;
        }
        if (node == w->root) return NULL;
    }
    /* ``child`` may be text or a comment: on to the first element from it */
    while (child != NULL && lxb.type(child) != ELEMENT_NODE) {
        void *sibling = lxb.next(child);
        if (sibling != NULL) {
            child = sibling;
            continue;
        }
        node = lxb.parent(child);
        w->depth--;
        while (node != w->root && (child = lxb.next(node)) == NULL) {
            node = lxb.parent(node);
            w->depth--;
        }
        if (node == w->root) return NULL;
    }
    w->node = child;
    return child;
}

static void walk_start(walk *w, void *root) {
    w->root = root;
    w->node = root;
    w->depth = 0;
}

/* ---- the readers ----------------------------------------------------------------- */

static int args_of(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t wanted,
                   void **document, void **node) {
    if (nargs != wanted) {
        PyErr_Format(PyExc_TypeError, "expected %zd arguments, got %zd", wanted, nargs);
        return 0;
    }
    return node_arg(args[0], document) && node_arg(args[1], node);
}

/* The arguments of ``children`` and ``level``, (document, node, skip): *skip is the set
 * of tags to leave out, NULL for None. 0 with the error set when they are not that. */
static int level_args(const char *usage, PyObject *const *args, Py_ssize_t nargs,
                      void **document, void **node, PyObject **skip) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, usage);
        return 0;
    }
    if (!args_of(args, 2, 2, document, node)) return 0;
    *skip = args[2] == Py_None ? NULL : args[2];
    if (*skip != NULL && !PyAnySet_Check(*skip)) {
        PyErr_SetString(PyExc_TypeError, "skip: a set of tags, or None");
        return 0;
    }
    return 1;
}

/* An element child's tag, NULL when the child is left out: Lexbor gives it no name
 * (selectolax reads None: *error 0) or its tag is in ``skip`` (*error 0), or on an error
 * (*error -1, set). The name is read once, for both tests. */
static PyObject *listed_tag(void *element, PyObject *skip, int *error) {
    size_t len = 0;
    const lchar *name = lxb.qualified_name(element, &len);
    *error = 0;
    if (name == NULL) return NULL;
    PyObject *tag = intern(name, len);
    int skipped = tag == NULL ? -1 : skip != NULL ? PySet_Contains(skip, tag) : 0;
    if (skipped != 0) {
        Py_XDECREF(tag);
        *error = skipped < 0 ? -1 : 0;
        return NULL;
    }
    return tag;
}

/* (tag, attrs, extra) for an element, taking over the references to ``tag`` and
 * ``extra`` (NULL: its error is set already); the entry ``children`` and
 * ``head_elements`` list. */
static PyObject *element_entry(void *element, PyObject *tag, PyObject *extra) {
    PyObject *attrs = tag != NULL && extra != NULL ? element_attributes(element) : NULL;
    PyObject *entry = attrs != NULL ? PyTuple_Pack(3, tag, attrs, extra) : NULL;
    Py_XDECREF(tag);
    Py_XDECREF(attrs);
    Py_XDECREF(extra);
    return entry;
}

/* Append ``item`` (NULL: its error is set already) to ``list``, taking over its
 * reference: 0, or -1 with the error set. */
static int append_new(PyObject *list, PyObject *item) {
    if (item == NULL) return -1;
    int failed = PyList_Append(list, item);
    Py_DECREF(item);
    return failed;
}

/* children(document, node, skip) -> [str | (tag, attrs, child)]: the text children's
 * data and the element children; comments, doctypes, elements without a name and the
 * like are left out, and so are elements whose tag is in ``skip`` (a set, or None): the
 * caller's dropped tags cost no attribute map. */
static PyObject *children(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    void *document, *node;
    PyObject *skip;
    if (!level_args("children(document, node, skip)", args, nargs, &document, &node, &skip)) {
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (void *child = lxb.first_child(node); child != NULL; child = lxb.next(child)) {
        int type = lxb.type(child);
        PyObject *item;
        if (type == TEXT_NODE) {
            size_t len = 0;
            lchar *text = lxb.text_content(child, &len);
            if (text == NULL) continue;
            item = PyUnicode_DecodeUTF8((const char *)text, (Py_ssize_t)len, "replace");
            lxb.destroy_text(document, text);
        } else if (type == ELEMENT_NODE) {
            int error;
            PyObject *tag = listed_tag(child, skip, &error);
            if (tag == NULL) {
                if (error < 0) {
                    Py_DECREF(out);
                    return NULL;
                }
                continue;
            }
            item = element_entry(child, tag, PyLong_FromVoidPtr(child));
        } else {
            continue;
        }
        if (append_new(out, item) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* ---- the tree copy's reader ------------------------------------------------------ */

/* What the copy (_tree._build) asks of an element's attribute names, answered while its
 * attribute map is built: the bits of ``info`` (_dom.HIDING, NAMED, ROLE). */
enum { HIDING = 1, NAMED = 2, ROLE = 4, INFO_BITS = 3 };

static int name_flags(const lchar *name, size_t len) {
#define IS(word) (len == sizeof(word) - 1 && memcmp(name, word, sizeof(word) - 1) == 0)
    switch (len) {
    case 2: return IS("id") ? NAMED : 0;
    case 4: return IS("role") ? ROLE : 0;
    case 5: return IS("class") ? NAMED : IS("style") ? HIDING : 0;
    case 6: return IS("hidden") ? HIDING : 0;
    case 11: return IS("aria-hidden") ? HIDING : 0;
    case 21: return IS("data-pressmark-hidden") ? HIDING : 0;
    default: return 0;
    }
#undef IS
}

/* element_attributes, and the ``name_flags`` of the names in it. */
static PyObject *flagged_attributes(void *element, long *flags) {
    PyObject *attrs = PyDict_New();
    if (attrs == NULL) return NULL;
    for (void *attr = lxb.first_attribute(element); attr != NULL;
         attr = lxb.next_attribute(attr)) {
        size_t name_len = 0, value_len = 0;
        const lchar *name = lxb.attr_qualified_name(attr, &name_len);
        const lchar *value = lxb.attr_value(attr, &value_len);
        PyObject *key;
        if (name != NULL) {
            *flags |= name_flags(name, name_len);
            key = intern(name, name_len);
        } else {
            key = PyUnicode_DecodeUTF8("", 0, "replace");
        }
        PyObject *val = value ? PyUnicode_DecodeUTF8((const char *)value,
                                                      (Py_ssize_t)value_len, "replace")
                              : Py_NewRef(Py_None);
        int failed = key == NULL || val == NULL || PyDict_SetItem(attrs, key, val) < 0;
        Py_XDECREF(key);
        Py_XDECREF(val);
        if (failed) {
            Py_DECREF(attrs);
            return NULL;
        }
    }
    return attrs;
}

/* str.isspace() of each character below U+0100, filled at import (collapsed_size). */
static unsigned char SPACE_LATIN1[256];

#define SPACE_CHAR(c) ((c) < 256 ? SPACE_LATIN1[c] : Py_UNICODE_ISSPACE(c))
#define COLLAPSE(type, is_space)                                                     \
    for (Py_ssize_t i = 0; i < n; i++) {                                             \
        type c = ((const type *)data)[i];                                            \
        if (is_space) {                                                              \
            gap = size > 0;                                                          \
        } else {                                                                     \
            size += 1 + gap;                                                         \
            gap = 0;                                                                 \
        }                                                                            \
    }

/* len(" ".join(text.split())), the words never built (_native_screen.collapsed_len). */
static Py_ssize_t collapsed_size(PyObject *text) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), size = 0, gap = 0;
    const void *data = PyUnicode_DATA(text);
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        COLLAPSE(Py_UCS1, SPACE_LATIN1[c])
        break;
    case PyUnicode_2BYTE_KIND:
        COLLAPSE(Py_UCS2, SPACE_CHAR(c))
        break;
    default:
        COLLAPSE(Py_UCS4, SPACE_CHAR(c))
    }
    return size;
}

/* A text child's str. The whitespace between tags ("\n\t\t") is most of a page's text
 * nodes, and the same few strings come back on every page: each gets one str object,
 * found again by its bytes (a short run of ASCII spaces), where decoding made a new one
 * per node; *gap says the text is such a run (its collapsed size is 0). */
#define GAP_SLOTS 64
#define GAP_MAX 32
static PyObject *gap_cache[GAP_SLOTS];

static PyObject *text_child(const lchar *s, size_t len, int *gap) {
    *gap = 0;
    if (len - 1 < GAP_MAX) { /* 1 to GAP_MAX bytes */
        size_t hash = len;
        for (size_t i = 0; i < len; i++) {
            lchar c = s[i];
            if (!(c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f')) {
                return PyUnicode_DecodeUTF8((const char *)s, (Py_ssize_t)len, "replace");
            }
            hash = hash * 31 + c;
        }
        *gap = 1;
        PyObject **slot = &gap_cache[hash % GAP_SLOTS];
        if (*slot != NULL && (size_t)PyUnicode_GET_LENGTH(*slot) == len
            && memcmp(PyUnicode_1BYTE_DATA(*slot), s, len) == 0) {
            return Py_NewRef(*slot);
        }
        PyObject *text = PyUnicode_DecodeUTF8((const char *)s, (Py_ssize_t)len, "replace");
        if (text != NULL) Py_XSETREF(*slot, Py_NewRef(text));
        return text;
    }
    return PyUnicode_DecodeUTF8((const char *)s, (Py_ssize_t)len, "replace");
}

/* The element children's tags seen so far in one level, with their counts (nth). */
typedef struct {
    PyObject *tag; /* borrowed: the interned name, alive in ``interned`` */
    long count;
} tag_count;

/* level(document, node, skip) -> (own, [str | (tag, attrs, child, info)]): ``children``
 * for the tree copy, which asks more of each element than its map: ``info`` holds the
 * element's position among the listed siblings of its tag (from 1, CSS nth-of-type) above
 * INFO_BITS bits that say which of the names the copy tests are in its map; ``own`` is
 * the text children's collapsed length, summed. One call per element copied, where the
 * copy made a dict lookup per tested name, one for its count and a call per text. */
static PyObject *level(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    void *document, *node;
    PyObject *skip;
    if (!level_args("level(document, node, skip)", args, nargs, &document, &node, &skip)) {
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    tag_count few[32], *counts = few;
    Py_ssize_t kinds = 0, room = 32, own = 0;
    for (void *child = lxb.first_child(node); child != NULL; child = lxb.next(child)) {
        int type = lxb.type(child);
        PyObject *item;
        if (type == TEXT_NODE) {
            size_t len = 0;
            lchar *text = lxb.text_content(child, &len);
            if (text == NULL) continue;
            int gap;
            item = text_child(text, len, &gap);
            lxb.destroy_text(document, text);
            if (item != NULL && !gap) own += collapsed_size(item);
        } else if (type == ELEMENT_NODE) {
            int error;
            PyObject *tag = listed_tag(child, skip, &error);
            if (tag == NULL) {
                if (error < 0) goto failed;
                continue;
            }
            Py_ssize_t k = 0;
            while (k < kinds && counts[k].tag != tag) k++;
            if (k == kinds) {
                if (kinds == room) {
                    tag_count *more = PyMem_Malloc(sizeof(tag_count) * (size_t)room * 2);
                    if (more == NULL) {
                        Py_DECREF(tag);
                        PyErr_NoMemory();
                        goto failed;
                    }
                    memcpy(more, counts, sizeof(tag_count) * (size_t)kinds);
                    if (counts != few) PyMem_Free(counts);
                    counts = more;
                    room *= 2;
                }
                counts[kinds].tag = tag;
                counts[kinds].count = 0;
                kinds++;
            }
            long flags = 0;
            PyObject *attrs = flagged_attributes(child, &flags);
            PyObject *handle = attrs != NULL ? PyLong_FromVoidPtr(child) : NULL;
            PyObject *info = handle != NULL
                ? PyLong_FromLong((++counts[k].count << INFO_BITS) | flags) : NULL;
            item = info != NULL ? PyTuple_New(4) : NULL;
            if (item != NULL) { /* the tuple takes the four references over */
                PyTuple_SET_ITEM(item, 0, tag);
                PyTuple_SET_ITEM(item, 1, attrs);
                PyTuple_SET_ITEM(item, 2, handle);
                PyTuple_SET_ITEM(item, 3, info);
            } else {
                Py_DECREF(tag);
                Py_XDECREF(attrs);
                Py_XDECREF(handle);
                Py_XDECREF(info);
            }
        } else {
            continue;
        }
        if (append_new(out, item) < 0) goto failed;
    }
    if (counts != few) PyMem_Free(counts);
    PyObject *size = PyLong_FromSsize_t(own), *result = size != NULL ? PyTuple_New(2) : NULL;
    if (result == NULL) {
        Py_XDECREF(size);
        Py_DECREF(out);
        return NULL;
    }
    PyTuple_SET_ITEM(result, 0, size);
    PyTuple_SET_ITEM(result, 1, out);
    return result;
failed:
    if (counts != few) PyMem_Free(counts);
    Py_DECREF(out);
    return NULL;
}

/* text(document, node) -> str: selectolax's ``text(deep=True)``. */
static PyObject *text(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    void *document, *node;
    if (!args_of(args, nargs, 2, &document, &node)) return NULL;
    size_t len = 0;
    lchar *data = lxb.text_content(node, &len);
    if (data == NULL) return PyUnicode_New(0, 0);
    PyObject *out = PyUnicode_DecodeUTF8((const char *)data, (Py_ssize_t)len, "replace");
    lxb.destroy_text(document, data);
    return out;
}

/* text_size(document, node, sizes) -> int: len(text(deep=True)), markers restored. */
static PyObject *text_size(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    void *document, *node;
    PyObject *sizes;
    if (!args_of(args, nargs, 3, &document, &node) || !sizes_arg(args[2], &sizes)) return NULL;
    Py_ssize_t size = text_size_of(document, node, sizes);
    return size < 0 && PyErr_Occurred() ? NULL : PyLong_FromSsize_t(size);
}

/* prose_size(document, node, paragraph, sizes) -> int: the text sizes of the ``p``
 * elements, ``node`` and its descendants (a CSS query's matches), each counted when it
 * is at least ``paragraph`` characters. */
static PyObject *prose_size(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    void *document, *node;
    PyObject *sizes;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "prose_size(document, node, paragraph, sizes)");
        return NULL;
    }
    if (!args_of(args, 2, 2, &document, &node) || !sizes_arg(args[3], &sizes)) return NULL;
    Py_ssize_t paragraph = PyLong_AsSsize_t(args[2]);
    if (paragraph == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t total = 0;
    walk w;
    walk_start(&w, node);
    for (void *element = node; element != NULL; element = walk_next(&w, 1)) {
        if (same(name_of(element), "p")) {
            Py_ssize_t size = text_size_of(document, element, sizes);
            if (size < 0 && PyErr_Occurred()) return NULL;
            if (size >= paragraph) total += size;
        }
    }
    return PyLong_FromSsize_t(total);
}

/* visible_size(document, node, sizes) -> int: the text size of ``node`` less that of
 * every script, style, noscript and template in it (each match of the CSS query
 * subtracted, a nested one once more: the reading the Python path gives). */
static PyObject *visible_size(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    void *document, *node;
    PyObject *sizes;
    if (!args_of(args, nargs, 3, &document, &node) || !sizes_arg(args[2], &sizes)) return NULL;
    Py_ssize_t size = text_size_of(document, node, sizes);
    if (size < 0 && PyErr_Occurred()) return NULL;
    walk w;
    walk_start(&w, node);
    for (void *element = node; element != NULL; element = walk_next(&w, 1)) {
        static const char *const hidden[] = {"script", "style", "noscript", "template", NULL};
        if (is_one_of(name_of(element), hidden)) {
            Py_ssize_t hidden_size = text_size_of(document, element, sizes);
            if (hidden_size < 0 && PyErr_Occurred()) return NULL;
            size -= hidden_size;
        }
    }
    return PyLong_FromSsize_t(size);
}

/* Does ``value`` (NUL-terminated, as Lexbor keeps attribute values) hold "canonical" in
 * any ASCII case? What "canonical" in value.lower() says: no character but the ASCII
 * letters lowers to one of its letters (U+0130 lowers to "i" and a combining dot). */
static int holds_canonical(const lchar *value) {
    static const char word[] = "canonical";
    for (; *value; value++) {
        size_t i = 0;
        while (word[i] && value[i] && (value[i] | 0x20) == (lchar)word[i]) i++;
        if (!word[i]) return 1;
    }
    return 0;
}

/* head_elements(document, root) -> [(tag, attrs, text | None)]: the elements the
 * metadata readers look at, in document order (_metadata._HEAD_QUERY: meta, title,
 * link[rel] whose rel holds "canonical", script, style, base[href],
 * [itemprop=datePublished|dateModified]), ``root`` included; ``text`` for title, script
 * and style. WHY only the canonical links: that is the one link the readers take, and a
 * page lists dozens of others (preloads, icons, feeds), each an attribute map built for
 * nothing. */
static PyObject *head_elements(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    void *document, *node;
    if (!args_of(args, nargs, 2, &document, &node)) return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    walk w;
    walk_start(&w, node);
    for (void *element = node; element != NULL; element = walk_next(&w, 1)) {
        static const char *const with_texts[] = {"title", "script", "style", NULL};
        const char *name = name_of(element);
        int present = 0, with_text = is_one_of(name, with_texts);
        const lchar *rel;
        int wanted = with_text || same(name, "meta")
                     || (same(name, "link") && (rel = attribute(element, "rel", &present),
                                                       rel != NULL && holds_canonical(rel)))
                     || (same(name, "base") && (attribute(element, "href", &present),
                                                       present));
        if (!wanted) {
            const lchar *prop = attribute(element, "itemprop", &present);
            wanted = prop != NULL && (same((const char *)prop, "datePublished")
                                      || same((const char *)prop, "dateModified"));
        }
        if (!wanted) continue;
        PyObject *body;
        if (with_text) {
            PyObject *handle = PyLong_FromVoidPtr(element);
            PyObject *one[2] = {args[0], handle};
            body = handle != NULL ? text(NULL, one, 2) : NULL;
            Py_XDECREF(handle);
        } else {
            body = Py_NewRef(Py_None);
        }
        if (append_new(out, element_entry(element, element_tag(element), body)) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* deeper_than(document, root, depth) -> bool: does an element sit ``depth`` element
 * levels below ``root`` (CSS "root > * > ... > *")? */
static PyObject *deeper_than(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    void *document, *node;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "deeper_than(document, root, depth)");
        return NULL;
    }
    if (!args_of(args, 2, 2, &document, &node)) return NULL;
    long depth = PyLong_AsLong(args[2]);
    if (depth == -1 && PyErr_Occurred()) return NULL;
    walk w;
    walk_start(&w, node);
    for (void *element = walk_next(&w, 1); element != NULL; element = walk_next(&w, 1)) {
        if (w.depth >= depth) Py_RETURN_TRUE;
    }
    Py_RETURN_FALSE;
}

static PyMethodDef methods[] = {
    {"bind", (PyCFunction)bind, METH_O,
     "Look Lexbor's functions up in selectolax's extension (its path); False if missing."},
    {"children", (PyCFunction)(void (*)(void))children, METH_FASTCALL,
     "A node's text children's data and its element children as (tag, attrs, node)."},
    {"level", (PyCFunction)(void (*)(void))level, METH_FASTCALL,
     "children() for the tree copy: (own text size, [str | (tag, attrs, node, info)])."},
    {"text", (PyCFunction)(void (*)(void))text, METH_FASTCALL,
     "A node's text, as selectolax's text(deep=True)."},
    {"text_size", (PyCFunction)(void (*)(void))text_size, METH_FASTCALL,
     "The length of a node's text, the raw-text cut's markers restored."},
    {"prose_size", (PyCFunction)(void (*)(void))prose_size, METH_FASTCALL,
     "The text sizes of the p elements at least a paragraph long."},
    {"visible_size", (PyCFunction)(void (*)(void))visible_size, METH_FASTCALL,
     "A node's text size less its scripts', styles', noscripts' and templates'."},
    {"head_elements", (PyCFunction)(void (*)(void))head_elements, METH_FASTCALL,
     "The elements the metadata readers look at, as (tag, attrs, text or None)."},
    {"deeper_than", (PyCFunction)(void (*)(void))deeper_than, METH_FASTCALL,
     "Whether an element sits that many levels below the root."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_native_dom",
    "Lexbor's tree read in C (see pressmark.markdown._dom).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native_dom(void) {
    for (Py_UCS4 c = 0; c < 256; c++) {
        SPACE_LATIN1[c] = (unsigned char)Py_UNICODE_ISSPACE(c);
    }
    return PyModule_Create(&module_def);
}
