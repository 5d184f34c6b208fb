/* One classification run: open a telemetry source, read --windows windows of
 * --samples samples of one GPU (with the host's other GPUs over the same
 * spans as peers for the cross-GPU features), classify each, and decide at
 * job level (k of n, verdict.h).  What `classify` and the MCP tools share;
 * printing is the caller's job.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_CLASSIFY_RUN_H
#define WT_CLASSIFY_RUN_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>

#include "classify/classifier.h"
#include "telemetry/source.h"
#include "util/err.h"

struct wt_run_request {
    const char *backend; /* "auto", "nvml", "synthetic", "replay" */
    struct wt_source_config cfg;
    int gpu;
    size_t samples;   /* per window, >= 2 */
    size_t windows;   /* >= 1 */
    size_t min_agree; /* job level k (0: a strict majority) */
    double start;     /* skip samples before this t_s (NaN: from the start) */
    const struct wt_classifier *clf;
    int alone;     /* the GPU without the source's other GPUs as peers (--peers none) */
    int all_peers; /* every other GPU a peer, whatever a trace's owners column says
                    * (--peers all; default: the GPUs of this GPU's job) */
    /* optional: called after each window (done of total) */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
    /* optional: when it becomes non-zero the run stops with WT_DONE */
    const atomic_int *cancel;
};

struct wt_run_outcome {
    struct wt_result *w; /* the windows' results (n of them, malloc'd) */
    size_t n;
    /* the windows asked for; n is fewer when a trace or stdin ended after
     * at least one whole window (the rest, `leftover` samples, is not
     * classified, and the job-level rule k stays the one asked for) */
    size_t requested;
    size_t leftover;
    size_t k;             /* the job-level rule used */
    struct wt_result job; /* the job's result (a copy of w[0] when n == 1) */
    struct wt_device_info info;
    struct wt_proc *procs; /* who runs on the GPU (live sources; malloc'd) */
    size_t nprocs;
    int have_procs;
    double t_first, t_last; /* the first and last sample's t_s (NaN: none) */
};

/* The job's features from its n windows' (vals: room for n doubles): each
 * feature's median over the windows that measure it, except the tamper
 * indicators' features, which take the worst window (the highest
 * clocks_locked, swcap_frac and pin_at_cap, the lowest limit_ratio). */
void wt_job_features(const struct wt_result *w, size_t n, double *vals, struct wt_features *out);

/* Runs it.  WT_OK, WT_DONE (cancelled) or an error with a message such as
 * "trace.csv: GPU 0 has only 5 samples; --samples asks for 10" (when not even
 * the first window is whole; a trace that ends later is WT_OK with
 * out->n < out->requested and a reason on the job's result).  The
 * caller frees the outcome with wt_run_free (also after an error). */
int wt_run_classify(const struct wt_run_request *rq, struct wt_run_outcome *out,
                    struct wt_err *err) WT_WARN_UNUSED;
void wt_run_free(struct wt_run_outcome *out);

/* How wt_run_log_result records a run. */
struct wt_run_log_opts {
    const char *source; /* the telemetry source: "replay:FILE", "synthetic:P", "nvml" */
    /* optional (borrowed): string values added to the record's evidence,
     * keys [a-z0-9_]{1,32}, at most WT_RUN_LOG_MAX_EXTRA of them (e.g.
     * slurm_job_id, declared, verdict) */
    json_t *extra_evidence;
    /* seconds to wait while another writer holds the log's lock (0: fail
     * at once, as the MCP server does) */
    double lock_wait_s;
    /* prefix of the stderr line that reports a newly created log and its
     * verifier key, e.g. "workloadtruth mcp" */
    const char *who;
    /* the model file's short hash (struct wt_model's file_id), named in the record's
     * model; NULL or "" for the built-in model */
    const char *model_id;
    /* a stop asked (the MCP call cancelled, the server stopping) ends the
     * verification of the log, or the wait for its lock, before anything is
     * appended: WT_ESTOP (NULL: never) */
    const atomic_int *cancel;
};
#define WT_RUN_LOG_MAX_EXTRA 4

/* Appends the run's job-level result as a `class` record to the audit log
 * in log_dir (creating the log, with a fresh key, when there is none) and
 * publishes a signed checkpoint.  *where (may be NULL) gets
 * {"log": PATH, "seq": N, "size": ENTRIES, "warnings": [...]}.  An error with
 * *where set means the record was appended but
 * its checkpoint could not be written: the record is in the log, unsealed.
 * What `classify --log-dir` and the MCP tools share. */
int wt_run_log_result(const struct wt_run_outcome *run, const char *log_dir,
                      const struct wt_run_log_opts *o, json_t **where,
                      struct wt_err *err) WT_WARN_UNUSED;

#endif
