/* The windowed feature vector: every named feature any classifier uses,
 * computed once per window.
 *
 * One struct for the whole project (CLI, eval, MCP and exporters print the
 * same values); a feature that cannot be computed because its columns are not
 * measured is NaN, shown as null in JSON.  Classifiers pick the features they
 * use and expose (see classify/classifier.h).  Feature names are stable: they
 * appear in JSON output and in model files.
 *
 * Beyond the Python tool's six level features, the set follows
 * ../shared/research/workload-physics.md: activity and duty cycle, iteration
 * cadence (autocorrelation), burst and gap structure, compute-boundedness
 * (power relative to the enforced limit or rated power, power cap bits, SM
 * clock), memory-bandwidth share, memory residency, energy per active second,
 * cross-GPU synchrony, and configuration anomalies (reported as tamper
 * indicators, not classes).  Everything is aware of the sample period; power
 * is put on the scale of the enforced limit, else the model's rated power
 * (features/gpu_models.h), never one card's watts.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_FEATURES_H
#define WT_FEATURES_H

#include "features/window.h"
#include "util/err.h"

enum wt_feature {
    /* the Python tool's six (names as in its JSON output) */
    WT_F_AVG_GPU_UTIL, /* avg_gpu_util_pct */
    WT_F_STD_GPU_UTIL, /* std_gpu_util_pct: sample standard deviation */
    WT_F_MEM_GROWTH,   /* mem_growth_mib_per_sample: least-squares slope */
    WT_F_AVG_POWER,    /* avg_power_watts */
    WT_F_STD_POWER,    /* std_power_watts */
    WT_F_AVG_PROCS,    /* avg_process_count */
    /* sampling context */
    WT_F_SAMPLE_PERIOD, /* sample_period_s: median interval between samples */
    WT_F_POWER_REF,     /* power_ref_w: enforced limit, else rated power of the model */
    /* activity */
    WT_F_DUTY,           /* duty: share of time active (util >= 5%, or power > 0.2 ref) */
    WT_F_UTIL_ACTIVE,    /* util_active_pct: mean utilization while active */
    WT_F_UTIL_ACTIVE_CV, /* util_active_cv: its coefficient of variation */
    /* power on the card's scale */
    WT_F_POWER_NORM,        /* power_norm: mean power / ref */
    WT_F_POWER_ACTIVE_NORM, /* power_active_norm: mean power while active / ref */
    WT_F_POWER_P95_NORM,    /* power_p95_norm */
    WT_F_POWER_CV,          /* power_cv: std / mean (scale-free) */
    WT_F_POWER_PER_UTIL,    /* power_per_util: power_active_norm / (util_active / 100) */
    /* cadence */
    WT_F_UTIL_ACF_PEAK, /* util_acf_peak: highest autocorrelation peak, lags 0.3 s .. 10 s */
    WT_F_UTIL_ACF_LAG,  /* util_acf_lag_s */
    /* active_acf_peak: util_acf_peak over active samples only (rhythm inside bursts) */
    WT_F_ACTIVE_ACF_PEAK,
    WT_F_POWER_ACF_PEAK, /* power_acf_peak */
    WT_F_POWER_ACF_LAG,  /* power_acf_lag_s */
    WT_F_SQUARE_WAVE,    /* square_wave: share of util variance explained by on/off */
    WT_F_POWER_JITTER,   /* power_jitter: mean |change| between samples while active / mean */
    WT_F_UTIL_JITTER,    /* util_jitter_pct: mean |change| of util between samples while active */
    WT_F_SPIN_FRAC,      /* spin_frac: active share at util >= 99% and power < 35% of ref */
    /* bursts */
    WT_F_ON_LEN,        /* on_len_s: mean length of active runs */
    WT_F_ON_LEN_CV,     /* on_len_cv */
    WT_F_GAP_LEN,       /* gap_len_s: mean idle gap between active runs */
    WT_F_BURST_RATE,    /* burst_rate_per_min: active runs per minute */
    WT_F_PEAK_POWER_ON, /* peak_power_on_norm: 95th percentile power while active / ref */
    /* memory */
    WT_F_MEMUTIL_RATIO, /* memutil_ratio: mean memory util / mean GPU util, while active */
    WT_F_MEM_FRAC,      /* mem_frac: mean memory used / total */
    WT_F_MEM_CV,        /* mem_cv: std / mean of memory used */
    WT_F_MEM_SLOPE,     /* mem_slope_frac_per_min: memory growth per minute / total */
    /* energy */
    WT_F_ENERGY_ACTIVE, /* energy_per_active_s_norm: energy / active seconds / ref */
    /* compute-boundedness and configuration */
    WT_F_SWCAP_FRAC,     /* swcap_frac: share of samples with the SW power cap bit */
    WT_F_PIN_AT_CAP,     /* pin_at_cap: share of active samples at >= 97% of the limit */
    WT_F_SM_CLOCK_RATIO, /* sm_clock_ratio: SM clock / max while active */
    WT_F_LIMIT_RATIO,    /* limit_ratio: enforced / default power limit (tamper indicator) */
    WT_F_CLOCKS_LOCKED,  /* clocks_locked: 1 when clocks look locked (tamper indicator) */
    /* cross-GPU */
    WT_F_PEER_SYNC, /* peer_sync: mean correlation with the host's other GPUs */
    WT_F_PEER_ANTI, /* peer_anti: lowest correlation with another GPU (migration) */
    WT_NFEATURES
};

struct wt_features {
    double v[WT_NFEATURES]; /* NaN = cannot be computed from this window */
};

/* Activity thresholds (shared with the classifiers' reasons). */
#define WT_ACTIVE_UTIL_PCT 5.0
#define WT_ACTIVE_POWER_NORM 0.2

const char *wt_feature_name(enum wt_feature f);
/* Returns the feature named name, or -1. */
int wt_feature_lookup(const char *name);

/* Parses "a,b,c" feature names into out (room for WT_NFEATURES). */
int wt_features_parse(const char *list, enum wt_feature *out, size_t *n, struct wt_err *err);

void wt_features_compute(const struct wt_window *w, struct wt_features *f);
/* The features of w (and its peers) as if the columns in drop (bit 1 << enum
 * wt_col) were not measured; every feature NaN when out of memory. */
void wt_features_compute_without(const struct wt_window *w, uint32_t drop, struct wt_features *f);
/* Only the Python tool's six (the rest NaN): what the rule classifier needs. */
void wt_features_compute_basic(const struct wt_window *w, struct wt_features *f);

#endif
