/* Writes telemetry in the trace format (docs/trace-format.md): metadata
 * lines, a header with every column, one row per sample, "not measured" as an
 * empty cell.  Rows are buffered per flush and each flush is one write, so a
 * recording that is interrupted (Ctrl-C, a killed process, a full disk) is
 * still a valid trace up to its last flush.  It does not sample anything.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_TRACE_WRITER_H
#define WT_TRACE_WRITER_H

#include <stdio.h>

#include "telemetry/sample.h"
#include "util/err.h"

struct wt_owners;

struct wt_trace_writer;

/* Opens path ("-" = standard output) and writes the metadata (keys[i]:
 * values[i], n pairs; a line longer than WT_TRACE_MAX_LINE is an error, not
 * cut) and the header.  With owners (not NULL), the header ends with an
 * `owners` column and each row's cell is the text of its sample's owner id
 * in that table (telemetry/owners.h), which must outlive the writer.  *out
 * owns the file. */
int wt_trace_writer_open(const char *path, const char *const *keys, const char *const *values,
                         size_t n, const struct wt_owners *owners, struct wt_trace_writer **out,
                         struct wt_err *err) WT_WARN_UNUSED;
/* Appends one row to the pending buffer (flushed when it grows large). */
int wt_trace_writer_row(struct wt_trace_writer *w, const struct wt_sample *s,
                        struct wt_err *err) WT_WARN_UNUSED;
/* Writes the pending rows to the file and fflushes it. */
int wt_trace_writer_flush(struct wt_trace_writer *w, struct wt_err *err) WT_WARN_UNUSED;
/* Flushes and closes; returns the first error. */
int wt_trace_writer_close(struct wt_trace_writer *w, struct wt_err *err);

#endif
