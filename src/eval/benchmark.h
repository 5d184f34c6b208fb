/* Benchmarks on synthetic telemetry.
 *
 * `seed`: the Python tool's suite (3 profiles x clean/evasion, `trials`
 * windows of `window` samples per cell), with its JSON shape.  `sim`: every
 * simulator profile, clean.  `evasion`: every evasion family of the simulator
 * at several strengths, applied to dense training, with the accuracy and the
 * throughput an evader gives up (1 - useful work with evasion / without).
 * `board`: the serving profiles under the board settings an operator also
 * applies to serving GPUs (power cap, clock lock), at each one's default
 * strength and at 1: a setting of the board is no evidence of training.
 * Deterministic: every trial's data comes from a sub-seed derived from (seed,
 * cell, trial).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_BENCHMARK_H
#define WT_BENCHMARK_H

#include <stdbool.h>
#include <stdint.h>

#include "classify/classifier.h"
#include "eval/trainset.h"

#define WT_BENCH_MAX_CELLS 128

struct wt_bench_cell {
    const char *profile;
    bool evasion;       /* seed suite: the Python transform; others: a family is set */
    const char *family; /* evasion family (NULL: none) */
    double strength;    /* NaN: not applicable */
    bool is_default;    /* the family's default strength */
    unsigned trials, correct;
    unsigned training;      /* sim suites: windows called TRAINING */
    double throughput_cost; /* evasion suite: share of useful work given up (NaN otherwise) */
    enum wt_class truth;
};

struct wt_bench_report {
    const char *suite;
    const char *classifier;
    unsigned window, trials;    /* seed suite: window in samples */
    double window_s, sample_hz; /* sim and evasion suites */
    uint64_t seed;
    const char
        *model; /* the physics model file scored (NULL: the built-in one); set by the caller */
    const char
        *holdout; /* "family": each family scored by a model trained without it (NULL: none) */
    const struct wt_train_config *train; /* with holdout: how those models were trained */
    struct wt_bench_cell cells[WT_BENCH_MAX_CELLS];
    unsigned ncells;
};

int wt_benchmark_seed(const struct wt_classifier *c, unsigned trials, unsigned window,
                      uint64_t seed, struct wt_bench_report *out,
                      struct wt_err *err) WT_WARN_UNUSED;
/* Sets *out to the classifier for the cells of one evasion family (leave-
 * one-family-out: a model trained without that family).  family is NULL for
 * the clean profiles of suite "sim".  Returns WT_OK or an error code. */
typedef int (*wt_bench_pick_fn)(void *ctx, const char *family, const struct wt_classifier **out,
                                struct wt_err *err);

/* Each simulated window starts at a random offset into its run, at most this
 * many seconds in: the simulator steps through it whatever the sample rate. */
#define WT_BENCH_SIM_MAX_OFFSET_S 330.0

/* suite "sim", "evasion" or "board"; window_s seconds at sample_hz.  pick (may be
 * NULL) chooses a classifier per family instead of c. */
int wt_benchmark_sim(const struct wt_classifier *c, const char *suite, unsigned trials,
                     double window_s, double sample_hz, uint64_t seed, wt_bench_pick_fn pick,
                     void *pick_ctx, struct wt_bench_report *out,
                     struct wt_err *err) WT_WARN_UNUSED;
/* Accuracy over the clean (evasion = false) or evasion cells. */
double wt_bench_accuracy(const struct wt_bench_report *r, bool evasion);
/* Accuracy over the evasion cells at their family's default strength. */
double wt_bench_default_accuracy(const struct wt_bench_report *r);

#endif
