/* UTF-8 text hygiene (see text.h). */
#include "util/text.h"

size_t wt_utf8_next(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        v = c & 0x1f;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        v = c & 0x0f;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        v = c & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return n;
}

char *wt_text_clean(char *s)
{
    unsigned char *p = (unsigned char *)s;
    size_t len = 0;
    while (p[len])
        len++;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = wt_utf8_next(p + i, len - i, &cp);
        if (n == 0 || cp < 0x20 || cp == 0x7f) {
            p[i++] = '?';
            continue;
        }
        if (cp >= 0x80 && cp <= 0x9f) { /* C1 (CSI, OSC...: 8-bit escapes) */
            p[i] = p[i + 1] = '?';      /* two bytes, so the length stays */
            i += 2;
            continue;
        }
        /* the characters that reorder text around them or are invisible
         * (a name could show its end first, or read as another), each byte
         * '?', so the length stays */
        if (wt_text_hidden(cp)) {
            for (size_t k = 0; k < n; k++)
                p[i + k] = '?';
            i += n;
            continue;
        }
        i += n;
    }
    return s;
}

size_t wt_utf8_cut(const char *s, size_t n)
{
    size_t i = n, k = 0;
    while (i > 0 && k < 4 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
        i--, k++;
    if (i == 0)
        return n;
    unsigned c = (unsigned char)s[i - 1];
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return need == 1 || k + 1 >= need ? n : i - 1;
}
