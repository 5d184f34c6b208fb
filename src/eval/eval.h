/* Evaluation harness: scores a classifier on labelled traces.
 *
 * Each trace is cut into windows of W seconds per GPU (window.h); a window is
 * scored when >= 80% of its rows carry one label (the trace format's rule),
 * skipped as "unlabelled" otherwise, and skipped as "short" when it holds
 * fewer than the classifier's minimum samples or spans less than half of W
 * (the ragged end of a stream, or a gap in the data).  Results are kept per
 * file with a confusion matrix, so overall, per-class, per-source (parent
 * directory) and per-file accuracy all come from the same counts.  All
 * accuracy claims in the README come from this module via `workloadtruth eval`.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_EVAL_H
#define WT_EVAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "classify/classifier.h"
#include "eval/dataset.h"
#include "eval/trainset.h"
#include "telemetry/trace_reader.h"

#define WT_NPRED 4 /* predicted: TRAINING, INFERENCE, IDLE, UNKNOWN */

struct wt_eval_opts {
    double window_s;
    const struct wt_classifier *clf;
    struct wt_trace_opts trace_opts;
    double resample_hz;                    /* 0: the traces' native rate */
    uint32_t columns;                      /* kept columns (bit per enum wt_col); 0: all */
    FILE *dump;                            /* if set: one CSV row of features per scored window */
    const enum wt_feature *train_features; /* --holdout: model features (NULL: default) */
    size_t train_nfeatures;
    int train_sim;      /* --holdout: simulator windows per cell (-1: the default) */
    int train_py;       /* --holdout: Python-profile windows per cell (-1: the default) */
    int group_by_model; /* report rows per GPU model instead of per source */
    int train_alone;    /* --holdout: learn multi-GPU windows without peers too (-1: default) */
    int train_depth;    /* --holdout: tree depth (0: the default) */
    int train_rounds;   /* --holdout: boosting rounds (0: the default) */
    int train_retime;   /* --holdout: learn native-rate trace windows retimed (0: no) */
    uint64_t train_sim_seed; /* --holdout: mixed into the simulator windows' seeds (0: shipped) */
    double train_sim_weight; /* --holdout: the simulator windows' weight factor (0: the default) */
    int train_missing_stop;  /* --holdout: wt_train_opts.missing_stop */
    const struct wt_sleep_opts *sleep; /* sleeps injected into scored training (NULL: none);
                                        * --holdout still trains on the traces as recorded */
    int alone;     /* score each GPU without its file's other GPUs as peers (--peers none) */
    int all_peers; /* ... with all of them, whatever the owners column says (--peers all) */
};

struct wt_eval_counts {
    size_t scored, correct;
    size_t skipped_unlabelled, skipped_short;
    size_t skipped_no_label; /* of the unlabelled: windows without one labelled row */
    size_t confusion[WT_NCLASSES][WT_NPRED]; /* [truth][predicted] */
};

struct wt_eval_file {
    char *path;
    char *group; /* parent directory name: the trace's source */
    char gpu_model[96];
    struct wt_eval_counts c;
    /* a scored window had power but nothing to scale it by: no power_limit_w
     * and a GPU model the rated-power table does not know (its power features
     * are not measured: docs/classifier.md) */
    int no_power_scale;
};

struct wt_eval_report {
    double window_s;
    const char *classifier; /* name shown in the report */
    struct wt_eval_file *files;
    size_t nfiles, cap;
    /* CSV files met while walking directories that are not traces, and copies of
     * a trace read before (each read once) */
    struct wt_ds_skips skipped_files;
    int classifier_owned; /* classifier name was malloc'd */
    const char *model;    /* --model FILE, or NULL (the shipped model, or rules) */
    const char *evasion;  /* sleep-injection family applied to training, or NULL */
    double evasion_strength;
    int alone;     /* scored without peers (--peers none) */
    int all_peers; /* scored with every GPU of a file as a peer (--peers all) */
    /* --holdout: how each fold's model was trained (its features point into
     * the caller's wt_eval_opts.train_features, or are NULL: the physics set) */
    struct wt_train_config train;
    int trained;
    const char *holdout;    /* "source" or "gpu_model" (--holdout), NULL: the model as given */
    struct wt_ds_seen seen; /* files read so far: each is scored once */
};

void wt_eval_init(struct wt_eval_report *rep, const struct wt_eval_opts *o);
/* Adds a file, or every *.csv below a directory (sorted, recursive).  CSV
 * files found in directories that are not traces (no trace header), and
 * copies of a trace already read, are listed in skipped_files; any other error
 * stops and is returned. */
int wt_eval_add_path(struct wt_eval_report *rep, const char *path, const struct wt_eval_opts *o,
                     struct wt_err *err) WT_WARN_UNUSED;
/* Leave-one-group-out: for each distinct source (by = "source", the parent
 * directory) or GPU model (by = "gpu_model") among the traces under paths,
 * trains the physics model on every other group and scores that group's
 * traces with it, so no window is scored by a model fitted on its trace.
 * o->clf must be the physics classifier.  No trace: WT_OK with rep->nfiles 0,
 * before anything is simulated; no labelled active window, or a fold whose
 * model grows no tree: an error; a fold without real windows of a class: a
 * warning on standard error. */
int wt_eval_holdout(struct wt_eval_report *rep, const char *const *paths, int npaths,
                    const struct wt_eval_opts *o, const char *by,
                    struct wt_err *err) WT_WARN_UNUSED;
/* Sums every file's counts. */
void wt_eval_total(const struct wt_eval_report *rep, struct wt_eval_counts *tot);
void wt_eval_add_counts(struct wt_eval_counts *dst, const struct wt_eval_counts *src);
/* Writes s as one quoted CSV field ("" doubles a quote). */
void wt_csv_text(FILE *f, const char *s);
/* The header line of the --dump-features CSV (wt_eval_opts.dump's rows). */
void wt_eval_dump_header(FILE *f);
/* Accuracy of windows whose truth is cls (NaN when none). */
double wt_eval_class_accuracy(const struct wt_eval_counts *c, enum wt_class cls);

/* The GPU family of a device name, as --holdout gpu_model groups them: the
 * vendor and brand words dropped ("NVIDIA H100 80GB HBM3" -> "H100", "Tesla
 * V100-SXM2-32GB" -> "V100", "NVIDIA GeForce RTX 4090" -> "RTX 4090"). */
void wt_eval_gpu_family(const char *model, char *out, size_t cap);
size_t wt_eval_class_total(const struct wt_eval_counts *c, enum wt_class cls);

/* INFERENCE and IDLE windows called TRAINING (*called) of all INFERENCE and
 * IDLE windows (*of): the README's "non-training called TRAINING". */
void wt_eval_false_training(const struct wt_eval_counts *c, size_t *called, size_t *of);
void wt_eval_free(struct wt_eval_report *rep);

#endif
