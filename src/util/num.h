/* Strict number parsing and rounding helpers.
 *
 * wt_parse_double accepts plain decimals (optionally with exponent) and
 * nothing else: no empty strings, no trailing junk, no "nan"/"inf", no hex
 * floats.  wt_parse_u64 accepts decimal or 0x-prefixed hex.  Used by the trace
 * reader and the CLI so both reject the same malformed values.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_NUM_H
#define WT_NUM_H

#include <stdint.h>
#include <stddef.h>

/* Returns 0 and sets *out, -1 if s (len bytes, not NUL-terminated) is not a
 * plain decimal number, or -2 for one beyond a double's range (1e400). */
int wt_parse_double(const char *s, size_t len, double *out);
/* Returns 0 and sets *out, or -1: decimal or 0x hex, no sign. */
int wt_parse_u64(const char *s, size_t len, uint64_t *out);
/* Rounds half away from zero to `digits` decimals, like Python's round() for
 * the values we print (ties are not significant for telemetry). */
double wt_round(double x, int digits);
/* NaN marks "not measured" everywhere in the project. */
double wt_nan(void);

#endif
