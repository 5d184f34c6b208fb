/* Streaming reader for telemetry traces: the project's own format
 * (`workloadtruth-trace/1`, docs/trace-format.md) and raw
 * `nvidia-smi --query-gpu=... --format=csv[,nounits]` output.
 *
 * It reads one line at a time from a file or standard input (so it can follow
 * a live `nvidia-smi -lms 100 | workloadtruth ...` pipe), turns every data row
 * into one struct wt_sample, and rejects malformed input with a message naming
 * the file, line and column.  It does not buffer whole files, group samples by
 * GPU or window them: that is the replay source's and the feature module's job.
 *
 * Limits (every parsed input is bounded): a line is at most WT_TRACE_MAX_LINE
 * bytes, a header at most WT_TRACE_MAX_COLS columns, at most
 * WT_TRACE_MAX_META metadata lines, GPU indices below WT_MAX_GPUS, an
 * `owners` cell as telemetry/owners.h bounds it.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_TRACE_READER_H
#define WT_TRACE_READER_H

#include <stdatomic.h>
#include <stdio.h>

#include "telemetry/sample.h"
#include "util/err.h"

struct wt_owners;

#define WT_TRACE_MAX_LINE 65536
#define WT_TRACE_MAX_COLS 128
#define WT_TRACE_MAX_META 256
#define WT_TRACE_MAX_T_S 1e10 /* |t_s| beyond this is refused (ms/ns epochs) */

enum wt_trace_kind {
    WT_TRACE_NATIVE, /* workloadtruth-trace/1 */
    WT_TRACE_NVSMI,  /* nvidia-smi --query-gpu CSV */
};

struct wt_trace_opts {
    /* nvidia-smi CSV without a timestamp column: seconds between ticks
     * (0 means 1 s). */
    double interval_s;
    /* nvidia-smi CSV without an index/uuid/pci.bus_id column: rows per tick
     * (one per GPU).  0 = detect from the timestamps (1 when there are none). */
    unsigned rows_per_tick;
    /* Live input (a pipe): when non-NULL, a read waiting for data checks it
     * every 100 ms and, once it is non-zero, ends the input (WT_DONE; a
     * partial last line is dropped).  A signal handler sets it. */
    const atomic_int *stop;
    /* No warnings on stderr (a second reader over the same file). */
    int quiet;
    /* A regular file only (the MCP server's --trace-dir): a FIFO or a device
     * is refused when opened, without blocking, and reads never block (a
     * file swapped for a FIFO after the server's check hung it for good). */
    int regular_only;
};

struct wt_trace_kv {
    char *key;
    char *value;
    size_t line; /* where it was read (1-based) */
};

struct wt_trace_meta {
    enum wt_trace_kind kind;
    size_t n;               /* metadata lines kept */
    struct wt_trace_kv *kv; /* in file order */
    enum wt_class label;    /* `# label:`, or WT_CLASS_NONE */
    /* For nvidia-smi input: "instant", "avg1s" or "unknown", from the power
     * field that was read; for native traces the `power_semantics` key. */
    const char *power_semantics;
    unsigned rows_per_tick; /* nvidia-smi without index: the grouping used */
};

struct wt_trace_reader;

/* Opens path ("-" = standard input) and reads metadata and the header.
 * On success *out owns the file; free it with wt_trace_close(). */
int wt_trace_open(const char *path, const struct wt_trace_opts *opts, struct wt_trace_reader **out,
                  struct wt_err *err) WT_WARN_UNUSED;
/* 1 when path is read as a stream, as standard input is: "-", or a FIFO,
 * a character device or a socket (`<(...)`, /dev/stdin on a pipe), whose
 * rows cannot be read twice to count its GPUs first. */
int wt_trace_is_stream(const char *path);
/* Same over an already open stream; name is used in messages.  If owns_f, the
 * stream is closed by wt_trace_close (also on failure). */
int wt_trace_open_stream(FILE *f, int owns_f, const char *name, const struct wt_trace_opts *opts,
                         struct wt_trace_reader **out, struct wt_err *err) WT_WARN_UNUSED;

/* Reads the next data row: WT_OK with *s filled, WT_DONE at end of input, or
 * a negative code with err set ("name:LINE: ..."). After an error the reader
 * stays in the error state. */
int wt_trace_next(struct wt_trace_reader *r, struct wt_sample *s,
                  struct wt_err *err) WT_WARN_UNUSED;

const struct wt_trace_meta *wt_trace_meta(const struct wt_trace_reader *r);
/* Value of metadata key (first occurrence) or NULL. */
const char *wt_trace_meta_value(const struct wt_trace_reader *r, const char *key);
const char *wt_trace_name(const struct wt_trace_reader *r);
/* Line number of the row last returned (1-based). */
unsigned long wt_trace_lineno(const struct wt_trace_reader *r);
/* A warning about the trace at its current line, on standard error:
 * "workloadtruth: warning: FILE:LINE: ...", once per file and kind (a
 * character naming what is warned of) however often the file is read; none
 * when opts.quiet. */
void wt_trace_warn(const struct wt_trace_reader *r, char kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same at the line of the row last returned (wt_trace_lineno): a reader
 * of nvidia-smi CSV without a GPU column reads up to 128 rows ahead. */
void wt_trace_warn_row(const struct wt_trace_reader *r, char kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* 1 when the input ended because opts.stop was set, not at its end. */
int wt_trace_stopped(const struct wt_trace_reader *r);
/* The cells of the trace's `owners` column, whose ids the samples' owner
 * fields hold (telemetry/owners.h); NULL when the trace has no such column. */
const struct wt_owners *wt_trace_owners(const struct wt_trace_reader *r);

void wt_trace_close(struct wt_trace_reader *r);

/* Whether an nvidia-smi file's power field is still to be fixed: the
 * preferred one and others are in the header and no row has had a power
 * value yet (its power_semantics may still change: trace-format.md). */
int wt_trace_power_pending(const struct wt_trace_reader *r);

#endif
