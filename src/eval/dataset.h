/* Labelled windows from trace files: the one place that turns traces into
 * (window, truth) pairs for `eval`, `train` and feature dumps.
 *
 * A file is loaded whole (all GPUs), optionally transformed (sleeps injected
 * into its training, then resampled, columns dropped), cut per GPU into
 * windows of W seconds, and each window is handed to a callback with its
 * ground truth (the trace format's 80% rule), the same time span of the
 * host's other GPUs as peers, and whether it is scored or skipped
 * (unlabelled/mixed, short).  Directories are walked recursively in sorted
 * order; CSV files there that are not traces are reported, not fatal.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_DATASET_H
#define WT_DATASET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "features/sleep_inject.h"
#include "features/window.h"
#include "telemetry/trace_reader.h"
#include "util/err.h"

/* Files already walked, so a file named twice, or a file and its directory,
 * is read once (`eval a.csv a.csv` scored it twice and `train DIR DIR` weighed
 * every window double), and so is a copy of a file under another name (same
 * SHA-256 of its bytes: in `eval --holdout` a copy in another source's folder
 * was both trained on and scored).  A copy is reported (the duplicate
 * callback); the same file reached again is not. */
struct wt_ds_id {
    dev_t dev;
    ino_t ino;
    int have_sha; /* 0 for standard input: it cannot be read twice */
    unsigned char sha[32];
    char *path; /* the name it was first read under */
};
struct wt_ds_seen {
    size_t n, cap;
    struct wt_ds_id *v;
};
void wt_ds_seen_free(struct wt_ds_seen *s);
/* The name path is, or a trace read under it: a file already read (same device
 * and inode), however it was reached (a link inside an input directory). */
const char *wt_ds_seen_file(const struct wt_ds_seen *s, const char *path);

struct wt_ds_opts {
    struct wt_ds_seen *seen; /* NULL: every path is read, even twice */
    double window_s;
    struct wt_trace_opts trace_opts;
    double resample_hz;                /* 0: native rate */
    uint32_t columns;                  /* kept columns (bit per enum wt_col); 0: all */
    size_t min_samples;                /* fewer: the window is short */
    const struct wt_sleep_opts *sleep; /* NULL, or sleep injection into training (eval only) */
    double truth_s; /* > 0: a longer window's truth is that of its last truth_s seconds,
                     * the part the classifier scores (its max_seconds) */
    int alone;      /* each GPU without its file's other GPUs as peers */
    int all_peers;  /* every other GPU of a file a peer, whatever its owners
                     * column says (default: the GPUs of the GPU's job) */
};

enum wt_ds_skip { WT_DS_SCORED = 0, WT_DS_UNLABELLED = 1, WT_DS_SHORT = 2 };

struct wt_ds_window {
    const char *path;
    const char *group; /* parent directory name: the trace's source */
    const char *gpu_model;
    double t_start; /* window start, trace time */
    const struct wt_window *w;
    enum wt_class truth; /* WT_CLASS_NONE when unlabelled */
    enum wt_ds_skip skip;
};

/* Called for every window; a non-zero return stops the walk and is returned. */
typedef int (*wt_ds_fn)(void *ctx, const struct wt_ds_window *dw, struct wt_err *err);
/* Called for a CSV met in a directory walk that is not a trace. */
typedef int (*wt_ds_skip_fn)(void *ctx, const char *path, struct wt_err *err);
/* Files a walk skipped and says so: CSV files that are not traces (same_as NULL)
 * and copies of a trace read before.  A repeat of an entry is not added. */
struct wt_ds_skipped {
    char *path;
    char *same_as; /* NULL: not a trace */
};
struct wt_ds_skips {
    struct wt_ds_skipped *v;
    size_t n, cap;
};
int wt_ds_skips_add(struct wt_ds_skips *s, const char *path, const char *same_as,
                    struct wt_err *err) WT_WARN_UNUSED;
void wt_ds_skips_free(struct wt_ds_skips *s);

/* Called for a file skipped as a copy of one read before (may be NULL). */
typedef int (*wt_ds_dup_fn)(void *ctx, const char *path, const char *same_as, struct wt_err *err);
/* Called once per file before its windows (may be NULL). */
typedef int (*wt_ds_file_fn)(void *ctx, const char *path, const char *group, const char *gpu_model,
                             struct wt_err *err);

struct wt_ds_callbacks {
    wt_ds_file_fn file;
    wt_ds_fn window;
    wt_ds_skip_fn not_trace;
    wt_ds_dup_fn duplicate;
    void *ctx;
};

/* path: a trace file ("-" = stdin) or a directory. */
int wt_ds_walk(const char *path, const struct wt_ds_opts *o, const struct wt_ds_callbacks *cb,
               struct wt_err *err) WT_WARN_UNUSED;

/* Parent directory name of path (malloc'd; NULL on allocation failure),
 * resolved as `cd` does, links not followed: "f.csv" run inside traces/hap,
 * "hap/./f.csv" and "x/../hap/f.csv" are all of "hap"; "-" (standard input)
 * is of "stdin". */
char *wt_ds_group(const char *path);

#endif
