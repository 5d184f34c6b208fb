/* Feature extraction (see features.h). */
#include "features/features.h"

#include <string.h>

#include "features/stats.h"

static const char *const names[WT_NFEATURES] = {
    [WT_F_AVG_GPU_UTIL] = "avg_gpu_util_pct",
    [WT_F_STD_GPU_UTIL] = "std_gpu_util_pct",
    [WT_F_MEM_GROWTH] = "mem_growth_mib_per_sample",
    [WT_F_AVG_POWER] = "avg_power_watts",
    [WT_F_STD_POWER] = "std_power_watts",
    [WT_F_AVG_PROCS] = "avg_process_count",
};

const char *wt_feature_name(enum wt_feature f)
{
    return (f >= 0 && f < WT_NFEATURES) ? names[f] : "?";
}

int wt_feature_lookup(const char *name)
{
    for (int i = 0; i < WT_NFEATURES; i++)
        if (!strcmp(names[i], name))
            return i;
    return -1;
}

void wt_features_compute(const struct wt_window *w, struct wt_features *f)
{
    const struct wt_sample *s = w->s;
    size_t n = w->n;
    f->v[WT_F_AVG_GPU_UTIL] = wt_stat_mean(s, n, WT_COL_UTIL_GPU);
    f->v[WT_F_STD_GPU_UTIL] = wt_stat_stdev(s, n, WT_COL_UTIL_GPU);
    f->v[WT_F_MEM_GROWTH] = wt_stat_slope_per_sample(s, n, WT_COL_MEM_USED);
    f->v[WT_F_AVG_POWER] = wt_stat_mean(s, n, WT_COL_POWER);
    f->v[WT_F_STD_POWER] = wt_stat_stdev(s, n, WT_COL_POWER);
    f->v[WT_F_AVG_PROCS] = wt_stat_mean(s, n, WT_COL_PROCS);
}
