/* Classifiers: a window's features in, a class with confidence and reasons out.
 *
 * Every classifier implements struct wt_classifier and is listed in the table
 * in classifier.c; the first entry of wt_classifier_all() is the default, so a
 * new classifier becomes the default there without touching the CLI, eval,
 * MCP or exporters, which all go through wt_classify_window().  A classifier
 * says which features it exposes in output (the rule classifier exposes
 * exactly the Python tool's six).  Results are plain values: no allocation.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_CLASSIFIER_H
#define WT_CLASSIFIER_H

#include <stddef.h>

#include "features/features.h"
#include "features/window.h"
#include "util/err.h"

#define WT_MAX_REASONS 16
#define WT_REASON_LEN 320

/* One piece of evidence: a sentence plus the feature, value and the class it
 * pointed to (WT_CLASS_NONE for sentences that are not a single vote). */
struct wt_reason {
    char text[WT_REASON_LEN];
    int feature; /* enum wt_feature or -1 */
    double value;
    enum wt_class favours;
    double weight; /* model classifiers: the feature's log-odds credit (NaN otherwise) */
};

struct wt_classifier;
struct wt_model;

#define WT_MAX_TAMPER 4

struct wt_result {
    enum wt_class cls;
    double confidence; /* 0..1 */
    int gpu_index;
    double window_seconds; /* last - first sample time */
    size_t sample_count;
    struct wt_reason reasons[WT_MAX_REASONS];
    size_t nreasons;
    struct wt_features features;
    const struct wt_classifier *classifier;
    /* configuration anomalies (power limit below default, locked clocks):
     * reported as tamper indicators, never as a class */
    char tamper[WT_MAX_TAMPER][WT_REASON_LEN];
    size_t ntamper;
    double score; /* model classifiers: log-odds of TRAINING (NaN otherwise) */
    /* a job-level result (run.h): its windows' classes, counted, and the k of
     * its k-of-n rule (job_windows 0: one window) */
    size_t job_windows, job_k, job_count[WT_NCLASSES];
};

struct wt_classifier {
    const char *name;
    const char *description;
    const enum wt_feature *exposed; /* features shown in output, in order */
    size_t nexposed;
    size_t min_samples; /* fewer is an error, not a guess */
    int basic_features; /* needs only the Python tool's six features */
    /* > 0: a window longer than this is classified on its last max_seconds
     * (a model learnt from windows of that length; longer ones would put its
     * length-dependent features, such as on-phase length, out of range) */
    double max_seconds;
    /* Fills cls, confidence and reasons; the caller has set the rest. */
    int (*classify)(const struct wt_classifier *c, const struct wt_window *w,
                    const struct wt_features *f, struct wt_result *out, struct wt_err *err);
    /* Model-based classifiers: the model (NULL: the built-in one). */
    const struct wt_model *model;
};

/* The physics classifier says UNKNOWN for a window that covers less (its
 * span plus one sample period): eval and train refuse shorter windows. */
#define WT_PHYSICS_MIN_SECONDS 5.0

extern const struct wt_classifier wt_classifier_rules;
extern const struct wt_classifier wt_classifier_physics;

/* A copy of the physics classifier that uses model m (owned by the caller). */
struct wt_classifier wt_classifier_physics_with(const struct wt_model *m);
/* Appends the tamper indicators that features f show to out (a lowered
 * power limit, locked clocks, a software power cap), one per kind. */
void wt_physics_tamper(struct wt_result *out, const struct wt_features *f);
/* The physics classifier's IDLE rule (also used to pick training windows). */
int wt_physics_is_idle(const struct wt_features *f);
/* The features the physics model reads for window w whose features are full:
 * when power has a scale (a limit or a rated GPU model) and tells when the
 * GPU is active, those of w with utilization (GPU and memory) not measured,
 * computed into *pview; otherwise full itself (docs/classifier.md). */
const struct wt_features *wt_physics_model_view(const struct wt_window *w,
                                                const struct wt_features *full,
                                                struct wt_features *pview);
/* The features the physics model may use, and their count. */
extern const enum wt_feature wt_physics_model_features[];
extern const size_t wt_physics_model_nfeatures;

/* NULL-terminated; the first is the default. */
const struct wt_classifier *const *wt_classifier_all(void);
const struct wt_classifier *wt_classifier_default(void);
const struct wt_classifier *wt_classifier_find(const char *name);

/* Computes features and classifies one window.  Errors (too few samples)
 * leave *out with cls = WT_CLASS_UNKNOWN. */
int wt_classify_window(const struct wt_classifier *c, const struct wt_window *w,
                       struct wt_result *out, struct wt_err *err) WT_WARN_UNUSED;

/* Appends a reason (silently drops beyond WT_MAX_REASONS). */
void wt_result_add_reason(struct wt_result *r, int feature, double value, enum wt_class favours,
                          const char *fmt, ...) WT_PRINTF(5, 6);
/* The reason saying that other_jobs of the other GPUs (GPUs: "watched GPUs",
 * "GPUs of the trace") ran no process of this GPU's job and that cross-GPU
 * synchrony read only the npeers that did (none: read alone).  No reason
 * when other_jobs is 0. */
void wt_result_note_other_jobs(struct wt_result *r, size_t other_jobs, size_t npeers,
                               const char *gpus);

#endif
