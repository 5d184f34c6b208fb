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

/* Replaces, in place, every byte that is an ASCII control character (C0 or
 * DEL), part of a C1 control (U+0080..U+009F, two bytes: "??"), part of a
 * character that reorders text (bidi overrides, isolates and marks:
 * U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C) or not part of a
 * valid UTF-8 sequence with '?'; the length stays.  Returns s. */
char *wt_text_clean(char *s);

/* The length of the longest prefix of s[0..n) that does not end inside a
 * UTF-8 sequence (n itself when s[0..n) ends on a boundary). */
size_t wt_utf8_cut(const char *s, size_t n);

#endif
