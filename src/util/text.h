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

/* Whether code point cp reorders text or is invisible (bidi overrides,
 * isolates and marks U+202A..U+202E, U+2066..U+2069, U+200E, U+200F,
 * U+061C; zero-width and other invisible format characters U+00AD,
 * U+200B..U+200D, U+2060..U+2064, U+FEFF): a name holding one can show its
 * end first, or read as another name. */
static inline int wt_text_hidden(uint32_t cp)
{
    return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
           (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2060 && cp <= 0x2064) || cp == 0x061c ||
           cp == 0x00ad || cp == 0xfeff;
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
