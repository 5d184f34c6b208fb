/* The training set of the physics model: every scored, active (not IDLE by
 * the rule), TRAINING or INFERENCE window of the given traces, seen through
 * several "views" that model how deployments observe GPUs: the traces'
 * native rate and 1 Hz polling, all columns and power only.  Each window
 * keeps the index of its file so callers can hold out whole traces, sources
 * or GPU models (never a window of a trace used for fitting).  For measuring,
 * the native-rate windows can be learnt retimed (another poller's clock) and
 * the simulator's windows drawn with another seed (train --retime, --sim-seed).
 *
 * Weights balance the classes, and within a class give each source
 * (directory) a weight growing with the square root of its window count, so
 * no single large source dominates.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_TRAINSET_H
#define WT_TRAINSET_H

#include <stddef.h>
#include <stdint.h>

#include "classify/model.h"
#include "eval/dataset.h"

struct wt_trainset_file {
    char *path, *group, *gpu_model;
    int builtin; /* the simulator's or the Python tool's generated windows, not a
                  * trace file (whatever its group is named) */
};

#define WT_TRAINSET_VIEWS 7 /* native and 1 Hz x all columns, util + power, power only; 0.2 Hz */
#define WT_TRAINSET_SIM_MAX_WINDOW_S 360 /* the longest simulated training window, seconds */

struct wt_trainset {
    int alone_views; /* set by wt_trainset_add from the config */
    int retime;      /* likewise */
    size_t n, cap;
    struct wt_features *x;
    unsigned char *y;
    int *file;
    struct wt_trainset_file *files;
    size_t nfiles, fcap;
    double window_s;
    struct wt_ds_seen seen[WT_TRAINSET_VIEWS]; /* per view: files read, each learnt once */
    struct wt_ds_skips skipped_files;          /* not traces, and copies: learnt from once */
};

struct wt_train_config {
    double window_s;
    int rounds, depth;
    double learning_rate, lambda, min_child;
    int nthresholds;
    unsigned sim_per_cell;           /* simulator windows per cell (0: none) */
    double sim_weight;               /* the simulator's windows' weight, times (see fit) */
    unsigned py_per_cell;            /* Python-profile windows per cell (0: none) */
    int alone_views;                 /* also learn each multi-GPU window without its peers */
    int retime;                      /* learn native-rate trace windows retimed (see .c) */
    uint64_t sim_seed;               /* mixed into the simulator windows' seeds (0: shipped) */
    int missing_stop;                /* wt_train_opts.missing_stop (0: shipped) */
    const enum wt_feature *features; /* NULL: wt_physics_model_features */
    size_t nfeatures;
    struct wt_trace_opts trace_opts; /* nvidia-smi CSV: rows per tick, seconds per tick */
};

/* The seed the training's Python-profile windows are drawn with (mixed with
 * each cell and trial as benchmark's seed suite mixes --seed): benchmark
 * refuses it as its --seed, which would score the training windows. */
#define WT_TRAINSET_PY_SEED (0x7ea1a5eedULL ^ 0x5059ULL)

/* The settings that made models/physics.model (documented in docs/classifier.md). */
extern const struct wt_train_config wt_train_default;

/* Writes c as the options of `workloadtruth train` that make it, to buf (cap
 * bytes): --window, --rounds, --depth, --simulate, --sim-weight,
 * --python-windows and --alone-views always; then --features (its comma-separated list when
 * list_features, else "(listed below)"), only when c names features; then
 * --retime, --sim-seed, --missing, --gpus-per-tick and --interval, each only
 * when not the default (so the shipped model's line stays as it was).  Learning
 * rate, lambda, min_child and thresholds have no option and are not written.
 * Returns 0, or -1 when cap is too small (buf then holds a cut string). */
int wt_train_config_args(const struct wt_train_config *c, int list_features, char *buf, size_t cap);

/* Adds path (file or directory) to ts in every view. */
int wt_trainset_add(struct wt_trainset *ts, const char *path, const struct wt_train_config *c,
                    struct wt_err *err) WT_WARN_UNUSED;
/* Adds simulated windows (telemetry/simulate.h): per_cell windows of every
 * simulator profile and of dense training under every evasion family at
 * strengths 0.25, 0.5, 0.75 and 1, on alternating GPU models and power
 * semantics, in the same views, as the pseudo-source "simulator".  Seeds are
 * disjoint from the benchmark's. */
int wt_trainset_add_sim(struct wt_trainset *ts, unsigned per_cell, const struct wt_train_config *c,
                        struct wt_err *err) WT_WARN_UNUSED;
/* The evasion family of a file added by wt_trainset_add_sim, copied to fam
 * (cap bytes): 1, or 0 when the file is not an evasion cell (for
 * leave-one-family-out evaluation, which masks those files out). */
int wt_trainset_sim_family(const struct wt_trainset_file *f, char *fam, size_t cap);
/* Adds windows of the Python tool's synthetic profiles (training, inference
 * and idle, clean and with its evasion transform): per_cell windows, alternately
 * of 10 and 30 samples at 1 Hz (its classify and benchmark lengths), as the pseudo-source
 * "python-synthetic".  Seeds are disjoint from the benchmark's. */
int wt_trainset_add_python(struct wt_trainset *ts, unsigned per_cell,
                           struct wt_err *err) WT_WARN_UNUSED;
/* Counts the windows of real trace files (not the generated ones) whose file's
 * `exclude` flag is 0 (exclude may be NULL), per class: n[0] INFERENCE, n[1]
 * TRAINING, every view counted.  A class at 0 is learnt from the simulator's
 * and the Python profiles' windows alone, which callers say. */
void wt_trainset_real_counts(const struct wt_trainset *ts, const unsigned char *exclude,
                             size_t n[2]);
/* Trains on the windows whose file's `exclude` flag is 0 (exclude may be NULL).
 * Weights: the two classes weigh the same; within a class each source's
 * windows share a weight that grows with the square root of their number, the
 * simulator's times c->sim_weight (docs/evaluation.md item 30). */
int wt_trainset_fit(const struct wt_trainset *ts, const unsigned char *exclude,
                    const struct wt_train_config *c, struct wt_model *out,
                    struct wt_err *err) WT_WARN_UNUSED;
void wt_trainset_free(struct wt_trainset *ts);

#endif
