/* UTF-8 as Python's strict decoder reads it (RFC 3629: no overlong forms, no surrogates,
 * nothing past U+10FFFF), for the screen's ``utf8_valid``, the tree reader's text
 * sizes and the sheet scan's copies: one reading of the bytes, in one place. Needs <Python.h> (and <emmintrin.h>
 * where SSE2 is there) included first. */
#ifndef PRESSMARK_NATIVE_UTF8_H
#define PRESSMARK_NATIVE_UTF8_H

/* The length of the UTF-8 character whose lead byte is s[i] (>= 0x80), or -1 where
 * bytes.decode("utf-8") refuses it (an invalid lead or continuation, an overlong form, a
 * surrogate, past U+10FFFF, or cut off by the end at n). */
static inline int utf8_char_size(const unsigned char *s, Py_ssize_t n, Py_ssize_t i) {
    unsigned char c = s[i], low = 0x80, high = 0xBF; /* the range of the byte after the lead */
    int more;
    if (c >= 0xC2 && c <= 0xDF) more = 1;
    else if (c == 0xE0) { more = 2; low = 0xA0; }
    else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) more = 2;
    else if (c == 0xED) { more = 2; high = 0x9F; }
    else if (c == 0xF0) { more = 3; low = 0x90; }
    else if (c >= 0xF1 && c <= 0xF3) more = 3;
    else if (c == 0xF4) { more = 3; high = 0x8F; }
    else return -1;
    if (i + more >= n || s[i + 1] < low || s[i + 1] > high) return -1;
    for (int k = 2; k <= more; k++) {
        if ((s[i + k] & 0xC0) != 0x80) return -1;
    }
    return more + 1;
}

/* The characters ``s`` decodes to, or -1 when bytes.decode("utf-8") would refuse it.
 * ASCII runs are skipped sixteen bytes at a time: a page's text is mostly ASCII. */
static inline Py_ssize_t utf8_length(const unsigned char *s, Py_ssize_t n) {
    Py_ssize_t i = 0, continuations = 0;
    while (i < n) {
#ifdef __SSE2__
        while (i + 16 <= n && !_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(s + i)))) {
            i += 16;
        }
#endif
        if (i >= n) break;
        unsigned char c = s[i];
        if (c < 0x80) { i++; continue; }
        int size = utf8_char_size(s, n, i);
        if (size < 0) return -1;
        continuations += size - 1;
        i += size;
    }
    return n - continuations;
}

#endif
