/* Helpers shared by the cmocka tests: cmocka's includes in the right order,
 * temporary files and readers over in-memory text.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_TESTUTIL_H
#define WT_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "telemetry/trace_reader.h"

/* Writes text to a new temporary file; returns its path (static buffer per call
 * slot: up to 8 live paths). */
static inline const char *tu_temp_file(const char *text, size_t len)
{
    static char paths[8][64];
    static int slot;
    char *p = paths[slot++ % 8];
    snprintf(p, 64, "/tmp/wt_test_XXXXXX");
    int fd = mkstemp(p);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
    return p;
}

static inline const char *tu_temp(const char *text)
{
    return tu_temp_file(text, strlen(text));
}

/* Opens a reader over text (through a temporary file); returns the open code. */
static inline int tu_open(const char *text, size_t len, const struct wt_trace_opts *o,
                          struct wt_trace_reader **r, struct wt_err *err)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    rewind(f);
    return wt_trace_open_stream(f, 1, "t.csv", o, r, err);
}

/* Reads every row; returns the final code (WT_DONE or an error) and the count. */
static inline int tu_drain(struct wt_trace_reader *r, size_t *rows, struct wt_err *err)
{
    struct wt_sample s;
    int rc;
    *rows = 0;
    while ((rc = wt_trace_next(r, &s, err)) == WT_OK)
        (*rows)++;
    return rc;
}

/* Opens text and drains it; returns the first error or WT_DONE, message in err. */
static inline int tu_parse(const char *text, struct wt_err *err)
{
    struct wt_trace_reader *r = NULL;
    size_t rows;
    int rc = tu_open(text, strlen(text), NULL, &r, err);
    if (rc)
        return rc;
    rc = tu_drain(r, &rows, err);
    wt_trace_close(r);
    return rc;
}

#define assert_contains(hay, needle)                                                               \
    do {                                                                                           \
        if (!strstr((hay), (needle)))                                                              \
            fail_msg("expected '%s' in '%s'", (needle), (hay));                                    \
    } while (0)

#endif
