/* The windowed feature vector: every named feature any classifier uses,
 * computed once per window.
 *
 * One struct for the whole project (CLI, eval, MCP and exporters print the
 * same values); a feature that cannot be computed because its columns are not
 * measured is NaN, shown as null in JSON.  Classifiers pick the features they
 * use and expose (see classify/classifier.h).  Feature names are stable: they
 * appear in JSON output and in model files.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef WT_FEATURES_H
#define WT_FEATURES_H

#include "features/window.h"

enum wt_feature {
    /* the Python tool's six (names as in its JSON output) */
    WT_F_AVG_GPU_UTIL, /* avg_gpu_util_pct */
    WT_F_STD_GPU_UTIL, /* std_gpu_util_pct: sample standard deviation */
    WT_F_MEM_GROWTH,   /* mem_growth_mib_per_sample: least-squares slope */
    WT_F_AVG_POWER,    /* avg_power_watts */
    WT_F_STD_POWER,    /* std_power_watts */
    WT_F_AVG_PROCS,    /* avg_process_count */
    WT_NFEATURES
};

struct wt_features {
    double v[WT_NFEATURES]; /* NaN = cannot be computed from this window */
};

const char *wt_feature_name(enum wt_feature f);
/* Returns the feature named name, or -1. */
int wt_feature_lookup(const char *name);

void wt_features_compute(const struct wt_window *w, struct wt_features *f);

#endif
