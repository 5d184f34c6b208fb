/* UTF-8 text hygiene for strings that reach outputs: device names from a
 * driver or a trace, file names, user-supplied arguments echoed in messages.
 *
 * JSON (jansson refuses invalid UTF-8), Prometheus label values, audit-log
 * records (no control bytes) and terminals all need text that is valid UTF-8
 * without control characters.  These helpers repair a string in place or
 * find where to cut it; they are not a Unicode library (no normalization,
 * no width).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_TEXT_H
#define WT_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Decodes one UTF-8 sequence at s[0..len) (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF).  Returns its length, 0 if invalid. */
size_t wt_utf8_next(const unsigned char *s, size_t len, uint32_t *cp);

/* Whether code point cp reorders text or is invisible: Unicode's
 * Default_Ignorable_Code_Point set (DerivedCoreProperties.txt: bidi
 * overrides, isolates and marks U+202A..U+202E, U+2066..U+2069, U+200E,
 * U+200F, U+061C; zero-width and other format characters U+00AD, U+034F,
 * U+200B..U+200D, U+2060..U+2065, U+FEFF, U+FFF0..U+FFF8; the Hangul
 * fillers U+115F, U+1160, U+3164, U+FFA0; U+17B4, U+17B5, U+180B..U+180F;
 * variation selectors U+FE00..U+FE0F; U+1BCA0..U+1BCA3, U+1D173..U+1D17A;
 * tags and supplementary selectors U+E0000..U+E0FFF): a name holding one
 * can show its end first, or read as another name (the tags and fillers
 * were let through until 2026-12-07). */
static inline int wt_text_hidden(uint32_t cp)
{
    if (cp < 0x00ad)
        return 0;
    return cp == 0x00ad || cp == 0x034f || cp == 0x061c || cp == 0x115f || cp == 0x1160 ||
           cp == 0x17b4 || cp == 0x17b5 || (cp >= 0x180b && cp <= 0x180f) ||
           (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
           (cp >= 0x2060 && cp <= 0x206f) || cp == 0x3164 || (cp >= 0xfe00 && cp <= 0xfe0f) ||
           cp == 0xfeff || cp == 0xffa0 || (cp >= 0xfff0 && cp <= 0xfff8) ||
           (cp >= 0x1bca0 && cp <= 0x1bca3) || (cp >= 0x1d173 && cp <= 0x1d17a) ||
           (cp >= 0xe0000 && cp <= 0xe0fff);
}

/* Replaces, in place, every byte that is an ASCII control character (C0 or
 * DEL), part of a C1 control (U+0080..U+009F, two bytes: "??"), part of a
 * character wt_text_hidden() names or not part of a valid UTF-8 sequence
 * with '?'; the length stays.  Returns s. */
char *wt_text_clean(char *s);

/* The length of the longest prefix of s[0..n) that does not end inside a
 * UTF-8 sequence (n itself when s[0..n) ends on a boundary). */
size_t wt_utf8_cut(const char *s, size_t n);

#endif
