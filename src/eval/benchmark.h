/* The seed benchmark: the Python tool's suite (3 synthetic profiles x
 * clean/evasion, `trials` windows of `window` samples per cell), scored with
 * any classifier.  Unlike the Python tool it is deterministic: every trial's
 * samples come from a sub-seed derived from (seed, cell, trial).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_BENCHMARK_H
#define WT_BENCHMARK_H

#include <stdbool.h>
#include <stdint.h>

#include "classify/classifier.h"

#define WT_BENCH_MAX_CELLS 64

struct wt_bench_cell {
    const char *profile;
    bool evasion;
    unsigned trials, correct;
};

struct wt_bench_report {
    const char *suite;
    const char *classifier;
    unsigned window, trials;
    uint64_t seed;
    struct wt_bench_cell cells[WT_BENCH_MAX_CELLS];
    unsigned ncells;
};

int wt_benchmark_seed(const struct wt_classifier *c, unsigned trials, unsigned window,
                      uint64_t seed, struct wt_bench_report *out,
                      struct wt_err *err) WT_WARN_UNUSED;
/* Accuracy over the clean (evasion = false) or evasion cells. */
double wt_bench_accuracy(const struct wt_bench_report *r, bool evasion);

#endif
