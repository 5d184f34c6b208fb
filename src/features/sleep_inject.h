/* Sleep injection applied to a recorded trace: what the same training job
 * would have looked like had its owner made it sleep part of the time to look
 * like inference (the simulator's `duty-fixed` and `duty-random` evasion
 * families, on real telemetry instead of simulated).  `eval
 * --evasion-family` uses it to measure how the classifiers stand up to that
 * evasion on real training traces.
 *
 * The whole job sleeps at once (every GPU of the host, as the simulator's
 * data-parallel job does): from the first to the last TRAINING-labelled
 * sample of the file, runs of recorded samples alternate with inserted
 * sleeps, which push every later sample back by their length.  A fixed
 * schedule runs period x (1 - asleep) seconds, then sleeps period x asleep;
 * a random one draws both lengths from exponentials with those means.  An
 * inserted sample copies the GPU's last recorded one (memory held, limits,
 * temperature, process count, label) with the GPU's idle readings: the
 * median of its IDLE-labelled samples for power, clocks, utilization and
 * PCIe (when at least 5 are measured), else 0 for utilization and PCIe and
 * the lowest recorded value for power and clocks; throttle reasons say
 * "GPU idle"; the energy counter counts each sleep's length at the idle
 * power.  A sleep of L seconds is floor(L / dt + u) readings (u uniform per
 * sleep): L / dt on average, as a poll with a random phase sees it.  With
 * 1-second-averaged power, each reading holds the share of the second before
 * it spent asleep at the idle power and the rest at the recorded power.
 *
 * What it is not: a model of the board.  Temperature does not cool, the
 * utilization counter's own averaging is not redone, and an idle GPU with a
 * context is taken to draw what the trace's idle GPU drew (often without
 * one).  Families that change how the job runs (power caps, clock locks,
 * fake passes) need the simulator, not a recording.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_SLEEP_INJECT_H
#define WT_SLEEP_INJECT_H

#include <stddef.h>
#include <stdint.h>

#include "telemetry/sample.h"
#include "util/err.h"

#define WT_SLEEP_MAX_ASLEEP 0.95               /* more would stretch a trace 20-fold and beyond */
#define WT_SLEEP_MAX_SAMPLES ((size_t)1 << 24) /* output limit per file, all GPUs */
/* and at most this many times the file's own samples, plus WT_SLEEP_SLACK:
 * a trace recorded without gaps grows at most 1 / (1 - 0.95) = 20-fold on
 * average; a few rows around a long gap (12 rows spanning 8000 s: 15 million
 * samples, 2.1 GB) would otherwise be filled with sleeps up to the limit */
#define WT_SLEEP_MAX_GROWTH 32
#define WT_SLEEP_SLACK ((size_t)1 << 16)

struct wt_sleep_opts {
    double asleep;      /* mean share of the time asleep, 0 .. WT_SLEEP_MAX_ASLEEP */
    double period_s;    /* mean run + sleep cycle (the simulator's 4 s) */
    int random;         /* exponential run and sleep lengths instead of fixed ones */
    int avg1s;          /* power is 1-second-averaged: ramp it at the edges */
    uint64_t seed;      /* random schedule */
    size_t max_samples; /* output limit, all GPUs (0: WT_SLEEP_MAX_SAMPLES) */
};

/* Transforms the ngpus streams of one file (s[i] with n[i] samples each,
 * time-ordered, malloc'd) in place: each s[i] may be reallocated.  A file
 * without TRAINING samples, or asleep 0, is unchanged.  Fails (leaving the
 * streams unchanged) when the result would exceed its sample limit (also
 * WT_SLEEP_MAX_GROWTH times its input plus WT_SLEEP_SLACK) or memory runs
 * out. */
int wt_sleep_inject(struct wt_sample **s, size_t *n, int ngpus, const struct wt_sleep_opts *o,
                    struct wt_err *err) WT_WARN_UNUSED;

#endif
