/* What the agent exposes to Prometheus: a small, thread-safe store of the
 * latest state of each watched GPU (class, confidence, declared type,
 * mismatch, tamper indicators, counters per class, samples and read errors)
 * and of the agent (audit-log appends and errors, last checkpoint, last
 * verification of the whole log), rendered
 * in the Prometheus text format 0.0.4.  GPU labels are gpu, uuid, pci_bus_id,
 * model_name and hostname (snake case, which `promtool check metrics`
 * requires), or with label_style_dcgm dcgm-exporter's spellings (gpu, UUID,
 * pci_bus_id, modelName, Hostname) for joins with DCGM metrics; owner labels
 * are pod, namespace, container, slurm_job_id (empty when unknown).  Labels are bounded: no
 * per-process labels, at most WT_METRICS_MAX_GPUS (1024) GPUs.  It also writes the
 * same text atomically for node_exporter's textfile collector.  It does not
 * serve HTTP (exporter.c) or classify anything.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_METRICS_H
#define WT_METRICS_H

#include <pthread.h>
#include <stddef.h>

#include "classify/classifier.h"
#include "classify/verdict.h"
#include "telemetry/sample.h"
#include "util/err.h"

/* every GPU watch can watch (64 once: a host's 65th GPU or MIG device was
 * watched and logged, but not exported) */
#define WT_METRICS_MAX_GPUS WT_MAX_GPUS

struct wt_gpu_labels {
    char gpu[12];
    char uuid[96];
    char pci_bus_id[32];
    char model[96];
    char pod[254];
    char k8s_namespace[64];
    char container[80];
    char slurm_job_id[24];
    /* a MIG device, dcgm style: the GPU instance's profile and id (labels
     * GPU_I_PROFILE, GPU_I_ID; gpu and UUID are then its parent GPU's) */
    char gi_profile[32];
    char gi_id[12];
    /* its compute instance (label GPU_CI_ID; "unknown-" and the enumeration
     * index where the driver cannot say it), set only where another device
     * of the same GPU instance is watched: without it their series would be
     * one (dcgm-exporter reports a GPU instance, not its compute instances) */
    char ci_id[24];
};

/* The counts of an owner the GPU had before (its labels' hash), so that an
 * owner who comes back continues its series instead of restarting at 1 (an
 * increase() over a counter that goes back to 1 loses the windows). */
#define WT_METRICS_OWNERS 16
/* seconds a new owner's classifications_total series shows 0 before its
 * count: two scrapes at Prometheus's default interval of a minute */
#define WT_METRICS_COUNTER_HOLD_S 120.0
struct wt_owner_counts {
    unsigned long long key; /* FNV-1a of the owner labels; 0: free */
    unsigned long long per_class[4];
    unsigned long long last_used;
    double since; /* monotonic seconds its series first appeared */
    /* when it left the GPU (monotonic seconds; 0: its labels were not kept):
     * its series stays exposed for counter_hold_s after both its hold and
     * its leaving, so that increase() counts an owner gone within the hold
     * and the windows of its last seconds (see wt_metrics_render) */
    double left;
};

/* An owner's labels, kept for its series once it left the GPU. */
struct wt_owner_labels {
    char pod[254];
    char k8s_namespace[64];
    char container[80];
    char slurm_job_id[24];
};

struct wt_gpu_metrics {
    int used;
    struct wt_gpu_labels l;
    int classified;          /* a window was classified */
    enum wt_class cls;       /* the last window's class */
    double confidence;       /* NaN: not measured */
    enum wt_class declared;  /* WT_CLASS_NONE: no declaration */
    enum wt_verdict verdict; /* of the last window against the declaration */
    const char *declared_by; /* where the declaration came from (a static name); NULL: none */
    double last_window;      /* unix seconds of the last classified window */
    int tamper[3];           /* power limit below default, clocks locked, software power cap */
    unsigned long long per_class[4]; /* training, inference, idle, unknown */
    unsigned long long samples, read_errors;
    unsigned long long owner_changed; /* windows whose owner or declaration changed while sampled */
    struct wt_owner_counts owners[WT_METRICS_OWNERS]; /* the last owners' counts */
    /* owners[k]'s labels: allocated when an owner first leaves (a GPU whose
     * job never changes costs nothing; 1024 GPUs' would be 7 MB) */
    struct wt_owner_labels *owner_l;
    /* monotonic seconds the current owner's classifications_total series
     * first appeared: it shows 0 for counter_hold_s from then (see
     * wt_metrics_render) */
    double since;
    unsigned long long owner_tick;
    int failed; /* the GPU failed and is no longer watched */
};

struct wt_metrics {
    pthread_mutex_t mu;
    char hostname[256]; /* a Kubernetes node name is up to 253 bytes */
    struct wt_gpu_metrics gpu[WT_METRICS_MAX_GPUS];
    unsigned long long appends, append_errors, dropped;
    double last_checkpoint;      /* unix seconds; 0: none yet */
    double last_checkpoint_mono; /* the same on the monotonic clock (its age) */
    int log_verdict;             /* watch's last whole-log verification: 0 none yet, 1 intact,
                                  * 2 damaged */
    double last_verification;    /* unix seconds of that verification */
    unsigned long long scrapes;
    int label_style_dcgm;
    double counter_hold_s; /* see wt_metrics_render (default WT_METRICS_COUNTER_HOLD_S) */
    int stopped; /* the agent has stopped: workloadtruth_up 0 (the last textfile says so) */
};

void wt_metrics_init(struct wt_metrics *m);
void wt_metrics_free(struct wt_metrics *m);

/* Registers GPU slot i (0..WT_METRICS_MAX_GPUS-1) with its labels. */
void wt_metrics_gpu(struct wt_metrics *m, int i, const struct wt_gpu_labels *l);
/* Updates a GPU's owner labels (they change with the jobs). */
void wt_metrics_owner(struct wt_metrics *m, int i, const struct wt_gpu_labels *l);
/* A classified window: its result (class, confidence, the tamper features),
 * the declaration (WT_CLASS_NONE: none), the verdict against it (ignored
 * without one) and where the declaration came from (a name of
 * wt_declared_source_name: "command-line", "policy", "policy-default",
 * "process", or "conflict" when the processes disagreed and none was taken;
 * NULL or another string: not shown). */
void wt_metrics_window(struct wt_metrics *m, int i, const struct wt_result *r,
                       enum wt_class declared, enum wt_verdict verdict, const char *declared_by);
/* wt_metrics_owner (owner NULL: the labels kept), wt_metrics_window and, when
 * owner_changed, wt_metrics_owner_changed as one update: a scrape sees the
 * window with the owner it belongs to (between separate calls, a new owner's
 * labels could be shown with the previous owner's class and verdict). */
void wt_metrics_owned_window(struct wt_metrics *m, int i, const struct wt_gpu_labels *owner,
                             const struct wt_result *r, enum wt_class declared,
                             enum wt_verdict verdict, const char *declared_by, int owner_changed);
void wt_metrics_samples(struct wt_metrics *m, int i, unsigned long long n, int read_error);
/* Counts a window of GPU i whose owner or declared type changed while it was
 * sampled (its verdict is INCONCLUSIVE); the count is per GPU, not per owner,
 * so a job that keeps changing hands shows. */
void wt_metrics_owner_changed(struct wt_metrics *m, int i);
/* GPU i failed (it fell off the bus, its trace broke): its class, confidence,
 * declaration, mismatch and tamper gauges go (they would repeat its last
 * window for ever) and workloadtruth_gpu_failed says 1. */
void wt_metrics_gpu_failed(struct wt_metrics *m, int i);
/* GPU i has no more windows (its part of a replayed trace ended while other
 * GPUs' go on): its class, confidence, declaration, mismatch and tamper
 * gauges go, as for a failed GPU, but workloadtruth_gpu_failed stays 0. */
void wt_metrics_gpu_ended(struct wt_metrics *m, int i);
/* appends, errors and dropped are totals since the start; dropped: records
 * lost because the writer fell behind (the queue overflowed). */
void wt_metrics_audit(struct wt_metrics *m, unsigned long long appends, unsigned long long errors,
                      unsigned long long dropped, int checkpointed);
/* A whole-log verification by the running agent concluded: the log is
 * damaged (verify-log would exit 1) or not (workloadtruth_audit_log_damaged
 * 1 or 0, with the time). */
void wt_metrics_audit_verified(struct wt_metrics *m, int damaged);
/* The agent is stopping: `workloadtruth_up` becomes 0. */
void wt_metrics_stop(struct wt_metrics *m);
/* Counts a scrape of the HTTP exporter (a textfile write is not one). */
void wt_metrics_scraped(struct wt_metrics *m);

/* The exposition (text format 0.0.4), malloc'd; *len without the NUL.  An
 * owner's workloadtruth_gpu_classifications_total series shows 0 for
 * m->counter_hold_s seconds after it first appeared, its count from then
 * on (and in a stopped agent's exposition): a counter first seen at its
 * count would lose those windows to increase(), which counts the increases
 * it sees (a new job's first window was never counted).  A hold in time, not
 * in expositions, so that every reader (Prometheus over HTTP, the textfile
 * collector, each of an HA pair, the one after a scrape that failed) can see
 * the 0 once its scrape interval is shorter than the hold. */
char *wt_metrics_render(struct wt_metrics *m, size_t *len);

/* Writes DIR/workloadtruth.prom atomically for readers (tmp file, rename;
 * not fsync'ed: see metrics.c).  One writer per DIR: watch holds a lock. */
int wt_metrics_write_textfile(struct wt_metrics *m, const char *dir,
                              struct wt_err *err) WT_WARN_UNUSED;

/* Escapes a label value (\\, \", \n) into out (cap bytes, truncated at a UTF-8
 * boundary); other control bytes and invalid UTF-8 become '?'. */
void wt_metrics_escape(const char *in, char *out, size_t cap);

#endif
