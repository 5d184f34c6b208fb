/* A physically grounded telemetry simulator: training, inference and idle
 * workloads on a modelled GPU, with the evasion techniques a job owner might
 * use to hide training, each with a strength knob.
 *
 * It produces every column of the trace format at a chosen rate, from a
 * small state machine per workload (training steps with forward/backward,
 * optimizer and communication phases and checkpoint pauses; request-driven
 * inference with prefill and memory-bound decode; idle), and a model of the
 * board (rated power, idle power, power limit and SW power cap, clocks,
 * memory, energy counter, instantaneous or 1-second-averaged power).  Every
 * parameter and its source is documented in docs/simulator.md.  It is a
 * test-and-benchmark tool: deterministic for a seed, not a claim about any
 * particular real job.  The `synthetic` source serves it for profile names
 * other than the Python tool's three.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_SIMULATE_H
#define WT_SIMULATE_H

#include <stddef.h>
#include <stdint.h>

#include "telemetry/sample.h"
#include "util/err.h"

/* duty-fixed / duty-random: mean run + sleep cycle (also used by `eval
 * --evasion-family`, which injects the same sleeps into recorded training) */
#define WT_SIM_DUTY_PERIOD_S 4.0
/* ... and the most of it asleep: at strength 1 the job still runs 5 % of the
 * time (0.2 s of every 4 s), so the family stays a training job that hides,
 * not a GPU that only holds memory; `eval --evasion-family` has the same bound */
#define WT_SIM_DUTY_MAX_ASLEEP 0.95

struct wt_sim_config {
    const char *profile;         /* a name from wt_sim_profiles() */
    const char *evasion;         /* NULL or "none", or a name from wt_sim_evasions() */
    double strength;             /* 0..1; negative: the family's default strength */
    const char *gpu;             /* "h100" (default), "h200", "a100", "l40s", "v100" */
    double sample_hz;            /* samples per second (default 10) */
    const char *power_semantics; /* "instant" (default) or "avg1s" */
    unsigned gpus;               /* GPUs on the host (default 1; 4 for "migration") */
    int randomize;               /* draw the run's nuisance parameters (step time, jitter,
                                  * NVML averaging period, decode memory share, ...) from
                                  * ranges around the profile's: domain randomization */
    uint64_t seed;
};

struct wt_sim_profile_info {
    const char *name;
    enum wt_class cls; /* ground truth of the workload */
    const char *description;
};

struct wt_sim_evasion_info {
    const char *name;
    double default_strength;
    const char *description; /* what the knob does at strength 0 and 1 */
    /* 1: a setting of the board (enforced power limit, locked clocks), which
     * operators also apply to serving and idle GPUs: allowed with any
     * profile; 0: a change of the training job, training profiles only */
    int board;
};

/* Tables (n set to their length). */
const struct wt_sim_profile_info *wt_sim_profiles(size_t *n);
const struct wt_sim_evasion_info *wt_sim_evasions(size_t *n);
const struct wt_sim_profile_info *wt_sim_profile_find(const char *name);
const struct wt_sim_evasion_info *wt_sim_evasion_find(const char *name);

struct wt_sim;

int wt_sim_open(struct wt_sim **out, const struct wt_sim_config *c,
                struct wt_err *err) WT_WARN_UNUSED;
/* Number of GPUs simulated. */
unsigned wt_sim_gpus(const struct wt_sim *s);
/* The next sample of GPU gpu (t_s advances by 1 / sample_hz per call per GPU;
 * label = the profile's class). */
void wt_sim_next(struct wt_sim *s, unsigned gpu, struct wt_sample *out);
/* NVML-style device name of the modelled GPU, and its power semantics. */
const char *wt_sim_gpu_model(const struct wt_sim *s);
const char *wt_sim_power_semantics(const struct wt_sim *s);
/* The modelled GPU's memory (MiB), its power limit in force (lowered under
 * the power-cap evasion) and its default power limit (W), as every sample
 * reports them. */
void wt_sim_limits(const struct wt_sim *s, double *mem_total_mib, double *power_limit_w,
                   double *power_default_limit_w);
/* Useful work done so far, in training steps (or requests served) summed over
 * GPUs: the evasion benchmark compares it with the same profile without
 * evasion to report the throughput an evader gives up. */
double wt_sim_work_done(const struct wt_sim *s);
void wt_sim_close(struct wt_sim *s);

#endif
